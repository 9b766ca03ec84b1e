package interp

import (
	"fmt"
	"reflect"
)

// A print view is how a function with map types (fmt's printers, json)
// gets a value whose static type holds, inside a slice, array, map or
// struct, values of an interpreted type with the methods its map types
// ask for (a []Point where Point has String). The native type of Point has
// no methods, so fmt would print its fields. The view is a copy in which
// each such value is the method wrapper getBinValue would give for it
// alone, held in an any: []Point becomes []any, a struct field of type
// Point a field of type any in a struct with the same names and tags.
// fmt prints containers the same whatever their element types (%v), and
// json marshals them the same, so only the elements' own formatting
// changes, to what Go does.

// viewConv converts a value of a static type to its print view.
type viewConv func(f *frame, v reflect.Value) reflect.Value

// genPrintView returns the converter of n's value to its print view, or
// nil when its type needs none (no such values inside, or n's value
// itself is one, which genInterfaceWrapper handles). A printing function
// (see printsWithMethods) gets the view in a PrintView.
func genPrintView(n *node, getMapType func(*itype) reflect.Type, printing bool) func(*frame) reflect.Value {
	if getMapType == nil || n.typ == nil || getMapType(n.typ) != nil {
		return nil // n's value has the methods itself: its wrapper calls them
	}
	_, conv := printView(n, n.typ, getMapType, 0, map[*itype]bool{})

	if conv == nil {
		return nil
	}
	value := genValue(n)
	if !printing {
		return func(f *frame) reflect.Value { return conv(f, value(f)) }
	}
	return func(f *frame) reflect.Value {
		v := value(f)
		return reflect.ValueOf(PrintView{View: conv(f, v).Interface(), Orig: v.Interface()})
	}
}

// printsWithMethods reports whether map types are those of a printing
// function (they include fmt.Stringer), which gets a PrintView.
func printsWithMethods(types []reflect.Type) bool {
	for _, t := range types {
		if t == stringerType {
			return true
		}
	}
	return false
}

var stringerType = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()

// viewsArguments reports whether a function with map types gets print
// views of its arguments: a printer (see printsWithMethods), or one whose
// map types' methods take no arguments (json.Marshal's MarshalJSON and
// MarshalText). A decoder, whose map types' methods take what to decode
// (json.Unmarshal's UnmarshalJSON, fmt.Sscan's Scan), fills what its
// arguments point to, which a view, a copy, would not pass on.
func viewsArguments(types []reflect.Type) bool {
	if printsWithMethods(types) {
		return true
	}
	for _, t := range types {
		for i := 0; i < t.NumMethod(); i++ {
			if t.Method(i).Type.NumIn() > 0 {
				return false
			}
		}
	}
	return len(types) > 0
}

// PrintView is what a printing function (fmt's) gets for an argument it
// gets a print view of: it prints as the view, except for %#v, which
// prints the value itself (its Go syntax shows the types, which the view
// changes). %T, which fmt prints before asking a Formatter, shows
// PrintView: a caller that prints %T must take Orig itself.
type PrintView struct {
	View any // the print view
	Orig any // the value
}

// Format implements fmt.Formatter.
func (p PrintView) Format(f fmt.State, verb rune) {
	v := p.View
	if verb == 'v' && f.Flag('#') {
		v = p.Orig
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), v)
}

