package main

import (
	"errors"
	"fmt"
)

func divmod(a, b int) (q, r int, err error) {
	if b == 0 {
		err = errors.New("division by zero")
		return
	}
	q, r = a/b, a%b
	return
}

func main() {
	for _, p := range [][2]int{{17, 5}, {-7, 2}, {1, 0}} {
		q, r, err := divmod(p[0], p[1])
		fmt.Println(q, r, err)
	}
}
