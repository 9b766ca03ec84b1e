package main

import (
	"fmt"
	"iter"
)

type List[E any] struct{ items []E }

func (l *List[E]) All() iter.Seq[E] {
	return func(yield func(E) bool) {
		for _, x := range l.items {
			if !yield(x) {
				return
			}
		}
	}
}

type Index[K comparable, V any] struct {
	keys []K
	vals map[K]V
}

func (ix *Index[K, V]) Put(k K, v V) {
	if ix.vals == nil {
		ix.vals = map[K]V{}
	}
	ix.keys = append(ix.keys, k)
	ix.vals[k] = v
}

func (ix *Index[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for _, k := range ix.keys {
			if !yield(k, ix.vals[k]) {
				return
			}
		}
	}
}

func (ix *Index[K, V]) Keys() iter.Seq[K] {
	return func(yield func(K) bool) {
		for k := range ix.All() {
			if !yield(k) {
				return
			}
		}
	}
}

func Collect[E any](seq iter.Seq[E]) []E {
	var out []E
	for x := range seq {
		out = append(out, x)
	}
	return out
}

func main() {
	l := &List[int]{items: []int{1, 2, 3}}
	for x := range l.All() {
		fmt.Println(x)
	}
	fmt.Println(Collect(l.All()))
	ix := &Index[string, float64]{}
	ix.Put("a", 1.5)
	ix.Put("b", 2)
	for k, v := range ix.All() {
		fmt.Println(k, v)
	}
	for k := range ix.Keys() {
		fmt.Println("first", k)
		break
	}
	fmt.Println(Collect(ix.Keys()))
}

// Output:
// 1
// 2
// 3
// [1 2 3]
// a 1.5
// b 2
// first a
// [a b]
