package main

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
)

func work(id int) (int, error) {
	if id%3 == 0 {
		return 0, errors.New("job " + strconv.Itoa(id) + " failed")
	}
	return id * 10, nil
}

func main() {
	var wg sync.WaitGroup
	results := make(chan int, 10)
	errs := make(chan error, 10)
	for i := 1; i <= 7; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			v, err := work(id)
			if err != nil {
				errs <- err
				return
			}
			results <- v
		}(i)
	}
	wg.Wait()
	close(results)
	close(errs)
	var vs []int
	for v := range results {
		vs = append(vs, v)
	}
	var es []string
	for e := range errs {
		es = append(es, e.Error())
	}
	sort.Ints(vs)
	sort.Strings(es)
	fmt.Println(vs)
	fmt.Println(es)
}
