package main

import (
	"fmt"
	"iter"
	"strings"
)

func enumerate(xs []string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, x := range xs {
			if !yield(i+1, strings.ToUpper(x)) {
				return
			}
		}
	}
}

func main() {
	for i, s := range enumerate([]string{"alpha", "beta", "gamma"}) {
		fmt.Printf("%d. %s\n", i, s)
	}
	for i := range enumerate([]string{"x", "y"}) {
		fmt.Println("index only", i)
	}
}
