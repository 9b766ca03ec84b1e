package rewrite

import (
	"fmt"
	"go/ast"
	"strconv"
	"strings"
)

// Rewrites of declarations: named results and the types the worker must
// know by name to print them.

// hiddenFields reports whether a struct has embedded or unexported fields:
// yaegi builds its native struct with every field exported and none
// embedded, which encoding/json would see.
func hiddenFields(st *ast.StructType) bool {
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			return true
		}
		for _, id := range f.Names {
			if !ast.IsExported(id.Name) && id.Name != "_" {
				return true
			}
		}
	}
	return false
}

// typeRegistrations returns the statements that tell the worker's type
// registry about a declared type (its name, and for a struct with hidden
// fields its layout); none for an interface, a generic type or _.
func typeRegistrations(ts *ast.TypeSpec) []string {
	if _, isIface := ts.Type.(*ast.InterfaceType); isIface || ts.TypeParams != nil || ts.Name.Name == "_" {
		return nil
	}
	name := ts.Name.Name
	reg := []string{fmt.Sprintf("__rlmRegisterType(%q, *new(%s), false)", name, name)}
	if st, ok := ts.Type.(*ast.StructType); ok && hiddenFields(st) {
		reg = append(reg, fmt.Sprintf("__rlmRegisterLayout(%q, *new(%s), %s)", name, name, embeddedFields(st)))
	}
	return reg
}

// embeddedFields returns a []string literal of the names of st's embedded
// fields, "*T" for a pointer.
func embeddedFields(st *ast.StructType) string {
	var names []string
	for _, f := range st.Fields.List {
		if len(f.Names) > 0 {
			continue
		}
		t, star := f.Type, ""
		if s, ok := t.(*ast.StarExpr); ok {
			t, star = s.X, "*"
		}
		switch t := t.(type) {
		case *ast.Ident:
			names = append(names, strconv.Quote(star+t.Name))
		case *ast.SelectorExpr:
			names = append(names, strconv.Quote(star+t.Sel.Name))
		}
	}
	return "[]string{" + strings.Join(names, ", ") + "}"
}

// fmtMethods are the methods fmt calls on the values it prints.
var fmtMethods = map[string]bool{"String": true, "Error": true, "Format": true, "GoString": true}

// recvTypeName returns T for a receiver of type T or *T, or "" for a
// generic receiver.
func recvTypeName(e ast.Expr) string {
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// isTopTypeSpec reports whether ts is declared at the top level of the
// chunk, not inside a function.
func isTopTypeSpec(f *ast.File, ts *ast.TypeSpec) bool {
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, sp := range g.Specs {
				if sp == ts {
					return true
				}
			}
		}
	}
	return false
}

// zeroNamedResults sets the named results of a function to their zero
// values when it starts: yaegi keeps the values of the previous call, so a
// bare return that did not assign a result returned the old value.
func zeroNamedResults(ft *ast.FuncType, body *ast.BlockStmt, ed *edits) {
	if ft.Results == nil {
		return
	}
	var stmts []string
	for _, f := range ft.Results.List {
		for _, id := range f.Names {
			if id.Name != "_" {
				stmts = append(stmts, fmt.Sprintf("%s = *new(%s);", id.Name, ed.text(f.Type)))
			}
		}
	}
	if len(stmts) > 0 {
		ed.add(ed.off(body.Lbrace)+1, ed.off(body.Lbrace)+1, " "+strings.Join(stmts, " "))
	}
}

// isTopBody reports whether b is the body of the function a statement
// chunk was parsed in: the top level of the cell, where "_ = x" works and
// a declaration would be a global ("variable definition loop").
func isTopBody(f *ast.File, b *ast.BlockStmt) bool {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "_" && fn.Body == b {
			return true
		}
	}
	return false
}

// methodSig is what a method expression's func literal needs of a method
// declared in the session: its receiver kind and its parameter and result
// types as written.
type methodSig struct {
	ptr     bool     // pointer receiver
	params  []string // one type per parameter, "...T" for a variadic last one
	results string   // the result list as written, "" for none
	generic bool     // the receiver type has type parameters: not rewritten
}

// noteMethod records the signature of a method declaration for
// methodExpr.
func (r *Rewriter) noteMethod(n *ast.FuncDecl, ed *edits) {
	recv := n.Recv.List[0].Type
	_, ptr := recv.(*ast.StarExpr)
	tn := recvTypeName(recv)
	if tn == "" {
		return
	}
	sig := methodSig{ptr: ptr}
	if st, ok := recv.(*ast.StarExpr); ok {
		recv = st.X
	}
	switch recv.(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		sig.generic = true
	}
	for _, f := range n.Type.Params.List {
		for range max(1, len(f.Names)) {
			sig.params = append(sig.params, ed.text(f.Type))
		}
	}
	if n.Type.Results != nil {
		sig.results = ed.text(n.Type.Results)
	}
	if r.methods == nil {
		r.methods = map[string]methodSig{}
	}
	r.methods[tn+"."+n.Name.Name] = sig
}

// methodExpr returns a func literal for a method expression of a type
// declared in the session ((*T).M or T.M), which yaegi calls with the
// receiver as an extra argument and fails; "" for any other selector.
func (r *Rewriter) methodExpr(n *ast.SelectorExpr, types *typeInfo) string {
	x, ptr := n.X, false
	if p, ok := x.(*ast.ParenExpr); ok {
		if st, ok := p.X.(*ast.StarExpr); ok {
			x, ptr = st.X, true
		}
	}
	id, ok := x.(*ast.Ident)
	if !ok {
		return ""
	}
	sig, ok := r.methods[id.Name+"."+n.Sel.Name]
	if !ok || sig.generic || !ptr && (sig.ptr || types.vars[id.Name] != "") {
		return "" // a variable's method value, or not a method expression Go allows
	}
	recv := id.Name
	if ptr {
		recv = "*" + recv
	}
	var params, args []string
	params = append(params, "__rlmRecv "+recv)
	for i, t := range sig.params {
		params = append(params, fmt.Sprintf("__rlmP%d %s", i, t))
		a := fmt.Sprintf("__rlmP%d", i)
		if strings.HasPrefix(t, "...") {
			a += "..."
		}
		args = append(args, a)
	}
	call := "__rlmRecv." + n.Sel.Name + "(" + strings.Join(args, ", ") + ")"
	if sig.results != "" {
		call = "return " + call
	}
	return "func(" + strings.Join(params, ", ") + ") " + sig.results + " { " + call + " }"
}
