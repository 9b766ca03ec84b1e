package repl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSemantics(t *testing.T) {
	p := newTestPool(t, 1)
	tests := []struct {
		name   string
		cells  []string
		output string // output of the last cell
		errHas string // substring of the last cell's error; "" means no error
	}{
		{"state across cells", []string{"x := 41", "x++", `fmt.Println(x)`}, "42\n", ""},
		{"mixed cell", []string{`import "strings"
func shout(s string) string { return strings.ToUpper(s) }
n := 2
type pair struct{ a, b int }
fmt.Println(shout("hi"), n, pair{1, 2})`}, "HI 2 {1 2}\n", ""},
		{"repeated imports", []string{`import "fmt"
fmt.Print("a")`, `import ("fmt"; "strings")
fmt.Print(strings.Repeat("b", 2))`}, "bb", ""},
		{"forgotten import", []string{`fmt.Print(strings.ToUpper("x"))`}, "X", ""},
		{"bare final expression is not printed", []string{"y := 3\ny * 2"}, "", ""},
		{"context and contexts", []string{`fmt.Println(len(context), len(contexts), contexts[1])`}, "11 2 two\n\nx\n", ""},
		{"range over int", []string{`s := 0
for i := range 5 { s += i }
fmt.Println(s)`}, "10\n", ""},
		{"range over int var", []string{`n := 3
for range n { fmt.Print("x") }`}, "xxx", ""},
		{"min max clear", []string{`m := map[string]int{"a": 1}
clear(m)
fmt.Println(min(3, 1, 2), max(2.5, 1), len(m))`}, "1 2.5 0\n", ""},
		{"slices and maps", []string{`xs := []string{"b", "c", "a"}
slices.Sort(xs)
ks := slices.Sorted(maps.Keys(map[string]int{"z": 1, "y": 2}))
fmt.Println(xs, ks, slices.Contains(xs, "c"), slices.Max([]int{3, 9, 2}))`}, "[a b c] [y z] true 9\n", ""},
		{"globals from native calls", []string{`lines := strings.Split(context, "\n")
first := lines[0]
n := 0
for _, l := range lines { n += len(l) }
re := regexp.MustCompile("t[a-z]+")
ms := re.FindAllString(context, -1)
m0 := ms[0]
counts := map[string]int{"b": 2, "a": 1}
ks := slices.Sorted(maps.Keys(counts))
k0 := ks[0]
var words = strings.Fields(context)
w0 := words[0]
before, after, found := strings.Cut(context, "\n")
fmt.Println(first, n, m0, k0, w0, len(before), len(after), found)`}, "one 7 two a one 3 7 true\n", ""},
		// Redefining a global of the same type reuses its variable (yaegi's
		// new slot kept every previous value alive), so a func declared
		// earlier sees the new value and the old one can be freed.
		{"redefined global keeps its variable", []string{`xs := strings.Split("a b", " ")
func count() int { return len(xs) }`, `xs := strings.Split("a b c", " ")`, `xs := xs[1:]`, `xs, ys := strings.Fields("p q r s"), strings.Fields("z")
fmt.Println(count(), len(xs), ys)`}, "4 4 [z]\n", ""},
		{"redefined global of another type", []string{`xs := strings.Split("a b", " ")`, `xs := strings.Count("a b", " ")
fmt.Println(xs + 1)`}, "2\n", ""},
		{"range over func", []string{`n := 0
for l := range strings.Lines("a\nb\nc") { n += len(l) }
for f := range strings.SplitSeq("x,y", ",") { fmt.Print(f) }
fmt.Println(n)`}, "xy5\n", ""},
		{"rune loop", []string{`s := "héllo"
for i, r := range s { fmt.Print(i, string(r), " ") }`}, "0h 1é 3l 4l 5o ", ""},
		{"rune loop over an expression", []string{`n := 0
for i, r := range strings.ToUpper("aé" + "b") { if r == 'É' { n = i } }
fmt.Println(n)`}, "1\n", ""},
		{"per-iteration loop variables", []string{`var fs []func() int
for i := 0; i < 3; i++ { fs = append(fs, func() int { return i }) }
for _, v := range []int{10, 20} { fs = append(fs, func() int { return v }) }
for _, f := range fs { fmt.Print(f(), " ") }`}, "0 1 2 10 20 ", ""},
		{"compile error line", []string{"a := 1\n\nfmt.Println(a, undefinedName)"}, "", "line 3: undefined: undefinedName"},
		{"whole program", []string{"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"main ran\", len(contexts))\n}", "x := 1", "fmt.Print(x)"}, "1", ""},
		{"whole program runs once", []string{"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"main ran\", len(contexts))\n}"}, "main ran 2\n", ""},
		{"compile error in a function", []string{"x := 1\nfunc f() int {\n\treturn undefinedY\n}"}, "", "line 3: undefined: undefinedY"},
		{"compile error in a loop", []string{"for i := 0; i < 2; i++ {\n\tfmt.Println(i)\n\tfmt.Println(nope)\n}"}, "", "line 3: undefined: nope"},
		{"type error", []string{"a := 1\nvar s string = a"}, "", "line 2:"},
		{"panic line", []string{"xs := []int{1}\ni := 5\n\nfmt.Println(xs[i])"}, "", "line 4: panic"},
		{"syntax error line", []string{"a := 1\nb := (\n"}, "", "line 3"},
		{"FINAL", []string{`FINAL(fmt.Sprint("the answer is ", 42))`}, "", ""},
		{"SHOW_VARS", []string{"zeta := 1.5", "fmt.Print(SHOW_VARS())"}, "zeta float64", ""},
		{"host calls", []string{`fmt.Println(llm_query("a"), rlm_query("b"), llm_query_batched([]string{"c", "d"}))`}, "llm:A rlm:B [llm:C llm:D]\n", ""},
		{"concurrent host calls", []string{`var wg sync.WaitGroup
res := make([]string, 20)
for i := range 20 {
	wg.Add(1)
	go func() { defer wg.Done(); res[i] = llm_query(strconv.Itoa(i)) }()
}
wg.Wait()
fmt.Println(res[0], res[19], len(res))`}, "llm:0 llm:19 20\n", ""},
		// Top-level compound statements run as the body of a declared
		// function (wrapInFunc); these are the forms models write.
		{"multi-value := in a loop", []string{`xs := []string{"a=1", "b=2"}
for _, s := range xs { k, v, ok := strings.Cut(s, "="); fmt.Println(k, v, ok) }`}, "a 1 true\nb 2 true\n", ""},
		{"error check in a loop", []string{`total := 0
for _, a := range []string{"1", "x"} { n, err := strconv.Atoi(a); if err != nil { continue }; total += n }
fmt.Println(total)`}, "1\n", ""},
		{"if with init", []string{`if n, err := strconv.Atoi("5"); err == nil { fmt.Println(n) }`}, "5\n", ""},
		{"else if with init", []string{`x := 1
if y, err := strconv.Atoi("2"); err != nil { fmt.Println(err) } else if z, err := strconv.Atoi("3"); err == nil { x = y + z }
fmt.Println(x)`}, "5\n", ""},
		{"if header with a composite literal", []string{`if v, ok := map[string]int{"a": 1}["a"]; ok { fmt.Println(v) }`}, "1\n", ""},
		{"if header with a func literal", []string{"if f := func() bool {\n\treturn true\n}; f() {\n\tfmt.Println(\"y\")\n}; fmt.Println(\"z\")"}, "y\nz\n", ""},
		{"switch with init", []string{`f := func() int { return 2 }
switch x := f(); x { case 2: fmt.Println("two"); default: fmt.Println("other") }`}, "two\n", ""},
		{"type switch with assignment", []string{`var x any = 3.5
switch v := x.(type) { case int: fmt.Println("int", v); case float64: fmt.Println("float", v*2) }`}, "float 7\n", ""},
		{"three-clause for with multi-value :=", []string{`n := 3
for i := 0; i < n; i++ { a, b := i, i*i; fmt.Print(a, b, " ") }`}, "0 0 1 1 2 4 ", ""},
		{"nested loops with multi-value :=", []string{`grid := [][]string{{"a:1", "b:2"}, {"c:3"}}
for _, row := range grid {
	for j, cell := range row {
		k, v, _ := strings.Cut(cell, ":")
		fmt.Print(j, k, v, " ")
	}
}`}, "0a1 1b2 0c3 ", ""},
		{"select in a loop", []string{`ch := make(chan int, 3)
done := make(chan bool)
go func() { for i := 0; i < 3; i++ { ch <- i }; close(done) }()
got := 0
for got < 3 {
	select {
	case v, ok := <-ch:
		if ok { got++; fmt.Print(v) }
	case <-done:
	}
}`}, "012", ""},
		{"comma-ok map lookups in a loop", []string{`m := map[string]int{"a": 1}
hits := 0
for _, k := range []string{"a", "b", "a"} { if v, ok := m[k]; ok { hits += v }; v, ok := m[k]; if ok { hits += v * 10 } }
fmt.Println(hits)`}, "22\n", ""},
		{"closures capture loop variables and locals", []string{`var fs []func() int
for i := 0; i < 3; i++ { a, b := i, 10; fs = append(fs, func() int { return i + a + b }) }
for _, f := range fs { fmt.Print(f(), " ") }`}, "10 12 14 ", ""},
		{"labels", []string{`outer:
for i := 0; i < 3; i++ { for j := 0; j < 3; j++ { if j == 1 { continue outer }; if i == 2 { break outer }; fmt.Print(i, j, " ") } }`}, "0 0 1 0 ", ""},
		{"block", []string{"{\n\ta, b := 1, 2\n\tfmt.Println(a + b)\n}"}, "3\n", ""},
		{"rune loop with multi-value :=", []string{`s := "héllo"
for i, r := range s { k, ok := i, r > 'z'; fmt.Print(k, ok, " ") }`}, "0 false 1 true 3 false 4 false 5 false ", ""},
		{"range over func with multi-value :=", []string{`cnt := 0
for l := range strings.Lines("a\nb\n") { a, b, _ := strings.Cut(l, "x"); cnt += len(a) + len(b) }
fmt.Println(cnt)`}, "4\n", ""},
		{"range over int with multi-value :=", []string{`for i := range 3 { q, r := i/2, i%2; fmt.Print(q, r, ";") }`}, "0 0;0 1;1 0;", ""},
		{"statement after a loop on the same line", []string{`n := 0; for i := 0; i < 3; i++ { a, b := i, 1; n += a * b }; fmt.Println(n)`}, "3\n", ""},
		{"loop assigns globals for later cells", []string{"total := 0", `for _, a := range []string{"1", "2"} { n, err := strconv.Atoi(a); if err == nil { total += n } }`, "fmt.Println(total)"}, "3\n", ""},
		{"FINAL in a loop", []string{`for i := 0; i < 3; i++ { if i == 1 { FINAL(i) } }`}, "", ""},
		// FINAL formats like fmt.Sprint, which calls String.
		{"FINAL of a Stringer", []string{"type Temp struct{ C float64 }\nfunc (t Temp) String() string { return fmt.Sprintf(\"%.1fC\", t.C) }", "FINAL(Temp{21.5})"}, "", ""},
		{"FINAL of a Stringer in an any", []string{"type Temp struct{ C float64 }\nfunc (t Temp) String() string { return fmt.Sprintf(\"%.1fC\", t.C) }", "var a any = Temp{3}\nFINAL(a)"}, "", ""},
		{"defer in a top-level block runs when it ends, once", []string{"n := 0", "if true {\n\tdefer func() { n += 10 }()\n\tn++\n}\nfmt.Println(n)", "fmt.Println(n)", "fmt.Println(n)"}, "11\n", ""},
		{"return in a closure at top level", []string{`f := func(n int) int { if n > 1 { return n }; return 0 }
for i := 0; i < 3; i++ { g := func() int { return i * 2 }; fmt.Print(f(g())) }`}, "024", ""},
		{"closures with defer in a loop run once", []string{"n := 0", `for i := 0; i < 2; i++ { func() { defer func() { n++ }(); fmt.Print(i) }() }`, `fmt.Println("after", n)`}, "after 2\n", ""},
		{"panic in goroutine", []string{`done := make(chan bool)
go func() { defer close(done); var m map[string]int; m["x"] = 1 }()
<-done
time.Sleep(10 * time.Millisecond)`}, "", "panic in a goroutine: assignment to entry in nil map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t, p, "one", "two\n\nx")
			var r CellResult
			for i, c := range tt.cells {
				r = run(t, s, c)
				if i < len(tt.cells)-1 && r.Error != "" {
					t.Fatalf("cell %d: %s", i, r.Error)
				}
			}
			if tt.errHas == "" && r.Error != "" {
				t.Fatalf("error: %s", r.Error)
			}
			if !strings.Contains(r.Error, tt.errHas) {
				t.Fatalf("error %q does not contain %q", r.Error, tt.errHas)
			}
			if tt.name == "SHOW_VARS" {
				if !strings.Contains(r.Output, tt.output) {
					t.Fatalf("output %q does not contain %q", r.Output, tt.output)
				}
				return
			}
			if r.Output != tt.output {
				t.Fatalf("output %q, want %q", r.Output, tt.output)
			}
			finals := map[string]string{"FINAL": "the answer is 42", "FINAL in a loop": "1",
				"FINAL of a Stringer": "21.5C", "FINAL of a Stringer in an any": "3.0C"}
			if want, ok := finals[tt.name]; ok && (r.Final == nil || *r.Final != want) {
				t.Fatalf("Final = %v, want %q", r.Final, want)
			}
		})
	}
}

