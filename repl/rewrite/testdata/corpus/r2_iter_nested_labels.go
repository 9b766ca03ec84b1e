package main

import (
	"fmt"
	"iter"
)

func Range(lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := lo; i < hi; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	count := 0
outer:
	for i := range Range(1, 6) {
		for j := range Range(1, 6) {
			if j > i {
				continue outer
			}
			if i*j > 12 {
				break outer
			}
			count++
		}
	}
	fmt.Println("pairs:", count)
	for i := range Range(0, 3) {
		for j := range Range(0, 3) {
			if j == 1 {
				break
			}
			fmt.Println(i, j)
		}
	}
}
