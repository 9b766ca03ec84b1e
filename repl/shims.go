package repl

import (
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"
)

// Generic standard library functions cannot be extracted into yaegi symbol
// tables, and yaegi v0.16.1 lacks the min, max and clear builtins. The
// rewriter maps calls such as slices.Sort(x) or min(a, b) to these
// interpreted generic shims. They avoid make([]T, n) on a type parameter,
// which yaegi v0.16.1 cannot compile.
const shimSource = `
type __rlmOrdered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}
func __rlmMin[T __rlmOrdered](x T, y ...T) T { for _, v := range y { if v < x { x = v } }; return x }
func __rlmMax[T __rlmOrdered](x T, y ...T) T { for _, v := range y { if v > x { x = v } }; return x }
func __rlmSlices_Sort[E __rlmOrdered](x []E) {
	if !__rlmSortNative(x) { __rlmSortSlice(x, func(i, j int) bool { return x[i] < x[j] }) }
}
func __rlmSlices_SortFunc[E any](x []E, cmp func(a, b E) int) { __rlmSortSlice(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 }) }
func __rlmSlices_SortStableFunc[E any](x []E, cmp func(a, b E) int) { __rlmSortStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 }) }
func __rlmSlices_IsSorted[E __rlmOrdered](x []E) bool { for i := 1; i < len(x); i++ { if x[i] < x[i-1] { return false } }; return true }
func __rlmSlices_Min[E __rlmOrdered](x []E) E { if len(x) == 0 { panic("slices.Min: empty list") }; m := x[0]; for _, v := range x { if v < m { m = v } }; return m }
func __rlmSlices_Max[E __rlmOrdered](x []E) E { if len(x) == 0 { panic("slices.Max: empty list") }; m := x[0]; for _, v := range x { if v > m { m = v } }; return m }
func __rlmSlices_BinarySearch[E __rlmOrdered](x []E, t E) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi { h := (lo + hi) / 2; if x[h] < t { lo = h + 1 } else { hi = h } }
	return lo, lo < len(x) && x[lo] == t
}
func __rlmSlices_Sorted[E __rlmOrdered](x []E) []E { __rlmSlices_Sort(x); return x }
func __rlmSlices_Collect[E any](x []E) []E { return x }
func __rlmSlices_Values[E any](x []E) []E { return x }
func __rlmMaps_Keys[K comparable, V any](m map[K]V) []K { var r []K; for k := range m { r = append(r, k) }; return r }
func __rlmMaps_Values[K comparable, V any](m map[K]V) []V { var r []V; for _, v := range m { r = append(r, v) }; return r }
`

// shimmed lists the package functions rewritten to shims, by package.
var shimmed = map[string]map[string]bool{
	"slices": {"Sort": true, "SortFunc": true, "SortStableFunc": true, "IsSorted": true, "Min": true, "Max": true,
		"BinarySearch": true, "Sorted": true, "Collect": true, "Values": true},
	"maps": {"Keys": true, "Values": true},
}

// sortNative sorts the common slice types without calling back into the
// interpreter; it reports whether it did.
func sortNative(x any) bool {
	switch s := x.(type) {
	case []string:
		sort.Strings(s)
	case []int:
		sort.Ints(s)
	case []float64:
		sort.Float64s(s)
	default:
		return false
	}
	return true
}

func sortSlice(x any, less func(i, j int) bool)  { sort.Slice(x, less) }
func sortStable(x any, less func(i, j int) bool) { sort.SliceStable(x, less) }

// clearValue implements the clear builtin for maps and slices.
func clearValue(x any) {
	v := reflect.ValueOf(x)
	if v.Kind() == reflect.Map || v.Kind() == reflect.Slice {
		v.Clear()
	}
}

// lines returns the lines of s with their newlines, like strings.Lines.
func lines(s string) []string {
	var r []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			r = append(r, s)
			break
		}
		r = append(r, s[:i+1])
		s = s[i+1:]
	}
	return r
}

// decodeRune lets a rewritten `for i, r := range s` loop decode one rune at
// a time in constant time (yaegi's own string range is quadratic).
func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// emptyFS is the interpreter's source filesystem: nothing can be loaded.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func runeAt(s string, i int) rune { r, _ := decodeRune(s, i); return r }
func runeLen(s string, i int) int { _, n := decodeRune(s, i); return n }
