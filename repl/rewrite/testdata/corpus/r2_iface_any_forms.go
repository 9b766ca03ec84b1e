package main

import "fmt"

// Values of a declared type reach an any in every way Go allows, and a
// declared interface must see their methods each time.

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

func (s Sq) Area() float64  { return s.S * s.S }
func (s Sq) String() string { return fmt.Sprintf("Sq(%g)", s.S) }

type Circle struct{ R float64 }

func (c *Circle) Area() float64 { return 3 * c.R * c.R }

func ret() any { return Sq{7} }

func retVar() any {
	s := Sq{8}
	return s
}

func check(name string, a any) {
	_, ok := a.(Shape)
	bare := false
	switch a.(type) {
	case Shape:
		bare = true
	}
	bound := 0.0
	switch x := a.(type) {
	case Shape:
		bound = x.Area()
	}
	multi := false
	switch a.(type) {
	case int, Shape:
		multi = true
	}
	fmt.Println(name, ok, bare, bound, multi)
}

func main() {
	var a any = Sq{3}
	s := Sq{3}
	var b any = s
	var c any
	c = Sq{4}
	d := any(Sq{5})
	e := any(s)
	m := map[string]any{"k": Sq{1}}
	m["j"] = Sq{2}
	ch := make(chan any, 1)
	ch <- Sq{1}
	var sh Shape = Sq{2}
	var g any = sh
	check("literal in a var", a)
	check("variable in a var", b)
	check("assigned", c)
	check("converted literal", d)
	check("converted variable", e)
	check("returned literal", ret())
	check("returned variable", retVar())
	check("map literal", m["k"])
	check("map assignment", m["j"])
	check("channel", <-ch)
	check("interface", sh)
	check("interface in an any", g)
	check("pointer", &Circle{1})
	check("value of a pointer-method type", Circle{1})
	check("int", 3)
	check("nil", nil)
	if s2, ok := a.(Shape); ok {
		fmt.Println("asserted", s2.Area())
	}
	xs := []any{Sq{2}, 5, "x", []any{Sq{1}}, map[string]any{"q": Sq{9}}}
	fmt.Println(a, b, m["k"], xs[0], ret())
	fmt.Println(xs)
	fmt.Printf("%v %s %d\n", d, m, len(xs))
}
