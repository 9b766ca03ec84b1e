package main

import (
	"fmt"
	"strings"
)

type Logger struct {
	prefix string
	lines  []string
}

func (l *Logger) Printer(tag string) func(string) {
	return func(msg string) {
		l.lines = append(l.lines, l.prefix+tag+": "+msg)
	}
}

func main() {
	l := &Logger{prefix: "> "}
	info, warn := l.Printer("info"), l.Printer("warn")
	info("start")
	warn("careful")
	info("done")
	fmt.Println(strings.Join(l.lines, "\n"))
	acc := func() func(int) int {
		sum := 0
		return func(x int) int { sum += x; return sum }
	}()
	for _, x := range []int{5, 10, 20} {
		fmt.Print(acc(x), " ")
	}
	fmt.Println()
}
