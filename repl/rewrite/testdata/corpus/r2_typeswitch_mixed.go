package main

import (
	"errors"
	"fmt"
)

type Timeout struct{ Secs int }

func (t Timeout) Error() string { return fmt.Sprintf("timeout after %ds", t.Secs) }

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

func (s Sq) Area() float64 { return s.S * s.S }

func classify(vals ...any) {
	for _, v := range vals {
		switch x := v.(type) {
		case Shape:
			fmt.Printf("shape %.1f\n", x.Area())
		case error:
			fmt.Println("error", x)
		case []int:
			fmt.Println("ints", len(x))
		default:
			fmt.Printf("other %v\n", x)
		}
	}
}

func main() {
	classify(Sq{2}, Timeout{3}, errors.New("io"), []int{1, 2}, "s", &Timeout{5})
}
