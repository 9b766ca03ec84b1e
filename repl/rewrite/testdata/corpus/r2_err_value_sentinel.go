package main

import (
	"errors"
	"fmt"
)

type Code struct{ N int }

func (c Code) Error() string { return fmt.Sprintf("code %d", c.N) }

var (
	ErrBusy = Code{503}
	ErrGone = Code{410}
)

func call(i int) error {
	switch i {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("call %d: %w", i, ErrBusy)
	default:
		return fmt.Errorf("call %d: %w", i, ErrGone)
	}
}

func main() {
	for i := 0; i < 3; i++ {
		err := call(i)
		fmt.Println(i, err, errors.Is(err, ErrBusy), errors.Is(err, ErrGone))
	}
}
