package main

import (
	"fmt"
	"strconv"
	"strings"
)

func evalRPN(expr string) (float64, error) {
	var stack []float64
	for _, tok := range strings.Fields(expr) {
		switch tok {
		case "+", "-", "*", "/":
			if len(stack) < 2 {
				return 0, fmt.Errorf("stack underflow at %q", tok)
			}
			b, a := stack[len(stack)-1], stack[len(stack)-2]
			stack = stack[:len(stack)-2]
			var r float64
			switch tok {
			case "+":
				r = a + b
			case "-":
				r = a - b
			case "*":
				r = a * b
			case "/":
				r = a / b
			}
			stack = append(stack, r)
		default:
			v, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				return 0, fmt.Errorf("bad token %q: %w", tok, err)
			}
			stack = append(stack, v)
		}
	}
	if len(stack) != 1 {
		return 0, fmt.Errorf("%d values left", len(stack))
	}
	return stack[0], nil
}

func main() {
	for _, e := range []string{"3 4 + 2 *", "5 1 2 + 4 * + 3 -", "1 +", "2 x *", "1 2"} {
		v, err := evalRPN(e)
		fmt.Println(v, err)
	}
}
