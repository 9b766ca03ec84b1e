package main

import "fmt"

func MaxOf[T int | float64 | string](xs ...T) T {
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

type Number interface{ ~int | ~float64 }

func Sum[T Number](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Pick[K comparable, V any](m map[K]V, a, b K) (V, V) { return m[a], m[b] }

func main() {
	xs := []int{4, 8, 15, 16}
	fmt.Println(MaxOf(xs...))
	fmt.Println(MaxOf(3, 7, 1), MaxOf("b", "a"), MaxOf(1.5, 0.5))
	fmt.Println(Map(xs, func(x int) string { return fmt.Sprint("#", x) }))
	fmt.Println(Map([]string{"a", "bb"}, func(s string) int { return len(s) }))
	fmt.Println(Pick(map[string]int{"x": 1, "y": 2}, "y", "x"))
	fmt.Println(Sum(1.5, 2.25), Sum(1, 2, 3))
}

// Output:
// 16
// 7 b 1.5
// [#4 #8 #15 #16]
// [1 2]
// 2 1
// 3.75 6
