package main

import "fmt"

func lowerBound(xs []int, target int) int {
	lo, hi := 0, len(xs)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if xs[mid] < target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func main() {
	xs := []int{1, 2, 4, 4, 4, 7, 9}
	for _, t := range []int{0, 4, 5, 9, 10} {
		fmt.Print(lowerBound(xs, t), " ")
	}
	fmt.Println()
}
