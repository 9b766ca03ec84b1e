package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// Rewrites of loops and switches: range over ints, over the iterators
// turned into slices (iterFuncs) and over strings, per-iteration loop
// variables, type switches.

// rewriteTypeSwitch fixes two ways yaegi gets type switches wrong. A case
// for a type declared in the session missed error values of that type,
// which yaegi hands around in a wrapper: the subject is unwrapped. And
// "case error" never matched at all: it becomes the native error
// interface, which matches the standard library's errors; a value of an
// error type declared in the session that no earlier case lists is handed
// to the switch by __rlmErrSubject as the interpreter's error wrapper, so
// that it matches too (or refused with an error where it cannot be).
func rewriteTypeSwitch(n *ast.TypeSwitchStmt, types *typeInfo, ed *edits) {
	var assert *ast.TypeAssertExpr
	switch a := n.Assign.(type) {
	case *ast.AssignStmt:
		assert, _ = a.Rhs[0].(*ast.TypeAssertExpr)
	case *ast.ExprStmt:
		assert, _ = a.X.(*ast.TypeAssertExpr)
	}
	if assert == nil {
		return
	}
	declared, errCase := false, false
	var listed []string // declared case types before the error case
	for _, c := range n.Body.List {
		for _, t := range c.(*ast.CaseClause).List {
			base := t
			if st, ok := t.(*ast.StarExpr); ok {
				base = st.X
			}
			id, ok := base.(*ast.Ident)
			switch {
			case ok && id.Name == "error" && !types.defined["error"]:
				errCase = true
				ed.add(ed.off(id.Pos()), ed.off(id.End()), "__rlmtypes.Error")
			case ok && builtinTypes[id.Name] == nil && id.Name != "nil" && id.Name != "error":
				declared = true
				if !errCase {
					listed = append(listed, ed.text(t))
				}
			}
		}
	}
	open, close := "", ""
	if declared {
		open, close = "__rlmIface(", ")"
	}
	if errCase {
		zeros := make([]string, len(listed))
		for i, t := range listed {
			zeros[i] = "*new(" + t + ")"
		}
		open = "__rlmErrSubject(" + open
		close += ", []any{" + strings.Join(zeros, ", ") + "})"
	}
	if _, bare := n.Assign.(*ast.ExprStmt); bare && errCase {
		// yaegi matches the subject's error wrapper against case error
		// only in a switch that binds it (switch v := x.(type)); an
		// unused binding costs nothing, since yaegi does not report it.
		ed.add(ed.off(assert.X.Pos()), ed.off(assert.X.Pos()), ed.name("TypeSwitch")+" := ")
	}
	if open != "" {
		ed.add(ed.off(assert.X.Pos()), ed.off(assert.X.Pos()), open)
		ed.add(ed.off(assert.X.End()), ed.off(assert.X.End()), close)
	}
}

