// Package rewrite turns a cell of model-written Go into the chunks the
// REPL's interpreter evaluates in order. A model writes a cell the way it
// writes a notebook cell: imports, declarations and statements mixed
// freely, modern Go included. The rewrites make the interpreter run it as
// Go would, with textual edits that keep every line where it was, so that
// errors carry the cell's own line numbers; where it cannot, the cell is
// refused with an error that says what to write instead. The package also
// decides what a cell may import (AllowedImports).
package rewrite

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
)

// Cells are written by a model the way it writes a notebook cell: imports,
// declarations and statements mixed freely, modern Go included. yaegi
// v0.16.1 evaluates either declarations or statements in one Eval, and
// lacks range over int, min/max/clear, per-iteration loop variables and
// linear-time range over strings. Range over functions it has (patch 1 of
// third_party/yaegi), but at a coroutine switch per element, so an
// iterator call ranged over or collected at once becomes a slice
// (iterFuncs). The
// rewriter splits a cell into chunks evaluated in order and rewrites what
// yaegi lacks with textual edits that keep every line where it was, so that
// errors carry the cell's own line numbers.

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

// Chunk is one piece of a cell evaluated on its own: the sources Sources
// returns for it, then Evaluated.
type Chunk struct {
	src     string
	line    int      // cell line of the first line of src
	imports []string // import keys ("name path") this chunk adds
	decl    bool     // declarations, not statements
}

// Rewriter turns the cells of one session into chunks. It remembers
// imports, methods and wait groups across cells. The zero Rewriter knows
// nothing of the session's globals and predeclared names.
type Rewriter struct {
	globals     func() map[string]reflect.Value
	predeclared map[string]reflect.Value
	imported    map[string]bool      // "name path" of every import done
	seq         int                  // numbers generated names
	sawMain     bool                 // the cell being rewritten declares func main
	register    []string             // registrations of declared types, for the chunk being rewritten
	waitGroups  map[string]bool      // names of variables and fields declared as sync.WaitGroup, across cells
	methods     map[string]methodSig // "T.M" -> the signature of method M of a type T declared in the session, across cells
	// seen holds the globals as globals last returned them, until a chunk
	// is evaluated: a cell's rewrite and its first chunk's Sources ask for
	// them with nothing run between, and building them walks every name
	// of the session.
	seen map[string]reflect.Value
}

// globalsNow returns the session's globals (nil without a globals func).
func (r *Rewriter) globalsNow() map[string]reflect.Value {
	if r.seen == nil && r.globals != nil {
		r.seen = r.globals()
	}
	return r.seen
}

// New returns the Rewriter of a session whose interpreter reports its
// global variables through globals and predeclares the names of
// predeclared (context, llm_query, the shims, ...).
func New(globals func() map[string]reflect.Value, predeclared map[string]reflect.Value) *Rewriter {
	return &Rewriter{globals: globals, predeclared: predeclared}
}

// Sources returns the sources to evaluate for ch, in order. Call it just
// before ch is evaluated: a top-level definition from a native call is
// typed from the session's globals as they are then (see typedDefine).
func (r *Rewriter) Sources(ch Chunk) []string {
	switch {
	case ch.decl:
		if src, ok := r.typedVars(ch.src); ok {
			return []string{src}
		}
	case ch.imports == nil:
		if decl, stmt, ok := r.typedDefine(ch.src); ok {
			if decl == "" { // every name reuses its variable
				return []string{stmt}
			}
			return []string{decl, stmt}
		}
	}
	return []string{ch.src}
}

