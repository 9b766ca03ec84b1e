package rewrite

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"strings"

	"github.com/rlm-project/rlm/repl/symbols"
)

// yaegi v0.16.1 gives a global defined at top level with := from a native
// call (xs := strings.Split(context, "\n")) a broken static type: indexing
// it fails with "constant definition loop" and ranging over it panics. A
// global declared with its type works. So, just before a top-level
// "a, b := E" runs, typedDefine looks up the native types E yields, from the
// symbol tables and the values of the session's globals, and turns the
// statement into "var a T1; var b T2" followed by "a, b = E". When a type
// cannot be found the statement runs unchanged.

// typedDefine returns the declaration and the assignment to run instead of
// the statement src, or ok == false to run src as it is.
func (r *Rewriter) typedDefine(src string) (decl, stmt string, ok bool) {
	if !strings.Contains(src, ":=") {
		return "", "", false // no define: most statements, not parsed again
	}
	const prefix = "package p; func _() {"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell", prefix+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return "", "", false
	}
	body := f.Decls[0].(*ast.FuncDecl).Body.List
	if len(body) != 1 {
		return "", "", false
	}
	as, isAssign := body[0].(*ast.AssignStmt)
	if !isAssign || as.Tok != token.DEFINE {
		return "", "", false
	}
	tc := typeCtx{r: r, globals: r.globalsNow()}
	var types []reflect.Type
	switch {
	case len(as.Rhs) == len(as.Lhs):
		for _, e := range as.Rhs {
			t := tc.exprType(e)
			if t == nil {
				return "", "", false
			}
			types = append(types, t)
		}
	case len(as.Rhs) == 1 && len(as.Lhs) == 2 && commaOK(as.Rhs[0]):
		return tc.commaOKDefine(src, fset, prefix, as)
	case len(as.Rhs) == 1:
		call, isCall := as.Rhs[0].(*ast.CallExpr)
		if !isCall {
			return "", "", false
		}
		ft := tc.funcType(call.Fun)
		if ft == nil || ft.NumOut() != len(as.Lhs) {
			return "", "", false
		}
		for i := 0; i < ft.NumOut(); i++ {
			types = append(types, ft.Out(i))
		}
	default:
		return "", "", false
	}
	var decls []string
	reused := false
	for i, l := range as.Lhs {
		id, isIdent := l.(*ast.Ident)
		if !isIdent {
			return "", "", false
		}
		if id.Name == "_" {
			continue
		}
		ts, expressible := tc.typeString(types[i])
		if !expressible {
			return "", "", false
		}
		if tc.reusable(id.Name, types[i]) {
			reused = true
			continue
		}
		decls = append(decls, fmt.Sprintf("var %s %s", id.Name, ts))
	}
	if len(decls) == 0 && !reused {
		return "", "", false
	}
	at := fset.Position(as.TokPos).Offset - len(prefix)
	return strings.Join(decls, "; "), src[:at] + "= " + src[at+2:], true
}

// commaOK reports whether e is a comma-ok form: x.(T), m[k] or <-ch.
func commaOK(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.TypeAssertExpr, *ast.IndexExpr:
		return true
	case *ast.UnaryExpr:
		return e.Op == token.ARROW
	case *ast.ParenExpr:
		return commaOK(e.X)
	}
	return false
}

