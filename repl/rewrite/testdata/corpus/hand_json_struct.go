package main

import (
	"encoding/json"
	"fmt"
)

type Address struct {
	City string `json:"city"`
	Zip  string `json:"zip,omitempty"`
}

type User struct {
	Name    string   `json:"name"`
	Age     int      `json:"age"`
	Email   string   `json:"email,omitempty"`
	Tags    []string `json:"tags"`
	Address Address  `json:"address"`
}

func main() {
	u := User{Name: "Ann", Age: 30, Tags: []string{"a", "b"}, Address: Address{City: "Oslo"}}
	b, err := json.Marshal(u)
	fmt.Println(string(b), err)
	var back User
	err = json.Unmarshal([]byte(`{"name":"Bo","age":41,"tags":["x"],"address":{"city":"Rome","zip":"00100"}}`), &back)
	fmt.Println(back.Name, back.Age, back.Tags, back.Address.City, back.Address.Zip, err)
}
