package main

import (
	"encoding/json"
	"fmt"
)

type Celsius float64

func (c Celsius) MarshalText() ([]byte, error) {
	return []byte(fmt.Sprintf("%.1fC", float64(c))), nil
}

type Reading struct {
	Place string
	Temps []Celsius
}

// Names encodes and decodes as its list does (the interpreter calls
// neither method: the native type of Names has none).
type Names struct{ list []string }

func (n Names) MarshalJSON() ([]byte, error) { return json.Marshal(n.list) }

func (n *Names) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &n.list) }

type Team struct {
	Name    string
	Members *Names
}

func main() {
	// json.Marshal calls MarshalText of the elements,
	b, err := json.Marshal(Reading{"hut", []Celsius{20.5, -3}})
	fmt.Println(string(b), err)
	// and json.Unmarshal fills the value given, not a copy of it.
	var t Team
	err = json.Unmarshal([]byte(`{"Name":"a"}`), &t)
	fmt.Println(t.Name, err)
	var teams []Team
	err = json.Unmarshal([]byte(`[{"Name":"b"}, {"Name":"c"}]`), &teams)
	fmt.Println(len(teams), err)
}

// Output:
// {"Place":"hut","Temps":["20.5C","-3.0C"]} <nil>
// a <nil>
// 2 <nil>
