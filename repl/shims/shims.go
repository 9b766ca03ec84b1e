// Package shims holds what rewritten cells call in place of standard
// functions the interpreter cannot run as Go does: generic functions of
// slices, maps and errors written as interpreted Go (Source), and native
// functions (Shims) that print, encode, compare and unwrap values of types
// declared in the session the way Go would, or refuse with an error where
// they cannot, instead of printing something else. The rewriter (package
// repl/rewrite) writes the calls; the worker (package repl/worker) gives
// the interpreter these functions under the names the calls use.
package shims

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rlm-project/rlm/repl/symbols"
)

// Shims are the native shims of one interpreter. They keep what the
// session declared (its types, which ones have methods fmt calls, their
// layouts), so each interpreter has its own.
type Shims struct {
	types    typeRegistry
	funcs    map[string]reflect.Value
	mapTypes map[reflect.Value][]reflect.Type
}

// New returns the shims of one interpreter; out is where the print
// functions (fmt.Print and the like) write: the cell's output.
func New(out io.Writer) *Shims {
	s := &Shims{}
	fmtFuncs, jsonFuncs := s.fmtFuncs(out), s.jsonFuncs()
	s.mapTypes = map[reflect.Value][]reflect.Type{}
	for _, v := range fmtFuncs {
		s.mapTypes[v] = symbols.FmtTypes
	}
	for k, v := range jsonFuncs {
		if k == "__rlmJSONUnmarshal" {
			s.mapTypes[v] = symbols.MapTypes[reflect.ValueOf(json.Unmarshal)]
		} else {
			s.mapTypes[v] = symbols.MapTypes[reflect.ValueOf(json.Marshal)]
		}
	}
	s.funcs = map[string]reflect.Value{
		"__rlmClear":             reflect.ValueOf(clearValue),
		"__rlmLines":             reflect.ValueOf(lines),
		"__rlmDecodeRune":        reflect.ValueOf(decodeRune),
		"__rlmRuneAt":            reflect.ValueOf(runeAt),
		"__rlmRuneLen":           reflect.ValueOf(runeLen),
		"__rlmSortNative":        reflect.ValueOf(sortNative),
		"__rlmSortSlice":         reflect.ValueOf(sortSlice),
		"__rlmSortStable":        reflect.ValueOf(sortStable),
		"__rlmErrorsAs":          reflect.ValueOf(s.types.errorsAs),
		"__rlmErrorsIs":          reflect.ValueOf(errorsIs),
		"__rlmRegisterType":      reflect.ValueOf(s.types.register),
		"__rlmRegisterLayout":    reflect.ValueOf(s.types.registerLayout),
		"__rlmBox":               reflect.ValueOf(func(x any) *any { return &x }),
		"__rlmRecovered":         reflect.ValueOf(recovered),
		"__rlmRegisterError":     reflect.ValueOf(s.types.registerError),
		"__rlmRegisterErrorConv": reflect.ValueOf(s.types.registerErrorConv),
		"__rlmErrSubject":        reflect.ValueOf(s.types.errSubject),
		"__rlmIface":             reflect.ValueOf(unwrapIface),
	}
	for _, m := range []map[string]reflect.Value{fmtFuncs, jsonFuncs} {
		for k, v := range m {
			s.funcs[k] = v
		}
	}
	return s
}

// Funcs returns every native shim by the name rewritten cells and Source
// call it (__rlm...). The values are the same on every call: those of the
// fmt and json functions are keys of MapTypes.
func (s *Shims) Funcs() map[string]reflect.Value { return maps.Clone(s.funcs) }

// MapTypes returns, for the interpreter's MapTypes, the interfaces the
// values passed to each fmt and json shim are wrapped in (fmt.Stringer,
// error, json.Marshaler, ...), as for the functions they stand for.
func (s *Shims) MapTypes() map[reflect.Value][]reflect.Type { return maps.Clone(s.mapTypes) }

