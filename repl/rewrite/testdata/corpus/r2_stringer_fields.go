package main

import (
	"fmt"
	"strings"
)

type Level int

const (
	Debug Level = iota
	Info
	Warn
)

func (l Level) String() string { return [...]string{"DEBUG", "INFO", "WARN"}[l] }

type Entry struct {
	L   Level
	Msg string
}

func (e Entry) String() string { return e.L.String() + " " + e.Msg }

func main() {
	entries := []Entry{{Info, "started"}, {Warn, "slow disk"}, {Debug, "tick"}}
	var lines []string
	for _, e := range entries {
		lines = append(lines, e.String())
	}
	fmt.Println(strings.Join(lines, "; "))
	fmt.Println(Warn, entries[0])
	fmt.Printf("%v|%s|%d\n", Info, Warn, Warn)
}
