package main

import (
	"fmt"
	"iter"
)

func From(xs []int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for _, x := range xs {
			if !yield(x) {
				return
			}
		}
	}
}

func Filter(seq iter.Seq[int], keep func(int) bool) iter.Seq[int] {
	return func(yield func(int) bool) {
		for x := range seq {
			if keep(x) && !yield(x) {
				return
			}
		}
	}
}

func Map(seq iter.Seq[int], f func(int) int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for x := range seq {
			if !yield(f(x)) {
				return
			}
		}
	}
}

func main() {
	evens := Filter(From([]int{1, 2, 3, 4, 5, 6, 7, 8}), func(x int) bool { return x%2 == 0 })
	squares := Map(evens, func(x int) int { return x * x })
	for x := range squares {
		fmt.Println(x)
	}
	sum := 0
	for x := range Map(From([]int{1, 2, 3}), func(x int) int { return x * 10 }) {
		sum += x
	}
	fmt.Println("sum", sum)
}
