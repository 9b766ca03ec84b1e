package main

import "fmt"

func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func Count[T comparable](xs []T, v T) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}

func Pair[T any](x T) []T { return []T{x, x} }

var words = []string{"go", "is", "fun", "and", "go", "is", "fast"}

var long = Filter(words, func(w string) bool { return len(w) > 2 })

var n, m = Count(words, "go"), Count([]int{1, 2, 1}, 1)

var pair = Pair(1.5)

func main() {
	var local = Count(long, "fun")
	fmt.Println(long, len(long), n, m, pair, local)
}

// Output:
// [fun and fast] 3 2 2 [1.5 1.5] 1
