package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Cells are written by a model the way it writes a notebook cell: imports,
// declarations and statements mixed freely, modern Go included. yaegi
// v0.16.1 evaluates either declarations or statements in one Eval, and
// lacks range over int and over functions, min/max/clear, per-iteration loop
// variables and linear-time range over strings. The rewriter splits a cell
// into chunks evaluated in order and rewrites what yaegi lacks with textual
// edits that keep every line where it was, so that errors carry the cell's
// own line numbers.

// allowedImports is the allowlist of importable packages. Every path here
// has a symbol table in repl/symbols or a generic source in yaegi.
var allowedImports = map[string]bool{
	"bufio": true, "bytes": true, "cmp": true, "container/heap": true, "container/list": true,
	"container/ring": true, "crypto/md5": true, "crypto/sha1": true, "crypto/sha256": true,
	"crypto/sha512": true, "encoding/base32": true, "encoding/base64": true, "encoding/csv": true,
	"encoding/hex": true, "encoding/json": true, "errors": true, "fmt": true, "hash/crc32": true,
	"hash/fnv": true, "html": true, "io": true, "iter": true, "maps": true, "math": true,
	"math/bits": true, "math/cmplx": true, "math/rand": true, "math/rand/v2": true, "path": true,
	"regexp": true, "regexp/syntax": true, "slices": true, "sort": true, "strconv": true,
	"strings": true, "sync": true, "sync/atomic": true, "text/tabwriter": true, "time": true,
	"unicode": true, "unicode/utf16": true, "unicode/utf8": true,
}

// AllowedImports returns the import paths cells may use, sorted. The
// system prompt lists them from here.
func AllowedImports() []string {
	var s []string
	for p := range allowedImports {
		s = append(s, p)
	}
	sort.Strings(s)
	return s
}

// allowlist returns the allowlist as text for error messages.
func allowlist() string { return strings.Join(AllowedImports(), ", ") }

// autoImport maps a package name used without import to its path.
var autoImport = func() map[string]string {
	m := map[string]string{}
	for p := range allowedImports {
		m[pkgName(p)] = p
	}
	m["rand"] = "math/rand"
	delete(m, "syntax")
	return m
}()

// pkgName returns the name of the standard package at path: its last
// element, or the one before a major version suffix (math/rand/v2).
func pkgName(path string) string {
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && majorRE.MatchString(last) {
		return elems[len(elems)-2]
	}
	return last
}

var majorRE = regexp.MustCompile(`^v[0-9]+$`)

// chunk is one piece of a cell evaluated on its own.
type chunk struct {
	src     string
	line    int      // cell line of the first line of src
	imports []string // import keys ("name path") this chunk adds
	decl    bool     // declarations, not statements
}

// rewriter turns cells into chunks. It remembers imports across cells.
type rewriter struct {
	globals     func() map[string]reflect.Value
	predeclared map[string]reflect.Value
	imported    map[string]bool // "name path" of every import done
	seq         int             // numbers generated names
	sawMain     bool            // the cell being rewritten declares func main
	register    []string        // registrations of declared types, for the chunk being rewritten
	waitGroups  map[string]bool // names of variables and fields declared as sync.WaitGroup, across cells
}

type itemKind int

const (
	itemImport itemKind = iota
	itemDecl
	itemStmt
)

type item struct {
	kind       itemKind
	start, end int // byte offsets in the cell
}