// Evaluated records that ch was evaluated: its imports are the session's
// now, so later cells do not import them again.
func (r *Rewriter) Evaluated(ch Chunk) {
	r.seen = nil
	if r.imported == nil {
		r.imported = map[string]bool{}
	}
	for _, p := range ch.imports {
		r.imported[p] = true
	}
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

// Rewrite turns one cell into chunks to evaluate in order: first the new
// imports, then runs of declarations and runs of statements as they come.
func (r *Rewriter) Rewrite(code string) ([]Chunk, error) {
	r.seen = nil // a failed chunk of the last cell may have defined some
	if r.imported == nil {
		r.imported = map[string]bool{}
	}
	items, err := split(code)
	if err != nil {
		return nil, err
	}
	var imports []importSpec
	var chunks []Chunk
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
		chunks = append(chunks, Chunk{src: code[start:end], line: lineOf(code, start), decl: it.kind == itemDecl})
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
			reg := Chunk{src: strings.Join(r.register, "; "), line: chunks[k].line + strings.Count(src, "\n")}
			r.register = nil
			chunks = append(chunks[:k+1], append([]Chunk{reg}, chunks[k+1:]...)...)
			k++
			continue
		}
		if wrapper != "" {
			// The declaration, then its call. The call chunk has the
			// declaration's line: a panic is located by the frame of the
			// declared function, whose lines are the declaration's.
			chunks[k].decl = true
			call := Chunk{src: wrapper + "()", line: chunks[k].line}
			chunks = append(chunks[:k+1], append([]Chunk{call}, chunks[k+1:]...)...)
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
		chunks = append([]Chunk{{src: strings.Join(lines, "\n"), line: 1, imports: keys}}, chunks...)
	}
	// yaegi runs a declared main after every later Eval; a cell written as
	// a program gets its main renamed and run once, as `go run` would.
	if r.sawMain {
		chunks = append(chunks, Chunk{src: "__rlmMain()", line: strings.Count(code, "\n") + 1})
	}
	return chunks, nil
}

func errNotAllowed(s importSpec) error {
	return cellError(s.line, fmt.Sprintf("import %q is not allowed: REPL code cannot use files, processes, the network, the environment, unsafe or reflection. Allowed packages: %s", s.path, allowlist()))
}

