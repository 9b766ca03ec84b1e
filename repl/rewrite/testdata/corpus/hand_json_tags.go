package main

import (
	"encoding/json"
	"fmt"
)

type Meta struct {
	Source string `json:"source"`
}

type Record struct {
	Meta
	ID       int               `json:"id"`
	Secret   string            `json:"-"`
	Labels   map[string]string `json:"labels,omitempty"`
	Score    *float64          `json:"score"`
	internal int
}

func main() {
	s := 0.5
	r := Record{Meta: Meta{"web"}, ID: 7, Secret: "x", Score: &s, internal: 3}
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
	var back Record
	err := json.Unmarshal([]byte(`{"source":"api","id":9,"unknown":1,"score":null,"labels":{"a":"b"}}`), &back)
	fmt.Println(err, back.Source, back.ID, back.Score == nil, back.Labels["a"])
}
