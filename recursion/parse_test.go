package recursion

import (
	"slices"
	"testing"

	"github.com/rlm-project/rlm/recursion/llm"
)

// TestParseReply covers the shapes real models answer with: reasoning
// blocks, unlabeled fences, Python, replies cut off by max_tokens.
func TestParseReply(t *testing.T) {
	tests := []struct {
		name    string
		resp    string
		finish  string
		cells   []string
		visible string // "" means: do not check
		python  int
		cutOff  bool
	}{
		{name: "go fence", resp: "Let me look.\n```go\nfmt.Println(len(context))\n```", finish: "stop",
			cells: []string{"fmt.Println(len(context))"}},
		{name: "unlabeled fence that is Go runs", resp: "```\nn := strings.Count(context, \"x\")\nfmt.Println(n)\n```", finish: "stop",
			cells: []string{"n := strings.Count(context, \"x\")\nfmt.Println(n)"}},
		{name: "unlabeled fence with imports and a func", resp: "```\nimport \"strings\"\nfunc f() int { return 1 }\nx := f()\n```", finish: "stop",
			cells: []string{"import \"strings\"\nfunc f() int { return 1 }\nx := f()"}},
		{name: "unlabeled fence with prose does not run", resp: "```\nThe answer is probably 42.\n```", finish: "stop"},
		{name: "unlabeled fence with pasted output does not run", resp: "Output was:\n```\n42\n```", finish: "stop"},
		{name: "python fence", resp: "```python\nprint(len(context))\n```", finish: "stop", python: 1},
		{name: "py fence next to a go fence", resp: "```py\nx = 1\n```\n```go\nx := 1\n```", finish: "stop",
			cells: []string{"x := 1"}, python: 1},
		{name: "think block never runs and is dropped", resp: "<think>\nmaybe\n```go\nos.Exit(1)\n```\n</think>\n```go\nfmt.Println(1)\n```",
			finish: "stop", cells: []string{"fmt.Println(1)"}, visible: "```go\nfmt.Println(1)\n```"},
		{name: "reasoning opened by the template", resp: "I think so.\n</think>\n\nFINAL(3)", finish: "stop", visible: "FINAL(3)"},
		{name: "cut off while thinking", resp: "<think>\nlong reasoning", finish: "length", cutOff: true, visible: ""},
		{name: "cut off inside a fence", resp: "```go\nx := 1\n```\n```go\nfor i := 0; i <", finish: "length",
			cells: []string{"x := 1"}, cutOff: true},
		{name: "a fence reopened inside a fence starts the cell anew", resp: "One fact.\n```go\n\nOne fact; lookup reads it.\n```go\nx := lookup(context, query)\nFINAL(x)\n```",
			finish: "stop", cells: []string{"x := lookup(context, query)\nFINAL(x)"}},
		{name: "unclosed fence not cut off runs", resp: "```go\nfmt.Println(2)", finish: "stop", cells: []string{"fmt.Println(2)"}},
		{name: "closed fences with finish length run", resp: "```go\nfmt.Println(3)\n```\nAnd then", finish: "length",
			cells: []string{"fmt.Println(3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := parseReply(tt.resp, tt.finish)
			if !slices.Equal(r.cells, tt.cells) {
				t.Errorf("cells %q, want %q", r.cells, tt.cells)
			}
			if r.python != tt.python || r.cutOff != tt.cutOff {
				t.Errorf("python %d cutOff %v, want %d %v", r.python, r.cutOff, tt.python, tt.cutOff)
			}
			if tt.visible != "" && r.visible != tt.visible {
				t.Errorf("visible %q, want %q", r.visible, tt.visible)
			}
		})
	}
}

// TestNoCodeMessages checks the specific reply each kind of code-less
// response gets instead of the generic nudge.
func TestNoCodeMessages(t *testing.T) {
	tests := []struct {
		rp   reply
		c    llm.Completion
		want string
	}{
		{reply{python: 1}, llm.Completion{}, pythonMessage},
		{reply{cutOff: true}, llm.Completion{}, cutOffMessage},
		{reply{}, llm.Completion{ToolCalls: []string{"search"}}, toolCallsMessage},
		{reply{}, llm.Completion{}, nudgeMessage},
	}
	for _, tt := range tests {
		if got := noCodeMessage(tt.rp, tt.c); got != tt.want {
			t.Errorf("noCodeMessage(%+v, %+v) = %q, want %q", tt.rp, tt.c, got, tt.want)
		}
	}
}

func TestExtractCellsAndFinalLines(t *testing.T) {
	cells := parseReply("text\n```go\na := 1\n```\n```json\n{}\n```\n```repl\nFINAL(a)\n```\n```go\nunclosed", "stop").cells
	if len(cells) != 3 || cells[0] != "a := 1" || cells[1] != "FINAL(a)" || cells[2] != "unclosed" {
		t.Fatalf("cells %q", cells)
	}
	tests := []struct {
		in   string
		want finalLine
		ok   bool
	}{
		{"FINAL(42)", finalLine{Answer: "42"}, true},
		{"Done.\nFINAL(\"a (b) c\")", finalLine{Answer: "a (b) c"}, true},
		{"FINAL(two\nlines)", finalLine{Answer: "two\nlines"}, true},
		{"FINAL(42)\nHope this helps (a lot).", finalLine{Answer: "42"}, true},
		{"FINAL(f(x) = 3) is my answer (final)", finalLine{Answer: "f(x) = 3"}, true},
		{"FINAL(\"x)\") (quoted)", finalLine{Answer: "x)"}, true},
		{"FINAL(`a)b`)", finalLine{Answer: "a)b"}, true},
		{"FINAL(it's 3 (approx)", finalLine{Answer: "it's 3 (approx"}, true},
		{"FINAL(He said \"hi) to me", finalLine{Answer: "He said \"hi"}, true},
		{"FINAL_VAR(result)", finalLine{Var: "result"}, true},
		{"FINAL(fmt.Sprintf(\"Answer: %d\", total))", finalLine{Answer: "fmt.Sprintf(\"Answer: %d\", total)", Code: true}, true},
		{"FINAL(len(xs))", finalLine{Answer: "len(xs)", Code: true}, true},
		{"FINAL(Paris (France))", finalLine{Answer: "Paris (France)"}, true},
		{"FINAL(N/A)", finalLine{Answer: "N/A"}, true},
		{"FINAL(value)", finalLine{Answer: "value"}, true},
		{"I will call FINAL(x) later", finalLine{}, false},
		{"no answer", finalLine{}, false},
	}
	for _, tt := range tests {
		got, ok := parseFinalLine(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseFinalLine(%q) = %+v %v", tt.in, got, ok)
		}
	}
}
