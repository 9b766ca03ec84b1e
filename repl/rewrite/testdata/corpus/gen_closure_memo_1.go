package main

import "fmt"

func main() {
	memo := map[int]int{}
	var fib func(int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		if v, ok := memo[n]; ok {
			return v
		}
		memo[n] = fib(n-1) + fib(n-2)
		return memo[n]
	}
	fmt.Println(fib(35), len(memo))
	for i := 0; i <= 5; i += 2 {
		fmt.Print(fib(i), ",")
	}
	fmt.Println()
}
