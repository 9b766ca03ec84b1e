package main

import "fmt"

type QuotaError struct{ Used, Limit int }

func (e QuotaError) Error() string { return fmt.Sprintf("quota %d/%d", e.Used, e.Limit) }

type AuthError struct{ User string }

func (e *AuthError) Error() string { return "auth: " + e.User }

func status(err any) int {
	switch e := err.(type) {
	case QuotaError:
		if e.Used > e.Limit {
			return 429
		}
		return 200
	case error:
		fmt.Println("generic:", e)
		return 500
	}
	return 0
}

func main() {
	fmt.Println(status(QuotaError{5, 3}), status(QuotaError{1, 3}))
	fmt.Println(status(&AuthError{"bob"}))
	fmt.Println(status(42))
}
