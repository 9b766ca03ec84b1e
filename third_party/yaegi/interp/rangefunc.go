package interp

import (
	"iter"
	"reflect"
)

// Range over a function (Go 1.23): `for k, v := range seq` where seq is a
// func(yield func(K, V) bool), func(yield func(K) bool) or one of the
// iter.Seq types. The loop body stays in the interpreter's control flow
// (with its break, continue, return and goto); the iterator runs as a
// coroutine (iter.Pull2) that hands each yielded pair to the loop and
// waits in yield until the loop asks for the next one. When the loop
// ends early (break), yield returns false to the iterator, which then
// runs to its end before the statement after the loop runs, as in Go.
// A return, or a labeled break or continue of an outer loop, stops the
// iterators of the loops it leaves (endRangeFuncs). A loop left by goto
// or a panic stops its iterator when the function returns, or when the
// loop starts again in the same call.

// rangeFuncState is held in the frame slot just behind the loop's key.
type rangeFuncState struct {
	next func() (reflect.Value, reflect.Value, bool)
	stop func()
}

// end stops the running iterator, if any.
func (s *rangeFuncState) end() {
	if s.stop != nil {
		stop := s.stop
		s.next, s.stop = nil, nil
		stop()
	}
}

// rangeFuncYield returns the type of the yield function of t when t is a
// function type that can be ranged over, or nil.
func rangeFuncYield(t *itype) *itype {
	if t == nil {
		return nil
	}
	for t.cat == linkedT && t.val != nil {
		t = t.val
	}
	switch t.cat {
	case funcT:
	case valueT:
		if t.rtype == nil || t.rtype.Kind() != reflect.Func {
			return nil
		}
	default:
		return nil
	}
	if t.numIn() != 1 || t.numOut() != 0 {
		return nil
	}
	y := t.in(0)
	if y == nil {
		return nil
	}
	for y.cat == linkedT && y.val != nil {
		y = y.val
	}
	if y.cat != funcT && (y.cat != valueT || y.rtype.Kind() != reflect.Func) {
		return nil
	}
	if n := y.numIn(); n < 1 || n > 2 || y.numOut() != 1 {
		return nil
	}
	if r := y.out(0); r == nil || r.TypeOf() == nil || r.TypeOf().Kind() != reflect.Bool {
		return nil
	}
	return y
}

// rangeFunc generates the range statement n over a function.
func rangeFunc(n *node) {
	index0 := n.child[0].findex // key location in frame
	state := index0 - 1         // *rangeFuncState, just behind the key
	index1 := -1                // value location in frame
	var o *node
	if len(n.child) == 4 {
		index1, o = n.child[1].findex, n.child[2]
	} else {
		o = n.child[1]
	}
	blankKey := n.child[0].ident == "_"
	seqValue := genValueAsFunctionWrapper(o)
	fnext := getExec(n.fnext)
	tnext := getExec(n.tnext)

	n.exec = func(f *frame) bltn {
		s, _ := f.data[state].Interface().(*rangeFuncState)
		if s == nil || s.next == nil {
			return fnext
		}
		k, v, ok := s.next()
		if !ok {
			s.end()
			return fnext
		}
		if !blankKey {
			f.data[index0].Set(k)
		}
		if index1 >= 0 {
			f.data[index1].Set(v)
		}
		return tnext
	}

	// Init sequence
	next := n.exec
	n.child[0].exec = func(f *frame) bltn {
		s, _ := f.data[state].Interface().(*rangeFuncState)
		if s == nil {
			s = &rangeFuncState{}
			f.data[state] = reflect.ValueOf(s)
			// Stop an iterator the loop left without ending it when the
			// function returns.
			f.mutex.Lock()
			f.deferred = append(f.deferred, []reflect.Value{reflect.ValueOf(s.end)})
			f.mutex.Unlock()
		}
		s.end() // the previous run of this loop, left by goto or a labeled continue
		seq := seqValue(f)
		if !seq.IsValid() || seq.IsNil() {
			panic(runtimeError("invalid memory address or nil pointer dereference"))
		}
		yieldType := seq.Type().In(0)
		two := yieldType.NumIn() == 2
		s.next, s.stop = iter.Pull2(func(yield func(reflect.Value, reflect.Value) bool) {
			y := reflect.MakeFunc(yieldType, func(in []reflect.Value) []reflect.Value {
				var v reflect.Value
				if two {
					v = in[1]
				}
				return []reflect.Value{reflect.ValueOf(yield(in[0], v))}
			})
			seq.Call([]reflect.Value{y})
		})
		return next
	}
}

// rangeFuncEnd generates the for statement of a range over a function,
// which the loop reaches when it ends or breaks: it stops the iterator.
func rangeFuncEnd(n *node) {
	state := n.child[0].child[0].findex - 1
	next := getExec(n.tnext)
	n.exec = func(f *frame) bltn {
		if s, ok := f.data[state].Interface().(*rangeFuncState); ok && s != nil {
			s.end()
		}
		return next
	}
}

// endRangeFuncs makes the branch statement n (a return, or a labeled
// break or continue) stop the iterators of the range-over-func loops it
// leaves: those between n and stop, which is the labeled statement of a
// break, the loop of a continue, or nil for a return (up to the function).
// As in Go, yield returns false and the iterator runs to its end before
// the branch completes (a return has already computed its results).
func endRangeFuncs(n, stop *node) {
	var slots []int
	for a := n.anc; a != nil && a != stop; a = a.anc {
		if a.kind == funcLit || a.kind == funcDecl {
			break
		}
		if a.kind != forRangeStmt || len(a.child) == 0 {
			continue
		}
		r := a.child[0]
		o := r.child[1]
		if len(r.child) == 4 {
			o = r.child[2]
		}
		if rangeFuncYield(o.typ) != nil {
			slots = append(slots, r.child[0].findex-1)
		}
	}
	if len(slots) == 0 {
		return
	}
	gen := n.gen
	n.gen = func(n *node) {
		gen(n)
		exec := n.exec // nil for a return whose results need no copy
		n.exec = func(f *frame) bltn {
			var next bltn
			if exec != nil {
				next = exec(f)
			}
			for _, i := range slots {
				if s, ok := f.data[i].Interface().(*rangeFuncState); ok && s != nil {
					s.end()
				}
			}
			return next
		}
	}
}

// runtimeError is a run-time panic of the interpreted code, printed as
// Go's runtime errors are.
type runtimeError string

func (e runtimeError) Error() string { return "runtime error: " + string(e) }

// RuntimeError marks it as a runtime.Error.
func (e runtimeError) RuntimeError() {}
