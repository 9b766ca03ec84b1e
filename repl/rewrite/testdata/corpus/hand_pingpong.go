package main

import "fmt"

func main() {
	ping, pong := make(chan int), make(chan int)
	done := make(chan struct{})
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(done)
	}()
	v := 0
	for i := 0; i < 5; i++ {
		ping <- v
		v = <-pong
	}
	close(ping)
	<-done
	fmt.Println("final", v)
}
