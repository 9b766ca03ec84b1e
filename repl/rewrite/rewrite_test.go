package rewrite

import (
	"io"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/repl/shims"
)

func TestRewrite(t *testing.T) {
	tests := []struct {
		name   string
		cell   string
		chunks []string // substrings expected in each chunk, in order
		errHas string
	}{
		{"mixed cell", "import \"strings\"\nx := 1\nfunc f() int { return x }\ntype T int\ny := f()",
			[]string{`import "strings"`, "x := 1", "func f() int { return x }\ntype T int", `__rlmRegisterType("T", *new(T), false)`, "y := f()"}, ""},
		{"for header stays whole", "for i := 0; i < 3; i++ {\n}\nz := 2", []string{"func __rlmStmt1() { for i := 0; i < 3; i++ {\n} }", "__rlmStmt1()", "z := 2"}, ""},
		{"func literal call is a statement", "func() { fmt.Print(1) }()", []string{`import "fmt"`, "func() { __rlmFmtPrint(1) }()"}, ""},
		{"method declaration", "type T int\nfunc (T) M() {}", []string{"type T int\nfunc (T) M() {}", `__rlmRegisterType("T", *new(T), false)`}, ""},
		{"String method registers its type", "type T int\nfunc (t *T) String() string { return \"t\" }", []string{"type T int\nfunc (t *T) String() string { return \"t\" }", `__rlmRegisterType("T", *new(T), false); __rlmRegisterType("T", new(T), true)`}, ""},
		{"named results start at zero", "func f() (n int, err error) { return }", []string{"func f() (n int, err error) { n = *new(int); err = *new(error); return }"}, ""},
		{"new of a composite literal", "p := new(T{1})", []string{"p := &T{1}"}, ""},
		{"new of a value", "p := new(42)", []string{"p := __rlmNew(42)"}, ""},
		{"range over int", "for i := range 10 {\n}", []string{"func __rlmStmt1() { for __rlmI2, __rlmN3 := 0, 10; __rlmI2 < __rlmN3; __rlmI2++ { i := __rlmI2;", "__rlmStmt1()"}, ""},
		{"rune loop", "s := \"abc\"\nfor i, r := range s { _ = i; _ = r }", []string{`s := "abc"`, "func __rlmStmt1() { for __rlmS2, __rlmO3 := s, 0; __rlmO3 < len(__rlmS2); __rlmO3 += __rlmRuneLen(__rlmS2, __rlmO3) { i := __rlmO3; r := __rlmRuneAt(__rlmS2, __rlmO3);", "__rlmStmt1()"}, ""},
		{"min and max", "a := min(1, 2.5)", []string{"__rlmMin(1, float64(2.5))"}, ""},
		{"user-defined min is kept", "func min(a, b int) int { return a }\nm := min(1, 2)", []string{"func min", "m := min(1, 2)"}, ""},
		{"go statement recovers", "go work(1)", []string{"go func() { defer func() { if r := recover(); r != nil { __rlmGoPanic(r) } }(); work(1) }()"}, ""},
		{"go statement takes its arguments now", "xs := []int{2}\ngo work(xs...)", []string{"xs := []int{2}", "go __rlmGoCallSlice(work, *__rlmBox(xs))"}, ""},
		{"deferred arguments are copies", "func f(x int) { defer g(x, 1) }", []string{"defer g(*__rlmNew(x), 1)"}, ""},
		{"lines iterator", "for l := range strings.Lines(s) {\n}", []string{`import "strings"`, "func __rlmStmt1() { for _, l := range __rlmLines(s)", "__rlmStmt1()"}, ""},
		{"a line is a string", "for l := range strings.Lines(s) { for i, r := range l { _, _ = i, r } }", []string{`import "strings"`, "for _, l := range __rlmLines(s) { for __rlmS2, __rlmO3 := l, 0;", "__rlmStmt1()"}, ""},
		{"an iterator held is an iterator", "seq := strings.SplitSeq(s, \",\")", []string{`import "strings"`, `seq := strings.SplitSeq(s, ",")`}, ""},
		{"iterator collected at once", "xs := slices.Collect(strings.SplitSeq(s, \",\"))", []string{`import "slices"`, `xs := __rlmSliceCollect[string](strings.Split(s, ","))`}, ""},
		{"iterator held, then collected", "seq := strings.FieldsSeq(s)\nxs := slices.Sorted(seq)", []string{`import "slices"`, "seq := strings.FieldsSeq(s)", "xs := __rlmSlices_Sorted[string](seq)"}, ""},
		{"map keys sorted", "ks := slices.Sorted(maps.Keys(m))", []string{`import "maps"`, "ks := __rlmSliceSorted(__rlmMapKeys(m))"}, ""},
		{"map keys held", "ks := maps.Keys(m)", []string{`import "maps"`, "ks := __rlmMaps_Keys(m)"}, ""},
		{"map keys ranged over", "for k := range maps.Keys(m) {\n}", []string{`import "maps"`, "func __rlmStmt1() { for k := range m {", "__rlmStmt1()"}, ""},
		{"slice values collected are a copy", "ys := slices.Collect(slices.Values(xs))", []string{`import "slices"`, "ys := __rlmSliceCollect(__rlmSlices_Clone(xs))"}, ""},
		{"chunks ranged over", "for c := range slices.Chunk(xs, 2) {\n}", []string{`import "slices"`, "func __rlmStmt1() { for _, c := range __rlmSliceChunks(xs, 2) {", "__rlmStmt1()"}, ""},
		{"one variable over an iter.Seq", "for i, l := range strings.Lines(s) {\n}", nil, "line 1: range over strings.Lines(s) permits only one iteration variable"},
		{"one variable over a held iter.Seq", "seq := strings.Lines(s)\nx := 1\nfor i, l := range seq {\n}", nil, "line 3: range over seq permits only one iteration variable"},
		{"two variables over an iter.Seq2", "for k, v := range maps.All(m) {\n}", []string{`import "maps"`, "func __rlmStmt1() { for k, v := range m {", "__rlmStmt1()"}, ""},
		{"if header with a composite literal", "if xs := []int{1}; len(xs) > 0 {\n}; n := 1",
			[]string{"func __rlmStmt1() { if xs := []int{1}; len(xs) > 0 {\n} }", "__rlmStmt1()", "n := 1"}, ""},
		{"switch header", "switch x := f(); x { case 1: }", []string{"func __rlmStmt1() { switch x := f(); x { case 1: } }", "__rlmStmt1()"}, ""},
		{"labeled loop", "outer:\nfor i := 0; i < 2; i++ { continue outer }", []string{"func __rlmStmt1() { outer:\nfor i := 0; i < 2; i++ { continue outer } }", "__rlmStmt1()"}, ""},
		{"simple statements are not wrapped", "x := 1; x++; fmt.Println(x)", []string{`import "fmt"`, "x := 1", "x++", "__rlmFmtPrintln(x)"}, ""},
		{"forbidden import", "x := 1\nimport \"os\"", nil, `line 2: import "os" is not allowed`},
		{"syntax error", "x := 1\ny := )", nil, "line 2:"},
		{"dot import", `import . "strings"`, nil, "dot and blank imports are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Rewriter
			chunks, err := r.Rewrite(tt.cell)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("error %v, want %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(chunks) != len(tt.chunks) {
				t.Fatalf("%d chunks, want %d: %+v", len(chunks), len(tt.chunks), chunks)
			}
			for i, c := range chunks {
				if !strings.Contains(c.src, tt.chunks[i]) {
					t.Errorf("chunk %d = %q, want it to contain %q", i, c.src, tt.chunks[i])
				}
			}
			// Rewrites never add lines: errors keep the cell's line numbers.
			last := chunks[len(chunks)-1]
			if stmtFrameRE.MatchString("main." + strings.TrimSuffix(last.src, "()")) {
				last = chunks[len(chunks)-2] // the call of a wrapped statement
			}
			if got, want := last.line+strings.Count(last.src, "\n"), strings.Count(tt.cell, "\n")+1; got != want && !strings.HasPrefix(last.src, "import") {
				t.Errorf("last chunk ends on line %d, the cell on line %d", got, want)
			}
		})
	}
}