// commaOKDefine declares the two variables of a top-level "v, ok := x.(T)",
// "v, ok := m[k]" or "v, ok := <-ch" (yaegi fails on them with "nil type").
// The type of v is T as written, or the element type of m or ch.
func (tc typeCtx) commaOKDefine(src string, fset *token.FileSet, prefix string, as *ast.AssignStmt) (decl, stmt string, ok bool) {
	e := as.Rhs[0]
	for {
		p, isParen := e.(*ast.ParenExpr)
		if !isParen {
			break
		}
		e = p.X
	}
	var vt string
	switch e := e.(type) {
	case *ast.TypeAssertExpr:
		if e.Type == nil {
			return "", "", false
		}
		vt = src[fset.Position(e.Type.Pos()).Offset-len(prefix) : fset.Position(e.Type.End()).Offset-len(prefix)]
	case *ast.IndexExpr:
		t := tc.exprType(e.X)
		if t == nil || t.Kind() != reflect.Map {
			return "", "", false
		}
		s, expressible := tc.typeString(t.Elem())
		if !expressible {
			return "", "", false
		}
		vt = s
	case *ast.UnaryExpr:
		t := tc.exprType(e.X)
		if t == nil || t.Kind() != reflect.Chan {
			return "", "", false
		}
		s, expressible := tc.typeString(t.Elem())
		if !expressible {
			return "", "", false
		}
		vt = s
	}
	var decls []string
	for i, l := range as.Lhs {
		id, isIdent := l.(*ast.Ident)
		if !isIdent {
			return "", "", false
		}
		if id.Name == "_" {
			continue
		}
		if _, pre := tc.r.predeclared[id.Name]; pre {
			return "", "", false
		}
		t := vt
		if i == 1 {
			t = "bool"
		}
		decls = append(decls, fmt.Sprintf("var %s %s", id.Name, t))
	}
	if len(decls) == 0 {
		return "", "", false
	}
	at := fset.Position(as.TokPos).Offset - len(prefix)
	return strings.Join(decls, "; "), src[:at] + "= " + src[at+2:], true
}

// reusable reports whether a top-level "name := E" can assign to the global
// name already has instead of declaring it again. yaegi gives a redeclared
// global a new slot in its global frame and never frees the old one, so
// every rerun of "lines := strings.Split(context, "\n")" kept the previous
// result alive for the session: the heap grew by one result per run and
// every garbage collection scanned all of them. Assigning to the slot frees
// the old value, and functions declared earlier see the new one (with a
// new slot they kept reading the old). Only a variable of the identical
// type qualifies, so the statement means what it did; predeclared names
// are never assigned through, they are the worker's own state.
func (tc *typeCtx) reusable(name string, t reflect.Type) bool {
	if _, ok := tc.r.predeclared[name]; ok {
		return false
	}
	v, ok := tc.globals[name]
	return ok && v.IsValid() && v.CanSet() && v.Type() == t
}

// typedVars gives "var x = E" declarations the type of E when it comes from
// a native function, for the same reason as typedDefine.
func (r *Rewriter) typedVars(src string) (string, bool) {
	const prefix = "package p;"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell", prefix+src, parser.SkipObjectResolution)
	if err != nil {
		return "", false
	}
	tc := typeCtx{r: r, globals: r.globalsNow()}
	type insert struct {
		at   int
		text string
	}
	var ins []insert
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if vs.Type != nil || len(vs.Values) != len(vs.Names) {
				continue
			}
			var ts string
			for i, v := range vs.Values {
				t := tc.exprType(v)
				if t == nil {
					ts = ""
					break
				}
				s, ok := tc.typeString(t)
				if !ok || (i > 0 && s != ts) {
					ts = ""
					break
				}
				ts = s
			}
			if ts != "" {
				ins = append(ins, insert{fset.Position(vs.Names[len(vs.Names)-1].End()).Offset - len(prefix), " " + ts})
			}
		}
	}
	if len(ins) == 0 {
		return "", false
	}
	var b strings.Builder
	pos := 0
	for _, in := range ins {
		b.WriteString(src[pos:in.at])
		b.WriteString(in.text)
		pos = in.at
	}
	b.WriteString(src[pos:])
	return b.String(), true
}

type typeCtx struct {
	r       *Rewriter
	globals map[string]reflect.Value
}

var intType = reflect.TypeOf(0)