// Source is Go source, evaluated in the interpreter before the first cell,
// of the generic shims. Generic standard library functions cannot be
// extracted into yaegi symbol tables, and yaegi v0.16.1 lacks the min, max
// and clear builtins. The rewriter maps calls such as slices.Sort(x) or
// min(a, b) to these interpreted generic shims. They avoid make([]T, n) on
// a type parameter, which yaegi v0.16.1 cannot compile. The iterator
// functions (maps.Keys, slices.Values, slices.Chunk, slices.Collect, ...)
// return and take iterators, as Go's; where the rewriter sees an iterator
// call ranged over or collected at once, it calls their slice forms
// instead (__rlmMapKeys, __rlmSliceCollect, ...), which build none.
const Source = `
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
func __rlmSlices_Collect[E any](seq func(yield func(E) bool)) []E { var r []E; for v := range seq { r = append(r, v) }; return r }
func __rlmSlices_Sorted[E __rlmOrdered](seq func(yield func(E) bool)) []E { r := __rlmSlices_Collect(seq); __rlmSlices_Sort(r); return r }
func __rlmSlices_Values[E any](s []E) func(yield func(E) bool) {
	return func(yield func(E) bool) { for _, v := range s { if !yield(v) { return } } }
}
func __rlmMaps_Keys[K comparable, V any](m map[K]V) func(yield func(K) bool) {
	return func(yield func(K) bool) { for k := range m { if !yield(k) { return } } }
}
func __rlmMaps_Values[K comparable, V any](m map[K]V) func(yield func(V) bool) {
	return func(yield func(V) bool) { for _, v := range m { if !yield(v) { return } } }
}
func __rlmMapKeys[K comparable, V any](m map[K]V) []K { var r []K; for k := range m { r = append(r, k) }; return r }
func __rlmMapValues[K comparable, V any](m map[K]V) []V { var r []V; for _, v := range m { r = append(r, v) }; return r }
func __rlmSliceCollect[E any](x []E) []E { if len(x) == 0 { return nil }; return x }
func __rlmSliceSorted[E __rlmOrdered](x []E) []E { x = __rlmSliceCollect(x); __rlmSlices_Sort(x); return x }
func __rlmSliceSortedFunc[E any](x []E, cmp func(a, b E) int) []E { x = __rlmSliceCollect(x); __rlmSlices_SortFunc(x, cmp); return x }
func __rlmSliceSortedStableFunc[E any](x []E, cmp func(a, b E) int) []E { x = __rlmSliceCollect(x); __rlmSlices_SortStableFunc(x, cmp); return x }
func __rlmSliceAppend[E any](s []E, x []E) []E { return append(s, x...) }
func __rlmSlices_Equal[E comparable](a, b []E) bool {
	if len(a) != len(b) { return false }
	for i := 0; i < len(a); i++ { if a[i] != b[i] { return false } }
	return true
}
func __rlmSlices_EqualFunc[E1, E2 any](a []E1, b []E2, eq func(E1, E2) bool) bool {
	if len(a) != len(b) { return false }
	for i := 0; i < len(a); i++ { if !eq(a[i], b[i]) { return false } }
	return true
}
func __rlmSlices_Compare[E __rlmOrdered](a, b []E) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] < b[i] { return -1 }
		if a[i] > b[i] { return 1 }
	}
	if len(a) < len(b) { return -1 }
	if len(a) > len(b) { return 1 }
	return 0
}
func __rlmSlices_CompareFunc[E1, E2 any](a []E1, b []E2, cmp func(E1, E2) int) int {
	for i := 0; i < len(a) && i < len(b); i++ { if c := cmp(a[i], b[i]); c != 0 { return c } }
	if len(a) < len(b) { return -1 }
	if len(a) > len(b) { return 1 }
	return 0
}
func __rlmSlices_Index[E comparable](s []E, v E) int { for i := 0; i < len(s); i++ { if s[i] == v { return i } }; return -1 }
func __rlmSlices_IndexFunc[E any](s []E, f func(E) bool) int { for i := 0; i < len(s); i++ { if f(s[i]) { return i } }; return -1 }
func __rlmSlices_Contains[E comparable](s []E, v E) bool { return __rlmSlices_Index(s, v) >= 0 }
func __rlmSlices_ContainsFunc[E any](s []E, f func(E) bool) bool { return __rlmSlices_IndexFunc(s, f) >= 0 }
func __rlmSlices_Insert[E any](s []E, i int, v ...E) []E {
	if i < 0 || i > len(s) { panic("runtime error: slice bounds out of range") }
	n := len(s)
	s = append(s, v...)
	copy(s[i+len(v):], s[i:n])
	copy(s[i:], v)
	return s
}
func __rlmSlices_Delete[E any](s []E, i, j int) []E {
	if i < 0 || j > len(s) || i > j { panic("runtime error: slice bounds out of range") }
	n := len(s)
	s = append(s[:i], s[j:]...)
	var zero E
	full := s[:n]
	for k := len(s); k < n; k++ { full[k] = zero }
	return s
}
func __rlmSlices_DeleteFunc[E any](s []E, del func(E) bool) []E {
	n := len(s)
	k := 0
	for i := 0; i < n; i++ { if !del(s[i]) { s[k] = s[i]; k++ } }
	var zero E
	for i := k; i < n; i++ { s[i] = zero }
	return s[:k]
}
func __rlmSlices_Replace[E any](s []E, i, j int, v ...E) []E {
	if i < 0 || j > len(s) || i > j { panic("runtime error: slice bounds out of range") }
	var r []E
	r = append(r, s[:i]...)
	r = append(r, v...)
	r = append(r, s[j:]...)
	if len(r) <= cap(s) { n := len(s); s = s[:len(r)]; copy(s, r); if len(r) < n { var zero E; full := s[:n]; for k := len(r); k < n; k++ { full[k] = zero } }; return s }
	return r
}
func __rlmSlices_Clone[E any](s []E) []E { if s == nil { return nil }; r := []E{}; return append(r, s...) }
func __rlmSlices_Compact[E comparable](s []E) []E {
	if len(s) < 2 { return s }
	n := len(s)
	k := 1
	for i := 1; i < n; i++ { if s[i] != s[k-1] { s[k] = s[i]; k++ } }
	var zero E
	for i := k; i < n; i++ { s[i] = zero }
	return s[:k]
}
func __rlmSlices_CompactFunc[E any](s []E, eq func(E, E) bool) []E {
	if len(s) < 2 { return s }
	n := len(s)
	k := 1
	for i := 1; i < n; i++ { if !eq(s[k-1], s[i]) { s[k] = s[i]; k++ } }
	var zero E
	for i := k; i < n; i++ { s[i] = zero }
	return s[:k]
}
func __rlmSlices_Grow[E any](s []E, n int) []E {
	if n < 0 { panic("cannot be negative") }
	if cap(s)-len(s) < n { var r []E; r = append(r, s...); for k := 0; k < n; k++ { var zero E; r = append(r, zero) }; return r[:len(s)] }
	return s
}
func __rlmSlices_Clip[E any](s []E) []E { return s[:len(s):len(s)] }
func __rlmSlices_Reverse[E any](s []E) { for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 { s[i], s[j] = s[j], s[i] } }
func __rlmSlices_Concat[E any](ss ...[]E) []E {
	var r []E
	for _, s := range ss { r = append(r, s...) }
	return r
}
func __rlmSlices_Repeat[E any](s []E, count int) []E {
	if count < 0 { panic("cannot be negative") }
	r := []E{}
	for i := 0; i < count; i++ { r = append(r, s...) }
	return r
}
func __rlmSlices_MinFunc[E any](x []E, cmp func(a, b E) int) E { if len(x) == 0 { panic("slices.MinFunc: empty list") }; m := x[0]; for i := 1; i < len(x); i++ { if cmp(x[i], m) < 0 { m = x[i] } }; return m }
func __rlmSlices_MaxFunc[E any](x []E, cmp func(a, b E) int) E { if len(x) == 0 { panic("slices.MaxFunc: empty list") }; m := x[0]; for i := 1; i < len(x); i++ { if cmp(x[i], m) > 0 { m = x[i] } }; return m }
func __rlmSlices_IsSortedFunc[E any](x []E, cmp func(a, b E) int) bool { for i := 1; i < len(x); i++ { if cmp(x[i], x[i-1]) < 0 { return false } }; return true }
func __rlmSlices_BinarySearchFunc[E, T any](x []E, t T, cmp func(E, T) int) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi { h := (lo + hi) / 2; if cmp(x[h], t) < 0 { lo = h + 1 } else { hi = h } }
	return lo, lo < len(x) && cmp(x[lo], t) == 0
}
func __rlmSlices_SortedFunc[E any](seq func(yield func(E) bool), cmp func(a, b E) int) []E { r := __rlmSlices_Collect(seq); __rlmSlices_SortFunc(r, cmp); return r }
func __rlmSlices_SortedStableFunc[E any](seq func(yield func(E) bool), cmp func(a, b E) int) []E { r := __rlmSlices_Collect(seq); __rlmSlices_SortStableFunc(r, cmp); return r }
func __rlmSlices_AppendSeq[E any](s []E, seq func(yield func(E) bool)) []E { for v := range seq { s = append(s, v) }; return s }
func __rlmSlices_Chunk[E any](s []E, n int) func(yield func([]E) bool) {
	if n < 1 { panic("cannot be less than 1") }
	return func(yield func([]E) bool) {
		for i := 0; i < len(s); i += n { end := __rlmMin(n, len(s[i:])); if !yield(s[i:i+end:i+end]) { return } }
	}
}
func __rlmSliceChunks[E any](s []E, n int) [][]E {
	if n < 1 { panic("cannot be less than 1") }
	var r [][]E
	for i := 0; i < len(s); i += n { end := __rlmMin(n, len(s[i:])); r = append(r, s[i:i+end:i+end]) }
	return r
}
func __rlmMaps_Equal[K, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) { return false }
	for k, v1 := range a { if v2, ok := b[k]; !ok || v1 != v2 { return false } }
	return true
}
func __rlmMaps_EqualFunc[K comparable, V1, V2 any](a map[K]V1, b map[K]V2, eq func(V1, V2) bool) bool {
	if len(a) != len(b) { return false }
	for k, v1 := range a { if v2, ok := b[k]; !ok || !eq(v1, v2) { return false } }
	return true
}
func __rlmMaps_Clone[K comparable, V any](m map[K]V) map[K]V {
	if m == nil { return nil }
	r := map[K]V{}
	for k, v := range m { r[k] = v }
	return r
}
func __rlmMaps_Copy[K comparable, V any](dst, src map[K]V) { for k, v := range src { dst[k] = v } }
func __rlmMaps_DeleteFunc[K comparable, V any](m map[K]V, del func(K, V) bool) { for k, v := range m { if del(k, v) { delete(m, k) } } }
func __rlmMaps_Collect[K comparable, V any](m map[K]V) map[K]V { return __rlmMaps_Clone(m) }
func __rlmMaps_Insert[K comparable, V any](dst, src map[K]V) { __rlmMaps_Copy(dst, src) }
func __rlmNew[T any](v T) *T { p := new(T); *p = v; return p }
func __rlmErrors_AsType[T error](err error) (T, bool) { var t T; ok := __rlmErrorsAs(err, &t); return t, ok }
`

