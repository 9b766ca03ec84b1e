package main

import (
	"fmt"
	"iter"
	"sort"
)

func Sorted(m map[string]int) iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}

func main() {
	stock := map[string]int{"pear": 3, "apple": 5, "fig": 0, "kiwi": 12}
	for name, n := range Sorted(stock) {
		if n == 0 {
			continue
		}
		fmt.Printf("%-6s %3d\n", name, n)
	}
}
