package main

import (
	"errors"
	"fmt"
)

type MissingKey struct{ Key string }

func (m *MissingKey) Error() string { return "missing key " + m.Key }

func get(m map[string]int, k string) (int, error) {
	v, ok := m[k]
	if !ok {
		return 0, fmt.Errorf("get: %w", &MissingKey{k})
	}
	return v, nil
}

func main() {
	m := map[string]int{"a": 1}
	for _, k := range []string{"a", "b"} {
		v, err := get(m, k)
		if mk, ok := errors.AsType[*MissingKey](err); ok {
			fmt.Println("no", mk.Key)
			continue
		}
		fmt.Println(k, v)
	}
}