// split cuts the cell into top-level items with go/scanner, which also
// inserts the semicolons that end statements.
func split(code string) ([]item, error) {
	fset := token.NewFileSet()
	f := fset.AddFile("cell", -1, len(code))
	var s scanner.Scanner
	var errs scanner.ErrorList
	s.Init(f, []byte(code), func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	type tok struct {
		off int
		t   token.Token
		end int
	}
	var toks []tok
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		off := f.Offset(pos)
		end := off + len(lit)
		if lit == "" {
			end = off + len(t.String())
		}
		if t == token.SEMICOLON && lit == "\n" {
			end = off
		}
		toks = append(toks, tok{off, t, end})
	}
	if len(errs) > 0 {
		return nil, cellError(errs[0].Pos.Line, errs[0].Msg)
	}
	var items []item
	depth := 0
	begin := -1
	// In a statement that starts or holds a for, if or switch at depth 0, a
	// semicolon on the line may be part of its header ("if v, ok := m[k];
	// ok {", "for i := 0; i < n; i++ {") or end it ("if ok { ... }; n++").
	// Braces do not tell the header's end ("if xs := []int{1}; ..."), the
	// parser does: the semicolon ends the item when what comes before it is
	// a whole statement.
	header := false
	wholeStmt := func(src string) bool {
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p; func _() {"+src+"\n}", parser.SkipObjectResolution)
		return err == nil && len(stmtsOf(f, false)) == 1
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if begin < 0 {
			if t.t == token.SEMICOLON {
				continue
			}
			begin = i
		}
		switch t.t {
		case token.FOR, token.IF, token.SWITCH:
			if depth == 0 {
				header = true
			}
		case token.LBRACE:
			depth++
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		last := i == len(toks)-1
		ends := t.t == token.SEMICOLON && depth <= 0
		if ends && header && t.end != t.off && i > begin {
			ends = wholeStmt(code[toks[begin].off:toks[i-1].end])
		}
		if ends || last {
			endTok := i
			if t.t == token.SEMICOLON && i > begin {
				endTok = i - 1
			}
			it := item{start: toks[begin].off, end: toks[endTok].end, kind: itemStmt}
			switch toks[begin].t {
			case token.PACKAGE:
				// A model writing a whole program: the clause means nothing here.
				begin, depth, header = -1, 0, false
				continue
			case token.IMPORT:
				it.kind = itemImport
			case token.TYPE, token.VAR, token.CONST:
				it.kind = itemDecl
			case token.FUNC:
				// func Name(...) and func (recv) Name(...) are declarations;
				// func(...) {...}() is a statement.
				if begin+1 < len(toks) && toks[begin+1].t == token.IDENT {
					it.kind = itemDecl
				} else if begin+1 < len(toks) && toks[begin+1].t == token.LPAREN {
					d, j := 0, begin+1
					for ; j < len(toks); j++ {
						if toks[j].t == token.LPAREN {
							d++
						} else if toks[j].t == token.RPAREN {
							d--
							if d == 0 {
								break
							}
						}
					}
					if j+1 < len(toks) && toks[j+1].t == token.IDENT {
						it.kind = itemDecl
					}
				}
			}
			items = append(items, it)
			begin = -1
			depth = 0
			header = false
		}
	}
	return items, nil
}

// cellErr is an error for the model, located in the cell.
type cellErr struct {
	line int
	msg  string
}

func (e *cellErr) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func cellError(line int, msg string) error { return &cellErr{line, msg} }

// lineOf returns the 1-based line of byte offset off in code.
func lineOf(code string, off int) int { return 1 + strings.Count(code[:off], "\n") }

// rewrite turns one cell into chunks to evaluate in order: first the new
// imports, then runs of declarations and runs of statements as they come.
func (r *rewriter) rewrite(code string) ([]chunk, error) {
	if r.imported == nil {
		r.imported = map[string]bool{}
	}
	items, err := split(code)
	if err != nil {
		return nil, err
	}
	var imports []importSpec
	var chunks []chunk
	for i := 0; i < len(items); {
		it := items[i]
		if it.kind == itemImport {
			specs, err := parseImports(code[it.start:it.end], lineOf(code, it.start))
			if err != nil {
				return nil, err
			}
			imports = append(imports, specs...)
			i++
			continue
		}
		// Runs of declarations are evaluated together (they may refer to
		// each other); statements one by one, so that a panic, which yaegi
		// reports without a position, is located at its statement.
		j := i + 1
		for it.kind == itemDecl && j < len(items) && items[j].kind == itemDecl {
			j++
		}
		start, end := it.start, items[j-1].end
		// Keep the source between items, comments and blank lines included,
		// so that line numbers inside the chunk stay those of the cell.
		chunks = append(chunks, chunk{src: code[start:end], line: lineOf(code, start), decl: it.kind == itemDecl})
		i = j
	}
	for _, s := range imports {
		if !allowedImports[s.path] {
			return nil, errNotAllowed(s)
		}
	}
	// Rewrite declarations and statements; collect package names they use.
	used := map[string]int{}
	types := r.newTypeInfo()
	r.sawMain = false
	for k := 0; k < len(chunks); k++ {
		src, wrapper, err := r.rewriteChunk(chunks[k].src, chunks[k].line, chunks[k].decl, used, types)
		if err != nil {
			return nil, err
		}
		chunks[k].src = src
		if len(r.register) > 0 {
			// Tell the worker the native types of the declared types, so
			// that fmt can refuse what it would print wrong.
			reg := chunk{src: strings.Join(r.register, "; "), line: chunks[k].line + strings.Count(src, "\n")}
			r.register = nil
			chunks = append(chunks[:k+1], append([]chunk{reg}, chunks[k+1:]...)...)
			k++
			continue
		}
		if wrapper != "" {
			// The declaration, then its call. The call chunk has the
			// declaration's line: a panic is located by the frame of the
			// declared function, whose lines are the declaration's.
			chunks[k].decl = true
			call := chunk{src: wrapper + "()", line: chunks[k].line}
			chunks = append(chunks[:k+1], append([]chunk{call}, chunks[k+1:]...)...)
			k++
		}
	}
	// Imports the model forgot: allowlisted packages used by name and not
	// defined in the session.
	explicit := map[string]bool{}
	for _, s := range imports {
		explicit[s.name] = true
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if explicit[n] || r.importedName(n) {
			continue
		}
		imports = append(imports, importSpec{name: n, path: autoImport[n], line: used[n]})
	}
	var lines []string
	var keys []string
	seen := map[string]bool{}
	for _, s := range imports {
		if !allowedImports[s.path] {
			return nil, errNotAllowed(s)
		}
		key := s.name + " " + s.path
		if r.imported[key] || seen[key] {
			continue // importing a package again across cells is fine
		}
		seen[key] = true
		keys = append(keys, key)
		if s.explicitName {
			lines = append(lines, fmt.Sprintf("import %s %q", s.name, s.path))
		} else {
			lines = append(lines, fmt.Sprintf("import %q", s.path))
		}
	}
	if len(lines) > 0 {
		chunks = append([]chunk{{src: strings.Join(lines, "\n"), line: 1, imports: keys}}, chunks...)
	}
	// yaegi runs a declared main after every later Eval; a cell written as
	// a program gets its main renamed and run once, as `go run` would.
	if r.sawMain {
		chunks = append(chunks, chunk{src: "__rlmMain()", line: strings.Count(code, "\n") + 1})
	}
	return chunks, nil
}

func errNotAllowed(s importSpec) error {
	return cellError(s.line, fmt.Sprintf("import %q is not allowed: REPL code cannot use files, processes, the network, the environment, unsafe or reflection. Allowed packages: %s", s.path, allowlist()))
}

func (r *rewriter) importedName(name string) bool {
	for k := range r.imported {
		if strings.HasPrefix(k, name+" ") {
			return true
		}
	}
	return false
}

type importSpec struct {
	name, path   string
	explicitName bool
	line         int
}

func parseImports(src string, line int) ([]importSpec, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell", "package p;"+src, parser.ImportsOnly)
	if err != nil {
		return nil, cellError(line, "bad import: "+firstLine(err.Error()))
	}
	var specs []importSpec
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		spec := importSpec{path: p, name: pkgName(p), line: line + fset.Position(s.Pos()).Line - 1}
		if s.Name != nil {
			if s.Name.Name == "." || s.Name.Name == "_" {
				return nil, cellError(spec.line, fmt.Sprintf("import %s %q: dot and blank imports are not supported; import %q and use its name", s.Name.Name, p, p))
			}
			spec.name, spec.explicitName = s.Name.Name, true
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// edit replaces src[start:end] with text, which holds no newline.
type edit struct {
	start, end int
	text       string
}

// rewriteChunk parses a chunk and applies the modern-Go rewrites.
// A statement wrapped in a function is returned as the declaration of that
// function, and wrapper is its name.
func (r *rewriter) rewriteChunk(src string, line int, isDecl bool, used map[string]int, types *typeInfo) (out, wrapper string, err error) {
	prefix := "package p;"
	suffix := ""
	if !isDecl {
		prefix = "package p; func _() {"
		suffix = "\n}"
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell", prefix+src+suffix, parser.SkipObjectResolution)
	if err != nil {
		if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
			return "", "", cellError(line+list[0].Pos.Line-1, list[0].Msg)
		}
		return "", "", cellError(line, err.Error())
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset - len(prefix) }
	text := func(n ast.Node) string { return src[off(n.Pos()):off(n.End())] }
	types.infer(f)
	r.noteWaitGroups(f)
	defined := types.defined
	var edits []edit
	add := func(start, end int, t string) { edits = append(edits, edit{start, end, t}) }
	name := func(base string) string { r.seq++; return fmt.Sprintf("__rlm%s%d", base, r.seq) }
	if err := topLevelOnly(stmtsOf(f, isDecl), func(p token.Pos) int { return line + fset.Position(p).Line - 1 }); err != nil {
		return "", "", err
	}
	if body := stmtsOf(f, isDecl); len(body) == 1 && wrapInFunc(body[0]) {
		// These edits come first so that they stay outside the edits the
		// rewrites below make at the same offsets.
		wrapper = name("Stmt")
		add(off(body[0].Pos()), off(body[0].Pos()), "func "+wrapper+"() { ")
		add(off(body[0].End()), off(body[0].End()), " }")
	}

	var forbidden error
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && forbiddenPkgs[id.Name] && !defined[id.Name] && forbidden == nil {
				forbidden = cellError(line+fset.Position(id.Pos()).Line-1, fmt.Sprintf("undefined: %s: package %s cannot be used in the REPL: code here cannot use files, processes, the network, the environment, unsafe or reflection. Allowed packages: %s", id.Name, id.Name, allowlist()))
			}
			if id, ok := n.X.(*ast.Ident); ok && autoImport[id.Name] != "" && !defined[id.Name] {
				if _, ok := used[id.Name]; !ok {
					used[id.Name] = line + fset.Position(id.Pos()).Line - 1
				}
			}
		case *ast.FuncDecl:
			if isDecl && n.Recv == nil && n.Name.Name == "main" {
				add(off(n.Name.Pos()), off(n.Name.End()), "__rlmMain")
				r.sawMain = true
			}
			if isDecl && n.Recv != nil && len(n.Recv.List) == 1 && fmtMethods[n.Name.Name] {
				if tn := recvTypeName(n.Recv.List[0].Type); tn != "" {
					r.register = append(r.register, fmt.Sprintf("__rlmRegisterType(%q, *new(%s), true)", tn, tn))
					if n.Name.Name == "Error" {
						r.register = append(r.register, fmt.Sprintf("__rlmRegisterError(%q, *new(%s))", tn, tn))
					}
				}
			}
			if n.Body != nil {
				zeroNamedResults(n.Type, n.Body, text, off, add)
			}
		case *ast.FuncLit:
			zeroNamedResults(n.Type, n.Body, text, off, add)
		case *ast.TypeSpec:
			if _, isIface := n.Type.(*ast.InterfaceType); isDecl && !isIface && n.TypeParams == nil && isTopTypeSpec(f, n) {
				r.register = append(r.register, fmt.Sprintf("__rlmRegisterType(%q, *new(%s), false)", n.Name.Name, n.Name.Name))
				if st, ok := n.Type.(*ast.StructType); ok && hiddenFields(st) {
					r.register = append(r.register, fmt.Sprintf("__rlmRegisterLayout(%q, *new(%s))", n.Name.Name, n.Name.Name))
				}
			}
		case *ast.BlockStmt:
			if !isTopBody(f, n) {
				blankAssigns(n.List, off, add)
			}
		case *ast.CaseClause:
			blankAssigns(n.Body, off, add)
		case *ast.CommClause:
			blankAssigns(n.Body, off, add)
		case *ast.CallExpr:
			r.rewriteCall(n, types, off, add)
		case *ast.DeferStmt:
			freezeArgs(n.Call, "__rlmNew", types, off, add)
		case *ast.GoStmt:
			// A panic in a goroutine would kill the worker: report it as an
			// error of the cell instead.
			const rec = "defer func() { if r := recover(); r != nil { __rlmGoPanic(r) } }(); "
			builtin := false
			if id, ok := n.Call.Fun.(*ast.Ident); ok && builtinFuncs[id.Name] && !defined[id.Name] {
				builtin = true
			}
			if lit, ok := n.Call.Fun.(*ast.FuncLit); ok {
				add(off(lit.Body.Lbrace)+1, off(lit.Body.Lbrace)+1, " "+rec)
			} else if !builtin && anyReadsVariable(n.Call.Args, types) {
				// "go work(i)": the arguments must be taken now, which a
				// wrapping closure would not do; __rlmGoCall runs the call
				// with the recovery in the new goroutine.
				freezeArgs(n.Call, "__rlmBox", types, off, add)
				helper := "__rlmGoCall("
				if n.Call.Ellipsis.IsValid() {
					helper = "__rlmGoCallSlice("
					add(off(n.Call.Ellipsis), off(n.Call.Ellipsis)+3, "")
				}
				add(off(n.Call.Pos()), off(n.Call.Pos()), helper)
				add(off(n.Call.Fun.End()), off(n.Call.Lparen)+1, ", ")
			} else {
				add(off(n.Call.Pos()), off(n.Call.Pos()), "func() { "+rec)
				add(off(n.Call.End()), off(n.Call.End()), " }()")
			}
		case *ast.TypeSwitchStmt:
			rewriteTypeSwitch(n, types, text, off, add)
		case *ast.ExprStmt:
			r.rewriteWaitGroupGo(n, text, off, add)
		case *ast.SelectStmt:
			rewriteSelectBreaks(n, off, add, name)
		case *ast.RangeStmt:
			r.rewriteRange(n, types, off, text, add, name)
		case *ast.ForStmt:
			// Per-iteration loop variables (Go 1.22) matter when closures
			// capture them.
			if init, ok := n.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
				copyLoopVars(init.Lhs, n.Body, off, add, name)
			}
		}
		return true
	})
	if forbidden != nil {
		return "", "", forbidden
	}
	if len(edits) == 0 {
		return src, wrapper, nil
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		if e.start < pos {
			continue // overlapping edits cannot happen by construction; be safe
		}
		b.WriteString(src[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.WriteString(src[pos:])
	return b.String(), wrapper, nil
}

// seqFuncs are iterator functions and the slice-returning function written
// in their place (in the same package unless it starts with __rlm).
var seqFuncs = map[string]map[string]string{
	"strings": {"Lines": "__rlmLines", "SplitSeq": "Split", "SplitAfterSeq": "SplitAfter", "FieldsSeq": "Fields", "FieldsFuncSeq": "FieldsFunc"},
	"bytes":   {"SplitSeq": "Split", "SplitAfterSeq": "SplitAfter", "FieldsSeq": "Fields", "FieldsFuncSeq": "FieldsFunc"},
}

func (r *rewriter) rewriteCall(n *ast.CallExpr, types *typeInfo, off func(token.Pos) int, add func(int, int, string)) {
	defined := types.defined
	switch fn := n.Fun.(type) {
	case *ast.Ident:
		if defined[fn.Name] {
			return
		}
		if lit, ok := firstArg(n).(*ast.CompositeLit); fn.Name == "new" && ok && len(n.Args) == 1 {
			// new(T{...}) is &T{...}
			add(off(fn.Pos()), off(n.Lparen)+1, "&")
			add(off(lit.End()), off(n.Rparen)+1, "")
			return
		}
		if fn.Name == "new" && len(n.Args) == 1 && r.valueOperand(n.Args[0], types) {
			// Go 1.26's new(expr): yaegi takes the operand for a type and
			// returns a pointer to a zero value.
			add(off(fn.Pos()), off(fn.End()), "__rlmNew")
			return
		}
		if fn.Name == "recover" && len(n.Args) == 0 {
			// yaegi's recover returns the panic value boxed in a
			// reflect.Value: a type switch or assertion on it never
			// matched. recover is still called by the deferred function.
			add(off(n.Pos()), off(n.Pos()), "__rlmRecovered(")
			add(off(n.End()), off(n.End()), ")")
			return
		}
		repl := map[string]string{"min": "__rlmMin", "max": "__rlmMax", "clear": "__rlmClear"}[fn.Name]
		if repl != "" {
			add(off(fn.Pos()), off(fn.End()), repl)
		}
		if fn.Name == "min" || fn.Name == "max" {
			// yaegi cannot infer a type parameter from an untyped float.
			for _, a := range n.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.FLOAT {
					add(off(lit.Pos()), off(lit.Pos()), "float64(")
					add(off(lit.End()), off(lit.End()), ")")
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
			if pkg, ok := sel.X.(*ast.Ident); ok && !defined[pkg.Name] && shimmed[pkg.Name][sel.Sel.Name] {
				add(off(sel.Pos()), off(sel.End()), "__rlm"+strings.ToUpper(pkg.Name[:1])+pkg.Name[1:]+"_"+sel.Sel.Name)
			}
		}
	case *ast.SelectorExpr:
		pkg, ok := fn.X.(*ast.Ident)
		if !ok || defined[pkg.Name] {
			return
		}
		if to, ok := seqFuncs[pkg.Name][fn.Sel.Name]; ok {
			if strings.HasPrefix(to, "__rlm") {
				add(off(fn.Pos()), off(fn.End()), to)
			} else {
				add(off(fn.Sel.Pos()), off(fn.Sel.End()), to)
			}
			return
		}
		if to := hostShims[pkg.Name+"."+fn.Sel.Name]; to != "" {
			add(off(fn.Pos()), off(fn.End()), to)
			return
		}
		if shimmed[pkg.Name][fn.Sel.Name] {
			add(off(fn.Pos()), off(fn.End()), "__rlm"+strings.ToUpper(pkg.Name[:1])+pkg.Name[1:]+"_"+fn.Sel.Name)
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
func (r *rewriter) valueOperand(e ast.Expr, types *typeInfo) bool {
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
func blankAssigns(list []ast.Stmt, off func(token.Pos) int, add func(int, int, string)) {
	for _, st := range list {
		n, ok := st.(*ast.AssignStmt)
		if !ok || n.Tok != token.ASSIGN || len(n.Lhs) != 1 || len(n.Rhs) != 1 {
			continue
		}
		if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
			add(off(id.Pos()), off(id.Pos()), "var ")
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
func freezeArgs(call *ast.CallExpr, copyFn string, types *typeInfo, off func(token.Pos) int, add func(int, int, string)) {
	for _, a := range call.Args {
		if !readsVariable(a, types) {
			continue
		}
		add(off(a.Pos()), off(a.Pos()), "*"+copyFn+"(")
		add(off(a.End()), off(a.End()), ")")
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
func zeroNamedResults(ft *ast.FuncType, body *ast.BlockStmt, text func(ast.Node) string, off func(token.Pos) int, add func(int, int, string)) {
	if ft.Results == nil {
		return
	}
	var stmts []string
	for _, f := range ft.Results.List {
		for _, id := range f.Names {
			if id.Name != "_" {
				stmts = append(stmts, fmt.Sprintf("%s = *new(%s);", id.Name, text(f.Type)))
			}
		}
	}
	if len(stmts) > 0 {
		add(off(body.Lbrace)+1, off(body.Lbrace)+1, " "+strings.Join(stmts, " "))
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

// noteWaitGroups remembers the variables and struct fields a chunk
// declares as sync.WaitGroup (or a pointer to one).
func (r *rewriter) noteWaitGroups(f *ast.File) {
	if r.waitGroups == nil {
		r.waitGroups = map[string]bool{}
		if r.globals != nil {
			for name, v := range r.globals() {
				if v.IsValid() && strings.HasSuffix(v.Type().String(), "sync.WaitGroup") {
					r.waitGroups[name] = true
				}
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
func (r *rewriter) rewriteWaitGroupGo(st *ast.ExprStmt, text func(ast.Node) string, off func(token.Pos) int, add func(int, int, string)) {
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
	wg := text(sel.X)
	// The function is bound to a variable before the go statement: passed
	// as the go statement's argument, yaegi sometimes handed the goroutine
	// a nil function (about once in 150 runs of a loop of ten).
	add(off(call.Pos()), off(call.Lparen)+1, "{ __rlmF := (")
	add(off(call.Rparen), off(call.Rparen)+1, fmt.Sprintf("); %s.Add(1); go func() { defer %s.Done(); "+
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
func rewriteSelectBreaks(sel *ast.SelectStmt, off func(token.Pos) int, add func(int, int, string), name func(string) string) {
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
						end = name("SelEnd")
					}
					if n.Label == nil {
						add(off(n.Pos()), off(n.End()), "goto "+end)
						return true
					}
					j := jump{n.Tok, n.Label.Name}
					if flags[j] == "" {
						flags[j] = name("Jmp")
						order = append(order, j)
					}
					add(off(n.Pos()), off(n.End()), flags[j]+" = true; goto "+end)
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
	add(off(sel.Pos()), off(sel.Pos()), before.String())
	add(off(sel.End()), off(sel.End()), after.String())
}

// hostShims are standard functions replaced by native ones of the worker
// that refuse what yaegi would get silently wrong.
var hostShims = map[string]string{"fmt.Errorf": "__rlmErrorf", "errors.Is": "__rlmErrorsIs", "errors.As": "__rlmErrorsAs",
	"fmt.Print": "__rlmFmtPrint", "fmt.Println": "__rlmFmtPrintln", "fmt.Printf": "__rlmFmtPrintf",
	"fmt.Sprint": "__rlmFmtSprint", "fmt.Sprintln": "__rlmFmtSprintln", "fmt.Sprintf": "__rlmFmtSprintf",
	"fmt.Fprint": "__rlmFmtFprint", "fmt.Fprintln": "__rlmFmtFprintln", "fmt.Fprintf": "__rlmFmtFprintf",
	"json.Marshal": "__rlmJSONMarshal", "json.MarshalIndent": "__rlmJSONMarshalIndent", "json.Unmarshal": "__rlmJSONUnmarshal"}

// rewriteTypeSwitch fixes two ways yaegi gets type switches wrong. A case
// for a type declared in the session missed error values of that type,
// which yaegi hands around in a wrapper: the subject is unwrapped. And
// "case error" never matched at all: it becomes the native error
// interface, which matches the standard library's errors; a value of an
// error type declared in the session that no earlier case lists is refused
// by __rlmErrSubject with an error rather than falling to default.
func rewriteTypeSwitch(n *ast.TypeSwitchStmt, types *typeInfo, text func(ast.Node) string, off func(token.Pos) int, add func(int, int, string)) {
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
				add(off(id.Pos()), off(id.End()), "__rlmtypes.Error")
			case ok && builtinTypes[id.Name] == nil && id.Name != "nil" && id.Name != "error":
				declared = true
				if !errCase {
					listed = append(listed, text(t))
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
	if open != "" {
		add(off(assert.X.Pos()), off(assert.X.Pos()), open)
		add(off(assert.X.End()), off(assert.X.End()), close)
	}
}

// rewriteRange handles the range loops yaegi lacks or runs slowly.
func (r *rewriter) rewriteRange(n *ast.RangeStmt, types *typeInfo, off func(token.Pos) int, text func(ast.Node) string, add func(int, int, string), name func(string) string) {
	isBlank := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return e == nil || ok && id.Name == "_" }
	assign := " := "
	if n.Tok == token.ASSIGN {
		assign = " = "
	}
	lbrace := off(n.Body.Lbrace) + 1
	// Range over an iterator we turned into a slice: the single loop
	// variable is now the value, not the index.
	if call, ok := n.X.(*ast.CallExpr); ok {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && !types.defined[pkg.Name] {
				valueLike := seqFuncs[pkg.Name][sel.Sel.Name] != "" ||
					pkg.Name == "maps" && sel.Sel.Name == "Values" || pkg.Name == "slices" && sel.Sel.Name == "Values"
				keyLike := pkg.Name == "maps" && (sel.Sel.Name == "Keys" || sel.Sel.Name == "All") || pkg.Name == "slices" && sel.Sel.Name == "All"
				if (valueLike || keyLike) && len(call.Args) >= 1 {
					if valueLike && n.Key != nil && n.Value == nil {
						add(off(n.Key.Pos()), off(n.Key.Pos()), "_, ")
					}
					if pkg.Name == "maps" || pkg.Name == "slices" {
						// range over the map or slice itself, no copy
						add(off(call.Pos()), off(call.Args[0].Pos()), "")
						add(off(call.Args[0].End()), off(call.End()), "")
					}
					r.perIteration(n, types, off, add, name)
					return
				}
			}
		}
	}
	switch types.kind(n.X) {
	case "string":
		if n.Key == nil {
			break
		}
		// The string is evaluated once into a hidden variable; yaegi
		// mis-scopes multi-value := inside loops, so each rune is decoded
		// with two single-value calls, both constant time.
		str, o := name("S"), name("O")
		var body strings.Builder
		if !isBlank(n.Key) {
			fmt.Fprintf(&body, " %s%s%s;", text(n.Key), assign, o)
		}
		if !isBlank(n.Value) {
			fmt.Fprintf(&body, " %s%s__rlmRuneAt(%s, %s);", text(n.Value), assign, str, o)
		}
		add(off(n.For), off(n.X.Pos()), fmt.Sprintf("for %s, %s := ", str, o))
		add(off(n.X.End()), lbrace, fmt.Sprintf(", 0; %s < len(%s); %s += __rlmRuneLen(%s, %s) {%s", o, str, o, str, o, body.String()))
		r.perIteration(n, types, off, add, name)
		return
	case "int":
		i, m := name("I"), name("N")
		body := ""
		if !isBlank(n.Key) {
			body = fmt.Sprintf(" %s%s%s;", text(n.Key), assign, i)
		}
		add(off(n.For), off(n.X.Pos()), fmt.Sprintf("for %s, %s := 0, ", i, m))
		add(off(n.X.End()), lbrace, fmt.Sprintf("; %s < %s; %s++ {%s", i, m, i, body))
		return
	}
	r.perIteration(n, types, off, add, name)
}

// perIteration gives each iteration its own copy of the range variables
// when closures in the body capture them (Go 1.22 semantics).
func (r *rewriter) perIteration(n *ast.RangeStmt, _ *typeInfo, off func(token.Pos) int, add func(int, int, string), name func(string) string) {
	if n.Tok != token.DEFINE {
		return
	}
	copyLoopVars([]ast.Expr{n.Key, n.Value}, n.Body, off, add, name)
}

// copyLoopVars gives closures in body their own copy of each loop variable:
// the copy is made at the start of the iteration and the closures use it.
// (yaegi resolves the right side of "v := v" to the new v, so the copy gets
// a fresh name instead.) Variables the body assigns are left alone.
func copyLoopVars(vars []ast.Expr, body *ast.BlockStmt, off func(token.Pos) int, add func(int, int, string), name func(string) string) {
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
	lbrace := off(body.Lbrace) + 1
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
		c := name("C")
		add(lbrace, lbrace, fmt.Sprintf(" %s := %s;", c, v.Name))
		for _, id := range uses {
			add(off(id.Pos()), off(id.End()), c)
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

// typeInfo is a small, flow-insensitive guess at the types of names in a
// cell, enough to spot range loops over strings and ints. A wrong guess of
// "unknown" only leaves a loop as yaegi runs it.
type typeInfo struct {
	vars    map[string]string // name -> "string", "int", "[]string" or ""
	defined map[string]bool   // names declared by the session or the cell
	consts  map[string]bool   // names declared by const in the cell
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
		"strings.Fields": true, "strings.FieldsFunc": true, "llm_query_batched": true, "rlm_query_batched": true,
		"strings.SplitSeq": true, "strings.FieldsSeq": true, "strings.Lines": true}
)

// newTypeInfo starts the guesses for one cell from the session's globals.
func (r *rewriter) newTypeInfo() *typeInfo {
	t := &typeInfo{vars: map[string]string{"context": "string", "contexts": "[]string", "query": "string"}, defined: map[string]bool{}, consts: map[string]bool{}}
	if r.globals != nil {
		for name, v := range r.globals() {
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
			default:
				t.vars[name] = ""
			}
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
					switch t.kind(n.X) {
					case "int", "string", "[]string":
						t.vars[id.Name] = "int"
					}
				}
			}
			return true
		})
	}
}

// kind guesses the type of e: "string", "int", "[]string" or "".
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

// posRE matches the position yaegi puts before its messages.
var posRE = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): `)

// explain turns an evaluation error into a message with cell line numbers
// and, where we know one, a hint at what to write instead.
func (c chunk) explain(err error, trace []string) string {
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
		msg += "\nhint: range over a function (an iter.Seq) is not supported by the interpreter: call it with a yield func, seq(func(v T) bool { ...; return true }), or collect the values into a slice; range over an integer works where its type is evident, otherwise write `for i := 0; i < n; i++`"
	case strings.Contains(msg, "undefined selector: slices.") || strings.Contains(msg, "undefined selector: maps."):
		msg += "\nhint: generic functions of slices and maps are partly available (Contains, Index, Sort, SortFunc, Min, Max, BinarySearch, Reverse, Keys, Values, ...); write a plain loop instead"
	case msg == "runtime error: invalid memory address or nil pointer dereference" || strings.Contains(msg, "reflect.Type is nil"):
		// An error without a position: yaegi failed while compiling, not
		// model code while running.
		msg += "\nhint: the interpreter cannot type `x := f(...)` at the top level of a cell when f is a generic function declared in the session; declare the variable with its type (var x []string = f(...)) or do it inside a func"
	case strings.Contains(msg, "undefined type for ") || strings.Contains(msg, "cannot use type func("):
		msg += "\nhint: the interpreter cannot infer the type arguments of a generic call from variadic arguments or from a function argument's result type; write them out: MaxOf[int](a, b), Map[int, string](xs, f)"
	case strings.Contains(msg, "Call with too many input arguments"):
		msg += "\nhint: method expressions such as (*T).Method are not supported by the interpreter; use a method value (x.Method) or a func literal"
	case strings.Contains(msg, "has no symbol"):
		msg += "\nhint: this function is not available in the REPL; write it with a plain loop or use another function of the package"
	}
	return msg
}

// forbiddenPkgs are names of packages that are not allowed, to explain
// their use without an import.
var forbiddenPkgs = map[string]bool{"os": true, "exec": true, "net": true, "http": true, "syscall": true, "unsafe": true,
	"reflect": true, "runtime": true, "ioutil": true, "filepath": true, "signal": true, "plugin": true}

// forbiddenRE matches the error for a forbidden package used without import.
var forbiddenRE = regexp.MustCompile(`undefined: (os|exec|net|http|syscall|unsafe|reflect|runtime|ioutil|fs|filepath|user|signal|debug|plugin)\b`)

// stmtFrameRE matches the frame of a statement wrapped by wrapInFunc.
var stmtFrameRE = regexp.MustCompile(`^main\.__rlmStmt\d+$`)

// stmtPrefixRE matches the name of a wrapped statement's function in the
// names of closures it holds (__rlmStmt4.func).
var stmtPrefixRE = regexp.MustCompile(`^__rlmStmt\d+\.`)

// panicFrameRE matches yaegi's per-frame panic lines: "3:5: panic: main.f(...)".
var panicFrameRE = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): panic: (.*)\(\.\.\.\)$`)

// stmtsOf returns the statements of a parsed statement chunk.
func stmtsOf(f *ast.File, isDecl bool) []ast.Stmt {
	if isDecl || len(f.Decls) != 1 {
		return nil
	}
	fn, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok {
		return nil
	}
	return fn.Body.List
}

// wrapInFunc reports whether a top-level statement is run as the body of a
// function declared on the same lines (func __rlmStmtN() { stmt }) and then
// called. yaegi v0.16.1 compiles the blocks of a top-level statement in the
// global scope, where a multi-value "k, v := f()" in a loop body and the
// init statement of an if or switch lose their variables ("undefined: k");
// a function body compiles them right and still reads and assigns the
// globals. Everything such a statement declares is scoped to it, so the
// function changes nothing visible, except that a defer directly in it runs
// when the statement ends. A declared function, not a closure: yaegi runs a
// top-level closure call whose closure ran a defer again after every later
// evaluation.
func wrapInFunc(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.BlockStmt:
		return true
	case *ast.LabeledStmt:
		return wrapInFunc(st.Stmt)
	}
	return false
}

// topLevelOnly refuses what has no meaning outside a function: yaegi runs a
// top-level defer at once and again after every later evaluation, and a
// return in a wrapped statement would end only that statement, not the cell.
func topLevelOnly(stmts []ast.Stmt, lineOf func(token.Pos) int) error {
	var err error
	for _, st := range stmts {
		if d, ok := st.(*ast.DeferStmt); ok {
			return cellError(lineOf(d.Pos()), "defer outside a function: the top level of a cell is not a function body; call it at the end of the cell, or put the code in a func")
		}
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // a return there is the closure's
			case *ast.ReturnStmt:
				if err == nil {
					err = cellError(lineOf(n.Pos()), "return outside a function: the top level of a cell is not a function body; use if/else or break, or put the code in a func")
				}
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// IsGo reports whether code is a cell the REPL can parse and that does
// something: an unlabeled fence in a model's reply runs as Go only then. A
// bare literal or name (output pasted back) or prose is not code.
func IsGo(code string) bool {
	items, err := split(code)
	if err != nil || len(items) == 0 {
		return false
	}
	acts := false
	for _, it := range items {
		src := code[it.start:it.end]
		switch it.kind {
		case itemImport:
			if _, err := parseImports(src, 1); err != nil {
				return false
			}
			acts = true
		case itemDecl:
			if _, err := parser.ParseFile(token.NewFileSet(), "", "package p;"+src, parser.SkipObjectResolution); err != nil {
				return false
			}
			acts = true
		default:
			f, err := parser.ParseFile(token.NewFileSet(), "", "package p; func _() {"+src+"\n}", parser.SkipObjectResolution)
			if err != nil {
				return false
			}
			for _, st := range stmtsOf(f, false) {
				if es, ok := st.(*ast.ExprStmt); ok {
					if _, call := es.X.(*ast.CallExpr); !call {
						continue
					}
				}
				acts = true
			}
		}
	}
	return acts
}
