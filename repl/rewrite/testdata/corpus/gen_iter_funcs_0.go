package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

func count(seq iter.Seq[string]) int {
	n := 0
	for range seq {
		n++
	}
	return n
}

func main() {
	text := "alpha beta\ngamma delta epsilon\n\nzeta\n"
	m := map[string]int{}
	for f := range strings.FieldsSeq(text) {
		m[f] = len(f)
	}
	ks := maps.Keys(m)
	fmt.Println(count(ks), slices.Sorted(ks))
	fmt.Println(slices.Sorted(maps.Values(m)))
	total := 0
	for k, v := range maps.All(m) {
		total += len(k) + v
	}
	for k := range maps.Keys(m) {
		total += len(k)
	}
	fmt.Println(total)
	xs := slices.Sorted(maps.Keys(m))
	ys := slices.Collect(slices.Values(xs))
	ys[0] = "changed"
	fmt.Println(xs[0], ys[0], slices.Sorted(slices.Values([]string{"b", "a"})))
	for c := range slices.Chunk(xs, 2) {
		fmt.Print(c, ";")
	}
	fmt.Println()
	chunks := slices.Chunk(xs, 3)
	for c := range chunks {
		fmt.Print(len(c))
	}
	fmt.Println(len(slices.Collect(chunks)))
	for i, v := range slices.All(xs) {
		fmt.Print(i, v[:1])
	}
	fmt.Println()
	fmt.Println(count(strings.Lines(text)), count(strings.SplitSeq(text, " ")), count(slices.Values(xs)))
	var it iter.Seq[string] = strings.SplitSeq(text, "\n")
	fmt.Println(slices.Collect(it), count(it))
}
