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
	m := map[float64]int{}
	for i, x := range []float64{2.5, -1, 3.75, 0} {
		m[x] = i
	}
	ks := Keys(m)
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	fmt.Println(ks)
}
