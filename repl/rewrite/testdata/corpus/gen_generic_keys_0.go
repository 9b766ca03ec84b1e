package main

import (
	"fmt"
	"sort"
)

func Keys[K comparable, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func main() {
	m := map[int]int{}
	for i, x := range []int{4, 8, 15, 16, 23, 42} {
		m[x] = i
	}
	ks := Keys(m)
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	fmt.Println(ks)
}
