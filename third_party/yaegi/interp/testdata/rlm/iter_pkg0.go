package main

import (
	"fmt"
	"iter"
	"reflect"
	"strings"
)

func pairs(xs []string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, x := range xs {
			if !yield(i, x) {
				return
			}
		}
	}
}

func upper(seq iter.Seq[string]) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s := range seq {
			if !yield(strings.ToUpper(s)) {
				return
			}
		}
	}
}

func main() {
	for i, s := range pairs([]string{"a", "b"}) {
		fmt.Println(i, s)
	}
	// A native iterator (reflect's, of a slice).
	for i, v := range reflect.ValueOf([]string{"x", "y", "z"}).Seq2() {
		if v.String() == "z" {
			break
		}
		fmt.Println(i, v)
	}
	var seq iter.Seq[string] = func(yield func(string) bool) { _ = yield("p") && yield("q") }
	for s := range upper(seq) {
		fmt.Println(s)
	}
}

// Output:
// 0 a
// 1 b
// 0 x
// 1 y
// P
// Q
