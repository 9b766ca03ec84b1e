package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	stock := map[string]int{"kiwi": 4, "apple": 9, "fig": 2}
	keys := slices.Sorted(maps.Keys(stock))
	fmt.Println(keys)
	vals := slices.Collect(maps.Values(stock))
	slices.Sort(vals)
	fmt.Println(vals)
	total := 0
	for _, k := range keys {
		total += stock[k]
	}
	fmt.Println(total)
}
