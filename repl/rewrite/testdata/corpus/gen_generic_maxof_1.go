package main

import (
	"cmp"
	"fmt"
)

func MaxOf[T cmp.Ordered](xs ...T) T {
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func main() {
	xs := []string{"pear", "apple", "fig", "banana"}
	fmt.Println(MaxOf(xs...))
	p := Pair[string, int]{xs[0], len(xs)}
	fmt.Println(p.Key, p.Val)
	fmt.Println(MaxOf(3, 7, 1), MaxOf("b", "a"))
}
