package main

import (
	"fmt"
	"time"
)

type Level int

const (
	Debug Level = iota - 1
	Info
	Warn
	Error
)

const Timeout = 3 * time.Second
const Ratio = 2.0 / 3
const Big = 1 << 40

func (l Level) Label() string {
	return [...]string{"DEBUG", "INFO", "WARN", "ERROR"}[l+1]
}

func main() {
	for l := Debug; l <= Error; l++ {
		fmt.Print(l.Label(), "=", int(l), " ")
	}
	fmt.Println()
	fmt.Println(Timeout, Ratio, Big, Big>>30, float32(Ratio))
	var d time.Duration = Timeout * 2
	fmt.Println(d, d.Seconds())
}
