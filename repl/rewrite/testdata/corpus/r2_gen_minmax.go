package main

import (
	"cmp"
	"fmt"
)

func MinMax[T cmp.Ordered](xs []T) (T, T) {
	lo, hi := xs[0], xs[0]
	for _, x := range xs[1:] {
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
	}
	return lo, hi
}

func main() {
	lo, hi := MinMax([]int{4, 9, 1, 7})
	fmt.Println(lo, hi)
	a, b := MinMax([]string{"pear", "apple", "zucchini"})
	fmt.Println(a, b)
}
