package interp_test

import (
	"fmt"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// TestRLMTopLevelGenericDefine: a global defined with := from a call of a
// generic function (a REPL cell's `long := Filter(words, f)`) has the
// instantiated function's result type; it crashed in the global type
// analysis, which took the result type of the generic function itself
// ([]T). Patch 5 of ../README.md.
func TestRLMTopLevelGenericDefine(t *testing.T) {
	i := interp.New(interp.Options{})
	for _, src := range []string{
		`func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}`,
		`func Count[T comparable](xs []T, v T) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}`,
		`words := []string{"go", "is", "fun", "and", "go", "is", "fast"}`,
		`long := Filter(words, func(w string) bool { return len(w) > 2 })`,
		`n := Count(words, "go")`,
		`m := Count([]int{1, 2, 1}, 1)`,
		`again := Filter(long, func(w string) bool { return w != "and" })`,
	} {
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	for expr, want := range map[string]string{"long": "[fun and fast]", "n": "2", "m": "2", "again": "[fun fast]", "len(long)": "3"} {
		v, err := i.Eval(expr)
		if err != nil || fmt.Sprint(v) != want {
			t.Errorf("%s = %v, %v; want %s", expr, v, err, want)
		}
	}
}
