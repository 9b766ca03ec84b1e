package main

import (
	"errors"
	"fmt"
)

type ValidationError struct {
	Field string
	Msg   string
}

func (v ValidationError) Error() string { return v.Field + ": " + v.Msg }

type WrapError struct {
	Op  string
	Err error
}

func (w *WrapError) Error() string { return w.Op + ": " + w.Err.Error() }

func (w *WrapError) Unwrap() error { return w.Err }

func main() {
	// Native code compares whole values,
	fmt.Println(errors.Is(ValidationError{"age", "negative"}, ValidationError{"age", "negative"}))
	fmt.Println(errors.Is(ValidationError{"age", "negative"}, ValidationError{"name", "negative"}))
	// and calls methods on the whole value.
	err := &WrapError{"validate", ValidationError{"age", "negative"}}
	fmt.Println(errors.Unwrap(err).Error())
	fmt.Println(errors.Is(err, ValidationError{"age", "negative"}))
}

// Output:
// true
// false
// age: negative
// true
