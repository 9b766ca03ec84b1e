package recursion

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// TestCountChars checks the word-at-a-time count against the byte
// by byte rule (every byte that is not a continuation byte) on ASCII,
// multi-byte text, invalid UTF-8 and random bytes of lengths 0 to 99, on
// both sides of the 32-byte blocks it reads.
func TestCountChars(t *testing.T) {
	naive := func(s string) int {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i]&0xC0 != 0x80 {
				n++
			}
		}
		return n
	}
	inputs := []string{"", "a", "abcdefg", "abcdefgh", "abcdefghi", "héllo wörld, ça va? 日本語のテキスト 🎉🎉", "\x80\x80\xbf\xc3", "\xff\xfe" + strings.Repeat("é", 9)}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		b := make([]byte, r.IntN(100))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		if got, want := countChars(s), naive(s); got != want {
			t.Errorf("countChars(%q) = %d, want %d", s, got, want)
		}
		if got, want := countChars([]byte(s)), naive(s); got != want {
			t.Errorf("countChars([]byte(%q)) = %d, want %d", s, got, want)
		}
		if utf8.ValidString(s) && countChars(s) != utf8.RuneCountInString(s) {
			t.Errorf("countChars(%q) = %d runes, utf8 says %d", s, countChars(s), utf8.RuneCountInString(s))
		}
	}
}

func TestLongerThan(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want bool
	}{
		{"", 0, false},
		{"abc", 3, false},
		{"abcd", 3, true},
		{"ééé", 3, false}, // 6 bytes, 3 characters
		{"éééé", 3, true},
		{"🎉🎉🎉", 3, false}, // 12 bytes: the most 3 characters can take
		{"🎉🎉🎉a", 3, true},
		{strings.Repeat("x", 1_000_000), 100_000, true},
	}
	for _, tt := range tests {
		if got := longerThan(tt.s, tt.n); got != tt.want {
			t.Errorf("longerThan(%q, %d) = %v, want %v", tt.s, tt.n, got, tt.want)
		}
	}
}

// conversation is n messages of size characters each, alternating user and
// assistant, after a system message, and then the question.
func conversation(n, size int, question string) []llm.Message {
	msgs := []llm.Message{{Role: "system", Content: "Answer in French."}}
	for i := range n {
		role := []string{"user", "assistant"}[i%2]
		msgs = append(msgs, llm.Message{Role: role, Content: fmt.Sprintf("%05d ", i) + strings.Repeat("w", size-6)})
	}
	return append(msgs, llm.Message{Role: "user", Content: question})
}

