package main

import (
	"fmt"
	"strings"
)

type Path []string

func (p *Path) Push(s string) { *p = append(*p, s) }
func (p *Path) Pop() string {
	old := *p
	s := old[len(old)-1]
	*p = old[:len(old)-1]
	return s
}
func (p Path) String() string { return "/" + strings.Join(p, "/") }

func main() {
	var p Path
	p.Push("usr")
	p.Push("local")
	p.Push("bin")
	fmt.Println(p.String(), len(p))
	fmt.Println(p.Pop(), p.String())
}
