package main

import (
	"encoding/json"
	"fmt"
)

type Config struct {
	Name    string  `json:"name"`
	Retries *int    `json:"retries,omitempty"`
	Parent  *Config `json:"parent,omitempty"`
}

func main() {
	n := 3
	c := Config{Name: "child", Retries: &n, Parent: &Config{Name: "root"}}
	b, _ := json.Marshal(c)
	fmt.Println(string(b))
	var d Config
	json.Unmarshal(b, &d)
	fmt.Println(d.Name, *d.Retries, d.Parent.Name, d.Parent.Parent == nil)
}