// TestTrajectory runs, in one session, cells written the way models write
// them, each building on the state the earlier ones left.
func TestTrajectory(t *testing.T) {
	p := newTestPool(t, 1)
	s := newTestSession(t, p, "alpha beta\ngamma alpha", "delta")
	cells := []struct{ code, output string }{
		{"ys := []string{\"a\", \"b\"}\nfor _, x := range ys { _ = x }", ""},
		{"type P struct{ A int; B string }\nps := []P{{1, \"x\"}}\nfor _, p := range ps { fmt.Println(p.A, p.B) }", "1 x\n"},
		{"var sb strings.Builder\nsb.WriteString(\"hi\")\nfmt.Println(sb.String())", "hi\n"},
		{"re := regexp.MustCompile(`a(\\w+)`)\nfor _, m := range re.FindAllStringSubmatch(contexts[0], -1) { fmt.Print(m[1], \" \") }", "lpha mma lpha "},
		{"type Rec struct { Name string }\nvar recs []Rec\nrecs = append(recs, Rec{\"n\"})\nfmt.Println(len(recs), recs[0].Name)", "1 n\n"},
		{"counts := map[string]int{}\nfor _, w := range strings.Fields(context) { counts[w]++ }\nfmt.Println(counts[\"alpha\"], len(counts))", "2 4\n"},
		{"import \"encoding/json\"\nvar v map[string]any\nerr := json.Unmarshal([]byte(`{\"a\":1}`), &v)\nfmt.Println(v, err)", "map[a:1] <nil>\n"},
		{"results := llm_query_batched(contexts)\nfor i, r := range results { fmt.Println(i, len(r)) }", "0 26\n1 9\n"},
		{"chunks := []string{}\nfor i := 0; i < len(context); i += 10 { chunks = append(chunks, context[i:min(i+10, len(context))]) }\nfmt.Println(len(chunks))", "3\n"},
		{"var wg sync.WaitGroup\nvar mu sync.Mutex\nout := []string{}\nfor _, c := range chunks {\n\twg.Add(1)\n\tgo func() {\n\t\tdefer wg.Done()\n\t\tr := llm_query(c)\n\t\tmu.Lock()\n\t\tout = append(out, r)\n\t\tmu.Unlock()\n\t}()\n}\nwg.Wait()\nfmt.Println(len(out))", "3\n"},
		{"best := \"\"\nfor k, n := range counts { if n > counts[best] { best = k } }\nFINAL(best)", ""},
	}
	for i, c := range cells {
		r := run(t, s, c.code)
		if r.Error != "" || r.Output != c.output {
			t.Fatalf("cell %d: output %q error %q, want output %q", i, r.Output, r.Error, c.output)
		}
		if i == len(cells)-1 && (r.Final == nil || *r.Final != "alpha") {
			t.Fatalf("Final = %v, want alpha", r.Final)
		}
	}
}

