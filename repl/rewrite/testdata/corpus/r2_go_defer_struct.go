package main

import (
	"fmt"
	"sync"
)

// A value of a declared type with methods given to a goroutine and to a
// deferred call: each gets the value as it was at the statement.

type Sq struct{ S float64 }

func (s Sq) Area() float64  { return s.S * s.S }
func (s Sq) String() string { return fmt.Sprintf("Sq(%g)", s.S) }

func work(wg *sync.WaitGroup, s Sq, out *[]string, mu *sync.Mutex) {
	defer wg.Done()
	mu.Lock()
	*out = append(*out, s.String())
	mu.Unlock()
}

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var out []string
	s := Sq{2}
	wg.Add(1)
	go work(&wg, s, &out, &mu)
	wg.Wait()
	fmt.Println(out)
	defer fmt.Println("deferred", s, s.Area())
	s = Sq{3}
	fmt.Println("now", s)
}
