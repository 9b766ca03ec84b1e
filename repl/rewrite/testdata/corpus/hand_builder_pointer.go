package main

import (
	"fmt"
	"strings"
)

func render(b *strings.Builder, depth int, name string, children map[string][]string) {
	b.WriteString(strings.Repeat("  ", depth) + name + "\n")
	for _, c := range children[name] {
		render(b, depth+1, c, children)
	}
}

func main() {
	tree := map[string][]string{"root": {"a", "b"}, "a": {"a1", "a2"}, "b": {"b1"}}
	var b strings.Builder
	render(&b, 0, "root", tree)
	fmt.Print(b.String())
	fmt.Println(strings.Count(b.String(), "\n"))
}
