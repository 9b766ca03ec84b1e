package main

import "fmt"

type Animal struct {
	Name string
	Legs int
}

func (a Animal) Describe() string { return fmt.Sprintf("%s has %d legs", a.Name, a.Legs) }

type Bird struct {
	Animal
	CanFly bool
}

func main() {
	b := Bird{Animal{"robin", 2}, true}
	fmt.Println(b.Describe(), b.Name, b.CanFly)
	fmt.Println(b.Animal.Legs)
	b.Legs = 3
	fmt.Println(b.Describe())
}
