package main

// %+v of structs declared with unexported fields, nested in structs,
// slices, maps (keys in order), behind the operand's pointer and in any and
// interface fields; %v beside it; in Sprintf and Errorf.

import (
	"fmt"
)

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

type inner struct {
	id    int
	label string
}

type item struct {
	Name  string
	count int
	tags  []string
	in    inner
	ins   []inner
	m     map[string]inner
	p     *inner
	pt    Point
	any   any
	err   error
}

type Shape interface{ Area() float64 }

type holder struct {
	s    Shape
	name string
}

type sq struct{ side float64 }

func (s sq) Area() float64 { return s.side * s.side }

func main() {
	it := item{Name: "pen", count: 3, tags: []string{"a", "b"}, in: inner{1, "x"},
		ins: []inner{{2, "y"}}, m: map[string]inner{"k": {3, "z"}, "a": {4, "w"}},
		pt: Point{1, 2}, any: inner{5, "v"}}
	fmt.Printf("%+v\n", it)
	fmt.Printf("%+v|%v\n", &it.in, it.in)
	fmt.Printf("%+v\n", []inner{{6, "u"}})
	fmt.Printf("%+v\n", map[int]inner{2: {7, "t"}, 1: {8, "s"}})
	s := fmt.Sprintf("%+v", holder{sq{2}, "h"})
	fmt.Println(s)
	fmt.Println(fmt.Errorf("bad item %+v", it.in))
}
