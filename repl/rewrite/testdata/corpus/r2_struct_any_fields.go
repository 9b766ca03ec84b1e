package main

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Stringers held in any fields, slices and maps of any print through their
// String method; json marshals their fields.

type Sq struct{ S float64 }

func (s Sq) Area() float64  { return s.S * s.S }
func (s Sq) String() string { return fmt.Sprintf("Sq(%g)", s.S) }

type Box struct {
	Name  string
	Extra any
	List  []any
	Meta  map[string]any
}

func main() {
	b := Box{Name: "b", Extra: Sq{1}, List: []any{Sq{3}, 4}, Meta: map[string]any{"k": Sq{2}, "n": 1}}
	fmt.Println(b)
	fmt.Printf("%v|%v|%s\n", b, b.List, b.Meta)
	out, err := json.Marshal(b)
	fmt.Println(string(out), err)
	p := &b
	fmt.Println(p.Extra, p.List)
	boxes := map[string]Box{"x": b}
	fmt.Println(len(boxes), boxes["x"].Extra)
	anys := []any{Sq{2}, 3, "s", nil, Sq{1}}
	sort.SliceStable(anys, func(i, j int) bool { return fmt.Sprint(anys[i]) < fmt.Sprint(anys[j]) })
	fmt.Println(anys...)
}
