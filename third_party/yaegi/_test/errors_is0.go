package main

import (
	"errors"
	"fmt"
)

type TimeoutError struct{ Op string }

func (e TimeoutError) Error() string { return e.Op + " timed out" }

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

type WrapError struct {
	Msg string
	Err error
}

func (w *WrapError) Error() string { return w.Msg + ": " + w.Err.Error() }

func (w *WrapError) Unwrap() error { return w.Err }

var ErrClosed = errors.New("closed")

func main() {
	// Sentinels of interpreted types, compared as Go compares errors.
	fmt.Println(errors.Is(TimeoutError{"read"}, TimeoutError{"read"}))
	fmt.Println(errors.Is(TimeoutError{"read"}, TimeoutError{"write"}))
	nf := &NotFound{"k"}
	fmt.Println(errors.Is(nf, nf), errors.Is(nf, &NotFound{"k"}))

	// Chains through an interpreted wrapping type.
	err := &WrapError{"load", &WrapError{"open", ErrClosed}}
	fmt.Println(errors.Is(err, ErrClosed))
	fmt.Println(errors.Unwrap(err).Error())
	fmt.Println(errors.Is(&WrapError{"dial", TimeoutError{"read"}}, TimeoutError{"read"}))
	fmt.Println(errors.Is(&WrapError{"get", nf}, nf))
	fmt.Println(errors.Unwrap(TimeoutError{"read"}) == nil)
}

// Output:
// true
// false
// true false
// true
// open: closed
// true
// true
// true
