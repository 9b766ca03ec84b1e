package main

import (
	"fmt"
	"sort"
)

// Seq and Seq2 are iter.Seq and iter.Seq2, declared here: package iter
// has generic types only, which a symbol table cannot hold.
type (
	Seq[V any]     func(yield func(V) bool)
	Seq2[K, V any] func(yield func(K, V) bool)
)

type List[E any] struct{ items []E }

func (l *List[E]) Push(x E) { l.items = append(l.items, x) }

func (l *List[E]) All() Seq[E] {
	return func(yield func(E) bool) {
		for _, x := range l.items {
			if !yield(x) {
				return
			}
		}
	}
}

func (l *List[E]) Backward() Seq2[int, E] {
	return func(yield func(int, E) bool) {
		for i := len(l.items) - 1; i >= 0; i-- {
			if !yield(i, l.items[i]) {
				return
			}
		}
	}
}

// Type arguments are inferred through the generic types of parameters,
// from arguments of those types or of their underlying types.

func Collect[E any](seq Seq[E]) []E {
	var out []E
	for x := range seq {
		out = append(out, x)
	}
	return out
}

func Keys[K, V any](seq Seq2[K, V]) []K {
	var out []K
	for k := range seq {
		out = append(out, k)
	}
	return out
}

func Of[E any](xs ...E) *List[E] {
	l := &List[E]{}
	for _, x := range xs {
		l.Push(x)
	}
	return l
}

func Len[E any](l *List[E]) int { return len(l.items) }

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func Swap[K, V comparable](p Pair[K, V]) Pair[V, K] { return Pair[V, K]{p.Val, p.Key} }

type Number interface{ ~int | ~float64 }

type Vec[T Number] []T

func Sum[T Number](v Vec[T]) T {
	var s T
	for _, x := range v {
		s += x
	}
	return s
}

type Set[T comparable] = map[T]struct{}

type Named[V any] = Pair[string, V]

func Members[T comparable](s Set[T]) []T {
	var out []T
	for k := range s {
		out = append(out, k)
	}
	return out
}

func Value[V any](n Named[V]) V { return n.Val }

func main() {
	l := Of(3, 1, 2)
	fmt.Println(Collect(l.All()), Keys(l.Backward()), Len(l))
	fmt.Println(Collect(Of("x", "y").All()))
	fmt.Println(Collect(func(yield func(string) bool) { _ = yield("lit") }))
	fmt.Println(Swap(Pair[string, int]{"a", 1}))
	fmt.Println(Sum(Vec[float64]{1.5, 2}), Sum(Vec[int]{1, 2}))
	m := Members(Set[string]{"b": {}, "a": {}})
	sort.Strings(m)
	fmt.Println(m, Value(Named[float64]{"x", 1.5}))
}

// Output:
// [3 1 2] [2 1 0] 3
// [x y]
// [lit]
// {1 a}
// 3.5 3
// [a b] 1.5
