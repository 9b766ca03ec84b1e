package main

import "fmt"

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

func main() {
	fmt.Println(Celsius(21.5))
	p := Point{1, 2}
	fmt.Println(p, &p)
	fmt.Printf("%v %s\n", p, Celsius(-3))
	s := fmt.Sprint(Point{3, 4})
	fmt.Println(s, len(s))
}
