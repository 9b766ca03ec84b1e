package main

// == and != of errors of types declared in the session: through native
// errors.Unwrap, sentinels of a declared type, value types against
// literals, and two any holding equal values.

import (
	"errors"
	"fmt"
)

type PathErr struct{ Path string }

func (p *PathErr) Error() string { return "path " + p.Path }

type CodeErr struct{ Code int }

func (c CodeErr) Error() string { return fmt.Sprint("code ", c.Code) }

var ErrSentinel = &PathErr{"sentinel"}

func find(k string) error {
	if k == "" {
		return ErrSentinel
	}
	if k == "c" {
		return CodeErr{3}
	}
	return nil
}

func main() {
	pe := &PathErr{"/x"}
	x := fmt.Errorf("wrap: %w", pe)
	fmt.Println(errors.Unwrap(x) == error(pe), errors.Is(x, pe))
	var e error = pe
	fmt.Println(errors.Unwrap(x) == e, errors.Unwrap(x) != e)
	fmt.Println(find("") == ErrSentinel, find("a") == nil, find("") != nil)
	fmt.Println(find("c") == CodeErr{3}, find("c") == CodeErr{4}, find("c") == error(CodeErr{3}))
	var a, b any = CodeErr{1}, CodeErr{1}
	fmt.Println(a == b, a != b)
}
