package main

import (
	"encoding/json"
	"fmt"
)

type Address struct {
	Street string `json:"street"`
	City   string `json:"city"`
}

type Person struct {
	Name    string   `json:"name"`
	Age     int      `json:"age"`
	Address Address  `json:"address"`
	Tags    []string `json:"tags,omitempty"`
}

func main() {
	p := Person{Name: "Ann", Age: 31, Address: Address{"1 Main St", "Springfield"}, Tags: []string{"admin"}}
	b, err := json.Marshal(p)
	fmt.Println(string(b), err)
	var q Person
	if err := json.Unmarshal(b, &q); err != nil {
		fmt.Println(err)
	}
	fmt.Println(q.Name, q.Age, q.Address.City, q.Tags)
	b2, _ := json.Marshal(Person{Name: "Bo"})
	fmt.Println(string(b2))
}