func (r *Rewriter) importedName(name string) bool {
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

// edits are the replacements the rewrites of one chunk make in its source.
// Every rewrite adds to it; apply writes them all at the end, so that
// rewrites never see each other's output.
type edits struct {
	src    string
	fset   *token.FileSet
	prefix int // bytes parsed before src (the wrapping package clause)
	line   int // the cell's line of src's first
	list   []edit
	seq    *int // the rewriter's counter of fresh names
	// handled are the calls a rewrite of the expression around them
	// already rewrote (an iterator call made a slice), which rewriteCall
	// leaves alone.
	handled map[*ast.CallExpr]bool
	err     error // the first form refused, as a cell error
}

// off is p's byte offset in src.
func (e *edits) off(p token.Pos) int { return e.fset.Position(p).Offset - e.prefix }

// text is n's source.
func (e *edits) text(n ast.Node) string { return e.src[e.off(n.Pos()):e.off(n.End())] }

// add replaces src[start:end] with t.
func (e *edits) add(start, end int, t string) { e.list = append(e.list, edit{start, end, t}) }

// fail refuses the cell with msg at p, as Go would refuse it; the first
// refusal is reported.
func (e *edits) fail(p token.Pos, msg string) {
	if e.err == nil {
		e.err = cellError(e.line+e.fset.Position(p).Line-1, msg)
	}
}

// name is a fresh identifier no model code can collide with.
func (e *edits) name(base string) string {
	*e.seq++
	return fmt.Sprintf("__rlm%s%d", base, *e.seq)
}

// apply returns src with every edit made, in order of position.
func (e *edits) apply() string {
	if len(e.list) == 0 {
		return e.src
	}
	sort.SliceStable(e.list, func(i, j int) bool { return e.list[i].start < e.list[j].start })
	var b strings.Builder
	pos := 0
	for _, ed := range e.list {
		if ed.start < pos {
			continue // overlapping edits cannot happen by construction; be safe
		}
		b.WriteString(e.src[pos:ed.start])
		b.WriteString(ed.text)
		pos = ed.end
	}
	b.WriteString(e.src[pos:])
	return b.String()
}

// rewriteChunk parses a chunk and applies the modern-Go rewrites.
// A statement wrapped in a function is returned as the declaration of that
// function, and wrapper is its name.
func (r *Rewriter) rewriteChunk(src string, line int, isDecl bool, used map[string]int, types *typeInfo) (out, wrapper string, err error) {
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
	ed := &edits{src: src, fset: fset, prefix: len(prefix), line: line, seq: &r.seq, handled: map[*ast.CallExpr]bool{}}
	types.infer(f)
	r.noteWaitGroups(f)
	defined := types.defined
	if err := topLevelOnly(stmtsOf(f, isDecl), func(p token.Pos) int { return line + fset.Position(p).Line - 1 }); err != nil {
		return "", "", err
	}
	if body := stmtsOf(f, isDecl); len(body) == 1 && wrapInFunc(body[0]) {
		// These edits come first so that they stay outside the edits the
		// rewrites below make at the same offsets.
		wrapper = ed.name("Stmt")
		ed.add(ed.off(body[0].Pos()), ed.off(body[0].Pos()), "func "+wrapper+"() { ")
		ed.add(ed.off(body[0].End()), ed.off(body[0].End()), " }")
	}

	var forbidden error
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if lit := r.methodExpr(n, types); lit != "" {
				ed.add(ed.off(n.Pos()), ed.off(n.End()), lit)
				return false
			}
			if id, ok := n.X.(*ast.Ident); ok && forbiddenPkgs[id.Name] && !defined[id.Name] && forbidden == nil {
				forbidden = cellError(line+fset.Position(id.Pos()).Line-1, fmt.Sprintf("undefined: %s: package %s cannot be used in the REPL: code here cannot use files, processes, the network, the environment, unsafe or reflection. Allowed packages: %s", id.Name, id.Name, allowlist()))
			}
			if id, ok := n.X.(*ast.Ident); ok && autoImport[id.Name] != "" && !defined[id.Name] {
				if _, ok := used[id.Name]; !ok {
					used[id.Name] = line + fset.Position(id.Pos()).Line - 1
				}
			}
		case *ast.FuncDecl:
			if isDecl && n.Recv != nil {
				r.noteMethod(n, ed)
			}
			if isDecl && n.Recv == nil && n.Name.Name == "main" {
				ed.add(ed.off(n.Name.Pos()), ed.off(n.Name.End()), "__rlmMain")
				r.sawMain = true
			}
			if isDecl && n.Recv != nil && len(n.Recv.List) == 1 && fmtMethods[n.Name.Name] {
				if tn := recvTypeName(n.Recv.List[0].Type); tn != "" {
					// A method of receiver *T is in the method set of *T
					// only: fmt calls it on a *T, never on a T.
					_, ptr := n.Recv.List[0].Type.(*ast.StarExpr)
					zero := "*new(" + tn + ")"
					if ptr {
						zero = "new(" + tn + ")"
					}
					r.register = append(r.register, fmt.Sprintf("__rlmRegisterType(%q, %s, true)", tn, zero))
					if n.Name.Name == "Error" {
						r.register = append(r.register, fmt.Sprintf("__rlmRegisterError(%q, *new(%s))", tn, tn))
						// Converters to the error interface, made by the
						// interpreter, for the type switch's case error
						// (see typeRegistry.errSubject): *T always has
						// the method, T when the receiver is a value.
						if !ptr {
							r.register = append(r.register, fmt.Sprintf("__rlmRegisterErrorConv(*new(%s), func(v any) error { return v.(%s) })", tn, tn))
						}
						r.register = append(r.register, fmt.Sprintf("__rlmRegisterErrorConv(new(%s), func(v any) error { return v.(*%s) })", tn, tn))
					}
				}
			}
			if n.Body != nil {
				zeroNamedResults(n.Type, n.Body, ed)
			}
		case *ast.FuncLit:
			zeroNamedResults(n.Type, n.Body, ed)
		case *ast.TypeSpec:
			if isDecl && isTopTypeSpec(f, n) {
				r.register = append(r.register, typeRegistrations(n)...)
			}
		case *ast.DeclStmt:
			// A type declared inside a function: registered where it is
			// declared, so that %T and %#v name it and json sees its
			// fields as Go does.
			if g, ok := n.Decl.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				var reg []string
				for _, sp := range g.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok {
						reg = append(reg, typeRegistrations(ts)...)
					}
				}
				if len(reg) > 0 {
					ed.add(ed.off(n.End()), ed.off(n.End()), "; "+strings.Join(reg, "; "))
				}
			}
		case *ast.BlockStmt:
			if !isTopBody(f, n) {
				blankAssigns(n.List, ed)
			}
		case *ast.CaseClause:
			blankAssigns(n.Body, ed)
		case *ast.CommClause:
			blankAssigns(n.Body, ed)
		case *ast.CallExpr:
			r.rewriteCall(n, types, ed)
		case *ast.DeferStmt:
			freezeArgs(n.Call, "__rlmNew", types, ed)
		case *ast.GoStmt:
			// A panic in a goroutine would kill the worker: report it as an
			// error of the cell instead.
			const rec = "defer func() { if r := recover(); r != nil { __rlmGoPanic(r) } }(); "
			builtin := false
			if id, ok := n.Call.Fun.(*ast.Ident); ok && builtinFuncs[id.Name] && !defined[id.Name] {
				builtin = true
			}
			if lit, ok := n.Call.Fun.(*ast.FuncLit); ok {
				ed.add(ed.off(lit.Body.Lbrace)+1, ed.off(lit.Body.Lbrace)+1, " "+rec)
			} else if !builtin && anyReadsVariable(n.Call.Args, types) {
				// "go work(i)": the arguments must be taken now, which a
				// wrapping closure would not do; __rlmGoCall runs the call
				// with the recovery in the new goroutine.
				freezeArgs(n.Call, "__rlmBox", types, ed)
				helper := "__rlmGoCall("
				if n.Call.Ellipsis.IsValid() {
					helper = "__rlmGoCallSlice("
					ed.add(ed.off(n.Call.Ellipsis), ed.off(n.Call.Ellipsis)+3, "")
				}
				ed.add(ed.off(n.Call.Pos()), ed.off(n.Call.Pos()), helper)
				ed.add(ed.off(n.Call.Fun.End()), ed.off(n.Call.Lparen)+1, ", ")
			} else {
				ed.add(ed.off(n.Call.Pos()), ed.off(n.Call.Pos()), "func() { "+rec)
				ed.add(ed.off(n.Call.End()), ed.off(n.Call.End()), " }()")
			}
		case *ast.TypeSwitchStmt:
			rewriteTypeSwitch(n, types, ed)
		case *ast.ExprStmt:
			r.rewriteWaitGroupGo(n, ed)
		case *ast.SelectStmt:
			rewriteSelectBreaks(n, ed)
		case *ast.RangeStmt:
			r.rewriteRange(n, types, ed)
		case *ast.ForStmt:
			// Per-iteration loop variables (Go 1.22) matter when closures
			// capture them.
			if init, ok := n.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
				copyLoopVars(init.Lhs, n.Body, ed)
			}
		}
		return true
	})
	if forbidden != nil {
		return "", "", forbidden
	}
	if ed.err != nil {
		return "", "", ed.err
	}
	return ed.apply(), wrapper, nil
}

// forbiddenPkgs are names of packages that are not allowed, to explain
// their use without an import.
var forbiddenPkgs = map[string]bool{"os": true, "exec": true, "net": true, "http": true, "syscall": true, "unsafe": true,
	"reflect": true, "runtime": true, "ioutil": true, "filepath": true, "signal": true, "plugin": true}

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
