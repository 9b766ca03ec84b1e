package main

import "fmt"

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

func (s Sq) Area() float64 { return s.S * s.S }

type Circle struct{ R float64 }

func (c *Circle) Area() float64 { return 3 * c.R * c.R }

type Named string

func classify(v any) {
	switch x := v.(type) {
	case Shape:
		fmt.Printf("shape %.1f\n", x.Area())
	case []int:
		fmt.Println("ints", len(x))
	default:
		fmt.Printf("other %v\n", x)
	}
}

func main() {
	classify(Sq{2})
	classify(&Circle{1})
	classify(Circle{1})
	classify([]int{1, 2})
	classify(Named("n"))
	var a any = Sq{3}
	if s, ok := a.(Shape); ok {
		fmt.Println("assert", s.Area())
	}
	_, ok := a.(fmt.Stringer)
	fmt.Println("stringer", ok)
}

// Output:
// shape 4.0
// shape 3.0
// other {1}
// ints 2
// other n
// assert 9
// stringer false
