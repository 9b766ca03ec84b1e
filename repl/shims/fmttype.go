package shims

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// %T prints a type's name, and the interpreter gives a type declared in
// the session a native type without one (struct { Name string }). The
// registry knows which native type each declared type has, so the fmt
// shims print %T with the declared names (main.item, []*main.item), as
// `go run` of the same code does, wherever each native type in the
// operand's type belongs to one declared type only and is not also a
// predeclared type (a declared `type Celsius float64` has float64's). A
// struct literal of an unnamed type with the very fields of a declared
// struct would print the declared name: the two cannot be told apart.

// typeString is %T of a value of native type t with the declared names,
// or ok false where a name cannot be told. r.mu must be held.
func (r *typeRegistry) typeString(t reflect.Type, depth int) (s string, ok bool) {
	if depth > 16 {
		return "", false
	}
	elem := func(prefix string, e reflect.Type) (string, bool) {
		es, ok := r.typeString(e, depth+1)
		return prefix + es, ok
	}
	switch t.Kind() {
	case reflect.Pointer:
		return elem("*", t.Elem())
	case reflect.Slice:
		return elem("[]", t.Elem())
	case reflect.Array:
		return elem(fmt.Sprintf("[%d]", t.Len()), t.Elem())
	case reflect.Chan:
		prefix := map[reflect.ChanDir]string{reflect.BothDir: "chan ", reflect.RecvDir: "<-chan ", reflect.SendDir: "chan<- "}[t.ChanDir()]
		return elem(prefix, t.Elem())
	case reflect.Map:
		k, ok := r.typeString(t.Key(), depth+1)
		if !ok {
			return "", false
		}
		return elem("map["+k+"]", t.Elem())
	}
	if name, ok := r.names[t]; ok {
		if r.kinds[name] != "" || r.dup[t] {
			return "", false
		}
		return "main." + name, true
	}
	if t.PkgPath() != "" || t.Kind() == reflect.Interface {
		return t.String(), true // a package's type, or any
	}
	if t.Kind() != reflect.Struct {
		// A basic type a declared type shares (float64 of `type C
		// float64`) was refused above: r.names has it.
		if t.Kind() == reflect.Func && r.mentions(t, 0) {
			return "", false
		}
		return t.String(), true
	}
	if !r.mentions(t, 0) && !hasRenamed(t, map[reflect.Type]bool{}) {
		return t.String(), true
	}
	var fields []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			return "", false
		}
		name := f.Name
		if renamedField(name) {
			name = name[1:]
		}
		ft, ok := r.typeString(f.Type, depth+1)
		if !ok {
			return "", false
		}
		s := name + " " + ft
		if f.Tag != "" {
			s += " " + fmt.Sprintf("%q", string(f.Tag))
		}
		fields = append(fields, s)
	}
	if len(fields) == 0 {
		return "struct {}", true
	}
	return "struct { " + strings.Join(fields, "; ") + " }", true
}

// declaredIn names a declared type that t holds, for messages.
func (r *typeRegistry) declaredIn(t reflect.Type) string {
	for d := 0; t != nil && d < 16; d++ {
		if name, ok := r.names[t]; ok {
			return name
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan, reflect.Map:
			t = t.Elem()
			continue
		}
		break
	}
	return "(a type declared in the REPL)"
}

// mentions reports whether t holds a native type of a declared type.
func (r *typeRegistry) mentions(t reflect.Type, depth int) bool {
	if depth > 16 {
		return true
	}
	if _, ok := r.names[t]; ok {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		return r.mentions(t.Elem(), depth+1)
	case reflect.Map:
		return r.mentions(t.Key(), depth+1) || r.mentions(t.Elem(), depth+1)
	case reflect.Struct:
		if t.PkgPath() != "" {
			return false
		}
		for i := 0; i < t.NumField(); i++ {
			if r.mentions(t.Field(i).Type, depth+1) {
				return true
			}
		}
	case reflect.Func:
		for i := 0; i < t.NumIn(); i++ {
			if r.mentions(t.In(i), depth+1) {
				return true
			}
		}
		for i := 0; i < t.NumOut(); i++ {
			if r.mentions(t.Out(i), depth+1) {
				return true
			}
		}
	}
	return false
}

// operandValue is a %T or %#v operand as the program has it: the value
// inside one of the interpreter's method wrappers.
func operandValue(a any) any {
	v := reflect.ValueOf(a)
	if v.IsValid() && isWrapper(v.Type()) {
		inner := Unbox(a)
		if iv, ok := iValue(v); ok {
			inner = Unbox(iv)
		}
		return inner
	}
	return a
}

// operandType is the native type of operandValue(a).
func operandType(a any) reflect.Type { return reflect.TypeOf(operandValue(a)) }

var goStringerType = reflect.TypeOf((*fmt.GoStringer)(nil)).Elem()

