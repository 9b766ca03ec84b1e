package main

import "fmt"

type Key struct {
	A string
	B int
}

func main() {
	k1, k2 := Key{"x", 1}, Key{"x", 1}
	fmt.Println(k1 == k2, k1 != Key{"y", 1})
	seen := map[Key]bool{k1: true}
	fmt.Println(seen[k2], seen[Key{"z", 0}])
	grid := map[[2]int]string{{0, 0}: "origin", {1, 2}: "p"}
	fmt.Println(grid[[2]int{1, 2}], len(grid))
	a := [3]int{1, 2, 3}
	b := a
	b[0] = 100
	fmt.Println(a, b, a == [3]int{1, 2, 3})
}
