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
	xs := []string{"pear", "apple", "fig", "banana"}
	strs := Map(xs, func(x string) string { return fmt.Sprint(x) })
	fmt.Println(strs, len(strs))
	var zero string = ""
	nz := Filter(xs, func(x string) bool { return x != zero })
	fmt.Println(nz)
	fmt.Println(Reduce(strs, "", func(a string, s string) string { return a + "|" + s }))
}
