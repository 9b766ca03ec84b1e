package repl

import (
	"strings"
	"testing"
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
before, after, found := strings.Cut(context, "\n")
fmt.Println(first, n, m0, k0, len(before), len(after), found)`}, "one 7 two a 3 7 true\n", ""},
		{"range over func", []string{`n := 0
for l := range strings.Lines("a\nb\nc") { n += len(l) }
for f := range strings.SplitSeq("x,y", ",") { fmt.Print(f) }
fmt.Println(n)`}, "xy5\n", ""},
		{"rune loop", []string{`s := "héllo"
for i, r := range s { fmt.Print(i, string(r), " ") }`}, "0h 1é 3l 4l 5o ", ""},
		{"per-iteration loop variables", []string{`var fs []func() int
for i := 0; i < 3; i++ { fs = append(fs, func() int { return i }) }
for _, v := range []int{10, 20} { fs = append(fs, func() int { return v }) }
for _, f := range fs { fmt.Print(f(), " ") }`}, "0 1 2 10 20 ", ""},
		{"compile error line", []string{"a := 1\n\nfmt.Println(a, undefinedName)"}, "", "line 3: undefined: undefinedName"},
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
			if tt.name == "FINAL" && (r.Final == nil || *r.Final != "the answer is 42") {
				t.Fatalf("Final = %v", r.Final)
			}
		})
	}
}