// exprType returns the native type of e, or nil when it is not evident.
func (tc typeCtx) exprType(e ast.Expr) reflect.Type {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return tc.exprType(e.X)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") && tc.globals[id.Name].Kind() == reflect.Invalid {
			return intType
		}
		if ft := tc.funcType(e.Fun); ft != nil && ft.NumOut() == 1 {
			return ft.Out(0)
		}
		if t := tc.shimType(e); t != nil {
			return t
		}
	case *ast.IndexExpr:
		switch t := tc.exprType(e.X); {
		case t == nil:
		case t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map:
			return t.Elem()
		case t.Kind() == reflect.String:
			return reflect.TypeOf(byte(0))
		}
	case *ast.SliceExpr:
		if t := tc.exprType(e.X); t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.String) {
			return t
		}
	case *ast.Ident:
		if v, ok := tc.globals[e.Name]; ok && v.IsValid() && v.Kind() != reflect.Func {
			return v.Type()
		}
	case *ast.CompositeLit:
		return literalType(e.Type)
	}
	return nil
}

var builtinTypes = map[string]reflect.Type{
	"string": reflect.TypeOf(""), "int": intType, "int64": reflect.TypeOf(int64(0)), "float64": reflect.TypeOf(0.0),
	"bool": reflect.TypeOf(false), "byte": reflect.TypeOf(byte(0)), "rune": reflect.TypeOf(rune(0)),
	"any": reflect.TypeOf((*any)(nil)).Elem(),
}

// literalType returns the type written as e when it is built from
// predeclared types only (map[string]int, []string).
func literalType(e ast.Expr) reflect.Type {
	switch e := e.(type) {
	case *ast.Ident:
		return builtinTypes[e.Name]
	case *ast.ArrayType:
		if el := literalType(e.Elt); el != nil && e.Len == nil {
			return reflect.SliceOf(el)
		}
	case *ast.MapType:
		k, v := literalType(e.Key), literalType(e.Value)
		if k != nil && v != nil && k.Comparable() {
			return reflect.MapOf(k, v)
		}
	}
	return nil
}

// shimType returns the result type of a call to a generic shim.
func (tc typeCtx) shimType(e *ast.CallExpr) reflect.Type {
	fun, elem := e.Fun, reflect.Type(nil)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		// Instantiated by the rewriter with the element type (typeArgs).
		fun, elem = ix.X, literalType(ix.Index)
	}
	id, ok := fun.(*ast.Ident)
	if !ok || len(e.Args) == 0 {
		return nil
	}
	if name := strings.TrimPrefix(id.Name, "__rlm"); elem != nil && (collectShims[name] || collectSliceShims[name]) {
		return reflect.SliceOf(elem)
	}
	arg := tc.exprType(e.Args[0])
	if lit, ok := e.Args[0].(*ast.BasicLit); ok && arg == nil {
		// the default type of an untyped constant operand of new(expr)
		arg = map[token.Token]reflect.Type{token.INT: intType, token.FLOAT: builtinTypes["float64"],
			token.STRING: builtinTypes["string"], token.CHAR: builtinTypes["rune"]}[lit.Kind]
	}
	if arg == nil {
		return nil
	}
	if !strings.HasPrefix(id.Name, "__rlm") {
		return nil
	}
	name := strings.TrimPrefix(id.Name, "__rlm")
	switch {
	case sameTypeShims[name]:
		return arg
	case name == "Slices_Min" || name == "Slices_Max" || name == "Slices_MinFunc" || name == "Slices_MaxFunc":
		if arg.Kind() == reflect.Slice {
			return arg.Elem()
		}
	case name == "SliceChunks":
		return reflect.SliceOf(arg)
	case name == "MapKeys":
		if arg.Kind() == reflect.Map {
			return reflect.SliceOf(arg.Key())
		}
	case name == "MapValues":
		if arg.Kind() == reflect.Map {
			return reflect.SliceOf(arg.Elem())
		}
	case collectShims[name]:
		if elem := seqElem(arg); elem != nil {
			return reflect.SliceOf(elem)
		}
	case name == "New":
		return reflect.PointerTo(arg)
	}
	if t, ok := fixedTypeShims[name]; ok {
		return t
	}
	return nil
}

