package main

import (
	"fmt"
	"sort"
)

type Set[T comparable] struct{ m map[T]struct{} }

func NewSet[T comparable]() *Set[T] { return &Set[T]{m: map[T]struct{}{}} }

func (s *Set[T]) Add(v T)      { s.m[v] = struct{}{} }
func (s *Set[T]) Has(v T) bool { _, ok := s.m[v]; return ok }
func (s *Set[T]) Len() int     { return len(s.m) }

func main() {
	s := NewSet[string]()
	for _, w := range []string{"go", "rust", "go", "zig", "rust"} {
		s.Add(w)
	}
	fmt.Println(s.Len(), s.Has("go"), s.Has("c"))
	var keys []string
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(keys)
}
