package main

import (
	"fmt"
	"sort"
)

func main() {
	xs := []int{42, -7, 0, 13, 13, 8, -100}
	sort.Ints(xs)
	fmt.Println(xs)
	sum := 0
	for _, x := range xs {
		sum += x
	}
	fmt.Printf("n=%d sum=%d first=%d last=%d\n", len(xs), sum, xs[0], xs[len(xs)-1])
}
