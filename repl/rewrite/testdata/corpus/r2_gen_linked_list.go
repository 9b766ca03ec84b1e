package main

import "fmt"

type List[T any] struct {
	head *node[T]
	size int
}

type node[T any] struct {
	val  T
	next *node[T]
}

func (l *List[T]) PushFront(v T) {
	l.head = &node[T]{v, l.head}
	l.size++
}

func (l *List[T]) Each(f func(T)) {
	for n := l.head; n != nil; n = n.next {
		f(n.val)
	}
}

func main() {
	var l List[float64]
	for _, v := range []float64{1.5, 2.5, 3.5} {
		l.PushFront(v)
	}
	l.Each(func(v float64) { fmt.Println(v) })
	fmt.Println("size", l.size)
}
