package main

import "fmt"

type Number interface{ ~int | ~int64 | ~float64 }

func Sum[T Number](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Concat[T any](parts ...[]T) []T {
	var out []T
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func First[T any](def T, xs ...T) T {
	if len(xs) == 0 {
		return def
	}
	return xs[0]
}

func main() {
	fmt.Println(Sum(1, 2, 3), Sum(1.5, 2.25))
	nums := []int{10, 20, 30}
	fmt.Println(Sum(nums...))
	fmt.Println(Concat([]string{"a"}, []string{"b", "c"}), Concat(nums, []int{40}))
	fmt.Println(First("none"), First("none", "x", "y"), First(0, nums...))
}
