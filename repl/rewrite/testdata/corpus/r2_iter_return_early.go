package main

import "fmt"

func lines(text []string) func(func(int, string) bool) {
	return func(yield func(int, string) bool) {
		defer fmt.Println("(closed)")
		for i, l := range text {
			if !yield(i, l) {
				return
			}
		}
	}
}

func find(text []string, word string) int {
	for i, l := range lines(text) {
		if l == word {
			return i
		}
	}
	return -1
}

func main() {
	text := []string{"a", "b", "c", "d"}
	fmt.Println("found at", find(text, "c"))
	fmt.Println("found at", find(text, "z"))
}
