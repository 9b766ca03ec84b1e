package main

import (
	"encoding/json"
	"fmt"
	"sort"
)

type Config struct {
	Services map[string]Service `json:"services"`
	Version  int                `json:"version"`
}

type Service struct {
	Port  int      `json:"port"`
	Hosts []string `json:"hosts"`
}

func main() {
	src := `{"version":2,"services":{"api":{"port":8080,"hosts":["a","b"]},"db":{"port":5432,"hosts":["c"]}}}`
	var c Config
	if err := json.Unmarshal([]byte(src), &c); err != nil {
		fmt.Println(err)
		return
	}
	names := make([]string, 0, len(c.Services))
	for n := range c.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Println(n, c.Services[n].Port, len(c.Services[n].Hosts))
	}
	c.Version++
	out, _ := json.Marshal(c)
	fmt.Println(string(out))
}
