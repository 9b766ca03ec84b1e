package recursion

import (
	"strings"
	"testing"

	"github.com/rlm-project/rlm/repl"
)

// TestGroundedAnswers: with Config.GroundedAnswers, a FINAL that says
// there is no answer, or whose value is nowhere in the input, ends the run
// with StopNoAnswer; values in the input (any case, any white space) and
// counts end it with StopFinal. Without the setting every FINAL is final.
func TestGroundedAnswers(t *testing.T) {
	t.Parallel()
	doc := strings.Repeat("haystack line\n", 3000) + "The deploy key of staging is KX-4471,\nset on 9  October 2023.\n"
	for _, tc := range []struct {
		final    string
		grounded bool
		want     StopReason
		answer   string
	}{
		{"KX-4471", true, StopFinal, "KX-4471"},
		{"kx-4471", true, StopFinal, "kx-4471"},
		{"9 October 2023", true, StopFinal, "9 October 2023"},
		{"Answer: 12", true, StopFinal, "Answer: 12"},
		{"QZ-0000", true, StopNoAnswer, "No answer: the model's answer QZ-0000 does not occur in the input"},
		{"No answer", true, StopNoAnswer, "No answer: the model found no answer in the input"},
		{"not found: no line holds the key", true, StopNoAnswer, "No answer: no line holds the key"},
		{"QZ-0000", false, StopFinal, "QZ-0000"},
		{"No answer", false, StopFinal, "No answer"},
	} {
		sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
			"look // context": func(env *cellEnv) repl.CellResult { return repl.CellResult{Final: final(tc.final)} },
		}}
		e, _ := testEngine(t, sb, rootScript([]string{code("look // context")}, nil), Config{GroundedAnswers: tc.grounded})
		res, err := e.Run(t.Context(), Request{Messages: userMsg(doc + "\nWhat is the deploy key of staging?")})
		if err != nil || res.StopReason != tc.want || res.Answer != tc.answer {
			t.Errorf("FINAL(%q), grounded %v: %v, %s %q; want %s %q", tc.final, tc.grounded, err, res.StopReason, res.Answer, tc.want, tc.answer)
		}
	}
}

// TestFinalOfVariableThatDidNotRun: FINAL(value) written outside a cell,
// where value is a variable the model's own code assigns, is that
// variable: its value when the cell ran, and no answer (the word "value"
// never) when it did not.
func TestFinalOfVariableThatDidNotRun(t *testing.T) {
	t.Parallel()
	doc := strings.Repeat("haystack line\n", 500) + "key: 42\n"
	for _, tc := range []struct {
		name    string
		setsVar bool
		want    string
	}{
		{"cell ran", true, "42"},
		{"cell failed", false, ""},
	} {
		sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
			"value := find(context)": func(env *cellEnv) repl.CellResult {
				if !tc.setsVar {
					return repl.CellResult{Error: "undefined: find"}
				}
				env.vars["value"] = "42"
				return repl.CellResult{Output: "42"}
			},
		}}
		e, _ := testEngine(t, sb, rootScript([]string{code("value := find(context)"), "The value is found.\nFINAL(value)"}, nil),
			Config{})
		res, err := e.Run(t.Context(), Request{Messages: userMsg(doc + "\nWhat is the key?"), Limits: Limits{MaxIterations: 3}})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if res.StopReason == StopFinal {
			got = res.Answer
		}
		if got != tc.want || res.Answer == "value" {
			t.Errorf("%s: %s %q, want final %q", tc.name, res.StopReason, res.Answer, tc.want)
		}
	}
}