// Generic reports whether the standard function pkg.name (pkg the
// package's name) has a generic shim in Source, __rlm<Pkg>_<name>, which
// the rewriter calls in its place.
func Generic(pkg, name string) bool { return generic[pkg][name] }

// generic lists the functions of Source named __rlm<Pkg>_<Name> by
// package name.
var generic = func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for _, l := range regexp.MustCompile(`(?m)^func __rlm([A-Z][a-z0-9]*)_([A-Za-z0-9]+)\[`).FindAllStringSubmatch(Source, -1) {
		pkg := strings.ToLower(l[1])
		if m[pkg] == nil {
			m[pkg] = map[string]bool{}
		}
		m[pkg][l[2]] = true
	}
	return m
}()

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

func runeAt(s string, i int) rune { r, _ := decodeRune(s, i); return r }
func runeLen(s string, i int) int { _, n := decodeRune(s, i); return n }

// errorsAs is errors.As for the shims. A target whose type was declared in
// the session has a native type without methods, which native errors.As
// refuses (it panics); its chain is walked here instead, matching the
// values the interpreter's error wrappers hold (which unwrap through the
// declared type's Unwrap method, see third_party/yaegi).
func (r *typeRegistry) errorsAs(err error, target any) bool {
	tv := reflect.ValueOf(target)
	if !tv.IsValid() || tv.Kind() != reflect.Pointer || tv.IsNil() {
		return errors.As(err, target)
	}
	want := tv.Type().Elem()
	if want.Kind() == reflect.Interface || want.Implements(reflect.TypeOf((*error)(nil)).Elem()) {
		return errors.As(err, target)
	}
	r.mu.RLock()
	name, declared := r.errs[want]
	ambiguous := r.ambiguous[want]
	r.mu.RUnlock()
	if !declared {
		panic("errors.As: " + errUnsupportedErr)
	}
	if ambiguous {
		panic(fmt.Sprintf("errors.As: the interpreter cannot tell %s from another error type declared in the REPL with the same fields; give one of them a different field, or use a type switch", name))
	}
	return asChain(err, tv, want, 0)
}

