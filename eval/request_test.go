package eval

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRLMRequestWording: the request's words are what the built-in model
// was trained on (training/rl asks as evaluation does), for one attached
// context, several, and a context sent inline on either side of the
// question.
func TestRLMRequestWording(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ctx.txt")
	if err := os.WriteFile(path, []byte("DOC"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		inst  Instance
		msg   string
		names []string
	}{
		{"one", Instance{Question: "Q?"}, "Q?\n\nThe text this question is about is the attached document context.txt.", []string{"context.txt"}},
		{"three", Instance{Question: "Q?", Documents: []string{"b", "c"}}, "Q?\n\nThe text this question is about is in the 3 attached documents.",
			[]string{"context1.txt", "context2.txt", "context3.txt"}},
		{"inline last", Instance{Question: "Q?", Inline: InlineQuestionLast}, "DOC\n\nQ?", nil},
		{"inline first", Instance{Question: "Q?", Inline: InlineQuestionFirst}, "Q?\n\nDOC", nil},
	} {
		req, err := RLMRequest(tc.inst, path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(req.Messages) != 1 || req.Messages[0].Content != tc.msg {
			t.Errorf("%s: messages %+v, want one: %q", tc.name, req.Messages, tc.msg)
		}
		var names []string
		for _, d := range req.Documents {
			names = append(names, d.Name)
		}
		if !slices.Equal(names, tc.names) {
			t.Errorf("%s: documents %v, want %v", tc.name, names, tc.names)
		}
	}
}
