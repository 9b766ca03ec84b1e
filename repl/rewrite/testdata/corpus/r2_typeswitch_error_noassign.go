package main

import (
	"fmt"
	"strconv"
)

type ParseError struct {
	Line int
	Msg  string
}

func (p ParseError) Error() string { return "line " + strconv.Itoa(p.Line) + ": " + p.Msg }

func kind(x any) string {
	switch x.(type) {
	case string:
		return "string"
	case error:
		return "error"
	}
	return "?"
}

func main() {
	errs := []any{ParseError{3, "bad token"}, &ParseError{9, "eof"}, "s", 1.5}
	counts := map[string]int{}
	for _, e := range errs {
		counts[kind(e)]++
	}
	fmt.Println(counts["error"], counts["string"], counts["?"])
	var err error = ParseError{4, "x"}
	switch v := any(err).(type) {
	case error:
		fmt.Printf("%s|%v\n", v.Error(), v)
	}
}
