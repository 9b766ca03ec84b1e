package main

import "fmt"

func main() {
	primes := []int{}
next:
	for n := 2; len(primes) < 8; n++ {
		for _, p := range primes {
			if n%p == 0 {
				continue next
			}
		}
		primes = append(primes, n)
	}
	fmt.Println(primes)
	i := 0
retry:
	i++
	if i < 3 {
		goto retry
	}
	fmt.Println("tries", i)
}
