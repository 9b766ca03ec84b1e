package main

import (
	"fmt"
	"iter"
)

func countdown(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := n; i > 0; i-- {
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	for i := range countdown(4) {
		fmt.Print(i, " ")
	}
	fmt.Println()
	total := 0
	for i := range countdown(10) {
		if i < 6 {
			break
		}
		total += i
	}
	fmt.Println("total", total)
}
