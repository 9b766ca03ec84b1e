package main

import "fmt"

func main() {
	ch := make(chan int, 10)
	for i := 0; i < 6; i++ {
		ch <- i
	}
	kept := 0
	for n := 0; n < 6; n++ {
		select {
		case v := <-ch:
			if v%2 == 0 {
				break
			}
			kept += v
			fmt.Println("odd", v)
		}
		fmt.Println("after select", n)
	}
	fmt.Println("kept", kept)
}
