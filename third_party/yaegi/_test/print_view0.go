package main

import "fmt"

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

type Seg struct {
	Name string
	A, B Point
	tag  Point
}

type Path []Point

type Level int

func (l Level) String() string { return [...]string{"low", "mid", "high"}[l] }

type PtrS struct{ N int }

func (p *PtrS) String() string { return fmt.Sprint("P", p.N) }

func main() {
	pts := []Point{{1, 2}, {3, 4}}
	fmt.Println(pts, len(pts))
	fmt.Println(map[string]Point{"a": {5, 6}})
	s := Seg{"s", Point{1, 1}, Point{2, 2}, Point{3, 3}}
	fmt.Println(s)
	fmt.Println(&s)
	fmt.Println([]Seg{s}, [2]Point{{7, 8}})
	fmt.Println(Path{{9, 9}}, []Level{0, 2, 1}, map[int]Level{1: 2})
	fmt.Println([]*PtrS{{1}}, []PtrS{{2}})
	var nilPts []Point
	fmt.Println(nilPts, [][]Point{{{1, 0}}, nil})
}

// Output:
// [(1,2) (3,4)] 2
// map[a:(5,6)]
// {s (1,1) (2,2) {3 3}}
// &{s (1,1) (2,2) {3 3}}
// [{s (1,1) (2,2) {3 3}}] [(7,8) (0,0)]
// [(9,9)] [low high mid] map[1:high]
// [P1] [{2}]
// [] [[(1,0)] []]
