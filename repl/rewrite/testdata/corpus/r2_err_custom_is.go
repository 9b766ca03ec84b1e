package main

import (
	"errors"
	"fmt"
)

type StatusError struct{ Code int }

func (e *StatusError) Error() string { return fmt.Sprintf("status %d", e.Code) }

var ErrNotFound = &StatusError{404}

func lookup(k string) error {
	if k == "" {
		return fmt.Errorf("lookup: %w", ErrNotFound)
	}
	return nil
}

func main() {
	err := lookup("")
	fmt.Println(err, errors.Is(err, ErrNotFound))
	var se *StatusError
	fmt.Println(errors.As(err, &se), se.Code)
	fmt.Println(lookup("x") == nil)
}
