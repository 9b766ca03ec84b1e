package main

import (
	"errors"
	"fmt"
	"strconv"
)

var ErrEmpty = errors.New("empty input")
var ErrNegative = errors.New("negative")

func parse(s string) (int, error) {
	if s == "" {
		return 0, ErrEmpty
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("parse %q: %w", s, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("value %d: %w", n, ErrNegative)
	}
	return n, nil
}

func main() {
	for _, s := range []string{"-3", "99999999999999999999", "0"} {
		n, err := parse(s)
		switch {
		case errors.Is(err, ErrEmpty):
			fmt.Println("empty!")
		case errors.Is(err, ErrNegative):
			fmt.Println("negative:", err)
		case err != nil:
			fmt.Println("error:", err)
		default:
			fmt.Println("ok", n)
		}
	}
}
