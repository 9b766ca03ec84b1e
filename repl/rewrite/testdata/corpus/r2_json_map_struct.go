package main

import (
	"encoding/json"
	"fmt"
)

type Stats struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
}

func main() {
	data := map[string]Stats{"a": {3, 1.5}, "b": {1, 2}}
	b, _ := json.Marshal(data)
	fmt.Println(string(b))
	var back map[string]Stats
	json.Unmarshal(b, &back)
	fmt.Println(back["a"].Count, back["b"].Mean, len(back))
}
