package main

import (
	"encoding/json"
	"fmt"
	"sort"
)

func main() {
	var m map[string]any
	if err := json.Unmarshal([]byte("{\"name\":\"gadget\",\"price\":0,\"tags\":[],\"stock\":0,\"extra\":true}"), &m); err != nil {
		fmt.Println("error:", err)
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s=%v (%T)\n", k, m[k], m[k])
	}
	b, _ := json.Marshal(m)
	fmt.Println(string(b))
}
