package main

import (
	"fmt"
	"sort"
	"strings"
)

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func SortedPairs[V any](m map[string]V) []Pair[string, V] {
	out := make([]Pair[string, V], 0, len(m))
	for k, v := range m {
		out = append(out, Pair[string, V]{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func main() {
	ps := SortedPairs(map[string]int{"b": 2, "a": 1, "c": 3})
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%s=%d", p.Key, p.Val))
	}
	fmt.Println(strings.Join(parts, ","))
}
