package main

import (
	"fmt"
	"strings"
)

type Reader interface{ Read() string }
type Writer interface{ Write(s string) }
type ReadWriter interface {
	Reader
	Writer
}

type Buffer struct{ data []string }

func (b *Buffer) Read() string {
	if len(b.data) == 0 {
		return ""
	}
	s := b.data[0]
	b.data = b.data[1:]
	return s
}

func (b *Buffer) Write(s string) { b.data = append(b.data, s) }

func drain(r Reader) []string {
	var out []string
	for s := r.Read(); s != ""; s = r.Read() {
		out = append(out, s)
	}
	return out
}

func main() {
	var rw ReadWriter = &Buffer{}
	rw.Write("one")
	rw.Write("two")
	fmt.Println(strings.Join(drain(rw), "+"))
	_, ok := rw.(Writer)
	fmt.Println(ok)
}
