package main

import (
	"errors"
	"fmt"
)

type TimeoutError struct{ Op string }

func (e TimeoutError) Error() string { return e.Op + " timed out" }

var ErrTimeout = TimeoutError{"read"}

func do() error { return fmt.Errorf("request failed: %w", ErrTimeout) }

func main() {
	err := do()
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrTimeout))
}
