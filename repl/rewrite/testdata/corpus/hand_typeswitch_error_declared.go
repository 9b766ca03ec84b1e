package main

import "fmt"

type QuotaError struct{ Used, Limit int }

func (e QuotaError) Error() string { return fmt.Sprintf("quota %d/%d", e.Used, e.Limit) }

func classify(x any) string {
	switch v := x.(type) {
	case error:
		return "error: " + v.Error()
	default:
		return "other"
	}
}

func main() {
	fmt.Println(classify(QuotaError{5, 3}))
}
