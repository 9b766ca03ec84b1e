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
	// Each layer wraps the error err held when it was made.
	var err error = errors.New("root")
	for _, n := range []string{"db", "repo", "service"} {
		err = &Layer{n, err}
	}
	fmt.Println(errors.Join(err).Error())
	var names []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		names = append(names, e.Error())
	}
	fmt.Println(len(names), names[1])

	// An error holds a copy of a value, not the variable.
	v := Val{1}
	var e2 error = v
	v.N = 2
	fmt.Println(errors.Join(e2).Error(), v.N)

	// == of interfaces compares the values the interpreter's wrappers hold.
	pe := &Layer{"p", errors.New("x")}
	w := &Layer{"w", pe}
	fmt.Println(errors.Unwrap(w) == error(pe), errors.Unwrap(w) != error(pe))
	fmt.Println(errors.Unwrap(w) == error(&Layer{"p", nil}))
}

// Output:
// service(repo(db(root)))
// 4 repo(db(root))
// val 1 2
// true false
// false
