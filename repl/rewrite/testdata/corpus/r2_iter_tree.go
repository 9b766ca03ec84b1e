package main

import (
	"fmt"
	"iter"
)

type Node struct {
	Val         int
	Left, Right *Node
}

func (n *Node) Insert(v int) *Node {
	if n == nil {
		return &Node{Val: v}
	}
	if v < n.Val {
		n.Left = n.Left.Insert(v)
	} else {
		n.Right = n.Right.Insert(v)
	}
	return n
}

func (n *Node) walk(yield func(int) bool) bool {
	if n == nil {
		return true
	}
	return n.Left.walk(yield) && yield(n.Val) && n.Right.walk(yield)
}

func (n *Node) All() iter.Seq[int] {
	return func(yield func(int) bool) { n.walk(yield) }
}

func main() {
	var root *Node
	for _, v := range []int{50, 30, 70, 20, 40, 60, 80} {
		root = root.Insert(v)
	}
	for v := range root.All() {
		fmt.Print(v, " ")
	}
	fmt.Println()
	for v := range root.All() {
		if v > 45 {
			fmt.Println("first above 45:", v)
			break
		}
	}
}
