package main

import "fmt"

type Node struct {
	Val         int
	Left, Right *Node
}

func insert(n *Node, v int) *Node {
	if n == nil {
		return &Node{Val: v}
	}
	if v < n.Val {
		n.Left = insert(n.Left, v)
	} else {
		n.Right = insert(n.Right, v)
	}
	return n
}

func (n *Node) InOrder(visit func(int)) {
	if n == nil {
		return
	}
	n.Left.InOrder(visit)
	visit(n.Val)
	n.Right.InOrder(visit)
}

func height(n *Node) int {
	if n == nil {
		return 0
	}
	return 1 + max(height(n.Left), height(n.Right))
}

func main() {
	var root *Node
	for _, v := range []int{50, 30, 70, 20, 40, 60, 80, 35} {
		root = insert(root, v)
	}
	var out []int
	root.InOrder(func(v int) { out = append(out, v) })
	fmt.Println(out, height(root))
}