// TestErrorsKeepSession interleaves failing cells (compile errors of many
// kinds, which can leave yaegi's scope ahead of its frame) with cells that
// define and use new globals: the failing ones report errors, the others
// work, and the worker is never lost.
func TestErrorsKeepSession(t *testing.T) {
	p := newTestPool(t, 1)
	s := newTestSession(t, p, "a\nb")
	bad := []string{
		"for o := 0; o < 3; { r, w := __rlmDecodeRune(\"abc\", o); fmt.Print(r, w); o += undefinedW }",
		"for _, s := range []string{\"a\"} {\n\tk, v, ok := strings.Cut(s, 1)\n}",
		"x := ",
		"func g( { }",
		"y := undefinedZ + 1",
		"var q int = \"s\"",
		"type T struct { A int }\nt := T{B: 1}",
		"k := []int{1}\nfmt.Println(k[\"a\"])",
		"func h() int { return \"s\" }",
	}
	for i := 0; i < 3*len(bad); i++ {
		if i%3 == 1 {
			r := run(t, s, bad[i/3])
			if r.Error == "" || r.Restarted {
				t.Fatalf("bad cell %q: %+v", bad[i/3], r)
			}
			continue
		}
		r := run(t, s, fmt.Sprintf("v%d := %d\nfor _, v := range []int{1, 2} { v%d += v }\nfmt.Print(v%d, len(SHOW_VARS()) > 0)", i, i, i, i))
		if want := fmt.Sprint(i+3, true); r.Output != want || r.Error != "" || r.Restarted {
			t.Fatalf("cell %d: %+v, want output %q", i, r, want)
		}
	}
}

