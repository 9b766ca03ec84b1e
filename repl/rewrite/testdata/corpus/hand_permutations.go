package main

import (
	"fmt"
	"strings"
)

func permute(xs []string) [][]string {
	if len(xs) <= 1 {
		return [][]string{append([]string{}, xs...)}
	}
	var out [][]string
	for i := range xs {
		rest := make([]string, 0, len(xs)-1)
		rest = append(rest, xs[:i]...)
		rest = append(rest, xs[i+1:]...)
		for _, p := range permute(rest) {
			out = append(out, append([]string{xs[i]}, p...))
		}
	}
	return out
}

func main() {
	ps := permute([]string{"a", "b", "c"})
	for _, p := range ps {
		fmt.Print(strings.Join(p, ""), " ")
	}
	fmt.Println(len(ps))
}
