package main

import (
	"errors"
	"fmt"
)

var ErrPermission = errors.New("permission denied")

type PathError struct {
	Op, Path string
	Err      error
}

func (e *PathError) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

type SyncError struct {
	Step int
	Err  error
}

func (e *SyncError) Error() string { return fmt.Sprintf("step %d: %v", e.Step, e.Err) }
func (e *SyncError) Unwrap() error { return e.Err }

func run() error {
	return &SyncError{Step: 2, Err: &PathError{"open", "/data/x", ErrPermission}}
}

func main() {
	err := fmt.Errorf("sync failed: %w", run())
	fmt.Println(err)
	fmt.Println("permission:", errors.Is(err, ErrPermission))
	var pe *PathError
	if errors.As(err, &pe) {
		fmt.Println("path:", pe.Path)
	}
	var se *SyncError
	if errors.As(err, &se) {
		fmt.Println("step:", se.Step)
	}
}
