package main

import (
	"fmt"
	"math"
)

type Shape interface {
	Area() float64
}

type Square struct{ S float64 }
type Circle struct{ R float64 }

func (s Square) Area() float64  { return s.S * s.S }
func (c *Circle) Area() float64 { return math.Pi * c.R * c.R }

func largest(shapes ...Shape) (Shape, float64) {
	var best Shape
	max := -1.0
	for _, s := range shapes {
		if a := s.Area(); a > max {
			best, max = s, a
		}
	}
	return best, max
}

func main() {
	b, a := largest(Square{2}, &Circle{1}, Square{1.5})
	_, isSquare := b.(Square)
	fmt.Printf("%.3f %v\n", a, isSquare)
	var s Shape
	fmt.Println(s == nil)
	s = &Circle{2}
	if c, ok := s.(*Circle); ok {
		fmt.Printf("circle r=%.1f area=%.2f\n", c.R, c.Area())
	}
}
