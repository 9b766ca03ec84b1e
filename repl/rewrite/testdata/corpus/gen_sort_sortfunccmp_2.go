package main

import (
	"cmp"
	"fmt"
	"slices"
)

func main() {
	xs := []int{1}
	slices.SortFunc(xs, func(a, b int) int { return cmp.Compare(b, a) })
	fmt.Println(xs)
	sum := 0
	for _, x := range xs {
		sum += x
	}
	fmt.Printf("n=%d sum=%d first=%d last=%d\n", len(xs), sum, xs[0], xs[len(xs)-1])
}
