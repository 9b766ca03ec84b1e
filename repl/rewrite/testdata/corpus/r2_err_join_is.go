package main

import (
	"errors"
	"fmt"
)

var ErrMissing = errors.New("missing field")
var ErrRange = errors.New("out of range")

type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

func validate(m map[string]int) error {
	var errs []error
	if _, ok := m["id"]; !ok {
		errs = append(errs, &FieldError{"id", ErrMissing})
	}
	if v := m["age"]; v < 0 || v > 150 {
		errs = append(errs, &FieldError{"age", ErrRange})
	}
	return errors.Join(errs...)
}

func main() {
	err := validate(map[string]int{"age": 200})
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrMissing), errors.Is(err, ErrRange))
	var fe *FieldError
	if errors.As(err, &fe) {
		fmt.Println("first field:", fe.Field)
	}
	fmt.Println(validate(map[string]int{"id": 1, "age": 30}) == nil)
}
