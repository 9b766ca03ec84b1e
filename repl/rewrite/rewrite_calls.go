package rewrite

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
	"unicode"

	"github.com/rlm-project/rlm/repl/shims"
)

// Rewrites of calls and the values they take: builtins yaegi lacks,
// iterator functions, functions the worker runs natively, and arguments
// frozen where Go evaluates them.

// Iterators. The patched interpreter ranges over functions (patch 1 of
// third_party/yaegi), the iterator functions of strings and bytes are
// native, and the shims of slices and maps return and take iterators as
// Go's do (shims.Source). But each element is pulled through a coroutine
// (iter.Pull): over a 34 MB context of 2M lines, `for l := range
// strings.Lines(context)` took 1.5-2.6 s that way against 0.7-0.85 s over
// a slice, and strings.FieldsSeq 5.5-6.5 s against 0.7-1.3 s. So an
// iterator call becomes a slice where nobody can tell: when it is itself
// the expression of a range loop (rewriteRange), or the iterator given
// to a function that collects it (slices.Collect, Sorted, SortedFunc,
// SortedStableFunc, AppendSeq: collectFuncs). The slice is a fresh one
// there, as the collected result is. Every other use (`parts :=
// strings.SplitSeq(s, ",")`, an argument of the model's own function)
// gets the iterator itself.

// iterFunc is an iterator function the rewriter can replace by a slice.
type iterFunc struct {
	// slice is the function written in its place, with the same
	// arguments, that returns a fresh slice of what the iterator yields
	// ("" for the iter.Seq2 functions, which nothing collects as a slice).
	slice string
	// elem is the Go type of the elements when the function alone fixes
	// it (the iterators of strings and bytes), for explicit type
	// arguments and the rewriter's type guesses.
	elem string
	// own: a range over the call ranges over its first argument, the map
	// or slice itself, instead of a copy of its elements.
	own bool
	// keyed: ranged over as it is, the loop's first variable is the
	// element (the keys of maps.Keys, the pairs of maps.All and
	// slices.All); otherwise it is the second, after a blank.
	keyed bool
	// pairs: an iter.Seq2, which takes two loop variables.
	pairs bool
}

// iterFuncs are the iterator functions of the standard library the
// rewriter makes slices of, by package name and function name.
var iterFuncs = map[string]map[string]iterFunc{
	"strings": {
		"Lines":         {slice: "__rlmLines", elem: "string"},
		"SplitSeq":      {slice: "strings.Split", elem: "string"},
		"SplitAfterSeq": {slice: "strings.SplitAfter", elem: "string"},
		"FieldsSeq":     {slice: "strings.Fields", elem: "string"},
		"FieldsFuncSeq": {slice: "strings.FieldsFunc", elem: "string"},
	},
	"bytes": {
		"SplitSeq":      {slice: "bytes.Split", elem: "[]byte"},
		"SplitAfterSeq": {slice: "bytes.SplitAfter", elem: "[]byte"},
		"FieldsSeq":     {slice: "bytes.Fields", elem: "[]byte"},
		"FieldsFuncSeq": {slice: "bytes.FieldsFunc", elem: "[]byte"},
	},
	"maps": {
		"Keys":   {slice: "__rlmMapKeys", own: true, keyed: true},
		"Values": {slice: "__rlmMapValues", own: true},
		"All":    {own: true, keyed: true, pairs: true},
	},
	"slices": {
		"Values": {slice: "__rlmSlices_Clone", own: true},
		"All":    {own: true, keyed: true, pairs: true},
		"Chunk":  {slice: "__rlmSliceChunks"},
	},
}

// collectFuncs are the functions of slices that collect an iterator, the
// index of that argument, and the function written in their place when it
// is given a slice instead (iterFunc.slice).
var collectFuncs = map[string]struct {
	arg   int
	slice string
}{
	"Collect":          {0, "__rlmSliceCollect"},
	"Sorted":           {0, "__rlmSliceSorted"},
	"SortedFunc":       {0, "__rlmSliceSortedFunc"},
	"SortedStableFunc": {0, "__rlmSliceSortedStableFunc"},
	"AppendSeq":        {1, "__rlmSliceAppend"},
}

// iterCall returns the iterator function e calls, if it calls one.
func iterCall(e ast.Expr, types *typeInfo) (*ast.CallExpr, iterFunc, bool) {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			break
		}
		e = p.X
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil, iterFunc{}, false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, iterFunc{}, false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || types.defined[pkg.Name] {
		return nil, iterFunc{}, false
	}
	f, ok := iterFuncs[pkg.Name][sel.Sel.Name]
	return call, f, ok
}

// sliceOf writes the slice form of an iterator call in its place.
func sliceOf(call *ast.CallExpr, f iterFunc, ed *edits) {
	ed.handled[call] = true
	ed.add(ed.off(call.Fun.Pos()), ed.off(call.Fun.End()), f.slice)
}

