package main

import (
	"fmt"
	"iter"
)

func count(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	sum := 0
	count(5)(func(v int) bool {
		sum += v
		return v < 3
	})
	fmt.Println("sum", sum)
}
