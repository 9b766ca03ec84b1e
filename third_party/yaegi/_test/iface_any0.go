package main

import "fmt"

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

func (s Sq) Area() float64  { return s.S * s.S }
func (s Sq) String() string { return fmt.Sprintf("Sq(%g)", s.S) }

type Circle struct{ R float64 }

func (c *Circle) Area() float64 { return 3 * c.R * c.R }

func ret() any { return Sq{7} }

func retv() any {
	s := Sq{8}
	return s
}

// check asserts and switches on a, in each form.
func check(name string, a any) {
	_, ok := a.(Shape)
	sw := false
	switch a.(type) {
	case Shape:
		sw = true
	}
	sw2 := false
	switch x := a.(type) {
	case Shape:
		sw2 = x.Area() > 0
	}
	sw3 := false
	switch a.(type) {
	case int, Shape:
		sw3 = true
	}
	fmt.Println(name, ok, sw, sw2, sw3)
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
	check("lit-var", a)
	check("ident-var", b)
	check("lit-assign", c)
	check("conv-lit", d)
	check("conv-ident", e)
	check("ret-lit", ret())
	check("ret-ident", retv())
	check("map-lit", m["k"])
	check("map-assign", m["j"])
	check("chan", <-ch)
	check("iface", sh)
	check("iface-any", g)
	check("ptr", &Circle{1})
	check("value-of-ptr-method", Circle{1})
	check("int", 3)
	check("nil", nil)
	xs := []any{Sq{2}, 5, "x", []any{Sq{1}}}
	fmt.Println(a, b, m["k"], xs[0], xs)
	fmt.Printf("%v %s %d\n", a, m, len(xs))
}

// Output:
// lit-var true true true true
// ident-var true true true true
// lit-assign true true true true
// conv-lit true true true true
// conv-ident true true true true
// ret-lit true true true true
// ret-ident true true true true
// map-lit true true true true
// map-assign true true true true
// chan true true true true
// iface true true true true
// iface-any true true true true
// ptr true true true true
// value-of-ptr-method false false false false
// int false false false true
// nil false false false false
// Sq(3) Sq(3) Sq(1) Sq(2) [Sq(2) 5 x [Sq(1)]]
// Sq(3) map[j:Sq(2) k:Sq(1)] 4