// rewriteRange handles the range loops yaegi lacks or runs slowly.
func (r *Rewriter) rewriteRange(n *ast.RangeStmt, types *typeInfo, ed *edits) {
	isBlank := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return e == nil || ok && id.Name == "_" }
	assign := " := "
	if n.Tok == token.ASSIGN {
		assign = " = "
	}
	lbrace := ed.off(n.Body.Lbrace) + 1
	// An iter.Seq takes one loop variable, as Go says at compile time; the
	// slice that stands for it would take two.
	if _, f, ok := iterCall(n.X, types); ok && !f.pairs && n.Value != nil ||
		!ok && n.Value != nil && strings.HasPrefix(types.kind(n.X), "iter.Seq[") {
		ed.fail(n.X.Pos(), fmt.Sprintf("range over %s permits only one iteration variable", ed.text(n.X)))
		return
	}
	// Range over an iterator call: over the map or slice it iterates, or
	// over its slice form (see iterFuncs).
	if call, f, ok := iterCall(n.X, types); ok && (f.own || f.slice != "") {
		if f.own {
			ed.handled[call] = true
			ed.add(ed.off(call.Pos()), ed.off(call.Args[0].Pos()), "")
			ed.add(ed.off(call.Args[0].End()), ed.off(call.End()), "")
		} else {
			sliceOf(call, f, ed)
		}
		if !f.keyed && n.Key != nil {
			ed.add(ed.off(n.Key.Pos()), ed.off(n.Key.Pos()), "_, ")
		}
		r.perIteration(n, types, ed)
		return
	}
	switch types.kind(n.X) {
	case "string":
		if n.Key == nil {
			break
		}
		// The string is evaluated once into a hidden variable; yaegi
		// mis-scopes multi-value := inside loops, so each rune is decoded
		// with two single-value calls, both constant time.
		str, o := ed.name("S"), ed.name("O")
		var body strings.Builder
		if !isBlank(n.Key) {
			fmt.Fprintf(&body, " %s%s%s;", ed.text(n.Key), assign, o)
		}
		if !isBlank(n.Value) {
			fmt.Fprintf(&body, " %s%s__rlmRuneAt(%s, %s);", ed.text(n.Value), assign, str, o)
		}
		ed.add(ed.off(n.For), ed.off(n.X.Pos()), fmt.Sprintf("for %s, %s := ", str, o))
		ed.add(ed.off(n.X.End()), lbrace, fmt.Sprintf(", 0; %s < len(%s); %s += __rlmRuneLen(%s, %s) {%s", o, str, o, str, o, body.String()))
		r.perIteration(n, types, ed)
		return
	case "int":
		i, m := ed.name("I"), ed.name("N")
		body := ""
		if !isBlank(n.Key) {
			body = fmt.Sprintf(" %s%s%s;", ed.text(n.Key), assign, i)
		}
		ed.add(ed.off(n.For), ed.off(n.X.Pos()), fmt.Sprintf("for %s, %s := 0, ", i, m))
		ed.add(ed.off(n.X.End()), lbrace, fmt.Sprintf("; %s < %s; %s++ {%s", i, m, i, body))
		return
	}
	r.perIteration(n, types, ed)
}

// perIteration gives each iteration its own copy of the range variables
// when closures in the body capture them (Go 1.22 semantics).
func (r *Rewriter) perIteration(n *ast.RangeStmt, _ *typeInfo, ed *edits) {
	if n.Tok != token.DEFINE {
		return
	}
	copyLoopVars([]ast.Expr{n.Key, n.Value}, n.Body, ed)
}

// copyLoopVars gives closures in body their own copy of each loop variable:
// the copy is made at the start of the iteration and the closures use it.
// (yaegi resolves the right side of "v := v" to the new v, so the copy gets
// a fresh name instead.) Variables the body assigns are left alone.
func copyLoopVars(vars []ast.Expr, body *ast.BlockStmt, ed *edits) {
	if !capturesVars(body) {
		return
	}
	skip := map[*ast.Ident]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			skip[n.Sel] = true
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				skip[id] = true
			}
		}
		return true
	})
	lbrace := ed.off(body.Lbrace) + 1
	for _, e := range vars {
		v, ok := e.(*ast.Ident)
		if !ok || v.Name == "_" || assigns(body, v.Name) {
			continue
		}
		var uses []*ast.Ident
		ast.Inspect(body, func(n ast.Node) bool {
			lit, ok := n.(*ast.FuncLit)
			if !ok {
				return true
			}
			for _, f := range lit.Type.Params.List {
				for _, p := range f.Names {
					if p.Name == v.Name {
						return false // shadowed by a parameter
					}
				}
			}
			ast.Inspect(lit.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && id.Name == v.Name && !skip[id] {
					uses = append(uses, id)
				}
				return true
			})
			return false
		})
		if len(uses) == 0 {
			continue
		}
		c := ed.name("C")
		ed.add(lbrace, lbrace, fmt.Sprintf(" %s := %s;", c, v.Name))
		for _, id := range uses {
			ed.add(ed.off(id.Pos()), ed.off(id.End()), c)
		}
	}
}

// capturesVars reports whether body holds a closure or go statement, the
// only ways a loop variable can outlive its iteration.
func capturesVars(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt:
			found = true
		}
		return !found
	})
	return found
}

// assigns reports whether body assigns to the variable name.
func assigns(body *ast.BlockStmt, name string) bool {
	found := false
	isName := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == name }
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					found = found || isName(l)
				}
			}
		case *ast.IncDecStmt:
			found = found || isName(n.X)
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && isName(n.X)
		}
		return !found
	})
	return found
}
