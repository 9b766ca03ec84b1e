package main

import (
	"errors"
	"fmt"
)

type Layer struct {
	Name string
	Err  error
}

func (l *Layer) Error() string { return l.Name + "(" + l.Err.Error() + ")" }
func (l *Layer) Unwrap() error { return l.Err }

func main() {
	var err error = errors.New("root")
	for _, n := range []string{"db", "repo", "service"} {
		err = &Layer{n, err}
	}
	fmt.Println(err)
	depth := 0
	for e := err; e != nil; e = errors.Unwrap(e) {
		depth++
	}
	fmt.Println("depth", depth)
}
