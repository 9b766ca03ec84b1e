package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

type Temporary struct{ Op string }

func (e Temporary) Error() string { return e.Op + ": temporary" }

type Point struct{ X, Y int }

func describe(x any) string {
	switch v := x.(type) {
	case nil:
		return "nil"
	case int:
		return fmt.Sprint("int ", v)
	case error:
		return "error " + v.Error()
	case fmt.Stringer:
		return "stringer " + v.String()
	default:
		return fmt.Sprintf("other %v", v)
	}
}

func main() {
	for _, x := range []any{nil, 7, &NotFound{"k1"}, Temporary{"dial"}, &Temporary{"read"}, errors.New("plain"),
		fmt.Errorf("wrapped: %w", errors.New("inner")), Point{1, 2}, "text"} {
		fmt.Println(describe(x))
	}
}
