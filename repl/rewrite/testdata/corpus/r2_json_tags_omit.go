package main

import (
	"encoding/json"
	"fmt"
)

type Address struct {
	City string `json:"city"`
	Zip  string `json:"zip,omitempty"`
}

type Person struct {
	Name    string            `json:"name"`
	Age     int               `json:"age,omitempty"`
	Emails  []string          `json:"emails"`
	Home    *Address          `json:"home,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Skipped string            `json:"-"`
}

func main() {
	p := Person{Name: "Ada", Emails: []string{"a@x.org"}, Home: &Address{City: "London"}, Skipped: "no"}
	b, _ := json.Marshal(p)
	fmt.Println(string(b))
	var back Person
	if err := json.Unmarshal([]byte(`{"name":"Bo","age":41,"emails":null,"labels":{"team":"core"},"home":{"city":"Oslo","zip":"0150"}}`), &back); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println(back.Name, back.Age, back.Emails == nil, back.Labels["team"], back.Home.City, back.Home.Zip)
}
