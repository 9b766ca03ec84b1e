package main

import "fmt"

type Color int

const (
	Red Color = iota
	Green
	Blue
)

var names = map[Color]string{Red: "red", Green: "green", Blue: "blue"}

func (c Color) Name() string { return names[c] }

func main() {
	for c := Red; c <= Blue; c++ {
		fmt.Println(int(c), c.Name())
	}
	const (
		KB = 1 << (10 * (iota + 1))
		MB
		GB
	)
	fmt.Println(KB, MB, GB)
}
