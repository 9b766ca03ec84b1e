package shims

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// %+v prints field names, and the interpreter builds a struct declared in
// the session with its unexported fields renamed (name becomes Xname, see
// renamedField), so fmt would print {Xname:...}. plusV gives fmt, for each
// %+v operand that holds such a struct, a Formatter that prints it the way
// fmt does, with the declared names.

// plusV returns args with each %+v operand that holds a struct with renamed
// fields replaced by a Formatter that prints it as fmt would with the
// declared names; args itself when there is none. problem says why a %+v
// of a declared type's value cannot be printed so (a width or flags, or
// map keys renderPlusV cannot order); "" when all can.
func (r *typeRegistry) plusV(format string, args []any) (_ []any, problem string) {
	var out []any
	bare := barePlusV(format, len(args))
	for i, verb := range verbsOf(format, len(args)) {
		if verb != "+v" || args[i] == nil {
			continue
		}
		v := reflect.ValueOf(args[i])
		if isWrapper(v.Type()) || !hasRenamed(v.Type(), map[reflect.Type]bool{}) {
			continue
		}
		s, err := "", errors.New("%+8v and the like")
		if bare[i] {
			s, err = renderPlusV(v, 0, false)
		}
		if err != nil {
			r.mu.RLock()
			name, declared := r.names[v.Type()]
			r.mu.RUnlock()
			if declared && renamedFields(v.Type()) {
				return args, fmt.Sprintf("%%+v of a value of type %s, which has unexported fields, is not supported here (the interpreter renames them); print the fields you need", name)
			}
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = plusVFormatter(s)
	}
	if out == nil {
		return args, ""
	}
	return out, ""
}

// plusVFormatter is an operand renderPlusV printed.
type plusVFormatter string

func (p plusVFormatter) Format(f fmt.State, verb rune) { f.Write([]byte(p)) }

// barePlusV reports, for each of n operands of format, whether its
// directive is exactly %+v (no width, precision or other flag).
func barePlusV(format string, n int) []bool { return bareVerb(format, n, "%+v") }

// bareVerb reports, for each of n operands of format, whether its
// directive is exactly directive.
func bareVerb(format string, n int, directive string) []bool {
	bare := make([]bool, n)
	for i, d := range operandDirectives(format, n) {
		bare[i] = d.start >= 0 && format[d.start:d.verb+1] == directive
	}
	return bare
}

// hasRenamed reports whether values of t may hold a struct with a renamed
// field, other than behind a pointer inside the value.
func hasRenamed(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return hasRenamed(t.Elem(), seen)
	case reflect.Interface:
		return true // what it holds decides
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if renamedField(t.Field(i).Name) || hasRenamed(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// renderPlusV prints v as fmt's %+v does, at the given depth (0 for the
// operand itself), with the declared names of renamed fields. plain is set
// below an unexported field, where fmt calls no methods. It fails for what
// it cannot print as fmt would (map keys it cannot order).
func renderPlusV(v reflect.Value, depth int, plain bool) (string, error) {
	if depth > 32 {
		return "", fmt.Errorf("too deep")
	}
	if !v.IsValid() {
		return "<nil>", nil
	}
	if v.Type().PkgPath() == yaegiPkg {
		// A field of an interface type declared in the session holds the
		// interpreter's valueInterface.
		return renderPlusV(reflect.ValueOf(Unbox(v.Interface())), depth, plain)
	}
	if depth > 0 && !plain && v.CanInterface() && (isWrapper(v.Type()) || hasFmtMethod(v.Type())) {
		// fmt calls the value's own methods.
		return fmt.Sprintf("%+v", v.Interface()), nil
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return "<nil>", nil
		}
		return renderPlusV(v.Elem(), depth+1, plain)
	case reflect.Pointer:
		if v.IsNil() {
			return "<nil>", nil
		}
		if depth == 0 {
			switch v.Elem().Kind() {
			case reflect.Struct, reflect.Slice, reflect.Array, reflect.Map:
				s, err := renderPlusV(v.Elem(), depth+1, plain)
				return "&" + s, err
			}
		}
		return fmt.Sprintf("%p", v.Interface()), nil
	case reflect.Struct:
		if !hasRenamed(v.Type(), map[reflect.Type]bool{}) && v.CanInterface() {
			return fmt.Sprintf("%+v", v.Interface()), nil
		}
		var b strings.Builder
		b.WriteByte('{')
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			name, fieldPlain := v.Type().Field(i).Name, plain
			if renamedField(name) {
				name, fieldPlain = name[1:], true
			}
			s, err := renderPlusV(v.Field(i), depth+1, fieldPlain)
			if err != nil {
				return "", err
			}
			b.WriteString(name + ":" + s)
		}
		b.WriteByte('}')
		return b.String(), nil
	case reflect.Slice, reflect.Array:
		if !hasRenamed(v.Type(), map[reflect.Type]bool{}) && v.CanInterface() {
			return fmt.Sprintf("%+v", v.Interface()), nil
		}
		var b strings.Builder
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			s, err := renderPlusV(v.Index(i), depth+1, plain)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		b.WriteByte(']')
		return b.String(), nil
	case reflect.Map:
		if !hasRenamed(v.Type(), map[reflect.Type]bool{}) && v.CanInterface() {
			return fmt.Sprintf("%+v", v.Interface()), nil
		}
		keys := v.MapKeys()
		less, ok := keyOrder(v.Type().Key())
		if !ok {
			return "", fmt.Errorf("map keys of type %s", v.Type().Key())
		}
		slices.SortFunc(keys, less)
		var b strings.Builder
		b.WriteString("map[")
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(' ')
			}
			ks, err := renderPlusV(k, depth+1, plain)
			if err != nil {
				return "", err
			}
			vs, err := renderPlusV(v.MapIndex(k), depth+1, plain)
			if err != nil {
				return "", err
			}
			b.WriteString(ks + ":" + vs)
		}
		b.WriteByte(']')
		return b.String(), nil
	}
	if !v.CanInterface() {
		return "", fmt.Errorf("unexported value")
	}
	if plain && hasFmtMethod(v.Type()) {
		// fmt calls no method of a value it reached through an
		// unexported field: print it from one.
		s := fmt.Sprintf("%+v", struct{ x any }{v.Interface()})
		return strings.TrimSuffix(strings.TrimPrefix(s, "{x:"), "}"), nil
	}
	return fmt.Sprintf("%+v", v.Interface()), nil
}

