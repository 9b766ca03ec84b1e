package main

// Values with a String method inside typed slices, arrays, maps and struct
// fields (not unexported ones, which fmt prints plain), %d of them (plain),
// pointer receivers (not in a value's method set), nil and nested slices, and
// json of a struct holding them (json ignores String).

import (
	"encoding/json"
	"fmt"
)

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

type Seg struct {
	Name string `json:"name"`
	A, B Point
	tag  Point
}

type Path []Point

type PtrS struct{ N int }

func (p *PtrS) String() string { return fmt.Sprint("P", p.N) }

func main() {
	pts := []Point{{1, 2}, {3, 4}}
	fmt.Println(pts)
	fmt.Printf("%v %s %d\n", pts, pts, pts)
	m := map[string]Point{"a": {5, 6}}
	fmt.Println(m, len(m))
	s := Seg{"s", Point{1, 1}, Point{2, 2}, Point{3, 3}}
	fmt.Println(s)
	fmt.Printf("%v\n", &s)
	fmt.Println([]Seg{s}, [2]Point{{7, 8}})
	fmt.Println(Path{{9, 9}})
	fmt.Println([]*PtrS{{1}}[0], []PtrS{{2}})
	b, _ := json.Marshal(struct {
		Name string `json:"name"`
		Pts  []Point
	}{"n", pts})
	fmt.Println(string(b))
	var nilPts []Point
	fmt.Println(nilPts, len(nilPts))
	fmt.Println([][]Point{{{1, 0}}, nil})
}
