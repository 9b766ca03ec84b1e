package main

import "fmt"

type Queue[T any] struct{ items []T }

func (q *Queue[T]) Enqueue(v T) { q.items = append(q.items, v) }

func (q *Queue[T]) Dequeue() (T, bool) {
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

func main() {
	q := &Queue[int]{}
	for i := 1; i <= 3; i++ {
		q.Enqueue(i * i)
	}
	for {
		v, ok := q.Dequeue()
		if !ok {
			break
		}
		fmt.Println(v)
	}
}
