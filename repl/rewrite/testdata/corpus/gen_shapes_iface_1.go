package main

import (
	"fmt"
	"math"
	"sort"
)

type Shape interface {
	Area() float64
	Perimeter() float64
}

type Rect struct{ W, H float64 }
type Circle struct{ R float64 }

func (r Rect) Area() float64      { return r.W * r.H }
func (r Rect) Perimeter() float64 { return 2 * (r.W + r.H) }
func (c Circle) Area() float64    { return math.Pi * c.R * c.R }
func (c Circle) Perimeter() float64 {
	return 2 * math.Pi * c.R
}

func main() {
	shapes := []Shape{Rect{1.5, 2.5}, Circle{1.5}, Rect{2.5, 2.5}}
	sort.Slice(shapes, func(i, j int) bool { return shapes[i].Area() < shapes[j].Area() })
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
		fmt.Printf("%.3f %.3f\n", s.Area(), s.Perimeter())
	}
	fmt.Printf("total %.2f\n", total)
}
