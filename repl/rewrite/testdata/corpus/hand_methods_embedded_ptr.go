package main

import "fmt"

type Animal interface{ Sound() string }

type Base struct{ name string }

func (b *Base) Name() string { return b.name }

type Dog struct {
	*Base
	breed string
}

func (d Dog) Sound() string { return d.Name() + " says woof" }

type Cat struct{ Base }

func (c *Cat) Sound() string { return c.Name() + " says meow" }

func main() {
	animals := []Animal{Dog{&Base{"rex"}, "lab"}, &Cat{Base{"tom"}}}
	for _, a := range animals {
		fmt.Println(a.Sound())
	}
	d := Dog{&Base{"fido"}, "pug"}
	d.name = "renamed"
	fmt.Println(d.Sound(), d.breed)
}
