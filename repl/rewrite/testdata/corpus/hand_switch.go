package main

import "fmt"

func classify(n int) string {
	switch {
	case n < 0:
		return "negative"
	case n == 0:
		return "zero"
	case n%2 == 0:
		return "even"
	}
	return "odd"
}

func main() {
	for _, n := range []int{-3, 0, 4, 7} {
		fmt.Print(classify(n), " ")
	}
	fmt.Println()
	switch x := 2; x {
	case 1, 2:
		fmt.Println("one or two")
		fallthrough
	case 3:
		fmt.Println("three (fallthrough)")
	default:
		fmt.Println("other")
	}
}
