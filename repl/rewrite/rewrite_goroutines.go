package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// Rewrites for goroutines: sync.WaitGroup.Go, and breaks out of a select.

// noteWaitGroups remembers the variables and struct fields a chunk
// declares as sync.WaitGroup (or a pointer to one).
func (r *Rewriter) noteWaitGroups(f *ast.File) {
	if r.waitGroups == nil {
		r.waitGroups = map[string]bool{}
		for name, v := range r.globalsNow() {
			if v.IsValid() && strings.HasSuffix(v.Type().String(), "sync.WaitGroup") {
				r.waitGroups[name] = true
			}
		}
	}
	isWG := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "WaitGroup" {
				found = true
			}
			return !found
		})
		return found
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if isWG(n.Type) {
				for _, id := range n.Names {
					r.waitGroups[id.Name] = true
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if n.Type != nil && isWG(n.Type) || i < len(n.Values) && isWG(n.Values[i]) {
					r.waitGroups[id.Name] = true
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && isWG(n.Rhs[i]) {
						r.waitGroups[id.Name] = true
					}
				}
			}
		}
		return true
	})
}

// rewriteWaitGroupGo turns wg.Go(func() {...}) (Go 1.25) into an Add and a
// go statement. Through the native WaitGroup.Go, yaegi ran the closure with
// the loop variables of the last iteration (a sum over i in a loop came out
// doubled); a go statement of the interpreter gets them right.
func (r *Rewriter) rewriteWaitGroupGo(st *ast.ExprStmt, ed *edits) {
	call, ok := st.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Go" {
		return
	}
	last := ""
	switch x := sel.X.(type) {
	case *ast.Ident:
		last = x.Name
	case *ast.SelectorExpr:
		last = x.Sel.Name
	}
	if !r.waitGroups[last] {
		return
	}
	wg := ed.text(sel.X)
	// The function is bound to a variable before the go statement: passed
	// as the go statement's argument, yaegi sometimes handed the goroutine
	// a nil function (about once in 150 runs of a loop of ten).
	ed.add(ed.off(call.Pos()), ed.off(call.Lparen)+1, "{ __rlmF := (")
	ed.add(ed.off(call.Rparen), ed.off(call.Rparen)+1, fmt.Sprintf("); %s.Add(1); go func() { defer %s.Done(); "+
		"defer func() { if r := recover(); r != nil { __rlmGoPanic(r) } }(); __rlmF() }() }", wg, wg))
}

// rewriteSelectBreaks makes the breaks of a select work. yaegi ends the
// enclosing loop, and the function, on an unlabeled break nested in a
// block of a select case (a loop that skipped even values with "if v%2 ==
// 0 { break }" stopped at the first one), and ends only the select on
// "break L" or "continue L" for an enclosing loop (a loop meant to stop on
// a closed channel ran on). A goto to a label after the select works: each
// such break becomes one, and a labeled jump also sets a flag that, after
// the select, breaks or continues the loop.
func rewriteSelectBreaks(sel *ast.SelectStmt, ed *edits) {
	type jump struct {
		tok   token.Token
		label string
	}
	end := ""
	flags := map[jump]string{}
	var order []jump
	for _, c := range sel.Body.List {
		for _, st := range c.(*ast.CommClause).Body {
			ast.Inspect(st, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
					return false // their unlabeled breaks are theirs
				case *ast.BranchStmt:
					if n.Tok != token.BREAK && n.Tok != token.CONTINUE || n.Tok == token.CONTINUE && n.Label == nil {
						return true
					}
					if end == "" {
						end = ed.name("SelEnd")
					}
					if n.Label == nil {
						ed.add(ed.off(n.Pos()), ed.off(n.End()), "goto "+end)
						return true
					}
					j := jump{n.Tok, n.Label.Name}
					if flags[j] == "" {
						flags[j] = ed.name("Jmp")
						order = append(order, j)
					}
					ed.add(ed.off(n.Pos()), ed.off(n.End()), flags[j]+" = true; goto "+end)
				}
				return true
			})
		}
	}
	if end == "" {
		return
	}
	var before, after strings.Builder
	for _, j := range order {
		fmt.Fprintf(&before, "%s := false; ", flags[j])
	}
	fmt.Fprintf(&after, "; %s: ;", end)
	for _, j := range order {
		fmt.Fprintf(&after, " if %s { %s %s };", flags[j], j.tok, j.label)
	}
	ed.add(ed.off(sel.Pos()), ed.off(sel.Pos()), before.String())
	ed.add(ed.off(sel.End()), ed.off(sel.End()), after.String())
}
