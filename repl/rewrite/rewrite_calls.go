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

// seqFuncs are iterator functions and the slice-returning function written
// in their place (in the same package unless it starts with __rlm). The
// patched interpreter can range over the iterators themselves (patch 1 of
// third_party/yaegi), but it pulls each element through a coroutine
// (iter.Pull): over a 34 MB context of 2M lines, `for l := range
// strings.Lines(context)` took 1.5-2.6 s that way against 0.7-0.85 s over
// the slice, and strings.FieldsSeq 5.5-6.5 s against 0.7-1.3 s. And the
// shims of slices and maps take slices (shims.Source), so an iterator kept
// in a variable (`parts := strings.SplitSeq(s, ",")`) reaches
// slices.Collect as one. The price: such a variable is a slice, and a range
// over it with one variable yields indexes; only a range over the call
// itself gets its variable as the element (rewriteRange).
var seqFuncs = map[string]map[string]string{
	"strings": {"Lines": "__rlmLines", "SplitSeq": "Split", "SplitAfterSeq": "SplitAfter", "FieldsSeq": "Fields", "FieldsFuncSeq": "FieldsFunc"},
	"bytes":   {"SplitSeq": "Split", "SplitAfterSeq": "SplitAfter", "FieldsSeq": "Fields", "FieldsFuncSeq": "FieldsFunc"},
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
		if !ok || defined[pkg.Name] {
			return
		}
		if to, ok := seqFuncs[pkg.Name][fn.Sel.Name]; ok {
			if strings.HasPrefix(to, "__rlm") {
				ed.add(ed.off(fn.Pos()), ed.off(fn.End()), to)
			} else {
				ed.add(ed.off(fn.Sel.Pos()), ed.off(fn.Sel.End()), to)
			}
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
