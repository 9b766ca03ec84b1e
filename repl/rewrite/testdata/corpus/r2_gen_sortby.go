package main

import (
	"cmp"
	"fmt"
	"slices"
)

type Row struct {
	Name  string
	Score int
}

func SortBy[T any, K cmp.Ordered](xs []T, key func(T) K) {
	slices.SortFunc(xs, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
}

func main() {
	rows := []Row{{"cy", 7}, {"al", 9}, {"bo", 7}}
	SortBy(rows, func(r Row) string { return r.Name })
	fmt.Println(rows)
	SortBy(rows, func(r Row) int { return -r.Score })
	fmt.Println(rows[0].Name, rows[0].Score)
	fmt.Println(max(3, 9, 4), min("b", "a"))
}
