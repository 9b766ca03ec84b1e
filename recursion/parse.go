package recursion

import (
	"go/ast"
	"go/parser"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/repl"
)

// reply is a model response as the engine reads it.
type reply struct {
	// visible is the response without reasoning blocks: what stays in the
	// transcript for later turns.
	visible string
	cells   []string // Go cells to run, in order
	// python counts ```python/```py fences: the model wrote Python for a
	// Go REPL; they never run.
	python int
	// cutOff is set when the response ended inside a fence (or a reasoning
	// block) because the upstream stopped at max_tokens: the unfinished
	// code did not run.
	cutOff bool
}

// parseReply reads a response. finishReason is the upstream's ("length"
// when max_tokens cut it off). Cells are the bodies of ```go, ```golang and
// ```repl fences, and of unlabeled fences whose content parses as Go; other
// labeled fences (```text, ```json, ```output) are prose. A fence opened
// inside a fence starts the cell anew (the model restarted). An unclosed last
// fence runs to the end of the response, unless the response was cut off
// by max_tokens: then the code is unfinished, does not run, and cutOff
// says so.
func parseReply(resp, finishReason string) reply {
	visible, thinkOpen := stripThink(resp)
	r := reply{visible: visible, cutOff: thinkOpen && finishReason == "length"}
	lines := strings.Split(visible, "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "```") {
			continue
		}
		lang := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(t, "```")))
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			if t := strings.TrimSpace(lines[j]); strings.HasPrefix(t, "```") {
				// An opening fence inside a fence: the first was
				// abandoned (a model that restarts its reply after
				// opening one); the code is the later one's.
				i, lang = j, strings.ToLower(strings.TrimSpace(strings.TrimPrefix(t, "```")))
			}
			j++
		}
		closed := j < len(lines)
		body := strings.Join(lines[i+1:min(j, len(lines))], "\n")
		i = j
		if !closed && finishReason == "length" {
			r.cutOff = true
			break
		}
		if strings.TrimSpace(body) == "" {
			continue
		}
		switch {
		case lang == "go" || lang == "repl" || lang == "golang":
			r.cells = append(r.cells, body)
		case lang == "python" || lang == "py" || lang == "python3":
			r.python++
		case lang == "" && repl.IsGo(body):
			r.cells = append(r.cells, body)
		}
	}
	return r
}

// stripThink removes <think>...</think> reasoning blocks, which never run
// and, as Qwen3's chat template does, are not kept in the transcript. An
// unclosed block (the model was cut off while reasoning) runs to the end;
// open reports it.
func stripThink(resp string) (visible string, open bool) {
	if !strings.Contains(resp, "<think>") && !strings.Contains(resp, "</think>") {
		return resp, false
	}
	var b strings.Builder
	rest := resp
	// A response that starts inside reasoning (the template opened <think>
	// in the prompt) has a closing tag and no opening one.
	if end := strings.Index(rest, "</think>"); end >= 0 && !strings.Contains(rest[:end], "<think>") {
		rest = rest[end+len("</think>"):]
	}
	for {
		start := strings.Index(rest, "<think>")
		if start < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:start])
		end := strings.Index(rest[start:], "</think>")
		if end < 0 {
			open = true
			break
		}
		rest = rest[start+end+len("</think>"):]
	}
	return strings.TrimSpace(b.String()), open
}

// finalLine is a FINAL(...) or FINAL_VAR(name) written as plain text.
type finalLine struct {
	Answer string // for FINAL(...)
	Var    string // for FINAL_VAR(name)
	// Code is set when Answer is Go code that computes the answer
	// (FINAL(fmt.Sprintf("%d", n)) written outside a cell): it is run,
	// never taken as the answer's text.
	Code bool
}

// parseFinalLine finds a line starting with FINAL( or FINAL_VAR( in a
// response that has no code. The argument of FINAL may span several lines
// and may be a Go string literal; it runs to the last closing parenthesis.
func parseFinalLine(resp string) (finalLine, bool) {
	lines := strings.Split(resp, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "FINAL_VAR("):
			end := strings.Index(t, ")")
			if end < 0 {
				continue
			}
			name := strings.Trim(strings.TrimSpace(t[len("FINAL_VAR("):end]), "\"'`")
			if name != "" {
				return finalLine{Var: name}, true
			}
		case strings.HasPrefix(t, "FINAL("):
			rest := strings.TrimSpace(strings.Join(append([]string{t}, lines[i+1:]...), "\n"))
			rest = rest[len("FINAL("):]
			end := closingParen(rest)
			if end < 0 {
				// Unbalanced: take everything up to the last ')'.
				end = strings.LastIndex(rest, ")")
			}
			if end < 0 {
				end = len(rest)
			}
			arg := strings.TrimSpace(rest[:end])
			if s, err := strconv.Unquote(arg); err == nil {
				return finalLine{Answer: s}, true
			}
			return finalLine{Answer: arg, Code: isGoCode(arg)}, true
		}
	}
	return finalLine{}, false
}

// isGoCode reports whether s is a Go expression that calls a function of
// a standard package or a builtin (fmt.Sprintf(...), strings.Join(...),
// len(x)): code, not an answer's text. A word, a number or prose that
// happens to parse ("Paris (France)", "N/A") is not.
func isGoCode(s string) bool {
	e, err := parser.ParseExpr(s)
	if err != nil {
		return false
	}
	code := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && codePackages[id.Name] {
				code = true
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && codeBuiltins[id.Name] {
				code = true
			}
		}
		return !code
	})
	return code
}

var (
	codePackages = map[string]bool{"fmt": true, "strings": true, "strconv": true, "regexp": true, "sort": true,
		"slices": true, "maps": true, "math": true, "bytes": true, "json": true, "errors": true, "time": true, "unicode": true}
	codeBuiltins = map[string]bool{"len": true, "cap": true, "append": true, "string": true, "int": true,
		"float64": true, "min": true, "max": true, "make": true, "new": true}
)

// closingParen returns the index of the ')' that closes an argument list
// whose '(' came just before s, skipping parentheses inside Go string
// literals, or -1 when there is none. Prose after the answer ("FINAL(42)
// Hope this helps (a lot).") is then not part of the answer.
func closingParen(s string) int {
	depth := 1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '`':
			if j := literalEnd(s, i); j > 0 {
				i = j
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// literalEnd returns the index of the quote closing the string literal that
// starts at s[i], or -1 when it is not closed (a stray quote in prose).
func literalEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q == '"':
			j++
		case s[j] == q:
			return j
		case s[j] == '\n' && q == '"':
			return -1
		}
	}
	return -1
}

// isIdent reports whether s is a plain Go identifier, so FINAL_VAR(s) can be
// run as code without letting prose through as a statement.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

// stripCode removes fenced blocks, leaving the prose of a response, used when
// a partial answer has to be taken from what the model wrote.
func stripCode(resp string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(resp, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return strings.TrimSpace(b.String())
}
