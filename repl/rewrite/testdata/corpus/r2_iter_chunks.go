package main

import (
	"fmt"
	"iter"
	"strings"
)

func Chunks(s string, n int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for len(s) > 0 {
			k := min(n, len(s))
			if !yield(s[:k]) {
				return
			}
			s = s[k:]
		}
	}
}

func Words(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, w := range strings.Fields(text) {
			if !yield(i, w) {
				return
			}
		}
	}
}

func main() {
	var parts []string
	for c := range Chunks("abcdefghij", 3) {
		parts = append(parts, c)
	}
	fmt.Println(strings.Join(parts, "|"))
	count := 0
	for i, w := range Words("one two three four five") {
		if i%2 == 1 {
			continue
		}
		count += len(w)
	}
	fmt.Println(count)
}
