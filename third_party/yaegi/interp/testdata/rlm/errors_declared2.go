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

type Other struct {
	Code int
	Msg  string
}

func (o Other) Error() string { return fmt.Sprint("other ", o.Code) }

func main() {
	err := fmt.Errorf("validate: %w", ValidationError{"age", "negative"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, ValidationError{"age", "negative"}))
	fmt.Println(errors.Is(err, ValidationError{"name", "negative"}))
	fmt.Println(errors.Is(err, Other{1, "negative"}))
	fmt.Println(fmt.Errorf("x: %w", Other{7, "m"}))
}

// Output:
// validate: age: negative
// true
// false
// false
// x: other 7