// printView returns the view type of t and the converter to it, or a nil
// converter when t's values print right as they are. depth is 0 for the
// argument itself; pointers are followed only there, as fmt does (it
// prints the address of a pointer inside a value).
func printView(n *node, t *itype, getMapType func(*itype) reflect.Type, depth int, seen map[*itype]bool) (reflect.Type, viewConv) {
	if t == nil || seen[t] || depth > 8 {
		return nil, nil
	}
	seen[t] = true
	defer delete(seen, t)
	rt := t.TypeOf()
	if rt == nil {
		return nil, nil
	}
	if depth > 0 && t.cat != valueT && !isInterface(t) {
		if wt := getMapType(t); wt != nil {
			return printViewWrapper(n, t, wt)
		}
	}
	switch t.cat {
	case linkedT:
		if len(t.method) > 0 {
			return nil, nil // its methods are not those of the map types
		}
		return printView(n, t.val, getMapType, depth, seen)
	case ptrT:
		if depth > 0 || t.val == nil || rt.Kind() != reflect.Ptr {
			return nil, nil
		}
		et, conv := printView(n, t.val, getMapType, depth+1, seen)
		if conv == nil {
			return nil, nil
		}
		vt := reflect.PtrTo(et)
		return vt, func(f *frame, v reflect.Value) reflect.Value {
			if v.IsNil() {
				return reflect.Zero(vt)
			}
			p := reflect.New(et)
			p.Elem().Set(conv(f, v.Elem()))
			return p
		}
	case sliceT, arrayT:
		if rt.Kind() != reflect.Slice && rt.Kind() != reflect.Array {
			return nil, nil
		}
		et, conv := printView(n, t.val, getMapType, depth+1, seen)
		if conv == nil {
			return nil, nil
		}
		if rt.Kind() == reflect.Slice {
			vt := reflect.SliceOf(et)
			return vt, func(f *frame, v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(vt)
				}
				out := reflect.MakeSlice(vt, v.Len(), v.Len())
				for i := 0; i < v.Len(); i++ {
					out.Index(i).Set(conv(f, v.Index(i)))
				}
				return out
			}
		}
		vt := reflect.ArrayOf(rt.Len(), et)
		return vt, func(f *frame, v reflect.Value) reflect.Value {
			out := reflect.New(vt).Elem()
			for i := 0; i < v.Len(); i++ {
				out.Index(i).Set(conv(f, v.Index(i)))
			}
			return out
		}
	case mapT:
		if rt.Kind() != reflect.Map {
			return nil, nil
		}
		et, conv := printView(n, t.val, getMapType, depth+1, seen)
		if conv == nil {
			return nil, nil
		}
		vt := reflect.MapOf(rt.Key(), et)
		return vt, func(f *frame, v reflect.Value) reflect.Value {
			if v.IsNil() {
				return reflect.Zero(vt)
			}
			out := reflect.MakeMapWithSize(vt, v.Len())
			for it := v.MapRange(); it.Next(); {
				out.SetMapIndex(it.Key(), conv(f, it.Value()))
			}
			return out
		}
	case structT:
		if rt.Kind() != reflect.Struct || rt.NumField() != len(t.field) {
			return nil, nil
		}
		fields := make([]reflect.StructField, rt.NumField())
		convs := make([]viewConv, rt.NumField())
		changed := false
		for i, fld := range t.field {
			fields[i] = rt.Field(i)
			fields[i].Index, fields[i].Offset = nil, 0
			ft, conv := printView(n, fld.typ, getMapType, depth+1, seen)
			if conv == nil {
				continue
			}
			if fields[i].Anonymous || !fields[i].IsExported() || wasUnexported(fields[i].Name) {
				// fmt does not call the methods of an unexported
				// field's value; an embedded field would change the
				// view's method set.
				continue
			}
			fields[i].Type, convs[i], changed = ft, conv, true
		}
		if !changed {
			return nil, nil
		}
		vt := reflect.StructOf(fields)
		return vt, func(f *frame, v reflect.Value) reflect.Value {
			out := reflect.New(vt).Elem()
			for i, conv := range convs {
				if conv == nil {
					out.Field(i).Set(v.Field(i))
				} else {
					out.Field(i).Set(conv(f, v.Field(i)))
				}
			}
			return out
		}
	}
	return nil, nil
}

// printViewWrapper is the view of a value of t, which has the methods of
// the map type wt: its method wrapper, in an any.
func printViewWrapper(n *node, t *itype, wt reflect.Type) (reflect.Type, viewConv) {
	tn := &node{typ: t, interp: n.interp, pos: n.pos, scope: n.scope}
	anyType := reflect.TypeOf((*any)(nil)).Elem()
	wrap := interfaceWrapper(tn, wt)
	if wrap == nil {
		return nil, nil
	}
	return anyType, func(f *frame, v reflect.Value) reflect.Value {
		out := reflect.New(anyType).Elem()
		out.Set(wrap(f, v))
		return out
	}
}
