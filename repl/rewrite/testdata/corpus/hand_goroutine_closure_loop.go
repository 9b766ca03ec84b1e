package main

import (
	"fmt"
	"sort"
	"sync"
)

func main() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var got []string
	for _, name := range []string{"x", "y", "z"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			got = append(got, name)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Strings(got)
	fmt.Println(got)
}
