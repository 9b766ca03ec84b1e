package fakemodel

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/internal/fakellm"
)

// The code the fake root writes is checked by running it in the REPL in
// the end-to-end test of `rlm eval`; here we check that every generated
// question gets code and that the fake sub-model labels comments right.
func TestCodeForEveryQuestion(t *testing.T) {
	for _, task := range []eval.Task{&eval.SNIAH{Depth: -1}, &eval.SNIAH{UUID: true}, eval.Oolong{}, eval.OolongPairs{}} {
		for i := 0; i < 8; i++ {
			inst, err := task.Generate(context.Background(), &bytes.Buffer{}, eval.Spec{Tokens: 2000, Index: i, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			code, ok := Code(inst.Question)
			if !ok || !strings.Contains(code, "FINAL(") {
				t.Errorf("%s %d: no code for %q", task.Name(), i, inst.Question)
			}
		}
	}
	if _, ok := Code("What is the capital of France?"); ok {
		t.Error("code for an unknown question")
	}
}

func TestSub(t *testing.T) {
	var buf bytes.Buffer
	if _, err := (eval.Oolong{}).Generate(context.Background(), &buf, eval.Spec{Tokens: 2000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")[1:]
	got := strings.Split(Sub(fakellm.Request{Messages: []fakellm.Message{{Role: "user", Content: "Label these:\n" + strings.Join(lines, "\n")}}}).Content, "\n")
	if len(got) != len(lines) {
		t.Fatalf("%d labels for %d lines", len(got), len(lines))
	}
	for i, l := range lines {
		want, _ := eval.OolongLabel(l[strings.Index(l, "Instance: ")+len("Instance: "):])
		if got[i] != want {
			t.Errorf("line %d: %q, want %q", i, got[i], want)
		}
	}
	needle := "blah One of the special magic numbers for a-b is: 1234567. blah"
	if got := Sub(fakellm.Request{Messages: []fakellm.Message{{Role: "user", Content: needle}}}).Content; got != "1234567" {
		t.Errorf("needle: %q", got)
	}
}
