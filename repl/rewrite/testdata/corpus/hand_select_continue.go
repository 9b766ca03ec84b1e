package main

import "fmt"

func main() {
	ch := make(chan int, 10)
	for i := 0; i < 10; i++ {
		ch <- i
	}
	close(ch)
	sum, skipped := 0, 0
outer:
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				break outer
			}
			if v%3 == 0 {
				skipped++
				continue outer
			}
			sum += v
		}
	}
	fmt.Println(sum, skipped)
}
