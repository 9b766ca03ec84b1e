package main

import (
	"fmt"
	"strconv"
)

type NegativeError struct{ N int }

func (e *NegativeError) Error() string { return "negative: " + strconv.Itoa(e.N) }

func check(n int) error {
	if n < 0 {
		return &NegativeError{n}
	}
	if n > 100 {
		return fmt.Errorf("too big: %d", n)
	}
	return nil
}

func main() {
	for _, n := range []int{5, -2, 500} {
		switch e := check(n).(type) {
		case nil:
			fmt.Println(n, "ok")
		case *NegativeError:
			fmt.Println(n, "negative error", e.N)
		default:
			fmt.Println(n, "other error:", e)
		}
	}
}
