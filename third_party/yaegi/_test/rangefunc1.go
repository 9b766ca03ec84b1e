package main

import (
	"fmt"
	"strings"
)

// Seq and Seq2 are iter.Seq and iter.Seq2, declared here: package iter
// has generic types only, which a symbol table cannot hold.
type (
	Seq[V any]     func(yield func(V) bool)
	Seq2[K, V any] func(yield func(K, V) bool)
)

type Point struct{ X, Y int }

type Grid struct{ pts []Point }

func (g *Grid) All() Seq[Point] {
	return func(yield func(Point) bool) {
		defer fmt.Println("iterator cleanup")
		for _, p := range g.pts {
			if !yield(p) {
				return
			}
		}
	}
}

func words(s string) Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, w := range strings.Fields(s) {
			if !yield(i, w) {
				return
			}
		}
	}
}

func firstLong(s string) string {
	for _, w := range words(s) {
		if len(w) > 3 {
			return w
		}
	}
	return ""
}

func find(g *Grid, x int) Point {
	for p := range g.All() {
		if p.X == x {
			return p
		}
	}
	return Point{}
}

func main() {
	g := &Grid{pts: []Point{{1, 2}, {3, 4}, {5, 6}}}
	for p := range g.All() {
		fmt.Println(p.X + p.Y)
	}
	fmt.Println(firstLong("a bb cccc ddddd"))
outer:
	for i, w := range words("x y z") {
		for p := range g.All() {
			if p.X == 3 {
				continue outer
			}
			if i == 2 {
				break outer
			}
			fmt.Println(w, p)
		}
	}
	fmt.Println("found", find(g, 3))
	var seq Seq[int] = func(yield func(int) bool) {
		_ = yield(1) && yield(2) && yield(3)
	}
	total := 0
	for x := range seq {
		for y := range seq {
			total += x * y
		}
	}
	fmt.Println("total", total)
}

// Output:
// 3
// 7
// 11
// iterator cleanup
// cccc
// x {1 2}
// iterator cleanup
// y {1 2}
// iterator cleanup
// iterator cleanup
// iterator cleanup
// found {3 4}
// total 36