// rewriteCollect rewrites a call of a function that collects an iterator
// (collectFuncs): given an iterator call, both become slices; given
// another iterator, the shim that collects it is called. Either way the
// element type is written out where the rewriter knows it (typeArgs).
func rewriteCollect(n *ast.CallExpr, fn *ast.SelectorExpr, types *typeInfo, ed *edits) bool {
	c, ok := collectFuncs[fn.Sel.Name]
	if !ok || len(n.Args) <= c.arg {
		return false
	}
	if call, f, ok := iterCall(n.Args[c.arg], types); ok && f.slice != "" {
		ed.add(ed.off(fn.Pos()), ed.off(fn.End()), typeArgs(c.slice, f.elem))
		sliceOf(call, f, ed)
		return true
	}
	elem, _ := strings.CutPrefix(types.kind(n.Args[c.arg]), "iter.Seq[")
	ed.add(ed.off(fn.Pos()), ed.off(fn.End()), typeArgs("__rlmSlices_"+fn.Sel.Name, strings.TrimSuffix(elem, "]")))
	return true
}

// typeArgs instantiates the generic function name with the element type
// elem, when it is known: the interpreter infers no type argument from a
// native value (a []string from strings.Split, a strings.SplitSeq).
func typeArgs(name, elem string) string {
	if elem == "" {
		return name
	}
	return name + "[" + elem + "]"
}

func (r *Rewriter) rewriteCall(n *ast.CallExpr, types *typeInfo, ed *edits) {
	defined := types.defined
	switch fn := n.Fun.(type) {
	case *ast.Ident:
		if defined[fn.Name] {
			return
		}
		if lit, ok := firstArg(n).(*ast.CompositeLit); fn.Name == "new" && ok && len(n.Args) == 1 {
			// new(T{...}) is &T{...}
			ed.add(ed.off(fn.Pos()), ed.off(n.Lparen)+1, "&")
			ed.add(ed.off(lit.End()), ed.off(n.Rparen)+1, "")
			return
		}
		if fn.Name == "new" && len(n.Args) == 1 && r.valueOperand(n.Args[0], types) {
			// Go 1.26's new(expr): yaegi takes the operand for a type and
			// returns a pointer to a zero value.
			ed.add(ed.off(fn.Pos()), ed.off(fn.End()), "__rlmNew")
			return
		}
		if fn.Name == "recover" && len(n.Args) == 0 {
			// yaegi's recover returns the panic value boxed in a
			// reflect.Value: a type switch or assertion on it never
			// matched. recover is still called by the deferred function.
			ed.add(ed.off(n.Pos()), ed.off(n.Pos()), "__rlmRecovered(")
			ed.add(ed.off(n.End()), ed.off(n.End()), ")")
			return
		}
		repl := map[string]string{"min": "__rlmMin", "max": "__rlmMax", "clear": "__rlmClear"}[fn.Name]
		if repl != "" {
			ed.add(ed.off(fn.Pos()), ed.off(fn.End()), repl)
		}
		if fn.Name == "min" || fn.Name == "max" {
			// yaegi cannot infer a type parameter from an untyped float.
			for _, a := range n.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.FLOAT {
					ed.add(ed.off(lit.Pos()), ed.off(lit.Pos()), "float64(")
					ed.add(ed.off(lit.End()), ed.off(lit.End()), ")")
				}
			}
		}
	case *ast.IndexExpr, *ast.IndexListExpr:
		// An explicit instantiation: errors.AsType[*MyErr](err).
		var x ast.Expr
		if ix, ok := fn.(*ast.IndexExpr); ok {
			x = ix.X
		} else {
			x = fn.(*ast.IndexListExpr).X
		}
		if sel, ok := x.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && !defined[pkg.Name] && shims.Generic(pkg.Name, sel.Sel.Name) {
				ed.add(ed.off(sel.Pos()), ed.off(sel.End()), "__rlm"+strings.ToUpper(pkg.Name[:1])+pkg.Name[1:]+"_"+sel.Sel.Name)
			}
		}
	case *ast.SelectorExpr:
		pkg, ok := fn.X.(*ast.Ident)
		if !ok || defined[pkg.Name] || ed.handled[n] {
			return
		}
		if pkg.Name == "slices" && rewriteCollect(n, fn, types, ed) {
			return
		}
		if to := hostShims[pkg.Name+"."+fn.Sel.Name]; to != "" {
			ed.add(ed.off(fn.Pos()), ed.off(fn.End()), to)
			return
		}
		if shims.Generic(pkg.Name, fn.Sel.Name) {
			ed.add(ed.off(fn.Pos()), ed.off(fn.End()), "__rlm"+strings.ToUpper(pkg.Name[:1])+pkg.Name[1:]+"_"+fn.Sel.Name)
		}
	}
}

func firstArg(n *ast.CallExpr) ast.Expr {
	if len(n.Args) == 0 {
		return nil
	}
	return n.Args[0]
}