// TestTranscriptOffload: messages each under the offload threshold but
// together over the view limit (too long for the model's window) go into
// the context as one transcript piece, written as the view would show
// them; the leading system message and the last messages, the question
// among them, stay in view, and the question is the REPL's query. Under
// the limit nothing changes.
func TestTranscriptOffload(t *testing.T) {
	const question = "Which message mentions 01999?"
	msgs := conversation(2000, 1000, question)
	off, err := offload(t.TempDir(), msgs, nil, 16_000, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(off.File.Path)
	head, tail := transcriptSpan(msgs, 16_000, 100_000)
	if head != 1 || tail < len(msgs)-60 || tail > len(msgs)-40 {
		t.Errorf("span [%d, %d) of %d; want the system message and ~50 last messages (half the view) kept out", head, tail, len(msgs))
	}
	if len(off.View) > 100_000 {
		t.Errorf("view of %d characters, over the limit of 100,000", len(off.View))
	}
	placeholder := fmt.Sprintf("[system]\nAnswer in French.\n\n[conversation]\n[offloaded: contexts[0], messages 2-%d of the conversation", tail)
	if !strings.HasPrefix(off.View, placeholder) || !strings.HasSuffix(off.View, "[user]\n"+question) ||
		!strings.Contains(off.View, fmt.Sprintf("[assistant]\n%05d ", tail-1)) {
		t.Errorf("view:\n%.600s\n...\n%s", off.View, off.View[max(0, len(off.View)-200):])
	}
	if off.Query != question {
		t.Errorf("query %q", off.Query)
	}
	b, err := os.ReadFile(off.File.Path)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i, m := range msgs[head:tail] {
		if i > 0 {
			want.WriteString("\n\n")
		}
		fmt.Fprintf(&want, "[%s]\n%s", m.Role, m.Content)
	}
	if len(off.Pieces) != 1 || string(b) != want.String() || off.Pieces[0].Chars != want.Len() {
		t.Errorf("%d pieces, context of %d bytes; want one piece of %d", len(off.Pieces), len(b), want.Len())
	}

	// Under the limit, or without one, the rule is unchanged.
	for _, limit := range []int{0, 10_000_000} {
		off, err := offload(t.TempDir(), msgs, nil, 16_000, limit)
		if err != nil {
			t.Fatal(err)
		}
		if off.File != nil || len(off.Pieces) != 0 || !strings.Contains(off.View, "[assistant]\n01999 ") {
			t.Errorf("limit %d: %d pieces; want the whole conversation in view", limit, len(off.Pieces))
		}
	}
}

// TestTranscriptKeepsLongMessagesApart: a long message inside the span is
// in the transcript whole; a long last message is kept out of it and
// offloaded on its own, as it was without the view limit.
func TestTranscriptKeepsLongMessagesApart(t *testing.T) {
	long := strings.Repeat("L", 20_000)
	msgs := conversation(300, 500, "q?")
	msgs = append(msgs[:100], append([]llm.Message{{Role: "user", Content: long}}, msgs[100:]...)...)
	msgs = append(msgs, llm.Message{Role: "user", Content: "the document: " + long})
	off, err := offload(t.TempDir(), msgs, nil, 16_000, 20_000)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(off.File.Path)
	_, tail := transcriptSpan(msgs, 16_000, 20_000)
	if len(off.Pieces) != 2 || off.Pieces[0].Chars < 200*500+20_000 || off.Pieces[1].Label != fmt.Sprintf("message %d (user)", len(msgs)) ||
		off.Query != "" || !strings.Contains(off.View, "[user]\nq?") || tail >= len(msgs)-2 {
		t.Errorf("pieces %+v, query %q, span ends at %d of %d; want the transcript, then the long last message", off.Pieces, off.Query, tail, len(msgs))
	}
	if len(off.View) > 20_000 {
		t.Errorf("view of %d characters", len(off.View))
	}
}

// TestRunFitsTranscriptInWindow: a run whose conversation would overflow
// the root model's window sends a first prompt that fits it, with the
// conversation in the REPL's context: it used to send the whole
// conversation inline, which an upstream refuses (or bills).
func TestRunFitsTranscriptInWindow(t *testing.T) {
	const window = 16_384
	msgs := conversation(1000, 1000, "Which message mentions 00000?")
	var seen []string
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"find": func(env *cellEnv) repl.CellResult {
			seen = env.contexts
			return repl.CellResult{Final: final("found")}
		},
	}}
	e, srv := testEngine(t, sb, rootScript([]string{code("find")}, nil), Config{ContextWindows: map[string]int{"root-model": window}})
	res, err := e.Run(t.Context(), Request{Messages: msgs})
	if err != nil || res.Answer != "found" {
		t.Fatalf("run: %v %+v", err, res)
	}
	first := srv.Requests()[0]
	var sent []llm.Message
	for _, m := range first.Messages {
		sent = append(sent, llm.Message{Role: m.Role, Content: m.Content})
	}
	if tokens, chars := transcriptTokens(sent); tokens+1024 > window {
		t.Errorf("the first prompt is ~%d tokens (%d chars), over the window of %d", tokens, chars, window)
	}
	if in := first.Messages[1].Content; !strings.Contains(in, "[conversation]\n[offloaded: contexts[0]") || !strings.HasSuffix(in, "Which message mentions 00000?") {
		t.Errorf("input message:\n%.500s", in)
	}
	if len(seen) != 1 || !strings.HasPrefix(seen[0], "[user]\n00000 ") {
		t.Errorf("the REPL got %d pieces; want the transcript in one", len(seen))
	}
}
