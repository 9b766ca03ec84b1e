package main

import "fmt"

// Seq2 is iter.Seq2, declared here: package iter has generic types only,
// which a symbol table cannot hold.
type Seq2[K, V any] func(yield func(K, V) bool)

func pairs(xs []string) Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, x := range xs {
			if !yield(i, x) {
				return
			}
		}
	}
}

func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				fmt.Println("stopped at", i)
				return
			}
		}
		fmt.Println("done")
	}
}

func main() {
	for i, s := range pairs([]string{"a", "b"}) {
		fmt.Println(i, s)
	}
	for i := range pairs([]string{"x", "y", "z"}) {
		fmt.Println("key", i)
	}
	sum := 0
	for x := range count(5) {
		sum += x
	}
	fmt.Println("sum", sum)
	for x := range count(10) {
		if x == 1 {
			continue
		}
		if x == 3 {
			break
		}
		fmt.Println("x", x)
	}
	n := 0
	for range count(3) {
		n++
	}
	fmt.Println("n", n)
}

// Output:
// 0 a
// 1 b
// key 0
// key 1
// key 2
// done
// sum 10
// x 0
// x 2
// stopped at 3
// done
// n 3
