package main

import (
	"fmt"
	"sort"
)

func main() {
	evens, odds := make(chan int), make(chan int)
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10; i++ {
			if i%2 == 0 {
				evens <- i
			} else {
				odds <- i
			}
		}
		close(done)
	}()
	var e, o []int
loop:
	for {
		select {
		case v := <-evens:
			e = append(e, v)
		case v := <-odds:
			o = append(o, v)
		case <-done:
			break loop
		}
	}
	sort.Ints(e)
	sort.Ints(o)
	fmt.Println(e, o)
}
