package main

import "fmt"

func multiply(a, b [][]int) [][]int {
	n, m, p := len(a), len(b), len(b[0])
	out := make([][]int, n)
	for i := range out {
		out[i] = make([]int, p)
		for j := 0; j < p; j++ {
			for k := 0; k < m; k++ {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out
}

func main() {
	a := [][]int{{1, 2}, {3, 4}}
	b := [][]int{{5, 6}, {7, 8}}
	fmt.Println(multiply(a, b))
	var grid [3][3]int
	for i := 0; i < 3; i++ {
		grid[i][i] = i + 1
	}
	fmt.Println(grid, len(grid))
}
