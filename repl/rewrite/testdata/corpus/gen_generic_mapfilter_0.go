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
	xs := []int{4, 8, 15, 16, 23, 42}
	strs := Map(xs, func(x int) string { return fmt.Sprint(x) })
	fmt.Println(strs, len(strs))
	var zero int = 0
	nz := Filter(xs, func(x int) bool { return x != zero })
	fmt.Println(nz)
	fmt.Println(Reduce(strs, "", func(a string, s string) string { return a + "|" + s }))
}
