package main

import "fmt"

func hanoi(n int, from, to, via string, moves *[]string) {
	if n == 0 {
		return
	}
	hanoi(n-1, from, via, to, moves)
	*moves = append(*moves, from+"->"+to)
	hanoi(n-1, via, to, from, moves)
}

func ackermann(m, n int) int {
	switch {
	case m == 0:
		return n + 1
	case n == 0:
		return ackermann(m-1, 1)
	}
	return ackermann(m-1, ackermann(m, n-1))
}

func main() {
	var moves []string
	hanoi(4, "A", "C", "B", &moves)
	fmt.Println(len(moves), moves[:5])
	fmt.Println(ackermann(2, 3))
}
