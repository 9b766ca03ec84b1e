package main

import (
	"fmt"
	"slices"
)

func main() {
	xs := []int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}
	slices.Sort(xs)
	fmt.Println(xs)
	sum := 0
	for _, x := range xs {
		sum += x
	}
	fmt.Printf("n=%d sum=%d first=%d last=%d\n", len(xs), sum, xs[0], xs[len(xs)-1])
}
