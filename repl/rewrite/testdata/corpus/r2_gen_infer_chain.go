package main

import (
	"fmt"
	"strings"
)

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
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	lens := Map(words, func(w string) int { return len(w) })
	long := Filter(words, func(w string) bool { return len(w) > 4 })
	total := Reduce(lens, 0, func(a, n int) int { return a + n })
	joined := Reduce(long, "", func(a string, w string) string { return a + strings.ToUpper(w[:1]) })
	fmt.Println(lens, long, total, joined)
	pairs := Map(long, func(w string) [2]string { return [2]string{w, strings.ToUpper(w)} })
	fmt.Println(pairs)
}
