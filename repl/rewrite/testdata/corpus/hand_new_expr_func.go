package main

import "fmt"

type Options struct {
	Limit   *int
	Verbose *bool
}

func main() {
	n := 10
	opts := Options{Limit: new(n * 2), Verbose: new(true)}
	n = 0
	fmt.Println(*opts.Limit, *opts.Verbose, n)
}
