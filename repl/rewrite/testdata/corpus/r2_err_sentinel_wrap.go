package main

import (
	"errors"
	"fmt"
	"strconv"
)

type ParseError struct {
	Input string
	Pos   int
}

func (p ParseError) Error() string {
	return "bad input " + strconv.Quote(p.Input) + " at " + strconv.Itoa(p.Pos)
}

var ErrEmpty = errors.New("empty input")

func parse(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("parse: %w", ErrEmpty)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("parse %q: %w", s, ParseError{s, 0})
	}
	return n, nil
}

func main() {
	for _, in := range []string{"42", "", "4x"} {
		n, err := parse(in)
		var pe ParseError
		switch {
		case err == nil:
			fmt.Println("ok", n)
		case errors.Is(err, ErrEmpty):
			fmt.Println("empty:", err)
		case errors.As(err, &pe):
			fmt.Println("parse error at", pe.Pos, "for", pe.Input, "|", err)
		}
	}
}
