package main

import "fmt"

type Config struct {
	Name    string
	Retries *int
}

func main() {
	xs := []int{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	p := new(xs[0])
	*p += 1
	fmt.Println(*p, xs[0])
	q := new(42)
	s := new("hello")
	f := new(2.5)
	fmt.Println(*q, *s, *f)
	c := Config{Name: "svc", Retries: new(len(xs))}
	fmt.Println(c.Name, *c.Retries)
	r := new(int)
	fmt.Println(*r)
}
