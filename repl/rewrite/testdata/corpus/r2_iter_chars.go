package main

import (
	"fmt"
	"iter"
)

func chars(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, r := range s {
			if r == ' ' {
				continue
			}
			if !yield(string(r)) {
				return
			}
		}
	}
}

func main() {
	n := 0
	for c := range chars("go is fun") {
		n++
		fmt.Printf("[%s]", c)
	}
	fmt.Println(" count:", n)
}
