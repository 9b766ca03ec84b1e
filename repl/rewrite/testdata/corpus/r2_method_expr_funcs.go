package main

import (
	"fmt"
	"sort"
	"strings"
)

type Item struct {
	Name  string
	Price int
}

func (it Item) Label(prefix string, tags ...string) string {
	return prefix + it.Name + "[" + strings.Join(tags, ",") + "]"
}

func (it *Item) Discount(pct int) (int, bool) {
	if pct <= 0 {
		return it.Price, false
	}
	it.Price -= it.Price * pct / 100
	return it.Price, true
}

func (it Item) Less(o Item) bool { return it.Price < o.Price }

func apply(items []*Item, f func(*Item, int) (int, bool), pct int) {
	for _, it := range items {
		p, ok := f(it, pct)
		fmt.Println(it.Name, p, ok)
	}
}

func main() {
	label := Item.Label
	fmt.Println(label(Item{Name: "pen"}, "#", "blue", "cheap"))
	fmt.Println(label(Item{Name: "ink"}, "> "))
	items := []*Item{{"pen", 200}, {"ink", 950}, {"pad", 400}}
	apply(items, (*Item).Discount, 10)
	less := Item.Less
	vals := []Item{*items[1], *items[0], *items[2]}
	sort.Slice(vals, func(i, j int) bool { return less(vals[i], vals[j]) })
	for _, v := range vals {
		fmt.Print(v.Name, " ")
	}
	fmt.Println()
	get := (*Item).Label
	fmt.Println(get(items[2], "* ", "x"))
}
