package main

import "fmt"

type T struct{}

func get(fail bool) *T {
	if fail {
		return nil
	}
	return &T{}
}

func main() {
	var p *T
	var i interface{} = p
	fmt.Println(p == nil, i == nil, i != nil)
	var j interface{}
	fmt.Println(j == nil)
	q := get(true)
	fmt.Println(q == nil)
}