// sameTypeShims return a value of the type of their first argument.
var sameTypeShims = map[string]bool{
	"Min": true, "Max": true, "SliceCollect": true, "SliceSorted": true, "SliceSortedFunc": true,
	"SliceSortedStableFunc": true, "SliceAppend": true, "Slices_Clone": true, "Slices_Compact": true, "Slices_CompactFunc": true, "Slices_Insert": true,
	"Slices_Delete": true, "Slices_DeleteFunc": true, "Slices_Replace": true, "Slices_Grow": true,
	"Slices_Clip": true, "Slices_Concat": true, "Slices_Repeat": true, "Slices_AppendSeq": true,
	"Maps_Clone": true, "Maps_Collect": true,
}

// collectSliceShims stand for collectShims given a slice (see
// collectFuncs).
var collectSliceShims = map[string]bool{"SliceCollect": true, "SliceSorted": true, "SliceSortedFunc": true,
	"SliceSortedStableFunc": true, "SliceAppend": true}

// collectShims take an iterator and return a slice of its elements.
var collectShims = map[string]bool{"Slices_Collect": true, "Slices_Sorted": true, "Slices_SortedFunc": true,
	"Slices_SortedStableFunc": true}

// fixedTypeShims return a value of one type whatever their arguments.
var fixedTypeShims = map[string]reflect.Type{
	"Slices_Equal": boolType, "Slices_EqualFunc": boolType, "Slices_Contains": boolType,
	"Slices_ContainsFunc": boolType, "Slices_IsSorted": boolType, "Slices_IsSortedFunc": boolType,
	"Maps_Equal": boolType, "Maps_EqualFunc": boolType, "Slices_Index": intType,
	"Slices_IndexFunc": intType, "Slices_Compare": intType, "Slices_CompareFunc": intType,
}

var boolType = reflect.TypeOf(false)

// funcType returns the type of a native function or method value.
func (tc typeCtx) funcType(fun ast.Expr) reflect.Type {
	switch fun := fun.(type) {
	case *ast.SelectorExpr:
		x, ok := fun.X.(*ast.Ident)
		if !ok {
			// A method of a native value an expression yields:
			// regexp.MustCompile(p).FindStringSubmatch(s).
			t := tc.exprType(fun.X)
			if t == nil {
				return nil
			}
			m, ok := t.MethodByName(fun.Sel.Name)
			if !ok || t.Kind() == reflect.Interface {
				return nil
			}
			return methodValueType(m.Type)
		}
		if v, ok := tc.globals[x.Name]; ok && v.IsValid() {
			if m := v.MethodByName(fun.Sel.Name); m.IsValid() {
				return m.Type()
			}
			return nil
		}
		path := tc.r.importPath(x.Name)
		if path == "" {
			return nil
		}
		v, ok := symbols.Symbols[path+"/"+pkgName(path)][fun.Sel.Name]
		if ok && v.Kind() == reflect.Func {
			return v.Type()
		}
	case *ast.Ident:
		if v, ok := tc.r.predeclared[fun.Name]; ok && v.Kind() == reflect.Func {
			return v.Type()
		}
	}
	return nil
}

// methodValueType is the type of a method value: the method's function
// type without its receiver.
func methodValueType(ft reflect.Type) reflect.Type {
	in := make([]reflect.Type, 0, ft.NumIn()-1)
	for i := 1; i < ft.NumIn(); i++ {
		in = append(in, ft.In(i))
	}
	out := make([]reflect.Type, ft.NumOut())
	for i := range out {
		out[i] = ft.Out(i)
	}
	return reflect.FuncOf(in, out, ft.IsVariadic())
}

var qualifiedRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\.[A-Za-z_]\w*`)

// typeString writes t as Go source, when every package it names is
// imported under that name and it holds no anonymous structs.
func (tc typeCtx) typeString(t reflect.Type) (string, bool) {
	s := t.String()
	if strings.Contains(s, "struct {") || strings.Contains(s, "main.") {
		return "", false
	}
	for _, m := range qualifiedRE.FindAllStringSubmatch(s, -1) {
		if tc.r.importPath(m[1]) == "" {
			return "", false
		}
	}
	return s, true
}

// importPath returns the path of the package imported under name, or "".
func (r *Rewriter) importPath(name string) string {
	for k := range r.imported {
		if n, p, ok := strings.Cut(k, " "); ok && n == name {
			return p
		}
	}
	return ""
}