// keyOrder is fmt's order of map keys of type t, for the kinds it has a
// simple order for.
func keyOrder(t reflect.Type) (func(a, b reflect.Value) int, bool) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(a, b reflect.Value) int { return cmp.Compare(a.Int(), b.Int()) }, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(a, b reflect.Value) int { return cmp.Compare(a.Uint(), b.Uint()) }, true
	case reflect.String:
		return func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) }, true
	case reflect.Float32, reflect.Float64:
		return func(a, b reflect.Value) int { return cmp.Compare(a.Float(), b.Float()) }, true
	case reflect.Bool:
		return func(a, b reflect.Value) int {
			switch {
			case a.Bool() == b.Bool():
				return 0
			case !a.Bool():
				return -1
			}
			return 1
		}, true
	}
	return nil, false
}

// hasFmtMethod reports whether fmt calls a method of a value of type t
// when it prints it with %+v.
func hasFmtMethod(t reflect.Type) bool {
	for _, i := range []reflect.Type{formatterType, errorType, stringerType} {
		if t.Implements(i) {
			return true
		}
	}
	return false
}

var (
	formatterType = reflect.TypeOf((*fmt.Formatter)(nil)).Elem()
	errorType     = reflect.TypeOf((*error)(nil)).Elem()
	stringerType  = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()
)
