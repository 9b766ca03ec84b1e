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

type Val struct{ N int }

func (v Val) Error() string { return fmt.Sprint("val ", v.N) }

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
	v := Val{1}
	var e2 error = v
	v.N = 2
	fmt.Println(e2, v)
}

// Output:
// service(repo(db(root)))
// depth 4
// val 1 val 2
