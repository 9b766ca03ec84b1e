package main

import "fmt"

type Point struct{ X, Y int }

func moveArr(a [3]int) [3]int {
	a[0] = 100
	return a
}

func moveSlice(s []int) { s[0] = 100 }

func (p Point) Moved() Point { p.X++; return p }
func (p *Point) Move()       { p.X++ }

func main() {
	arr := [3]int{1, 2, 3}
	out := moveArr(arr)
	fmt.Println(arr, out)
	sl := []int{1, 2, 3}
	moveSlice(sl)
	fmt.Println(sl)
	m := map[string]Point{"a": {1, 1}}
	p := m["a"]
	p.X = 50
	fmt.Println(m["a"], p)
	pts := []Point{{0, 0}}
	q := pts[0]
	q.Move()
	pts[0].Move()
	fmt.Println(pts[0], q, pts[0].Moved(), pts[0])
}
