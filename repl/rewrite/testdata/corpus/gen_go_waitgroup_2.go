package main

import (
	"fmt"
	"sync"
)

func main() {
	n := 25
	results := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = i * i
		}(i)
	}
	wg.Wait()
	total := 0
	for _, r := range results {
		total += r
	}
	fmt.Println(results[n-1], total)
}
