package main

import "fmt"

func Reduce[T, A any](xs []T, init A, f func(A, T) A) A {
	acc := init
	for _, x := range xs {
		acc = f(acc, x)
	}
	return acc
}

func main() {
	sum := Reduce[int, int]([]int{1, 2, 3, 4}, 0, func(a, x int) int { return a + x })
	joined := Reduce[string, string]([]string{"a", "b", "c"}, "", func(a, x string) string { return a + x })
	lengths := Reduce[string, int]([]string{"go", "yaegi"}, 0, func(a int, s string) int { return a + len(s) })
	fmt.Println(sum, joined, lengths)
}
