package main

import (
	"fmt"
	"strconv"
)

type ValidationError struct {
	Field string
	Value string
}

func (e *ValidationError) Error() string {
	return "invalid " + e.Field + ": " + strconv.Quote(e.Value)
}

func validate(s string) error {
	if _, err := strconv.Atoi(s); err != nil {
		return &ValidationError{Field: "number", Value: s}
	}
	return nil
}

func main() {
	for _, s := range []string{"", "4", "four"} {
		err := validate(s)
		if ve, ok := err.(*ValidationError); ok {
			fmt.Println("validation:", ve.Field, ve.Value, err)
		} else if err == nil {
			fmt.Println("valid", s)
		}
	}
}
