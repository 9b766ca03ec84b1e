package main

import "fmt"

func main() {
	grid := [3][4]int{}
	for r := range grid {
		for c := range grid[r] {
			grid[r][c] = r*10 + c
		}
	}
	fmt.Println(grid)
	total := 0
	for _, row := range grid {
		row[0] = -1
		for _, v := range row {
			total += v
		}
	}
	fmt.Println(total, grid[0][0])
	days := [...]string{"mon", "tue", "wed"}
	fmt.Println(len(days), days[len(days)-1])
}
