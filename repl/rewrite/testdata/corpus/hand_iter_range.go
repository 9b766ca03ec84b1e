package main

import (
	"fmt"
	"iter"
)

func pairs(xs []string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, x := range xs {
			if !yield(i, x) {
				return
			}
		}
	}
}

func main() {
	for i, s := range pairs([]string{"a", "b"}) {
		fmt.Println(i, s)
	}
}
