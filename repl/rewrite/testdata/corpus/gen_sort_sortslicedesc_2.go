package main

import (
	"fmt"
	"sort"
)

func main() {
	xs := []int{1}
	sort.Slice(xs, func(i, j int) bool { return xs[i] > xs[j] })
	fmt.Println(xs)
	sum := 0
	for _, x := range xs {
		sum += x
	}
	fmt.Printf("n=%d sum=%d first=%d last=%d\n", len(xs), sum, xs[0], xs[len(xs)-1])
}
