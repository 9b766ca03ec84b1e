package main

import "fmt"

type Queue[T any] struct{ items []T }

func (q *Queue[T]) Push(x T) { q.items = append(q.items, x) }

func (q *Queue[T]) Pop() (T, bool) {
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	x := q.items[0]
	q.items = q.items[1:]
	return x, true
}

func (q *Queue[T]) Len() int { return len(q.items) }

type job struct {
	id   int
	name string
}

func main() {
	var q Queue[job]
	for i, n := range []string{"fetch", "parse", "store"} {
		q.Push(job{i + 1, n})
	}
	for q.Len() > 0 {
		j, _ := q.Pop()
		fmt.Println(j.id, j.name)
	}
	_, ok := q.Pop()
	fmt.Println("empty pop ok:", ok)
}
