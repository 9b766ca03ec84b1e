package repl

import (
	"fmt"
	"go/ast"
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
