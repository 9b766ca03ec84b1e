package main

import (
	"cmp"
	"fmt"
	"sort"
)

func SortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

func main() {
	ages := map[string]int{"bob": 30, "alice": 25, "carol": 35}
	for _, k := range SortedKeys(ages) {
		fmt.Println(k, ages[k])
	}
	fmt.Println(SortedKeys(map[int]bool{3: true, 1: false, 2: true}))
}
