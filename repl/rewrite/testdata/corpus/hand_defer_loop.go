package main

import "fmt"

func main() {
	for i := 0; i < 4; i++ {
		defer fmt.Println("deferred", i)
	}
	x := "before"
	defer fmt.Println("x was", x)
	x = "after"
	fmt.Println("x is", x)
}
