package rewrite

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Errors of a cell explained in the model's terms: its own line numbers,
// and what to do instead of a forbidden package.

// posRE matches the position yaegi puts before its messages.
var posRE = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): `)

// Explain turns an error of evaluating c into a message with cell line
// numbers and, where we know one, a hint at what to write instead; trace
// holds the panic frame lines (IsPanicFrame) the interpreter wrote meanwhile.
func (c Chunk) Explain(err error, trace []string) string {
	// yaegi indexes through reflect; say it the way Go does.
	msg := strings.ReplaceAll(err.Error(), "reflect: slice index out of range", "runtime error: index out of range")
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		if m := posRE.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			l = fmt.Sprintf("line %d: %s", c.line+n-1, l[len(m[0]):])
		}
		out = append(out, l)
	}
	msg = strings.Join(out, "\n")
	if len(trace) > 0 {
		// yaegi prints one line per frame while a panic unwinds, innermost
		// first; the outermost frame is the cell itself.
		where := ""
		var inner []string
		for _, t := range trace {
			m := panicFrameRE.FindStringSubmatch(t)
			if m == nil {
				continue
			}
			fn := m[3]
			if fn == "main" || stmtFrameRE.MatchString(fn) {
				// The innermost of the cell's frames: the call of a
				// wrapped statement is outside it.
				if where == "" {
					n, _ := strconv.Atoi(m[1])
					where = fmt.Sprintf("line %d", c.line+n-1)
				}
			} else {
				inner = append(inner, stmtPrefixRE.ReplaceAllString(strings.TrimPrefix(fn, "main."), ""))
			}
		}
		if where != "" {
			msg = where + ": panic: " + msg
		} else {
			msg = "panic: " + msg
		}
		if len(inner) > 0 {
			msg += " (in " + strings.Join(inner, " called from ") + ")"
		}
	}
	if m := forbiddenRE.FindStringSubmatch(msg); m != nil {
		msg += fmt.Sprintf("\nhint: package %s cannot be used in the REPL: code here cannot use files, processes, the network, the environment, unsafe or reflection. Allowed packages: %s", m[1], allowlist())
	}
	switch {
	case strings.Contains(msg, "nil type") || strings.Contains(msg, "cannot range over"):
		msg += "\nhint: range over an integer works where its type is evident (a literal, len(...), a variable assigned from one); otherwise write `for i := 0; i < n; i++`"
	case strings.Contains(msg, "undefined selector: slices.") || strings.Contains(msg, "undefined selector: maps."):
		msg += "\nhint: generic functions of slices and maps are partly available (Contains, Index, Sort, SortFunc, Min, Max, BinarySearch, Reverse, Keys, Values, ...); write a plain loop instead"
	case msg == "runtime error: invalid memory address or nil pointer dereference" || strings.Contains(msg, "reflect.Type is nil"):
		// An error without a position: yaegi failed while compiling, not
		// model code while running.
		msg += "\nhint: the interpreter failed while compiling this code (often a generic call whose types it cannot work out); write the type arguments out (F[int](...)) or declare the variable with its type (var x []string = f(...))"
	case strings.Contains(msg, "undefined type for ") || strings.Contains(msg, "cannot use type func(") ||
		strings.Contains(msg, "CFG post-order panic: reflect."):
		msg += "\nhint: the interpreter cannot infer the type arguments of this generic call (such as E of a constraint S ~[]E, or T of a parameter of a generic alias type, Set[T]); write them out: Sum[[]int, int](xs), Map[int, string](xs, f)"
	case strings.Contains(msg, "Call with too many input arguments"):
		msg += "\nhint: method expressions of generic types and of package types, such as (*strings.Builder).String, are not supported by the interpreter (those of types declared here are); use a method value (x.Method) or a func literal"
	case strings.Contains(msg, "has no symbol"):
		msg += "\nhint: this function is not available in the REPL; write it with a plain loop or use another function of the package"
	}
	return msg
}

// forbiddenRE matches the error for a forbidden package used without import.
var forbiddenRE = regexp.MustCompile(`undefined: (os|exec|net|http|syscall|unsafe|reflect|runtime|ioutil|fs|filepath|user|signal|debug|plugin)\b`)

// stmtFrameRE matches the frame of a statement wrapped by wrapInFunc.
var stmtFrameRE = regexp.MustCompile(`^main\.__rlmStmt\d+$`)

// stmtPrefixRE matches the name of a wrapped statement's function in the
// names of closures it holds (__rlmStmt4.func).
var stmtPrefixRE = regexp.MustCompile(`^__rlmStmt\d+\.`)

// IsPanicFrame reports whether line, written by the interpreter on its
// stderr, is one of the lines it writes per frame while a panic unwinds;
// Explain takes those lines to locate the panic in the cell.
func IsPanicFrame(line string) bool { return panicFrameRE.MatchString(line) }

// panicFrameRE matches yaegi's per-frame panic lines: "3:5: panic: main.f(...)".
var panicFrameRE = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): panic: (.*)\(\.\.\.\)$`)
