package main

import (
	"errors"
	"fmt"
)

type FieldErr struct{ Name string }

func (f FieldErr) Error() string { return "bad " + f.Name }

func main() {
	errs := []error{FieldErr{"name"}, FieldErr{"email"}}
	err := fmt.Errorf("form: %w", errors.Join(errs...))
	fmt.Println(err)
	fmt.Println(errors.Is(err, FieldErr{"email"}), errors.Is(err, FieldErr{"phone"}))
	var fe FieldErr
	fmt.Println(errors.As(err, &fe), fe.Name)
}
