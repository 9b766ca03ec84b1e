package main

import (
	"fmt"
	"strings"
)

type Named interface{ Name() string }
type Sized interface{ Size() int }

type Doc struct {
	title string
	body  string
}

func (d Doc) Name() string { return d.title }
func (d Doc) Size() int    { return len(d.body) }

type Tag string

func (t Tag) Name() string { return strings.ToUpper(string(t)) }

func main() {
	items := []Named{Doc{"readme", "hello world"}, Tag("go")}
	for _, it := range items {
		if s, ok := it.(Sized); ok {
			fmt.Println(it.Name(), "size", s.Size())
		} else {
			fmt.Println(it.Name(), "no size")
		}
	}
}
