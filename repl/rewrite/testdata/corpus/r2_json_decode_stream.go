package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

type Event struct {
	Kind  string  `json:"kind"`
	Value float64 `json:"value"`
}

func main() {
	logs := `{"kind":"cpu","value":0.5}
{"kind":"mem","value":1024}
{"kind":"cpu","value":0.75}`
	dec := json.NewDecoder(strings.NewReader(logs))
	totals := map[string]float64{}
	n := 0
	for dec.More() {
		var e Event
		if err := dec.Decode(&e); err != nil {
			fmt.Println("error:", err)
			break
		}
		totals[e.Kind] += e.Value
		n++
	}
	fmt.Println(n, totals["cpu"], totals["mem"])
	out, _ := json.MarshalIndent(map[string]any{"events": n, "cpu": totals["cpu"]}, "", "  ")
	fmt.Println(string(out))
}
