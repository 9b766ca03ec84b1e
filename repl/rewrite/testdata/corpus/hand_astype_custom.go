package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

func find(k string) error { return fmt.Errorf("lookup: %w", &NotFound{k}) }

func main() {
	err := find("k1")
	if nf, ok := errors.AsType[*NotFound](err); ok {
		fmt.Println("missing", nf.Key)
	}
}
