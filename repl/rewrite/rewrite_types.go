package rewrite

import (
	"go/ast"
	"go/token"
	"reflect"
	"strings"
)

// typeInfo: what the rewrites need to know about the types of a cell's
// names, inferred from the cell and the session's earlier cells.

// typeInfo is a small, flow-insensitive guess at the types of names in a
// cell, enough to spot range loops over strings and ints. A wrong guess of
// "unknown" only leaves a loop as yaegi runs it.
type typeInfo struct {
	vars    map[string]string // name -> "string", "int", "[]string", "iter.Seq[string]", "iter.Seq[[]byte]" or ""
	defined map[string]bool   // names declared by the session or the cell
	consts  map[string]bool   // names declared by const in the cell
}

// newTypeInfo starts the guesses for one cell from the session's globals.
func (r *Rewriter) newTypeInfo() *typeInfo {
	t := &typeInfo{vars: map[string]string{"context": "string", "contexts": "[]string", "query": "string"}, defined: map[string]bool{}, consts: map[string]bool{}}
	for name, v := range r.globalsNow() {
		if !v.IsValid() {
			continue
		}
		t.defined[name] = true
		switch typ := v.Type(); {
		case typ.Kind() == reflect.String:
			t.vars[name] = "string"
		case typ.Kind() == reflect.Int:
			t.vars[name] = "int"
		case typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.String:
			t.vars[name] = "[]string"
		case typ.Kind() == reflect.Func:
			if elem := seqElem(typ); elem == reflect.TypeOf("") || elem == reflect.TypeOf([]byte(nil)) {
				t.vars[name] = "iter.Seq[" + elem.String() + "]"
			}
		default:
			t.vars[name] = ""
		}
	}
	return t
}

// infer adds the names a chunk of the cell declares.
func (t *typeInfo) infer(f *ast.File) {
	typeName := func(e ast.Expr) string {
		switch e := e.(type) {
		case *ast.Ident:
			if e.Name == "string" || e.Name == "int" {
				return e.Name
			}
		case *ast.ArrayType:
			if id, ok := e.Elt.(*ast.Ident); ok && id.Name == "string" && e.Len == nil {
				return "[]string"
			}
		}
		return ""
	}
	// Two passes so that names assigned from names declared later resolve.
	for pass := 0; pass < 2; pass++ {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv == nil && n.Name.Name != "_" {
					t.defined[n.Name.Name] = true
				}
			case *ast.TypeSpec:
				t.defined[n.Name.Name] = true
			case *ast.GenDecl:
				if n.Tok == token.CONST {
					for _, sp := range n.Specs {
						for _, id := range sp.(*ast.ValueSpec).Names {
							t.consts[id.Name] = true
						}
					}
				}
			case *ast.Field:
				for _, id := range n.Names {
					t.vars[id.Name] = typeName(n.Type)
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					t.defined[id.Name] = true
					k := typeName(n.Type)
					if k == "" && i < len(n.Values) {
						k = t.kind(n.Values[i])
					}
					t.vars[id.Name] = k
				}
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE {
					for i, l := range n.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							t.defined[id.Name] = true
							if len(n.Lhs) == len(n.Rhs) {
								t.vars[id.Name] = t.kind(n.Rhs[i])
							} else if _, seen := t.vars[id.Name]; !seen {
								t.vars[id.Name] = ""
							}
						}
					}
				}
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok && n.Tok == token.DEFINE {
						t.defined[id.Name] = true
					}
				}
				if id, ok := n.Value.(*ast.Ident); ok && t.kind(n.X) == "[]string" {
					t.vars[id.Name] = "string"
				}
				if id, ok := n.Key.(*ast.Ident); ok && n.Tok == token.DEFINE {
					switch k := t.kind(n.X); k {
					case "int", "string", "[]string":
						t.vars[id.Name] = "int"
					case "iter.Seq[string]":
						t.vars[id.Name] = "string" // the only variable is the element
					}
				}
			}
			return true
		})
	}
}

// kind guesses the type of e: "string", "int", "[]string", the iterators
// of strings and bytes ("iter.Seq[string]", "iter.Seq[[]byte]") or "".
func (t *typeInfo) kind(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		switch e.Kind {
		case token.STRING:
			return "string"
		case token.INT:
			return "int"
		}
	case *ast.Ident:
		return t.vars[e.Name]
	case *ast.ParenExpr:
		return t.kind(e.X)
	case *ast.IndexExpr:
		if t.kind(e.X) == "[]string" {
			return "string"
		}
	case *ast.SliceExpr:
		switch k := t.kind(e.X); k {
		case "string", "[]string":
			return k
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD:
			if k := t.kind(e.X); k != "" {
				return k
			}
			return t.kind(e.Y)
		case token.SUB, token.MUL, token.QUO, token.REM:
			if t.kind(e.X) == "int" || t.kind(e.Y) == "int" {
				return "int"
			}
		}
	case *ast.CallExpr:
		name := ""
		switch fn := e.Fun.(type) {
		case *ast.Ident:
			if t.defined[fn.Name] {
				return ""
			}
			name = fn.Name
		case *ast.SelectorExpr:
			if id, ok := fn.X.(*ast.Ident); ok && !t.defined[id.Name] {
				name = id.Name + "." + fn.Sel.Name
			}
		}
		if pkg, fn, ok := strings.Cut(name, "."); ok && iterFuncs[pkg][fn].elem != "" {
			return "iter.Seq[" + iterFuncs[pkg][fn].elem + "]"
		}
		switch {
		case stringFuncs[name]:
			return "string"
		case intFuncs[name]:
			return "int"
		case stringSliceFuncs[name]:
			return "[]string"
		}
	}
	return ""
}

var (
	stringFuncs = map[string]bool{"strings.ToLower": true, "strings.ToUpper": true, "strings.TrimSpace": true, "strings.Trim": true,
		"strings.TrimLeft": true, "strings.TrimRight": true, "strings.TrimPrefix": true, "strings.TrimSuffix": true,
		"strings.Replace": true, "strings.ReplaceAll": true, "strings.Repeat": true, "strings.Join": true, "strings.Title": true,
		"strings.ToTitle": true, "strings.Map": true, "strings.Clone": true, "fmt.Sprint": true, "fmt.Sprintf": true, "fmt.Sprintln": true,
		"strconv.Itoa": true, "strconv.Quote": true, "strconv.FormatInt": true, "llm_query": true, "rlm_query": true, "string": true,
		"strings.ToValidUTF8": true}
	intFuncs = map[string]bool{"len": true, "cap": true, "int": true, "strings.Count": true, "strings.Index": true,
		"strings.LastIndex": true, "strings.IndexByte": true, "strings.IndexRune": true, "strings.IndexAny": true,
		"utf8.RuneCountInString": true}
	stringSliceFuncs = map[string]bool{"strings.Split": true, "strings.SplitN": true, "strings.SplitAfter": true,
		"strings.Fields": true, "strings.FieldsFunc": true, "llm_query_batched": true, "rlm_query_batched": true}
)

// seqElem returns E when t is an iterator, func(yield func(E) bool)
// (iter.Seq[E] or its underlying type), and nil otherwise.
func seqElem(t reflect.Type) reflect.Type {
	if t.Kind() != reflect.Func || t.NumIn() != 1 || t.NumOut() != 0 {
		return nil
	}
	y := t.In(0)
	if y.Kind() != reflect.Func || y.NumIn() != 1 || y.NumOut() != 1 || y.Out(0).Kind() != reflect.Bool {
		return nil
	}
	return y.In(0)
}