// TestWrappedStatementErrorLines checks that errors in top-level compound
// statements, which run as the body of a declared function, carry the
// cell's own line numbers: compile errors their exact line, panics the line
// of the call that panicked or, in the statement itself, its first line.
func TestWrappedStatementErrorLines(t *testing.T) {
	p := newTestPool(t, 1)
	tests := []struct{ name, cell, err string }{
		{"for", "x := 1\nfor i := 0; i < 2; i++ {\n\ta, b := i, nope\n}", "line 3: undefined: nope"},
		{"range", "xs := []string{\"a\"}\nfor _, s := range xs {\n\tk, v, ok := strings.Cut(s, \"=\")\n\tfmt.Println(k, v, ok, nope)\n}", "line 4: undefined: nope"},
		{"if with init", `if n, err := strconv.Atoi("5"); err == nil { fmt.Println(n, nope) }`, "line 1: undefined: nope"},
		{"else branch", "if v, ok := map[string]int{\"a\": 1}[\"a\"]; ok {\n\tfmt.Println(v)\n} else {\n\tfmt.Println(nope)\n}", "line 4: undefined: nope"},
		{"switch with init", "\nswitch x := 2; x {\ncase 1:\n\tfmt.Println(nope)\n}", "line 4: undefined: nope"},
		{"type switch", "var a any = 1\nswitch v := a.(type) {\ncase int:\n\tfmt.Println(v + nope)\n}", "line 4: undefined: nope"},
		{"select", "select {\ndefault:\n\tfmt.Println(nope)\n}", "line 3: undefined: nope"},
		{"block", "{\n\ta, b := 1, 2\n\tfmt.Println(a, b, nope)\n}", "line 3: undefined: nope"},
		{"label", "outer:\nfor i := 0; i < 2; i++ {\n\tcontinue nope\n}", "line 3: label nope undefined"},
		{"rune loop", "s := \"héllo\"\nfor i, r := range s {\n\tfmt.Println(i, r, nope)\n}", "line 3: undefined: nope"},
		{"range over int", "for i := range 3 {\n\tq, r := i/2, nope\n}", "line 2: undefined: nope"},
		{"range over func", "for l := range strings.Lines(\"a\\nb\") {\n\ta, b, _ := strings.Cut(l, nope)\n}", "line 2: undefined: nope"},
		{"syntax error", "x := 0\nif x == 0 {\n\tx = (\n}", "line 4: expected operand, found '}'"},
		{"panic in the statement", "xs := []int{1}\nfor i := 0; i < 3; i++ {\n\tfmt.Println(xs[i])\n}", "line 2: panic: runtime error: index out of range"},
		{"panic in a called function", "func parse(s string) int { var m map[string]int; m[s] = 1; return 0 }\n\nif true {\n\tparse(\"x\")\n}", "line 4: panic: assignment to entry in nil map (in parse)"},
		{"return at top level", "for i := 0; i < 3; i++ {\n\tif i == 1 {\n\t\treturn\n\t}\n}", "line 3: return outside a function: the top level of a cell is not a function body; use if/else or break, or put the code in a func"},
		{"defer at top level", "x := 1\ndefer fmt.Println(x)", "line 2: defer outside a function: the top level of a cell is not a function body; call it at the end of the cell, or put the code in a func"},
		{"panic in a closure", "for i := 0; i < 3; i++ {\n\tfunc() {\n\t\tvar m map[string]int\n\t\tm[\"a\"] = i\n\t}()\n}", "line 1: panic: assignment to entry in nil map (in func)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t, p)
			if r := run(t, s, tt.cell); r.Error != tt.err {
				t.Fatalf("error %q, want %q", r.Error, tt.err)
			}
		})
	}
}

