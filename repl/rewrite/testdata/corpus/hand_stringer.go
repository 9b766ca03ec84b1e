package main

import "fmt"

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

func main() {
	t := Celsius(21.5)
	fmt.Println(t)
	fmt.Printf("%v %s\n", t, t)
	p := Point{1, 2}
	fmt.Println(p, Point{3, 4})
	fmt.Println(p.String())
}
