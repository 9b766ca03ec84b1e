// Command gencorpus writes the generated part of the REPL's differential
// test corpus (repl/rewrite/testdata/corpus/gen_*.go) from templates:
// programs and cells in the style models write, each family filled with
// several data sets so that the same form is exercised on different
// values. Run it from the repl/rewrite directory with `go run
// ./testdata/gencorpus`; the output is deterministic.
package main

import (
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strings"
)

type program struct {
	name string
	src  string
}

func main() {
	dir := filepath.Join("testdata", "corpus")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	old, _ := filepath.Glob(filepath.Join(dir, "gen_*"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	var all []program
	for _, fam := range families {
		all = append(all, fam()...)
	}
	seen := map[string]bool{}
	for _, p := range all {
		if seen[p.name] {
			fmt.Fprintln(os.Stderr, "duplicate program name", p.name)
			os.Exit(1)
		}
		seen[p.name] = true
		// A whole program is a .go file, formatted; a session of cells is
		// a .gocell file (not Go source on its own, so that gofmt and the
		// go command leave it alone).
		src := []byte(strings.TrimLeft(p.src, "\n"))
		path := filepath.Join(dir, "gen_"+p.name+".gocell")
		if strings.HasPrefix(p.src, "\npackage main") {
			path = filepath.Join(dir, "gen_"+p.name+".go")
			var err error
			if src, err = format.Source(src); err != nil {
				fmt.Fprintln(os.Stderr, p.name, err)
				os.Exit(1)
			}
		}
		if err := os.WriteFile(path, src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	fmt.Printf("wrote %d programs to %s\n", len(all), dir)
}

var families = []func() []program{
	sortInts, sortStructs, wordFreq, stringOps, regexps, jsons, closures, generics,
	goroutines, mapsFam, errorsFam, timesFam, numbers, shapes, modern, sessions, textIO, formatting,
	iterators,
}

// q formats a Go literal of v.
func q(v any) string {
	switch v := v.(type) {
	case []int:
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprint(x)
		}
		return "[]int{" + strings.Join(s, ", ") + "}"
	case []string:
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprintf("%q", x)
		}
		return "[]string{" + strings.Join(s, ", ") + "}"
	case []float64:
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprint(x)
		}
		return "[]float64{" + strings.Join(s, ", ") + "}"
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprint(v)
}

var intSets = [][]int{
	{5, 3, 9, 1, 7},
	{42, -7, 0, 13, 13, 8, -100},
	{1},
	{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
	{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5},
	{1000000, 999, -1000000, 7, 77, 777},
}

func sortInts() []program {
	var out []program
	methods := []struct{ name, imports, body string }{
		{"sortints", `"sort"`, "sort.Ints(xs)"},
		{"slicessort", `"slices"`, "slices.Sort(xs)"},
		{"sortslicedesc", `"sort"`, "sort.Slice(xs, func(i, j int) bool { return xs[i] > xs[j] })"},
		{"sortfunccmp", `"cmp"
	"slices"`, "slices.SortFunc(xs, func(a, b int) int { return cmp.Compare(b, a) })"},
	}
	for i, data := range intSets {
		for _, m := range methods {
			out = append(out, program{fmt.Sprintf("sort_%s_%d", m.name, i), fmt.Sprintf(`
package main

import (
	"fmt"
	%s
)

func main() {
	xs := %s
	%s
	fmt.Println(xs)
	sum := 0
	for _, x := range xs {
		sum += x
	}
	fmt.Printf("n=%%d sum=%%d first=%%d last=%%d\n", len(xs), sum, xs[0], xs[len(xs)-1])
}
`, m.imports, q(data), m.body)})
		}
	}
	return out
}

var people = [][]string{
	{"alice:31", "bob:25", "carol:31", "dave:19", "erin:25"},
	{"zed:50", "amy:50", "kim:20", "lee:35"},
	{"x:1", "y:1", "z:1", "w:2", "v:0", "u:3"},
}

func sortStructs() []program {
	var out []program
	sorts := []struct{ name, code string }{
		{"slice", `sort.Slice(ps, func(i, j int) bool {
	if ps[i].Age != ps[j].Age {
		return ps[i].Age < ps[j].Age
	}
	return ps[i].Name < ps[j].Name
})`},
		{"stable", `sort.SliceStable(ps, func(i, j int) bool { return ps[i].Age > ps[j].Age })`},
		{"sortfunc", `slices.SortFunc(ps, func(a, b Person) int {
	if c := cmp.Compare(a.Age, b.Age); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
})`},
		{"stablefunc", `slices.SortStableFunc(ps, func(a, b Person) int { return cmp.Compare(b.Age, a.Age) })`},
	}
	for i, data := range people {
		for _, s := range sorts {
			out = append(out, program{fmt.Sprintf("people_%s_%d", s.name, i), fmt.Sprintf(`
import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type Person struct {
	Name string
	Age  int
}

raw := %s
var ps []Person
for _, r := range raw {
	name, age, _ := strings.Cut(r, ":")
	n, err := strconv.Atoi(age)
	if err != nil {
		fmt.Println("bad age:", err)
		continue
	}
	ps = append(ps, Person{Name: name, Age: n})
}
%s
for i, p := range ps {
	fmt.Printf("%%d. %%s (%%d)\n", i+1, p.Name, p.Age)
}
_ = cmp.Compare(1, 2)
_ = slices.Contains(raw, "")
_ = sort.IntsAreSorted(nil)
`, q(data), s.code)})
		}
	}
	return out
}

var texts = []string{
	"the quick brown fox jumps over the lazy dog the fox",
	"To be, or not to be, that is the question: Whether 'tis nobler in the mind to suffer",
	"a a a b b c",
	"Go is expressive, concise, clean, and efficient. Go compiles quickly to machine code.",
	"one two three two three three four four four four",
	"It was the best of times, it was the worst of times, it was the age of wisdom",
}

func wordFreq() []program {
	var out []program
	for i, t := range texts {
		out = append(out, program{fmt.Sprintf("wordfreq_prog_%d", i), fmt.Sprintf(`
package main

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	})
}

func main() {
	text := %s
	counts := map[string]int{}
	for _, w := range words(text) {
		counts[w]++
	}
	type kv struct {
		k string
		v int
	}
	var kvs []kv
	for k, v := range counts {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool {
		if kvs[i].v != kvs[j].v {
			return kvs[i].v > kvs[j].v
		}
		return kvs[i].k < kvs[j].k
	})
	for i, e := range kvs {
		if i == 5 {
			break
		}
		fmt.Printf("%%-10s %%3d\n", e.k, e.v)
	}
	fmt.Println("distinct:", len(counts))
}
`, q(t))})
		out = append(out, program{fmt.Sprintf("wordfreq_cell_%d", i), fmt.Sprintf(`
text := %s
counts := make(map[string]int)
for _, w := range strings.Fields(text) {
	w = strings.Trim(strings.ToLower(w), ".,:;'!?")
	if w == "" {
		continue
	}
	counts[w]++
}
keys := make([]string, 0, len(counts))
for k := range counts {
	keys = append(keys, k)
}
sort.Strings(keys)
for _, k := range keys {
	if counts[k] > 1 {
		fmt.Println(k, counts[k])
	}
}
fmt.Println(len(keys), "words")
`, q(t))})
	}
	return out
}

var stringInputs = []string{
	"Hello, World",
	"  padded   with   spaces  ",
	"racecar",
	"comma,separated,values,,end",
	"MiXeD CaSe StRiNg",
	"héllo wörld ñ 日本語",
	"line one\nline two\n\nline four",
	"",
}

func stringOps() []program {
	var out []program
	groups := []struct{ name, code string }{
		{"basic", `fmt.Println(strings.ToUpper(s), strings.ToLower(s))
fmt.Println(len(s), utf8.RuneCountInString(s), len(strings.Fields(s)))
fmt.Printf("%q\n", strings.TrimSpace(s))
fmt.Println(strings.Contains(s, "o"), strings.Index(s, "o"), strings.LastIndex(s, "o"), strings.Count(s, "l"))`},
		{"split", `parts := strings.Split(s, ",")
fmt.Println(len(parts))
for i, p := range parts {
	fmt.Printf("%d:%q ", i, p)
}
fmt.Println()
before, after, found := strings.Cut(s, " ")
fmt.Printf("%q %q %v\n", before, after, found)
fmt.Println(strings.Join(strings.Fields(s), "_"))`},
		{"runes", `rs := []rune(s)
for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
	rs[i], rs[j] = rs[j], rs[i]
}
rev := string(rs)
fmt.Printf("%q palindrome=%v\n", rev, rev == s)
vowels := 0
for _, r := range s {
	if strings.ContainsRune("aeiouAEIOU", r) {
		vowels++
	}
}
fmt.Println("vowels:", vowels)
for i, r := range s {
	if r > 127 {
		fmt.Println("non-ascii at", i, string(r))
	}
}`},
		{"builder", `var b strings.Builder
for i, w := range strings.Fields(s) {
	if i > 0 {
		b.WriteString("-")
	}
	b.WriteString(strings.Repeat("*", len(w)))
}
fmt.Println(b.String(), b.Len())
rot := strings.Map(func(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z':
		return 'a' + (r-'a'+13)%26
	case r >= 'A' && r <= 'Z':
		return 'A' + (r-'A'+13)%26
	}
	return r
}, s)
fmt.Println(rot)
fmt.Println(strings.EqualFold(s, strings.ToUpper(s)), strings.TrimFunc(s, unicode.IsSpace) == strings.TrimSpace(s))
fmt.Println(strings.ReplaceAll(s, "l", "L"), strings.Replace(s, "o", "0", 1))`},
	}
	for i, s := range stringInputs {
		for _, g := range groups {
			out = append(out, program{fmt.Sprintf("str_%s_%d", g.name, i), fmt.Sprintf(`
import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

s := %s
%s
_ = unicode.IsSpace(' ')
_ = utf8.RuneLen('a')
`, q(s), g.code)})
		}
	}
	return out
}

var regexCases = []struct{ pattern, text, repl string }{
	{`(\w+)@(\w+)\.com`, "contact: alice@example.com, bob@test.com; nobody@nowhere.org", "$2:$1"},
	{`(\d{4})-(\d{2})-(\d{2})`, "dates 2024-01-15 and 2023-12-31, not 2024-1-5", "$3/$2/$1"},
	{`(?i)(go)(lang)?`, "Go golang GOLANG gopher", "<$1>"},
	{`(\d+)\s*(kg|g|mg)`, "5 kg of flour, 250g sugar, 10 mg salt", "$1$2"},
	{`#(\w+)`, "#go is #fun and #fast; email a#b", "[$1]"},
	{`\b([A-Z][a-z]+)\s([A-Z][a-z]+)\b`, "Ada Lovelace met Charles Babbage in London", "$2, $1"},
}

func regexps() []program {
	var out []program
	ops := []struct{ name, code string }{
		{"findall", `ms := re.FindAllString(text, -1)
fmt.Println(len(ms), ms)
fmt.Println(re.MatchString(text), re.FindStringIndex(text))`},
		{"submatch", `for _, m := range re.FindAllStringSubmatch(text, -1) {
	fmt.Printf("%q\n", m)
}
fmt.Println(re.NumSubexp())`},
		{"replace", `fmt.Println(re.ReplaceAllString(text, repl))
fmt.Println(re.ReplaceAllStringFunc(text, strings.ToUpper))
fmt.Println(re.ReplaceAllLiteralString(text, "X"))`},
		{"index", `for _, loc := range re.FindAllStringSubmatchIndex(text, 2) {
	fmt.Println(loc, text[loc[0]:loc[1]])
}
fmt.Println(re.String(), len(re.Split(text, -1)))`},
	}
	for i, c := range regexCases {
		for _, op := range ops {
			out = append(out, program{fmt.Sprintf("regexp_%s_%d", op.name, i), fmt.Sprintf(`
import (
	"fmt"
	"regexp"
	"strings"
)

re := regexp.MustCompile(%s)
text := %s
repl := %s
%s
_ = strings.ToUpper
_ = repl
`, q(c.pattern), q(c.text), q(c.repl), op.code)})
		}
	}
	return out
}

var jsonDocs = []string{
	`{"name":"widget","price":9.99,"tags":["a","b"],"stock":3}`,
	`{"name":"gadget","price":0,"tags":[],"stock":0,"extra":true}`,
	`{"name":"thing","price":1e3,"tags":null}`,
	`{"name":"ünïcode \"quoted\"","price":-2.5,"tags":["x"],"stock":100}`,
	`{"name":"","price":12,"stock":7}`,
}

func jsons() []program {
	var out []program
	for i, doc := range jsonDocs {
		out = append(out, program{fmt.Sprintf("json_map_%d", i), fmt.Sprintf(`
package main

import (
	"encoding/json"
	"fmt"
	"sort"
)

func main() {
	var m map[string]any
	if err := json.Unmarshal([]byte(%s), &m); err != nil {
		fmt.Println("error:", err)
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%%s=%%v (%%T)\n", k, m[k], m[k])
	}
	b, _ := json.Marshal(m)
	fmt.Println(string(b))
}
`, q(doc))})
		out = append(out, program{fmt.Sprintf("json_any_%d", i), fmt.Sprintf(`
var v any
err := json.Unmarshal([]byte(%s), &v)
if err != nil {
	fmt.Println(err)
}
obj, ok := v.(map[string]any)
fmt.Println(ok, len(obj))
if tags, ok := obj["tags"].([]any); ok {
	for _, t := range tags {
		fmt.Println("tag", t)
	}
}
if p, ok := obj["price"].(float64); ok {
	fmt.Printf("%%.2f\n", p*2)
}
out, _ := json.MarshalIndent(obj, "", "  ")
fmt.Println(string(out))
`, q(doc))})
		out = append(out, program{fmt.Sprintf("json_bad_%d", i), fmt.Sprintf(`
doc := %s
var m map[string]any
err := json.Unmarshal([]byte(doc[:len(doc)/2]), &m)
fmt.Println(err != nil, err)
var xs []int
err = json.Unmarshal([]byte("[1, 2, \"three\"]"), &xs)
fmt.Println(err)
b, err := json.Marshal(map[string][]int{"b": {2}, "a": {1, 1}})
fmt.Println(string(b), err)
`, q(doc))})
	}
	return out
}

func closures() []program {
	var out []program
	for i, n := range []int{3, 5, 10} {
		out = append(out, program{fmt.Sprintf("closure_counter_%d", i), fmt.Sprintf(`
func counter(start int) func() int {
	c := start
	return func() int {
		c++
		return c
	}
}
next := counter(%d)
for i := 0; i < 3; i++ {
	fmt.Print(next(), " ")
}
fmt.Println()
other := counter(0)
fmt.Println(other(), next())
`, n)})
		out = append(out, program{fmt.Sprintf("closure_memo_%d", i), fmt.Sprintf(`
package main

import "fmt"

func main() {
	memo := map[int]int{}
	var fib func(int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		if v, ok := memo[n]; ok {
			return v
		}
		memo[n] = fib(n-1) + fib(n-2)
		return memo[n]
	}
	fmt.Println(fib(%d), len(memo))
	for i := 0; i <= %d; i += 2 {
		fmt.Print(fib(i), ",")
	}
	fmt.Println()
}
`, n*7, n)})
		out = append(out, program{fmt.Sprintf("closure_funcs_%d", i), fmt.Sprintf(`
var fs []func() int
for i := 0; i < %d; i++ {
	fs = append(fs, func() int { return i * i })
}
for _, f := range fs {
	fmt.Print(f(), " ")
}
fmt.Println()
compose := func(f, g func(int) int) func(int) int {
	return func(x int) int { return g(f(x)) }
}
inc := func(x int) int { return x + 1 }
dbl := func(x int) int { return x * 2 }
fmt.Println(compose(inc, dbl)(%d), compose(dbl, inc)(%d))
`, n, n, n)})
		out = append(out, program{fmt.Sprintf("closure_defer_%d", i), fmt.Sprintf(`
package main

import "fmt"

func work(n int) (result int) {
	defer func() {
		result *= 2
		fmt.Println("deferred, result", result)
	}()
	for i := 0; i < n; i++ {
		defer fmt.Print(i, " ")
	}
	return n
}

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %%v", r)
		}
	}()
	return a / b, nil
}

func main() {
	fmt.Println(work(%d))
	fmt.Println(safeDiv(%d, 0))
	fmt.Println(safeDiv(%d, 2))
}
`, n, n, n)})
		out = append(out, program{fmt.Sprintf("closure_filter_%d", i), fmt.Sprintf(`
nums := []int{}
for i := 1; i <= %d*3; i++ {
	nums = append(nums, i)
}
filter := func(xs []int, keep func(int) bool) []int {
	var r []int
	for _, x := range xs {
		if keep(x) {
			r = append(r, x)
		}
	}
	return r
}
threshold := %d
big := filter(nums, func(x int) bool { return x > threshold })
even := filter(big, func(x int) bool { return x%%2 == 0 })
fmt.Println(len(big), even)
`, n, n)})
	}
	return out
}

func generics() []program {
	var out []program
	cases := []struct{ typ, vals, zero string }{
		{"int", "[]int{4, 8, 15, 16, 23, 42}", "0"},
		{"string", `[]string{"pear", "apple", "fig", "banana"}`, `""`},
		{"float64", "[]float64{2.5, -1, 3.75, 0}", "0"},
	}
	for i, c := range cases {
		out = append(out, program{fmt.Sprintf("generic_mapfilter_%d", i), fmt.Sprintf(`
package main

import "fmt"

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func Reduce[T, A any](xs []T, init A, f func(A, T) A) A {
	acc := init
	for _, x := range xs {
		acc = f(acc, x)
	}
	return acc
}

func main() {
	xs := %s
	strs := Map(xs, func(x %s) string { return fmt.Sprint(x) })
	fmt.Println(strs, len(strs))
	var zero %s = %s
	nz := Filter(xs, func(x %s) bool { return x != zero })
	fmt.Println(nz)
	fmt.Println(Reduce(strs, "", func(a string, s string) string { return a + "|" + s }))
}
`, c.vals, c.typ, c.typ, c.zero, c.typ)})
		out = append(out, program{fmt.Sprintf("generic_stack_%d", i), fmt.Sprintf(`
type Stack[T any] struct {
	items []T
}

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func (s *Stack[T]) Pop() (T, bool) {
	var zero T
	if len(s.items) == 0 {
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

func (s *Stack[T]) Len() int { return len(s.items) }

st := &Stack[%s]{}
for _, v := range %s {
	st.Push(v)
}
fmt.Println(st.Len())
for st.Len() > 0 {
	v, _ := st.Pop()
	fmt.Print(v, " ")
}
fmt.Println()
_, ok := st.Pop()
fmt.Println(ok)
`, c.typ, c.vals)})
		out = append(out, program{fmt.Sprintf("generic_maxof_%d", i), fmt.Sprintf(`
package main

import (
	"cmp"
	"fmt"
)

func MaxOf[T cmp.Ordered](xs ...T) T {
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func main() {
	xs := %s
	fmt.Println(MaxOf(xs...))
	p := Pair[%s, int]{xs[0], len(xs)}
	fmt.Println(p.Key, p.Val)
	fmt.Println(MaxOf(3, 7, 1), MaxOf("b", "a"))
}
`, c.vals, c.typ)})
		out = append(out, program{fmt.Sprintf("generic_set_%d", i), fmt.Sprintf(`
type Set[T comparable] map[T]struct{}

func (s Set[T]) Add(v T) { s[v] = struct{}{} }

func (s Set[T]) Has(v T) bool {
	_, ok := s[v]
	return ok
}

set := Set[%s]{}
xs := %s
for _, x := range xs {
	set.Add(x)
	set.Add(x)
}
fmt.Println(len(set), set.Has(xs[0]), set.Has(%s))
`, c.typ, c.vals, c.zero)})
		out = append(out, program{fmt.Sprintf("generic_keys_%d", i), fmt.Sprintf(`
package main

import (
	"fmt"
	"sort"
)

func Keys[K comparable, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func main() {
	m := map[%s]int{}
	for i, x := range %s {
		m[x] = i
	}
	ks := Keys(m)
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	fmt.Println(ks)
}
`, c.typ, c.vals)})
	}
	return out
}

func goroutines() []program {
	var out []program
	for i, n := range []int{4, 10, 25} {
		out = append(out, program{fmt.Sprintf("go_waitgroup_%d", i), fmt.Sprintf(`
package main

import (
	"fmt"
	"sync"
)

func main() {
	n := %d
	results := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = i * i
		}(i)
	}
	wg.Wait()
	total := 0
	for _, r := range results {
		total += r
	}
	fmt.Println(results[n-1], total)
}
`, n)})
		out = append(out, program{fmt.Sprintf("go_pipeline_%d", i), fmt.Sprintf(`
gen := func(n int) <-chan int {
	ch := make(chan int)
	go func() {
		for i := 1; i <= n; i++ {
			ch <- i
		}
		close(ch)
	}()
	return ch
}
square := func(in <-chan int) <-chan int {
	out := make(chan int)
	go func() {
		for v := range in {
			out <- v * v
		}
		close(out)
	}()
	return out
}
sum := 0
for v := range square(gen(%d)) {
	sum += v
}
fmt.Println("sum of squares:", sum)
`, n)})
		out = append(out, program{fmt.Sprintf("go_mutex_%d", i), fmt.Sprintf(`
package main

import (
	"fmt"
	"sort"
	"sync"
)

type SafeCounter struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *SafeCounter) Inc(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key]++
}

func main() {
	c := SafeCounter{m: make(map[string]int)}
	var wg sync.WaitGroup
	keys := []string{"a", "b", "c"}
	for i := 0; i < %d; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc(keys[i%%len(keys)])
		}()
	}
	wg.Wait()
	var ks []string
	for k := range c.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Println(k, c.m[k])
	}
}
`, n)})
		out = append(out, program{fmt.Sprintf("go_workers_%d", i), fmt.Sprintf(`
jobs := make(chan int, %d)
results := make(chan [2]int, %d)
var wg sync.WaitGroup
for w := 0; w < 3; w++ {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for j := range jobs {
			results <- [2]int{j, j * 10}
		}
	}()
}
for j := 0; j < %d; j++ {
	jobs <- j
}
close(jobs)
wg.Wait()
close(results)
var got [][2]int
for r := range results {
	got = append(got, r)
}
sort.Slice(got, func(i, j int) bool { return got[i][0] < got[j][0] })
fmt.Println(len(got), got[0], got[len(got)-1])
`, n, n, n)})
		out = append(out, program{fmt.Sprintf("go_atomic_%d", i), fmt.Sprintf(`
var hits atomic.Int64
var once sync.Once
var wg sync.WaitGroup
inits := 0
for i := 0; i < %d; i++ {
	wg.Add(1)
	go func() {
		defer wg.Done()
		once.Do(func() { inits++ })
		hits.Add(2)
	}()
}
wg.Wait()
fmt.Println(hits.Load(), inits)
done := make(chan struct{})
vals := make(chan string, 1)
go func() {
	vals <- "hello"
	close(done)
}()
<-done
select {
case v := <-vals:
	fmt.Println("got", v)
default:
	fmt.Println("nothing")
}
`, n)})
	}
	return out
}

var mapData = [][]string{
	{"apple", "avocado", "banana", "blueberry", "cherry", "cranberry", "date"},
	{"go", "rust", "ruby", "python", "perl", "c", "java", "js"},
}

func mapsFam() []program {
	var out []program
	for i, words := range mapData {
		bodies := []struct{ name, code string }{
			{"group", `groups := map[byte][]string{}
for _, w := range words {
	groups[w[0]] = append(groups[w[0]], w)
}
var ks []int
for k := range groups {
	ks = append(ks, int(k))
}
sort.Ints(ks)
for _, k := range ks {
	fmt.Printf("%c: %v\n", k, groups[byte(k)])
}`},
			{"invert", `idx := map[string]int{}
for i, w := range words {
	idx[w] = i
}
inv := make(map[int]string, len(idx))
for k, v := range idx {
	inv[v] = k
}
for i := 0; i < len(inv); i++ {
	fmt.Print(inv[i], " ")
}
fmt.Println(len(idx))`},
			{"nested", `byLen := map[int]map[string]bool{}
for _, w := range words {
	if byLen[len(w)] == nil {
		byLen[len(w)] = map[string]bool{}
	}
	byLen[len(w)][w] = true
}
lens := make([]int, 0)
for l := range byLen {
	lens = append(lens, l)
}
sort.Ints(lens)
for _, l := range lens {
	fmt.Println(l, len(byLen[l]))
}`},
			{"delete", `m := map[string]int{}
for _, w := range words {
	m[w] = len(w)
}
for k, v := range m {
	if v%2 == 0 {
		delete(m, k)
	}
}
keys := make([]string, 0, len(m))
for k := range m {
	keys = append(keys, k)
}
sort.Strings(keys)
fmt.Println(keys)
_, ok := m["nope"]
fmt.Println(ok, m["nope"])`},
			{"mapskeys", `m := map[string]int{}
for i, w := range words {
	m[w] = i
}
ks := slices.Sorted(maps.Keys(m))
fmt.Println(ks)
vs := slices.Collect(maps.Values(m))
slices.Sort(vs)
fmt.Println(vs)
m2 := maps.Clone(m)
fmt.Println(maps.Equal(m, m2), len(m2))
delete(m2, words[0])
fmt.Println(maps.Equal(m, m2))`},
			{"structkey", `type key struct {
	first byte
	n     int
}
counts := map[key]int{}
for _, w := range words {
	counts[key{w[0], len(w)}]++
}
var out []string
for k, v := range counts {
	out = append(out, fmt.Sprintf("%c%d=%d", k.first, k.n, v))
}
sort.Strings(out)
fmt.Println(strings.Join(out, " "))`},
		}
		for _, b := range bodies {
			out = append(out, program{fmt.Sprintf("maps_%s_%d", b.name, i), fmt.Sprintf(`
words := %s
%s
`, q(words), b.code)})
		}
	}
	return out
}

func errorsFam() []program {
	var out []program
	inputs := [][]string{{"12", "x", "7"}, {"-3", "99999999999999999999", "0"}, {"", "4", "four"}}
	for i, in := range inputs {
		out = append(out, program{fmt.Sprintf("errors_sentinel_%d", i), fmt.Sprintf(`
package main

import (
	"errors"
	"fmt"
	"strconv"
)

var ErrEmpty = errors.New("empty input")
var ErrNegative = errors.New("negative")

func parse(s string) (int, error) {
	if s == "" {
		return 0, ErrEmpty
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("parse %%q: %%w", s, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("value %%d: %%w", n, ErrNegative)
	}
	return n, nil
}

func main() {
	for _, s := range %s {
		n, err := parse(s)
		switch {
		case errors.Is(err, ErrEmpty):
			fmt.Println("empty!")
		case errors.Is(err, ErrNegative):
			fmt.Println("negative:", err)
		case err != nil:
			fmt.Println("error:", err)
		default:
			fmt.Println("ok", n)
		}
	}
}
`, q(in))})
		out = append(out, program{fmt.Sprintf("errors_as_%d", i), fmt.Sprintf(`
for _, s := range %s {
	_, err := strconv.Atoi(s)
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		fmt.Println(ne.Func, ne.Num, ne.Err == strconv.ErrSyntax, errors.Is(err, strconv.ErrRange))
	} else {
		fmt.Println("no error for", s)
	}
}
`, q(in))})
		out = append(out, program{fmt.Sprintf("errors_custom_%d", i), fmt.Sprintf(`
package main

import (
	"fmt"
	"strconv"
)

type ValidationError struct {
	Field string
	Value string
}

func (e *ValidationError) Error() string {
	return "invalid " + e.Field + ": " + strconv.Quote(e.Value)
}

func validate(s string) error {
	if _, err := strconv.Atoi(s); err != nil {
		return &ValidationError{Field: "number", Value: s}
	}
	return nil
}

func main() {
	for _, s := range %s {
		err := validate(s)
		if ve, ok := err.(*ValidationError); ok {
			fmt.Println("validation:", ve.Field, ve.Value, err)
		} else if err == nil {
			fmt.Println("valid", s)
		}
	}
}
`, q(in))})
		out = append(out, program{fmt.Sprintf("errors_join_%d", i), fmt.Sprintf(`
var errs []error
for _, s := range %s {
	if _, err := strconv.Atoi(s); err != nil {
		errs = append(errs, fmt.Errorf("item %%q: %%w", s, err))
	}
}
joined := errors.Join(errs...)
fmt.Println(joined)
fmt.Println(errors.Is(joined, strconv.ErrSyntax), errors.Is(joined, strconv.ErrRange), len(errs))
`, q(in))})
		out = append(out, program{fmt.Sprintf("errors_unwrap_%d", i), fmt.Sprintf(`
base := errors.New("base failure")
wrapped := fmt.Errorf("layer1: %%w", base)
twice := fmt.Errorf("layer2 (%%s): %%w", %s, wrapped)
fmt.Println(twice)
fmt.Println(errors.Unwrap(twice) == wrapped, errors.Unwrap(errors.Unwrap(twice)) == base)
fmt.Println(errors.Is(twice, base), errors.Unwrap(base) == nil)
`, q(in[0]))})
	}
	return out
}

var fixedTimes = []string{
	"time.Date(2024, time.February, 29, 13, 45, 5, 123456789, time.UTC)",
	"time.Date(1999, time.December, 31, 23, 59, 59, 0, time.UTC)",
	"time.Date(2023, time.July, 4, 0, 0, 0, 0, time.FixedZone(\"EST\", -5*3600))",
}

func timesFam() []program {
	var out []program
	bodies := []struct{ name, code string }{
		{"format", `fmt.Println(t.Format(time.RFC3339))
fmt.Println(t.Format("2006-01-02 15:04:05"))
fmt.Println(t.Format(time.Kitchen), t.Format("Mon Jan 2"), t.Format("02/01/06"))
fmt.Println(t.Year(), t.Month(), t.Day(), t.Weekday(), t.YearDay())`},
		{"arith", `later := t.Add(90 * time.Minute)
fmt.Println(later.Format(time.RFC3339))
fmt.Println(later.Sub(t), later.After(t), t.Before(later))
next := t.AddDate(0, 1, 1)
fmt.Println(next.Format("2006-01-02"), next.Sub(t).Hours())
fmt.Println(t.Truncate(time.Hour).Format(time.TimeOnly))`},
		{"duration", `d := 3*time.Hour + 25*time.Minute + 7*time.Second
fmt.Println(d, d.Minutes(), d.Round(time.Hour), d.Truncate(time.Minute))
end := t.Add(d)
fmt.Println(end.Format(time.DateTime), end.Sub(t) == d)
fmt.Println(time.Duration(1500)*time.Millisecond, time.Duration(0))`},
		{"parse", `s := t.Format(time.RFC3339Nano)
p, err := time.Parse(time.RFC3339Nano, s)
fmt.Println(s, err, p.Equal(t))
d, err := time.Parse("2006-01-02", "2021-03-14")
fmt.Println(d.Format("Jan 2, 2006"), err)
_, err = time.Parse("2006-01-02", "not a date")
fmt.Println(err != nil)`},
		{"unix", `fmt.Println(t.Unix(), t.UTC().Format(time.RFC1123))
u := time.Unix(t.Unix(), 0).UTC()
fmt.Println(u.Format(time.RFC3339), u.Equal(t.Truncate(time.Second)))
days := []string{}
for i := 0; i < 3; i++ {
	days = append(days, t.AddDate(0, 0, i).Weekday().String())
}
fmt.Println(strings.Join(days, ","))`},
		{"compare", `ts := []time.Time{t.Add(time.Hour), t, t.Add(-time.Hour)}
sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
for _, x := range ts {
	fmt.Println(x.Format("15:04"))
}
fmt.Println(ts[0].Compare(ts[2]), t.IsZero(), time.Time{}.IsZero())`},
	}
	for i, tm := range fixedTimes {
		for _, b := range bodies {
			out = append(out, program{fmt.Sprintf("time_%s_%d", b.name, i), fmt.Sprintf(`
import (
	"fmt"
	"sort"
	"strings"
	"time"
)

t := %s
%s
_ = sort.Ints
_ = strings.ToUpper
`, tm, b.code)})
		}
	}
	return out
}

func numbers() []program {
	var out []program
	vals := []string{"3.14159", "-0.5", "1e10", "42", "abc", "0x1F"}
	for i, v := range vals {
		out = append(out, program{fmt.Sprintf("num_parse_%d", i), fmt.Sprintf(`
s := %s
f, err := strconv.ParseFloat(s, 64)
fmt.Println(f, err)
n, err := strconv.Atoi(s)
fmt.Println(n, err)
i64, err := strconv.ParseInt(s, 0, 64)
fmt.Println(i64, err)
fmt.Println(strconv.FormatFloat(f, 'f', 3, 64), strconv.FormatFloat(f, 'e', -1, 64), strconv.Quote(s))
fmt.Println(math.Floor(f), math.Ceil(f), math.Round(f), math.Abs(f), math.IsNaN(f))
`, q(v))})
	}
	for i, n := range []int{7, 64, 255, 1000} {
		out = append(out, program{fmt.Sprintf("num_math_%d", i), fmt.Sprintf(`
package main

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

func isPrime(n int) bool {
	if n < 2 {
		return false
	}
	for d := 2; d*d <= n; d++ {
		if n%%d == 0 {
			return false
		}
	}
	return true
}

func main() {
	n := %d
	fmt.Println(math.Sqrt(float64(n)), math.Pow(2, float64(n%%20)), math.Log2(float64(n)))
	fmt.Println(strconv.FormatInt(int64(n), 2), strconv.FormatInt(int64(n), 16), bits.OnesCount(uint(n)))
	var primes []int
	for i := 0; i <= n && len(primes) < 10; i++ {
		if isPrime(i) {
			primes = append(primes, i)
		}
	}
	fmt.Println(primes)
	fmt.Printf("%%.3f %%8.2f|%%-8d|%%08b %%x %%X %%o\n", math.Pi*float64(n), float64(n)/3, n, n%%256, n, n, n)
	fmt.Println(math.MaxInt64, math.Inf(1), -math.Inf(1), math.MaxUint32)
}
`, n)})
	}
	return out
}

func shapes() []program {
	var out []program
	dims := [][2]float64{{3, 4}, {1.5, 2.5}}
	for i, d := range dims {
		out = append(out, program{fmt.Sprintf("shapes_iface_%d", i), fmt.Sprintf(`
package main

import (
	"fmt"
	"math"
	"sort"
)

type Shape interface {
	Area() float64
	Perimeter() float64
}

type Rect struct{ W, H float64 }
type Circle struct{ R float64 }

func (r Rect) Area() float64      { return r.W * r.H }
func (r Rect) Perimeter() float64 { return 2 * (r.W + r.H) }
func (c Circle) Area() float64    { return math.Pi * c.R * c.R }
func (c Circle) Perimeter() float64 {
	return 2 * math.Pi * c.R
}

func main() {
	shapes := []Shape{Rect{%v, %v}, Circle{%v}, Rect{%v, %v}}
	sort.Slice(shapes, func(i, j int) bool { return shapes[i].Area() < shapes[j].Area() })
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
		fmt.Printf("%%.3f %%.3f\n", s.Area(), s.Perimeter())
	}
	fmt.Printf("total %%.2f\n", total)
}
`, d[0], d[1], d[0], d[1], d[1])})
		out = append(out, program{fmt.Sprintf("shapes_switch_%d", i), fmt.Sprintf(`
type Rect struct{ W, H float64 }
type Circle struct{ R float64 }
describe := func(v any) string {
	switch s := v.(type) {
	case Rect:
		return fmt.Sprintf("rect %%gx%%g", s.W, s.H)
	case Circle:
		return fmt.Sprintf("circle r=%%g", s.R)
	case int, int64:
		return fmt.Sprint("integer ", s)
	case string:
		return "string " + s
	case nil:
		return "nil"
	default:
		return "unknown"
	}
}
for _, v := range []any{Rect{%v, %v}, Circle{%v}, 3, "x", nil, 2.5} {
	fmt.Println(describe(v))
}
`, d[0], d[1], d[0])})
		out = append(out, program{fmt.Sprintf("shapes_embed_%d", i), fmt.Sprintf(`
package main

import "fmt"

type Base struct {
	ID   int
	Name string
}

func (b Base) Describe() string { return fmt.Sprintf("#%%d %%s", b.ID, b.Name) }

type Item struct {
	Base
	Price float64
	Qty   int
}

func (it *Item) Total() float64 { return it.Price * float64(it.Qty) }

func main() {
	items := []*Item{
		{Base{1, "pen"}, %v, 3},
		{Base{2, "book"}, %v, 1},
	}
	sum := 0.0
	for _, it := range items {
		it.Qty++
		sum += it.Total()
		fmt.Println(it.Describe(), it.Name, it.Qty, it.Total())
	}
	fmt.Printf("%%.2f\n", sum)
	f := items[0].Total
	items[0].Qty = 10
	fmt.Println(f())
}
`, d[0], d[1])})
		out = append(out, program{fmt.Sprintf("shapes_methods_%d", i), fmt.Sprintf(`
type Vec struct{ X, Y float64 }
func (v Vec) Add(o Vec) Vec { return Vec{v.X + o.X, v.Y + o.Y} }
func (v Vec) Scale(k float64) Vec { return Vec{v.X * k, v.Y * k} }
func (v *Vec) Normalize() {
	l := math.Hypot(v.X, v.Y)
	if l > 0 {
		v.X, v.Y = v.X/l, v.Y/l
	}
}
a := Vec{%v, %v}
b := a.Add(Vec{1, 1}).Scale(2)
fmt.Println(a.X, a.Y, b.X, b.Y)
b.Normalize()
fmt.Printf("%%.4f %%.4f\n", b.X, b.Y)
pts := []Vec{{3, 4}, {0, 0}, a}
for i := range pts {
	pts[i].Normalize()
}
fmt.Printf("%%.3f %%.3f\n", pts[0].X, pts[2].Y)
`, d[0], d[1])})
	}
	return out
}

func modern() []program {
	var out []program
	for i, xs := range intSets[:4] {
		out = append(out, program{fmt.Sprintf("modern_slices_%d", i), fmt.Sprintf(`
xs := %s
ys := slices.Clone(xs)
slices.Sort(ys)
fmt.Println(ys, slices.Equal(xs, ys), slices.Equal(ys, slices.Clone(ys)))
fmt.Println(slices.Index(ys, xs[0]), slices.Contains(ys, 13), slices.Max(xs), slices.Min(xs))
i, found := slices.BinarySearch(ys, xs[0])
fmt.Println(i, found)
zs := slices.Insert(slices.Clone(ys), 0, -1, -2)
fmt.Println(zs, len(zs))
zs = slices.Delete(zs, 0, 1)
fmt.Println(zs)
slices.Reverse(zs)
fmt.Println(zs, slices.Compact(slices.Clone(ys)))
fmt.Println(slices.IndexFunc(xs, func(x int) bool { return x < 0 }), slices.ContainsFunc(xs, func(x int) bool { return x > 100 }))
`, q(xs))})
		out = append(out, program{fmt.Sprintf("modern_range_%d", i), fmt.Sprintf(`
xs := %s
total := 0
for i := range len(xs) {
	total += xs[i] * i
}
fmt.Println(total, min(xs[0], 3), max(xs[0], 3, total))
for range 2 {
	fmt.Print("x")
}
fmt.Println()
m := map[int]bool{1: true, 2: true}
clear(m)
fmt.Println(len(m))
var fs []func() int
for i := 0; i < 3; i++ {
	fs = append(fs, func() int { return i })
}
for _, f := range fs {
	fmt.Print(f())
}
fmt.Println()
`, q(xs))})
		out = append(out, program{fmt.Sprintf("modern_newexpr_%d", i), fmt.Sprintf(`
package main

import "fmt"

type Config struct {
	Name    string
	Retries *int
}

func main() {
	xs := %s
	p := new(xs[0])
	*p += 1
	fmt.Println(*p, xs[0])
	q := new(42)
	s := new("hello")
	f := new(2.5)
	fmt.Println(*q, *s, *f)
	c := Config{Name: "svc", Retries: new(len(xs))}
	fmt.Println(c.Name, *c.Retries)
	r := new(int)
	fmt.Println(*r)
}
`, q(xs))})
	}
	for i, in := range []string{"12", "abc", "99999999999999999999999"} {
		out = append(out, program{fmt.Sprintf("modern_astype_%d", i), fmt.Sprintf(`
_, err := strconv.Atoi(%s)
if ne, ok := errors.AsType[*strconv.NumError](err); ok {
	fmt.Println("num error:", ne.Func, ne.Num, ne.Err)
} else {
	fmt.Println("no num error", err)
}
`, q(in))})
	}
	for i, m := range []string{`map[string]int{"a": 1, "b": 2}`, `map[string]int{}`} {
		out = append(out, program{fmt.Sprintf("modern_mapsequal_%d", i), fmt.Sprintf(`
m := %s
n := map[string]int{}
for k, v := range m {
	n[k] = v
}
fmt.Println(maps.Equal(m, n))
n["z"] = 26
fmt.Println(maps.Equal(m, n), len(n))
maps.DeleteFunc(n, func(k string, v int) bool { return v > 1 })
fmt.Println(slices.Sorted(maps.Keys(n)))
`, m)})
	}
	return out
}

func sessions() []program {
	var out []program
	docs := []string{
		"id,name,score\n1,ann,90\n2,ben,75\n3,cat,82\n",
		"id,name,score\n10,zed,12\n11,yan,99\n",
	}
	for i, d := range docs {
		out = append(out, program{fmt.Sprintf("session_csv_%d", i), fmt.Sprintf(`
data := %s
lines := strings.Split(strings.TrimSpace(data), "\n")
fmt.Println(len(lines), lines[0])
// cell
type Row struct {
	ID    int
	Name  string
	Score int
}
func parseRow(l string) (Row, error) {
	f := strings.Split(l, ",")
	if len(f) != 3 {
		return Row{}, fmt.Errorf("bad line %%q", l)
	}
	id, err := strconv.Atoi(f[0])
	if err != nil {
		return Row{}, err
	}
	sc, err := strconv.Atoi(f[2])
	if err != nil {
		return Row{}, err
	}
	return Row{id, f[1], sc}, nil
}
// cell
var rows []Row
for _, l := range lines[1:] {
	r, err := parseRow(l)
	if err != nil {
		fmt.Println(err)
		continue
	}
	rows = append(rows, r)
}
fmt.Println(len(rows))
// cell
best := rows[0]
sum := 0
for _, r := range rows {
	sum += r.Score
	if r.Score > best.Score {
		best = r
	}
}
fmt.Printf("best=%%s avg=%%.2f\n", best.Name, float64(sum)/float64(len(rows)))
`, q(d))})
		out = append(out, program{fmt.Sprintf("session_state_%d", i), fmt.Sprintf(`
total := 0
seen := map[string]int{}
// cell
for _, f := range strings.Fields(strings.ReplaceAll(%s, ",", " ")) {
	seen[f]++
	total++
}
// cell
total = total * 2
keys := make([]string, 0, len(seen))
for k := range seen {
	keys = append(keys, k)
}
sort.Strings(keys)
fmt.Println(total, keys[:2])
`, q(d))})
	}
	return out
}

func textIO() []program {
	var out []program
	docs := []string{
		"name,age\nalice,30\nbob,25\n\"smith, john\",40\n",
		"a,b,c\n1,2,3\n4,5,6\n7,8,9\n",
		"k\tv\nx\t1\ny\t2\n",
	}
	for i, d := range docs {
		out = append(out, program{fmt.Sprintf("text_csv_%d", i), fmt.Sprintf(`
r := csv.NewReader(strings.NewReader(%s))
records, err := r.ReadAll()
fmt.Println(len(records), err)
for _, rec := range records {
	fmt.Println(len(rec), strings.Join(rec, "|"))
}
`, q(d))})
		out = append(out, program{fmt.Sprintf("text_scanner_%d", i), fmt.Sprintf(`
package main

import (
	"bufio"
	"fmt"
	"strings"
)

func main() {
	sc := bufio.NewScanner(strings.NewReader(%s))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		fmt.Printf("%%2d %%-12s %%d\n", n, line, len(line))
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	ws := bufio.NewScanner(strings.NewReader(%s))
	ws.Split(bufio.ScanWords)
	words := 0
	for ws.Scan() {
		words++
	}
	fmt.Println("words", words)
}
`, q(d), q(d))})
	}
	return out
}

func formatting() []program {
	var out []program
	vals := []string{`42`, `-3.5`, `"text"`, `[]int{1, 2}`, `map[string]int{"b": 2, "a": 1}`, `true`}
	for i, v := range vals {
		out = append(out, program{fmt.Sprintf("fmt_verbs_%d", i), fmt.Sprintf(`
v := %s
fmt.Printf("%%v|%%+v|%%T\n", v, v, v)
fmt.Printf("[%%10v][%%-10v]\n", v, v)
s := fmt.Sprintf("%%v", v)
fmt.Println(len(s), s)
fmt.Println(fmt.Sprint(v, v), fmt.Sprintln(v))
`, v)})
	}
	return out
}

// iterators: the iterator functions of strings, bytes, slices and maps
// ranged over at once (which the REPL turns into slices for speed), held
// in variables, given to functions and collected, the loop variable used
// as the string it is; and Go's own quirk that a strings.SplitSeq or
// strings.Lines iterator held and ranged over twice yields the rest only.
func iterators() []program {
	var out []program
	texts := []string{
		"alpha beta\ngamma delta epsilon\n\nzeta\n",
		"one two three\nfour five\nsix",
		"  lead space\ttab\nend  \n",
	}
	for i, text := range texts {
		out = append(out, program{fmt.Sprintf("iter_range_%d", i), fmt.Sprintf(`
text := %s
for l := range strings.Lines(text) {
	for i, r := range l {
		if r == ' ' {
			fmt.Print(i, " ")
		}
	}
	fmt.Printf("%%q;", l)
}
fmt.Println()
for f := range strings.FieldsSeq(text) {
	fmt.Print(len(f), strings.ToUpper(f[:1]), " ")
}
fmt.Println()
for p := range bytes.SplitSeq([]byte(text), []byte("\n")) {
	fmt.Print(len(p), ",")
}
fmt.Println()
n := 0
for range strings.SplitSeq(text, " ") {
	n++
}
fmt.Println(n, slices.Sorted(strings.FieldsSeq(text)))
fmt.Println(slices.Collect(strings.SplitSeq("", ",")), slices.Collect(strings.FieldsSeq("  ")) == nil, slices.Collect(strings.Lines("")) == nil)
`, q(text))})
		out = append(out, program{fmt.Sprintf("iter_held_%d", i), fmt.Sprintf(`
text := %s
seq := strings.SplitSeq(text, " ")
for p := range seq {
	fmt.Printf("[%%s]", p)
}
fmt.Println()
lines := strings.Lines(text)
n := 0
for l := range lines {
	n += len(l)
}
fmt.Println(n, len(slices.Collect(lines)))
it := strings.FieldsSeq(text)
fmt.Println(slices.Collect(it))
words := slices.AppendSeq([]string{"first"}, strings.FieldsSeq(text))
fmt.Println(len(words), words[0], words[len(words)-1])
// cell
fmt.Println(len(slices.Collect(seq)), slices.Sorted(it)[0])
parts := bytes.FieldsSeq([]byte(text))
k := 0
for p := range parts {
	k += len(p)
}
fmt.Println(k, len(slices.Collect(parts)))
`, q(text))})
		out = append(out, program{fmt.Sprintf("iter_funcs_%d", i), fmt.Sprintf(`
package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

func count(seq iter.Seq[string]) int {
	n := 0
	for range seq {
		n++
	}
	return n
}

func main() {
	text := %s
	m := map[string]int{}
	for f := range strings.FieldsSeq(text) {
		m[f] = len(f)
	}
	ks := maps.Keys(m)
	fmt.Println(count(ks), slices.Sorted(ks))
	fmt.Println(slices.Sorted(maps.Values(m)))
	total := 0
	for k, v := range maps.All(m) {
		total += len(k) + v
	}
	for k := range maps.Keys(m) {
		total += len(k)
	}
	fmt.Println(total)
	xs := slices.Sorted(maps.Keys(m))
	ys := slices.Collect(slices.Values(xs))
	ys[0] = "changed"
	fmt.Println(xs[0], ys[0], slices.Sorted(slices.Values([]string{"b", "a"})))
	for c := range slices.Chunk(xs, 2) {
		fmt.Print(c, ";")
	}
	fmt.Println()
	chunks := slices.Chunk(xs, 3)
	for c := range chunks {
		fmt.Print(len(c))
	}
	fmt.Println(len(slices.Collect(chunks)))
	for i, v := range slices.All(xs) {
		fmt.Print(i, v[:1])
	}
	fmt.Println()
	fmt.Println(count(strings.Lines(text)), count(strings.SplitSeq(text, " ")), count(slices.Values(xs)))
	var it iter.Seq[string] = strings.SplitSeq(text, "\n")
	fmt.Println(slices.Collect(it), count(it))
}
`, q(text))})
	}
	return out
}