// TestFmtOfDeclaredTypes checks how fmt prints values of types declared in
// the session: methods are called as Go calls them, and what yaegi would
// print differently from Go is refused with an error, never printed wrong.
func TestFmtOfDeclaredTypes(t *testing.T) {
	p := newTestPool(t, 1)
	decl := "type P struct{ X, Y int }\nfunc (p P) String() string { return fmt.Sprintf(\"(%d,%d)\", p.X, p.Y) }\ntype E struct{ msg string }\nfunc (e *E) Error() string { return e.msg }\n"
	tests := []declaredCell{
		{"String of a direct argument", `fmt.Println(P{1, 2}); fmt.Printf("%v %s\n", P{3, 4}, P{5, 6})`, "(1,2)\n(3,4) (5,6)\n", ""},
		{"Sprint", `s := fmt.Sprint(P{1, 2}); fmt.Println(len(s), s)`, "5 (1,2)\n", ""},
		{"Error of a direct argument", `var err error = &E{"boom"}; fmt.Println(err, &E{"bang"})`, "boom bang\n", ""},
		{"String inside a slice", `fmt.Println([]P{{1, 2}})`, "[(1,2)]\n", ""},
		{"String inside a map", `fmt.Println(map[string]P{"a": {1, 2}})`, "map[a:(1,2)]\n", ""},
		{"String inside a struct field", `fmt.Println(struct{ A P; B int }{P{1, 2}, 3})`, "{(1,2) 3}\n", ""},
		// The interpreter gives fmt a view of a []P with P's methods
		// where the argument's type says it holds P values; a []P held in
		// an any is not seen, and is refused.
		{"String inside a slice held in an any is refused", `var x any = []P{{1, 2}}; fmt.Println(x)`, "", "fmt cannot call the String or Error method of P"},
		{"%T of a type with methods", `fmt.Printf("%T %T\n", P{}, []*P{})`, "main.P []*main.P\n", ""},
		{"%T of a plain declared type", "type Q struct{ A int }\nfmt.Printf(\"%T\\n\", Q{})", "main.Q\n", ""},
		{"%#v of declared types", "type Q struct{ A int; P P }\nfmt.Printf(\"%#v|%#v\\n\", Q{1, P{2, 3}}, P{4, 5})", "main.Q{A:1, P:main.P{X:2, Y:3}}|main.P{X:4, Y:5}\n", ""},
		{"%T of one of two types with the same fields is refused", "type A struct{ N int }\ntype B struct{ N int }\nfmt.Printf(\"%T\\n\", A{})", "", "%T of a value of type"},
		{"%T under explicit argument indexes is refused", `fmt.Printf("%T %[1]v\n", P{1, 2})`, "", "%T of a value of type P"},
		{"%T of a declared basic type is refused", "type C float64\nfmt.Printf(\"%T\\n\", C(1))", "", "%T of a value of type C"},
		{"%+v of unexported fields names them as declared", "type R struct{ Name string; n int; p P }\nfmt.Printf(\"%+v\\n\", R{\"a\", 1, P{2, 3}})", "{Name:a n:1 p:{X:2 Y:3}}\n", ""},
		{"%+v with a width of unexported fields is refused", "type R struct{ n int }\nfmt.Printf(\"%+4v\\n\", R{1})", "", "%+v of a value of type R, which has unexported fields"},
		{"plain values still print", `fmt.Println([]int{1, 2}, map[string]int{"a": 1}, struct{ A int }{3})`, "[1 2] map[a:1] {3}\n", ""},
	}
	runDeclaredCells(t, p, decl, tests)
}

