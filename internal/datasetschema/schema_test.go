package datasetschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemas: the checks accept the published examples and reject lines
// that break them, in Go and in the python3 checker alike.
func TestSchemas(t *testing.T) {
	msgs := `[{"role":"user","content":"What color is the sky?"}]`
	ans := `[{"role":"assistant","content":"It is blue."}]`
	tests := []struct {
		schema, line string
		ok           bool
	}{
		{TRLConversational, `{"messages":` + msgs + `}`, true},
		{TRLConversational, `{"messages":[]}`, false},
		{TRLConversational, `{"messages":[{"role":"robot","content":"x"}]}`, false},
		{TRLConversational, `{"text":"The sky is blue."}`, false},
		{TRLPromptCompletion, `{"prompt":"The sky is","completion":" blue."}`, true},
		{TRLPromptCompletion, `{"prompt":` + msgs + `,"completion":` + ans + `}`, true},
		{TRLPromptCompletion, `{"prompt":"The sky is","completion":` + ans + `}`, false},
		{TRLPromptCompletion, `{"prompt":` + msgs + `}`, false},
		{VerifiersRollout, `{"prompt":` + msgs + `,"completion":` + ans + `,"answer":"blue","task":"sky","info":{},"reward":1}`, true},
		{VerifiersRollout, `{"prompt":` + msgs + `,"completion":` + ans + `,"answer":"blue","task":"sky","info":{},"reward":null}`, false},
		{VerifiersRollout, `{"prompt":` + msgs + `,"completion":` + ans + `,"task":"sky","info":{},"reward":1}`, false},
		{VerifiersProcessed, `{"prompt_ids":[1,2],"prompt_mask":[1,1],"completion_ids":[3,4],"completion_mask":[1,0],"completion_logprobs":[-0.5,0],"reward":0.5}`, true},
		{VerifiersProcessed, `{"prompt_ids":[1,2],"prompt_mask":[1],"completion_ids":[3,4],"completion_mask":[1,0],"completion_logprobs":[-0.5,0],"reward":0.5}`, false},
		{VerifiersProcessed, `{"prompt_ids":[1],"prompt_mask":[1],"completion_ids":[3],"completion_mask":[2],"completion_logprobs":[-0.5],"reward":0.5}`, false},
		{VerifiersProcessed, `{"prompt_ids":[1],"prompt_mask":[1],"completion_ids":[3],"completion_mask":[1],"completion_logprobs":[0.5],"reward":0.5}`, false},
		{VerifiersProcessed, `{"prompt_ids":[1.5],"prompt_mask":[1],"completion_ids":[3],"completion_mask":[1],"completion_logprobs":[-0.5],"reward":0.5}`, false},
	}
	for i, tc := range tests {
		err := Check([]byte(tc.line), tc.schema, Options{})
		if (err == nil) != tc.ok {
			t.Errorf("%d %s %s: %v", i, tc.schema, tc.line, err)
		}
		path := filepath.Join(t.TempDir(), "x.jsonl")
		os.WriteFile(path, []byte(tc.line+"\n"), 0o644)
		_, err = CheckPython(t.Context(), "../../tests/python/check_dataset.py", path, tc.schema, Options{})
		if (err == nil) != tc.ok {
			t.Errorf("python3, %d %s: %v", i, tc.schema, err)
		} else if err != nil && !strings.Contains(err.Error(), "line 1") {
			t.Errorf("python3, %d: %v", i, err)
		}
	}
}