// TestRewriteJumpsAndWaitGroups checks the rewrites of forms yaegi runs
// wrong without an error: a labeled break or continue inside a select, and
// WaitGroup.Go.
func TestRewriteJumpsAndWaitGroups(t *testing.T) {
	tests := []struct {
		name, cell string
		has        []string
	}{
		{"break out of a select", "func f(ch chan int) {\nL:\n\tfor {\n\t\tselect {\n\t\tcase <-ch:\n\t\t\tbreak L\n\t\t}\n\t}\n}",
			[]string{"__rlmJmp2 := false; select", "__rlmJmp2 = true; goto __rlmSelEnd1", "; __rlmSelEnd1: ; if __rlmJmp2 { break L };"}},
		{"break nested in a select case", "func f(ch chan int) {\n\tfor {\n\t\tselect {\n\t\tcase v := <-ch:\n\t\t\tif v > 0 { break }\n\t\t}\n\t}\n}",
			[]string{"if v > 0 { goto __rlmSelEnd1 }", "}; __rlmSelEnd1: ;"}},
		{"continue from a select", "func f(ch chan int) {\nL:\n\tfor i := 0; i < 3; i++ {\n\t\tselect {\n\t\tcase <-ch:\n\t\t\tif i > 0 { continue L }\n\t\t}\n\t}\n}",
			[]string{"__rlmJmp2 = true; goto __rlmSelEnd1", "if __rlmJmp2 { continue L }"}},
		{"WaitGroup.Go", "func f() {\n\tvar wg sync.WaitGroup\n\twg.Go(func() {})\n\twg.Wait()\n}",
			[]string{"{ __rlmF := (", "); wg.Add(1); go func() { defer wg.Done();"}},
		{"Go of another type is left alone", "func f(p Pool) {\n\tp.Go(func() {})\n}", []string{"p.Go(func() {})"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Rewriter
			chunks, err := r.Rewrite(tt.cell)
			if err != nil {
				t.Fatal(err)
			}
			all := ""
			for _, c := range chunks {
				all += c.src + "\n"
			}
			for _, h := range tt.has {
				if !strings.Contains(all, h) {
					t.Errorf("rewritten cell lacks %q:\n%s", h, all)
				}
			}
			if got, want := strings.Count(all, "\n"), strings.Count(tt.cell, "\n")+len(chunks); got > want {
				t.Errorf("the rewrite added lines:\n%s", all)
			}
		})
	}
}

// TestNativeShimsExist checks the names the rewriter writes in place of
// standard functions against those package shims provides: a shim renamed
// on one side only would fail every cell that calls it.
func TestNativeShimsExist(t *testing.T) {
	funcs := shims.New(io.Discard).Funcs()
	for std, name := range hostShims {
		if _, ok := funcs[name]; !ok {
			t.Errorf("%s is rewritten to %s, which package shims does not provide", std, name)
		}
	}
	// Native (Funcs) or interpreted (Source).
	provided := func(name string) bool {
		_, ok := funcs[name]
		return ok || strings.Contains(shims.Source, "func "+name+"[")
	}
	for pkg, m := range iterFuncs {
		for fn, f := range m {
			if strings.HasPrefix(f.slice, "__rlm") && !provided(f.slice) {
				t.Errorf("%s.%s is rewritten to %s, which package shims does not provide", pkg, fn, f.slice)
			}
		}
	}
	for fn, c := range collectFuncs {
		if !provided(c.slice) || !provided("__rlmSlices_"+fn) {
			t.Errorf("slices.%s is rewritten to %s or __rlmSlices_%[1]s, which package shims does not provide", fn, c.slice)
		}
	}
}