// TestJSONOfDeclaredTypes checks encoding/json of structs declared with
// unexported and embedded fields, which the interpreter builds with every
// field exported and none embedded: json sees them as Go declares them, or
// the call fails with an error.
func TestJSONOfDeclaredTypes(t *testing.T) {
	p := newTestPool(t, 1)
	decl := "type Base struct{ ID int `json:\"id\"`; note string }\ntype Doc struct{ Base; Title string; secret int }\ntype PDoc struct{ *Base; Title string }\n"
	tests := []declaredCell{
		{"unexported dropped, embedded promoted", `b, err := json.Marshal(Doc{Base{1, "n"}, "t", 2}); fmt.Println(string(b), err)`, "{\"id\":1,\"Title\":\"t\"} <nil>\n", ""},
		{"unmarshal keeps what json does not set", "d := Doc{secret: 7}\nerr := json.Unmarshal([]byte(`{\"id\":3,\"Title\":\"u\",\"secret\":9}`), &d)\nfmt.Println(err, d.ID, d.Title, d.secret)", "<nil> 3 u 7\n", ""},
		{"in a slice", `b, _ := json.Marshal([]Doc{{Title: "a"}}); fmt.Println(string(b))`, "[{\"id\":0,\"Title\":\"a\"}]\n", ""},
		{"an embedded pointer is refused", `json.Marshal(PDoc{Title: "x"})`, "", "an embedded pointer field (*Base)"},
	}
	runDeclaredCells(t, p, "import \"encoding/json\"\n"+decl, tests)
}

