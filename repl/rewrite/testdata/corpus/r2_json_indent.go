package main

import (
	"encoding/json"
	"fmt"
)

type Item struct {
	ID    int     `json:"id"`
	Price float64 `json:"price"`
}

type Order struct {
	Items []Item          `json:"items"`
	Meta  map[string]bool `json:"meta"`
}

func main() {
	o := Order{Items: []Item{{1, 9.5}, {2, 0.25}}, Meta: map[string]bool{"paid": true, "gift": false}}
	b, _ := json.MarshalIndent(o, "", "  ")
	fmt.Println(string(b))
}
