package main

import (
	"fmt"
	"sort"
)

type Set[T comparable] struct{ m map[T]struct{} }

func NewSet[T comparable](xs ...T) *Set[T] {
	s := &Set[T]{m: map[T]struct{}{}}
	for _, x := range xs {
		s.Add(x)
	}
	return s
}

func (s *Set[T]) Add(x T)      { s.m[x] = struct{}{} }
func (s *Set[T]) Has(x T) bool { _, ok := s.m[x]; return ok }
func (s *Set[T]) Len() int     { return len(s.m) }
func (s *Set[T]) Items() []T {
	out := make([]T, 0, len(s.m))
	for k := range s.m {
		out = append(out, k)
	}
	return out
}

func main() {
	s := NewSet("go", "rust", "go", "zig")
	fmt.Println(s.Len(), s.Has("go"), s.Has("c"))
	items := s.Items()
	sort.Strings(items)
	fmt.Println(items)
	n := NewSet(3, 1, 3)
	fmt.Println(n.Len(), n.Has(1))
}