// declaredCell is a cell run after declarations, with the output it must
// print or the error it must fail with.
type declaredCell struct{ name, cell, out, errHas string }

// runDeclaredCells runs each test's cell in a fresh session after decl.
func runDeclaredCells(t *testing.T, p *Pool, decl string, tests []declaredCell) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t, p)
			if r := run(t, s, decl); r.Error != "" {
				t.Fatal(r.Error)
			}
			r := run(t, s, tt.cell)
			if tt.errHas == "" && (r.Error != "" || r.Output != tt.out) {
				t.Fatalf("output %q error %q, want %q", r.Output, r.Error, tt.out)
			}
			if tt.errHas != "" && !strings.Contains(r.Error, tt.errHas) {
				t.Fatalf("output %q error %q, want an error containing %q", r.Output, r.Error, tt.errHas)
			}
		})
	}
}

// TestRuneLoopLinear checks that `for i, r := range s` runs in linear time:
// four times the input must cost far less than the sixteen times a
// quadratic loop would. The cost is the worker's CPU time, which a loaded
// machine does not stretch as it stretches wall time.
func TestRuneLoopLinear(t *testing.T) {
	p := newTestPool(t, 1)
	s, err := p.NewSession(context.Background(), SessionConfig{Limits: Limits{CellTimeout: 20 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pid := s.w.cmd.Process.Pid
	loop := func(n int) time.Duration {
		before := processCPU(pid)
		r := run(t, s, "s := strings.Repeat(\"añb\", "+strconv.Itoa(n/4)+")\nn := 0\nfor i, r := range s { if r == 'ñ' { n += i & 1 } }\nfmt.Print(n > 0)")
		if r.Error != "" || r.Output != "true" || r.Restarted {
			t.Fatalf("loop over %d bytes: %+v", n, r)
		}
		if cpu := processCPU(pid) - before; cpu > 0 {
			return cpu
		}
		return r.Duration // where CPU time cannot be read
	}
	loop(1 << 16) // warm up
	// The best of two runs each all the same: CPU time has a resolution
	// of 10ms and counts the worker's collections too.
	small, large := min(loop(1<<18), loop(1<<18)), min(loop(1<<20), loop(1<<20))
	t.Logf("256 KB: %v, 1 MB: %v", small, large)
	if large > 10*small {
		t.Fatalf("4x input took %.1fx as long: not linear", float64(large)/float64(small))
	}
}
