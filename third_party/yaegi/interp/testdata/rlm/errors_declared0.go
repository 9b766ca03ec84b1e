package main

import (
	"errors"
	"fmt"
)

type TimeoutError struct{ Op string }

func (e TimeoutError) Error() string { return e.Op + " timed out" }

var ErrTimeout = TimeoutError{"read"}

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

func main() {
	err2 := fmt.Errorf("request failed: %w", ErrTimeout)
	fmt.Println(err2)
	fmt.Println(errors.Is(err2, ErrTimeout))
	fmt.Println(errors.Is(err2, TimeoutError{"write"}))
	e := &NotFound{"x"}
	fmt.Println(errors.Is(fmt.Errorf("a: %w", e), e))
	fmt.Println(errors.Is(fmt.Errorf("a: %w", e), &NotFound{"x"}))
}

// Output:
// request failed: read timed out
// true
// false
// true
// false
