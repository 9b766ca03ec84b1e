package main

import "fmt"

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func MakePair[K comparable, V any](k K, v V) Pair[K, V] { return Pair[K, V]{k, v} }

func main() {
	p := MakePair("age", 42)
	q := MakePair(1, []string{"x"})
	fmt.Println(p.Key, p.Val, q.Key, q.Val)
	ps := []Pair[string, int]{{"a", 1}, {"b", 2}}
	total := 0
	for _, p := range ps {
		total += p.Val
	}
	fmt.Println(total)
}