// typeVerbs returns format and args with each %T and %#v whose operand
// involves a declared type turned into a %s of what `go run` prints (fmt
// prints %T itself, without asking a Formatter); format and args
// themselves when there is none. problem says why an operand cannot be
// printed as Go would ("" when all can).
func (r *typeRegistry) typeVerbs(format string, args []any) (_ string, _ []any, problem string) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.names) == 0 || !strings.ContainsAny(format, "T#") {
		return format, args, ""
	}
	var out []any
	at := operandDirectives(format, len(args))
	b := []byte(format)
	sharp := bareVerb(format, len(args), "%#v")
	for i, verb := range verbsOf(format, len(args)) {
		a := args[i]
		if a == nil {
			continue
		}
		var s string
		switch verb {
		case "T":
			t := operandType(a)
			ts, ok := r.typeString(t, 0)
			if ok && ts == reflect.TypeOf(a).String() {
				continue
			}
			if !ok || at[i].verb < 0 {
				return format, args, fmt.Sprintf("%%T of a value of type %s declared in the REPL cannot show its name here; print a name you choose", r.declaredIn(t))
			}
			s = ts
		case "#v":
			if reflect.TypeOf(a).Implements(goStringerType) {
				continue // fmt calls GoString
			}
			val, wrapped := operandValue(a), isWrapper(reflect.TypeOf(a))
			if !wrapped && !r.declaredInValue(reflect.ValueOf(val)) {
				continue
			}
			gs, ok := r.goSyntax(val)
			if !ok || !sharp[i] {
				if wrapped {
					return format, args, "%#v of a value of a type declared in the REPL is not supported here (the interpreter hands fmt a wrapper); print a name you choose, or use %v"
				}
				return format, args, fmt.Sprintf("%%#v of a value of type %s declared in the REPL is not supported here; use %%v or %%+v", r.declaredIn(reflect.TypeOf(val)))
			}
			s = gs
		default:
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = s
		b[at[i].verb] = 's'
	}
	if out == nil {
		return format, args, ""
	}
	return string(b), out, ""
}

// directive is where an operand's directive is in a format:
// format[start:verb+1], such as "%+8v".
type directive struct{ start, verb int }

// operandDirectives returns, for each of n operands of format, its
// directive, with start -1 where there is none (or the format uses
// explicit argument indexes, which this does not follow).
func operandDirectives(format string, n int) []directive {
	ds := make([]directive, n)
	for i := range ds {
		ds[i] = directive{-1, -1}
	}
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[j]) >= 0 {
			if format[j] == '*' {
				arg++
			}
			if format[j] == '[' {
				for k := range ds {
					ds[k] = directive{-1, -1}
				}
				return ds
			}
			j++
		}
		if j >= len(format) {
			break
		}
		if format[j] != '%' {
			if arg < n {
				ds[arg] = directive{i, j}
			}
			arg++
		}
		i = j
	}
	return ds
}

// goSyntax is %#v of a with the declared names of the types in it, or ok
// false where it cannot be told: a value holding the interpreter's method
// wrappers (fmt would print the wrapper), renamed fields, or a native type
// that is not one declared type's only. r.mu must be held.
func (r *typeRegistry) goSyntax(a any) (string, bool) {
	v := reflect.ValueOf(a)
	if !v.IsValid() {
		return fmt.Sprintf("%#v", a), true
	}
	if isWrapper(v.Type()) {
		return "", false
	}
	if _, wrapped := unwrapInside(v, 0); wrapped {
		return "", false
	}
	types := map[reflect.Type]bool{}
	collectTypes(v, 0, types)
	for t := range types {
		if t.Kind() == reflect.Struct && t.PkgPath() == "" {
			for i := 0; i < t.NumField(); i++ {
				if renamedField(t.Field(i).Name) {
					return "", false
				}
			}
		}
		if name, ok := r.names[t]; ok && t.Kind() != reflect.Pointer && (r.dup[t] || r.kinds[name] != "") {
			return "", false
		}
	}
	s := fmt.Sprintf("%#v", a)
	// The native types of declared types, longest first, so that a struct
	// type holding another is named before the one it holds.
	type named struct{ native, name string }
	var subs []named
	for t, name := range r.names {
		if t.Kind() == reflect.Pointer || t.Name() != "" || r.dup[t] || r.kinds[name] != "" {
			continue
		}
		subs = append(subs, named{t.String(), "main." + name})
	}
	slices.SortFunc(subs, func(a, b named) int { return len(b.native) - len(a.native) })
	for _, n := range subs {
		s = strings.ReplaceAll(s, n.native, n.name)
	}
	if strings.Contains(s, "unsafe2.dummy") {
		return "", false // a recursive type not declared at the top
	}
	return s, true
}

// collectTypes adds the types of v and of the values in it (at most 64
// elements of each slice, array or map) to types.
func collectTypes(v reflect.Value, depth int, types map[reflect.Type]bool) {
	if depth > 12 || !v.IsValid() {
		return
	}
	types[v.Type()] = true
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			collectTypes(v.Elem(), depth+1, types)
		}
	case reflect.Slice, reflect.Array:
		types[v.Type().Elem()] = true
		for i := 0; i < v.Len() && i < 64; i++ {
			collectTypes(v.Index(i), depth+1, types)
		}
	case reflect.Map:
		types[v.Type().Key()], types[v.Type().Elem()] = true, true
		it := v.MapRange()
		for i := 0; it.Next() && i < 64; i++ {
			collectTypes(it.Key(), depth+1, types)
			collectTypes(it.Value(), depth+1, types)
		}
	case reflect.Struct:
		if v.Type().PkgPath() != "" {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			collectTypes(v.Field(i), depth+1, types)
		}
	}
}

// declaredInValue reports whether a value of a declared type is in v.
func (r *typeRegistry) declaredInValue(v reflect.Value) bool {
	types := map[reflect.Type]bool{}
	collectTypes(v, 0, types)
	for t := range types {
		if _, ok := r.names[t]; ok {
			return true
		}
	}
	return false
}
