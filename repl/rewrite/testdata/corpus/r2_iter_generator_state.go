package main

import "fmt"

type Counter struct{ next int }

func (c *Counter) Take(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for range n {
			c.next++
			if !yield(c.next) {
				return
			}
		}
	}
}

func main() {
	c := &Counter{}
	for v := range c.Take(3) {
		fmt.Print(v, " ")
	}
	for v := range c.Take(5) {
		if v > 5 {
			break
		}
		fmt.Print(v, " ")
	}
	fmt.Println("next", c.next)
}
