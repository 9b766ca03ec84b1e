package main

import "fmt"

func main() {
	grid := [][]int{{1, 2, 3}, {4, -5, 6}, {7, 8, 9}}
	found := false
outer:
	for i, row := range grid {
		for j, v := range row {
			if v < 0 {
				fmt.Println("negative at", i, j)
				found = true
				break outer
			}
		}
	}
	fmt.Println(found)
	n := 0
loop:
	for {
		n++
		switch {
		case n%2 == 0:
			continue loop
		case n > 7:
			break loop
		}
		fmt.Print(n, " ")
	}
	fmt.Println()
}
