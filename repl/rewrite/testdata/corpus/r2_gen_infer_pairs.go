package main

import (
	"fmt"
	"sort"
)

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func Entries[K comparable, V any](m map[K]V, less func(a, b K) bool) []Pair[K, V] {
	out := make([]Pair[K, V], 0, len(m))
	for k, v := range m {
		out = append(out, Pair[K, V]{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i].Key, out[j].Key) })
	return out
}

func Swap[A, B any](a A, b B) (B, A) { return b, a }

func main() {
	stock := map[string]int{"pear": 3, "apple": 7, "fig": 1}
	for _, e := range Entries(stock, func(a, b string) bool { return a < b }) {
		fmt.Println(e.Key, e.Val)
	}
	x, y := Swap("left", 2)
	fmt.Println(x, y)
	b, a := Swap(1.5, []int{1})
	fmt.Println(b, a)
}
