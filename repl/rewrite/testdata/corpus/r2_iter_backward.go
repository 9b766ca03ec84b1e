package main

import (
	"fmt"
	"iter"
	"slices"
)

func Backward[T any](xs []T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i := len(xs) - 1; i >= 0; i-- {
			if !yield(i, xs[i]) {
				return
			}
		}
	}
}

func main() {
	xs := []string{"a", "b", "c", "d"}
	for i, x := range Backward(xs) {
		if x == "a" {
			break
		}
		fmt.Println(i, x)
	}
	for i, v := range slices.All([]int{7, 8}) {
		fmt.Print(i, ":", v, " ")
	}
	fmt.Println()
	for v := range slices.Values([]int{3, 1, 2}) {
		fmt.Print(v, " ")
	}
	fmt.Println()
}
