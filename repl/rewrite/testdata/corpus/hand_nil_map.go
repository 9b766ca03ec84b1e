package main

import "fmt"

func main() {
	var counts map[string]int
	fmt.Println(counts["x"], len(counts))
	counts["x"]++
	fmt.Println("unreachable")
}
