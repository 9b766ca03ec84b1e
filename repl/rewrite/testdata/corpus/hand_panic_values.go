package main

import (
	"errors"
	"fmt"
)

var ErrBad = errors.New("bad input")

func risky(n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch v := r.(type) {
			case error:
				err = fmt.Errorf("recovered error: %w", v)
			case string:
				err = fmt.Errorf("recovered string: %s", v)
			default:
				err = fmt.Errorf("recovered %v", v)
			}
		}
	}()
	switch n {
	case 0:
		panic(ErrBad)
	case 1:
		panic("plain message")
	case 2:
		panic(42)
	}
	return nil
}

func main() {
	for i := 0; i < 4; i++ {
		err := risky(i)
		fmt.Println(i, err, errors.Is(err, ErrBad))
	}
}
