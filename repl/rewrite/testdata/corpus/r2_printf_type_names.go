package main

// %T and %#v of values of declared types (top-level and inside a function,
// recursive, with methods), in pointers, slices, maps, arrays, any and
// struct fields, with widths, in Sprintf and Errorf.

import (
	"errors"
	"fmt"
	"strings"
)

type item struct {
	Name string
	tags []string
}

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

func (s Sq) Area() float64  { return s.S * s.S }
func (s Sq) String() string { return "sq" }

type Node struct {
	Val  int
	Next *Node
}

func main() {
	fmt.Printf("%T %T %T\n", item{}, &item{}, []item{})
	fmt.Printf("%T|%T|%T|%T\n", map[string]*item{}, [2]Node{}, Sq{}, &Sq{})
	var s Shape = Sq{1}
	var a any = item{}
	fmt.Printf("%T %T %T %T %T\n", s, a, 3, "x", nil)
	fmt.Printf("%T %T %T\n", errors.New("e"), &strings.Builder{}, []any{Sq{}})
	fmt.Printf("[%-8T][%12T]\n", 1.5, "s")
	t := fmt.Sprintf("%T", struct{ A item }{})
	fmt.Println(t, fmt.Sprintf("%v %T", 5, Node{}))
	fmt.Println(fmt.Errorf("bad %T", item{}))

	type pair struct {
		K string
		V []int
	}
	fmt.Printf("%#v\n", item{Name: "x"}.Name)
	fmt.Printf("%#v|%#v|%#v\n", pair{"a", []int{1}}, []pair{{K: "b"}}, map[string]pair{"c": {}})
	fmt.Printf("%#v %#v\n", &Node{Val: 1}, []any{Node{}, 2})
}
