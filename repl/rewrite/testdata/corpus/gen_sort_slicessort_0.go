package main

import (
	"fmt"
	"slices"
)

func main() {
	xs := []int{5, 3, 9, 1, 7}
	slices.Sort(xs)
	fmt.Println(xs)
	sum := 0
	for _, x := range xs {
		sum += x
	}
	fmt.Printf("n=%d sum=%d first=%d last=%d\n", len(xs), sum, xs[0], xs[len(xs)-1])
}