// valueOperand reports whether the operand of new is a value (Go 1.26's
// new(expr)) rather than a type. Only forms that cannot be types count:
// literals, calls, operators, and names known to be variables.
func (r *Rewriter) valueOperand(e ast.Expr, types *typeInfo) bool {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.CompositeLit, *ast.CallExpr, *ast.BinaryExpr, *ast.FuncLit:
		return true
	case *ast.UnaryExpr:
		return true
	case *ast.ParenExpr:
		return r.valueOperand(e.X, types)
	case *ast.Ident:
		if e.Name == "true" || e.Name == "false" {
			return true
		}
		_, isVar := types.vars[e.Name]
		return isVar
	case *ast.SelectorExpr:
		// pkg.Type is a type; x.field and pkg.Var are values.
		if id, ok := e.X.(*ast.Ident); ok && autoImport[id.Name] != "" && !types.defined[id.Name] {
			return !unicode.IsUpper(rune(e.Sel.Name[0])) || pkgVarRE.MatchString(e.Sel.Name)
		}
		return true
	case *ast.IndexExpr:
		return r.valueOperand(e.X, types)
	case *ast.StarExpr:
		return r.valueOperand(e.X, types)
	}
	return false
}

// pkgVarRE matches exported names of allowlisted packages that are
// variables or constants rather than types (math.Pi, time.Second).
var pkgVarRE = regexp.MustCompile(`^(Err[A-Z]|Max|Min|Pi$|E$|Sqrt|Ln|Log|Phi|Nanosecond|Microsecond|Millisecond|Second|Minute|Hour|RFC|Kitchen|Stamp|DateTime|DateOnly|TimeOnly|ANSIC|UnixDate|RubyDate|Layout|UTC|Local|Std|Raw|URL|Hex)`)

// blankAssigns rewrites the statements "_ = x" of a statement list as
// "var _ = x": yaegi v0.16.1 mis-types "_ = x" in a top-level loop body
// ("SetInt on string Value"), and "_, _ = x, 0" ("reflect.Set: value of
// type bool is not assignable to type int"); the declaration works.
func blankAssigns(list []ast.Stmt, ed *edits) {
	for _, st := range list {
		n, ok := st.(*ast.AssignStmt)
		if !ok || n.Tok != token.ASSIGN || len(n.Lhs) != 1 || len(n.Rhs) != 1 {
			continue
		}
		if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
			ed.add(ed.off(id.Pos()), ed.off(id.Pos()), "var ")
		}
	}
}

// freezeArgs makes the arguments of a deferred call (or of a go statement
// calling a named function) copies taken when the statement runs. yaegi keeps the
// reflect.Value of a variable, which is its slot in the frame, and reads it
// when the call runs: "x := 1; defer fmt.Println(x); x = 2" printed 2, and
// a defer in a loop printed the last value every time. *__rlmNew(arg) is a
// fresh heap copy per execution; a go statement uses the non-generic
// *__rlmBox(arg), an any (its call takes ...any), because goroutines
// instantiating a generic function at once race inside yaegi. Only arguments that are, or may read,
// variables are wrapped: a constant keeps its untyped default conversion.
func freezeArgs(call *ast.CallExpr, copyFn string, types *typeInfo, ed *edits) {
	for _, a := range call.Args {
		if !readsVariable(a, types) {
			continue
		}
		ed.add(ed.off(a.Pos()), ed.off(a.Pos()), "*"+copyFn+"(")
		ed.add(ed.off(a.End()), ed.off(a.End()), ")")
	}
}

func anyReadsVariable(args []ast.Expr, types *typeInfo) bool {
	for _, a := range args {
		if readsVariable(a, types) {
			return true
		}
	}
	return false
}

// readsVariable reports whether e may read a variable: it names one, or
// holds a selector, index, call or dereference.
func readsVariable(e ast.Expr, types *typeInfo) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			found = true
		case *ast.Ident:
			if _, ok := types.vars[n.Name]; ok && !types.consts[n.Name] {
				found = true
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && autoImport[id.Name] != "" && !types.defined[id.Name] {
				return false // a package member: a constant or function
			}
			found = true
		case *ast.IndexExpr, *ast.CallExpr, *ast.StarExpr, *ast.SliceExpr, *ast.CompositeLit, *ast.UnaryExpr:
			found = true
		}
		return !found
	})
	return found
}

// builtinFuncs are the predeclared functions, which cannot be passed as
// values.
var builtinFuncs = map[string]bool{"append": true, "cap": true, "clear": true, "close": true, "complex": true,
	"copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true}

// hostShims are standard functions replaced by native ones of the worker
// that refuse what yaegi would get silently wrong.
var hostShims = map[string]string{"fmt.Errorf": "__rlmErrorf", "errors.Is": "__rlmErrorsIs", "errors.As": "__rlmErrorsAs",
	"fmt.Print": "__rlmFmtPrint", "fmt.Println": "__rlmFmtPrintln", "fmt.Printf": "__rlmFmtPrintf",
	"fmt.Sprint": "__rlmFmtSprint", "fmt.Sprintln": "__rlmFmtSprintln", "fmt.Sprintf": "__rlmFmtSprintf",
	"fmt.Fprint": "__rlmFmtFprint", "fmt.Fprintln": "__rlmFmtFprintln", "fmt.Fprintf": "__rlmFmtFprintf",
	"json.Marshal": "__rlmJSONMarshal", "json.MarshalIndent": "__rlmJSONMarshalIndent", "json.Unmarshal": "__rlmJSONUnmarshal"}
