package main

import "fmt"

// Seq is iter.Seq, declared here: package iter has generic types only,
// which a symbol table cannot hold.
type Seq[V any] func(yield func(V) bool)

func all(xs []string) Seq[string] {
	return func(yield func(string) bool) {
		for _, x := range xs {
			if !yield(x) {
				return
			}
		}
	}
}

// upper ranges over another iterator, and returns from its loop when its
// own yield says stop.
func upper(seq Seq[string]) Seq[string] {
	return func(yield func(string) bool) {
		for s := range seq {
			if !yield(s + "!") {
				return
			}
		}
		fmt.Println("upper done")
	}
}

func length(s string) int { return len(s) }

// firstLen returns a call's result from inside the loop.
func firstLen(seq Seq[string]) int {
	for s := range seq {
		return length(s)
	}
	return -1
}

func main() {
	for s := range upper(all([]string{"a", "b", "c"})) {
		fmt.Println(s)
		if s == "b!" {
			break
		}
	}
	for s := range upper(all([]string{"x"})) {
		fmt.Println(s)
	}
	fmt.Println(firstLen(upper(all([]string{"abc"}))), firstLen(all(nil)))
}

// Output:
// a!
// b!
// x!
// upper done
// 4 -1
