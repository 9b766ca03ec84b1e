package main

// Values of declared types through containers of any (container/list,
// sync.Map, []any sorted with sort.SliceStable), json of any fields, and
// errors.As from an any.

import (
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

type Animal interface {
	Sound() string
	Name() string
}

type Dog struct{ N string }

func (d Dog) Sound() string  { return "woof" }
func (d Dog) Name() string   { return d.N }
func (d Dog) String() string { return "Dog<" + d.N + ">" }

type Cat struct{ N string }

func (c *Cat) Sound() string { return "meow" }
func (c *Cat) Name() string  { return c.N }

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

type Item struct {
	ID    int      `json:"id"`
	Tags  []string `json:"tags"`
	Extra any      `json:"extra,omitempty"`
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case Animal:
		return x.Name() + " says " + x.Sound()
	case error:
		return "error: " + x.Error()
	case fmt.Stringer:
		return "stringer " + x.String()
	case int, int64:
		return fmt.Sprintf("int %v", x)
	default:
		return "other"
	}
}

func main() {
	l := list.New()
	l.PushBack(Dog{"rex"})
	l.PushBack(Cat{"val"})
	l.PushBack(&NotFound{"k"})
	l.PushBack(7)
	for e := l.Front(); e != nil; e = e.Next() {
		fmt.Println(describe(e.Value))
	}
	var m sync.Map
	m.Store("a", Dog{"fido"})
	if v, ok := m.Load("a"); ok {
		a, isAnimal := v.(Animal)
		fmt.Println(isAnimal, a.Name(), v)
	}
	var anys []any = []any{Dog{"b"}, &Cat{"a"}, 3, "s", nil}
	sort.SliceStable(anys, func(i, j int) bool {
		return fmt.Sprint(anys[i]) < fmt.Sprint(anys[j])
	})
	var names []string
	for _, v := range anys {
		names = append(names, describe(v))
	}
	fmt.Println(strings.Join(names, "; "))
	var err error = &NotFound{"x"}
	var boxed any = err
	var nf *NotFound
	fmt.Println(errors.As(boxed.(error), &nf), nf.Key)
	it := Item{ID: 1, Tags: []string{"a"}, Extra: map[string]any{"n": 2}}
	b, _ := json.Marshal(it)
	fmt.Println(string(b))
	var anyItem any = it
	b, _ = json.Marshal(anyItem)
	fmt.Println(string(b))
	b, _ = json.Marshal([]any{Item{ID: 2}, 5})
	fmt.Println(string(b))
	var back Item
	fmt.Println(json.Unmarshal([]byte(`{"id":9,"tags":["x","y"]}`), &back), back.ID, back.Tags)
	fmt.Printf("%v|%+v|%s\n", anys[0], Dog{"q"}, []any{Dog{"r"}})
}
