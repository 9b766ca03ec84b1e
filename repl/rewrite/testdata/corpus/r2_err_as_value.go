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

func validate(age int) error {
	if age < 0 {
		return fmt.Errorf("validate: %w", ValidationError{"age", "negative"})
	}
	return nil
}

func main() {
	for _, a := range []int{3, -1} {
		err := validate(a)
		var ve ValidationError
		if errors.As(err, &ve) {
			fmt.Println("invalid field", ve.Field, "-", ve.Msg)
		} else {
			fmt.Println("ok", a)
		}
	}
}
