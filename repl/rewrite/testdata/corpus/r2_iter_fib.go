package main

import (
	"fmt"
	"iter"
)

func fib() iter.Seq[int] {
	return func(yield func(int) bool) {
		a, b := 0, 1
		for {
			if !yield(a) {
				return
			}
			a, b = b, a+b
		}
	}
}

func main() {
	var out []int
	for x := range fib() {
		if x > 100 {
			break
		}
		out = append(out, x)
	}
	fmt.Println(out, len(out))
}
