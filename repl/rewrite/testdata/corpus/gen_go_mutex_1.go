package main

import (
	"fmt"
	"sort"
	"sync"
)

type SafeCounter struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *SafeCounter) Inc(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key]++
}

func main() {
	c := SafeCounter{m: make(map[string]int)}
	var wg sync.WaitGroup
	keys := []string{"a", "b", "c"}
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc(keys[i%len(keys)])
		}()
	}
	wg.Wait()
	var ks []string
	for k := range c.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Println(k, c.m[k])
	}
}
