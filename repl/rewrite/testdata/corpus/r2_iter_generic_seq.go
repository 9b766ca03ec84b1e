package main

import (
	"fmt"
	"iter"
)

func Values[T any](xs []T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, x := range xs {
			if !yield(x) {
				return
			}
		}
	}
}

func main() {
	for s := range Values([]string{"a", "b", "c"}) {
		fmt.Print(s)
	}
	fmt.Println()
	n := 0.0
	for f := range Values([]float64{1.5, 2.5}) {
		n += f
	}
	fmt.Println(n)
}
