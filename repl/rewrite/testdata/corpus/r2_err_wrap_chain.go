package main

import (
	"errors"
	"fmt"
)

var ErrNotFound = errors.New("not found")

type QueryError struct {
	Query string
	Err   error
}

func (e *QueryError) Error() string { return "query " + e.Query + ": " + e.Err.Error() }
func (e *QueryError) Unwrap() error { return e.Err }

func lookup(q string) error {
	if q == "" {
		return nil
	}
	return &QueryError{Query: q, Err: ErrNotFound}
}

func main() {
	err := fmt.Errorf("handler: %w", lookup("users"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrNotFound))
	var qe *QueryError
	if errors.As(err, &qe) {
		fmt.Println("query was", qe.Query)
	}
	fmt.Println(lookup("") == nil)
}
