package main

import "fmt"

func main() {
	xs := []int{1, 2, 3}
	fmt.Println("before")
	i := 5
	fmt.Println(xs[i])
	fmt.Println("never")
}
