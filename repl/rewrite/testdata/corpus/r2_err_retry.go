package main

import (
	"errors"
	"fmt"
)

type TempErr struct{ Attempt int }

func (t *TempErr) Error() string { return fmt.Sprintf("temporary failure (attempt %d)", t.Attempt) }

var ErrFatal = errors.New("fatal")

func try(attempt int) error {
	if attempt < 3 {
		return fmt.Errorf("try: %w", &TempErr{attempt})
	}
	if attempt == 3 {
		return nil
	}
	return ErrFatal
}

func main() {
	for a := 1; a <= 5; a++ {
		err := try(a)
		var te *TempErr
		switch {
		case err == nil:
			fmt.Println(a, "success")
		case errors.As(err, &te):
			fmt.Println(a, "retrying after", te)
		case errors.Is(err, ErrFatal):
			fmt.Println(a, "giving up")
		}
	}
}