// asChain is errors.As's walk of err's chain for a target of declared type.
func asChain(err error, target reflect.Value, want reflect.Type, depth int) bool {
	for ; err != nil && depth < 100; depth++ {
		if v := reflect.ValueOf(Unbox(err)); v.IsValid() && v.Type() == want {
			target.Elem().Set(v)
			return true
		}
		if x, ok := err.(interface{ As(any) bool }); ok && x.As(target.Interface()) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if asChain(e, target, want, depth+1) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// yaegiPkg is the package of the wrappers yaegi puts around interpreted
// values that cross into native code as interfaces.
const yaegiPkg = "github.com/traefik/yaegi/interp"

// errUnsupportedErr explains the refusals below.
const errUnsupportedErr = "an error type declared in the REPL cannot be wrapped or matched by the errors and fmt packages here (the interpreter hands it to them without its methods); use errors.New sentinels, or a type assertion err.(*MyErr) on the unwrapped value"

// errorf is fmt.Errorf, refusing %w of an operand that is not a native
// error: native fmt would print %!w(...) and drop the chain. Values of
// error types declared in the session reach it in the interpreter's error
// wrapper, which is an error (with the type's Unwrap, and compared by the
// value it holds, see third_party/yaegi).
func errorf(format string, a ...any) error {
	for _, i := range wrapVerbArgs(format) {
		if i < len(a) && a[i] != nil && !implementsError(a[i]) {
			panic("fmt.Errorf with %w: " + errUnsupportedErr)
		}
	}
	return fmt.Errorf(format, a...)
}

func implementsError(v any) bool { _, ok := v.(error); return ok }

// errorsIs is errors.Is. A target declared in the session reaches it in the
// interpreter's error wrapper, which compares by the value it holds.
func errorsIs(err, target error) bool { return errors.Is(err, target) }

// unwrapIface returns the interpreted value inside yaegi's error wrapper
// so that a type switch sees its type.
func unwrapIface(x any) any {
	v := reflect.ValueOf(x)
	if v.IsValid() && v.Type().PkgPath() == yaegiPkg {
		if inner, ok := iValue(v); ok {
			return inner
		}
	}
	return x
}

// iValue returns what a method wrapper v holds in its IValue field: yaegi's
// own wrappers and those of the symbol tables (symbols._fmt_Stringer).
func iValue(v reflect.Value) (any, bool) {
	if v.Kind() != reflect.Struct {
		return nil, false
	}
	f := v.FieldByName("IValue")
	if !f.IsValid() || !f.CanInterface() {
		return nil, false
	}
	return f.Interface(), true
}

// wrapVerbArgs returns the indexes of the operands of %w verbs in format,
// or nil when it uses explicit argument indexes.
func wrapVerbArgs(format string) []int {
	var idx []int
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0 {
			switch format[i] {
			case '*':
				arg++
			case '[':
				return nil
			}
			i++
		}
		if i >= len(format) {
			break
		}
		switch format[i] {
		case '%':
			continue
		case 'w':
			idx = append(idx, arg)
		}
		arg++
	}
	return idx
}

// recovered unboxes the value of a recover() call, which yaegi returns as
// a reflect.Value held in an interface.
func recovered(x any) any {
	if v, ok := x.(reflect.Value); ok {
		if !v.IsValid() || !v.CanInterface() {
			return nil
		}
		return v.Interface()
	}
	return x
}
