package main

import (
	"errors"
	"fmt"
)

type QuotaError struct{ Used, Limit int }

func (e QuotaError) Error() string { return fmt.Sprintf("quota %d/%d", e.Used, e.Limit) }

type LockError struct{ Holder string }

func (e *LockError) Error() string { return "locked by " + e.Holder }

func handle(x any) string {
	switch v := x.(type) {
	case error:
		if q, ok := v.(QuotaError); ok {
			return fmt.Sprint("quota over by ", q.Used-q.Limit)
		}
		var le *LockError
		if errors.As(v, &le) {
			return "lock held by " + le.Holder
		}
		return "other error: " + v.Error()
	default:
		return "not an error"
	}
}

func main() {
	fmt.Println(handle(QuotaError{7, 5}))
	fmt.Println(handle(&LockError{"job-7"}))
	fmt.Println(handle(errors.New("boom")))
	fmt.Println(handle(3))
}
