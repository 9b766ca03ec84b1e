package main

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	})
}

func main() {
	text := "Go is expressive, concise, clean, and efficient. Go compiles quickly to machine code."
	counts := map[string]int{}
	for _, w := range words(text) {
		counts[w]++
	}
	type kv struct {
		k string
		v int
	}
	var kvs []kv
	for k, v := range counts {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool {
		if kvs[i].v != kvs[j].v {
			return kvs[i].v > kvs[j].v
		}
		return kvs[i].k < kvs[j].k
	})
	for i, e := range kvs {
		if i == 5 {
			break
		}
		fmt.Printf("%-10s %3d\n", e.k, e.v)
	}
	fmt.Println("distinct:", len(counts))
}
