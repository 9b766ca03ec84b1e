package main

import "fmt"

type Set[T comparable] = map[T]struct{}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

type Named[V any] = Pair[string, V]

type List[T any] = []T

func keys[T comparable](s Set[T]) int { return len(s) }

func sum(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}

func main() {
	s := Set[string]{"a": {}}
	s["b"] = struct{}{}
	var plain map[string]struct{} = s
	fmt.Println(len(s), len(plain), keys[string](s))
	p := Named[int]{"x", 1}
	var q Pair[string, int] = p
	fmt.Println(p.Key, q.Val)
	l := List[int]{1, 2, 3}
	l = append(l, 4)
	fmt.Println(sum(l), len(l))
}

// Output:
// 2 2 2
// x 1
// 10 4
