package main

import (
	"fmt"
	"strings"
)

func sum(label string, nums ...int) string {
	t := 0
	for _, n := range nums {
		t += n
	}
	return fmt.Sprintf("%s=%d(%d)", label, t, len(nums))
}

func joinAll(sep string, parts ...string) string { return strings.Join(parts, sep) }

func main() {
	fmt.Println(sum("none"), sum("three", 1, 2, 3))
	xs := []int{4, 5}
	fmt.Println(sum("slice", xs...))
	fmt.Println(joinAll("-", "a", "b"), joinAll(","))
	args := []any{"x", 1, true}
	fmt.Println(args...)
}
