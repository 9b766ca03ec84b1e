package main

import (
	"errors"
	"fmt"
)

var ErrNotFound = errors.New("not found")

type OpError struct {
	Op  string
	Err error
}

func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }

func (e *OpError) Unwrap() error { return e.Err }

type Plain struct{ Msg string }

func (p Plain) Error() string { return p.Msg }

func main() {
	err := fmt.Errorf("load config: %w", &OpError{"open", ErrNotFound})
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrNotFound))
	fmt.Println(errors.Is(&OpError{"read", ErrNotFound}, ErrNotFound))
	fmt.Println(errors.Unwrap(&OpError{"read", ErrNotFound}) == ErrNotFound)
	p := Plain{"plain"}
	fmt.Println(errors.Is(fmt.Errorf("x: %w", p), p))
	fmt.Println(errors.Unwrap(p) == nil)
	inner := &OpError{"stat", Plain{"gone"}}
	outer := fmt.Errorf("sync: %w", &OpError{"copy", inner})
	fmt.Println(outer)
	fmt.Println(errors.Is(outer, Plain{"gone"}), errors.Is(outer, Plain{"here"}))
}

// Output:
// load config: open: not found
// true
// true
// true
// true
// true
// sync: copy: stat: gone
// true false
