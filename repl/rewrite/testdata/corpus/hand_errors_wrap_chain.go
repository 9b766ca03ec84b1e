package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

func readConfig(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("read config: %w", io.ErrUnexpectedEOF)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("read config %q: %w", s, err)
	}
	return n, nil
}

func load(s string) error {
	if _, err := readConfig(s); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return nil
}

func main() {
	for _, s := range []string{"", "x", "5"} {
		err := load(s)
		var ne *strconv.NumError
		fmt.Println(err, errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &ne))
		if ne != nil {
			fmt.Println(" num error on", ne.Num)
		}
	}
}
