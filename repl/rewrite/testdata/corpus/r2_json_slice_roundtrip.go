package main

import (
	"encoding/json"
	"fmt"
)

type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func main() {
	pts := []Point{{1, 2}, {3, 4}}
	b, _ := json.Marshal(pts)
	fmt.Println(string(b))
	var back []Point
	if err := json.Unmarshal([]byte(`[{"x":5,"y":6},{"x":7}]`), &back); err != nil {
		fmt.Println("error:", err)
	}
	for _, p := range back {
		fmt.Println(p.X, p.Y)
	}
}
