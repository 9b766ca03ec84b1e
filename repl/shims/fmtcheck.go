package shims

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// Values of types declared in the session reach native fmt as values of
// the types yaegi built for them with reflect (a struct whose unexported
// fields are renamed X..., a defined type as its underlying type), without
// their methods. yaegi wraps a value passed directly to fmt so that its
// String or Error method is called, but not one inside a slice, map,
// struct or pointer, and %T, %#v and %+v show the built type. fmt output
// would then differ from Go's without an error. So the rewriter registers
// every declared type (and whether it has a method fmt calls), and the
// fmt shims refuse, with an error saying what to write, the
// forms they cannot print as Go does.

// typeRegistry maps the native types of declared types to their names.
type typeRegistry struct {
	mu    sync.RWMutex
	names map[reflect.Type]string // native type -> declared name
	meth  map[reflect.Type]bool   // the declared type has String, Error, Format or GoString
	kinds map[string]string       // declared name -> the predeclared type it cannot be told from
	// layout holds the native types of declared structs with embedded or
	// unexported fields, which yaegi builds as plain exported fields.
	layout map[reflect.Type]string
	// embedded holds, for a type of layout, its embedded fields' names
	// ("*T" for a pointer), which json promotes (see jsonview.go).
	embedded map[reflect.Type][]string
	views    sync.Map                // reflect.Type -> its json view (jsonViewFor)
	errs     map[reflect.Type]string // native types of declared types with an Error method
	// dup holds the native types two declared types share (same fields).
	dup map[reflect.Type]bool
	// ambiguous holds the native types of errs shared by two declared types.
	ambiguous map[reflect.Type]bool
	// conv converts a value of a declared error type to an error.
	conv map[reflect.Type]func(any) error
}

func (r *typeRegistry) registerError(name string, v any) {
	// A type whose Error method has a value receiver reaches here in the
	// interpreter's error wrapper.
	t := reflect.TypeOf(Unbox(v))
	if t == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.errs == nil {
		r.errs = map[reflect.Type]string{}
	}
	for _, t := range []reflect.Type{t, reflect.PointerTo(t)} {
		if old, ok := r.errs[t]; ok && old != name {
			// Two declared error types with the same fields have one
			// native type: errors.As cannot tell them apart.
			if r.ambiguous == nil {
				r.ambiguous = map[reflect.Type]bool{}
			}
			r.ambiguous[t] = true
		}
		r.errs[t] = name
	}
}

// registerErrorConv keeps conv, a function the interpreter compiled that
// returns its argument, a value of v's declared error type, as an error:
// the interpreter's error wrapper, which native code sees as an error.
func (r *typeRegistry) registerErrorConv(v any, conv func(any) error) {
	t := reflect.TypeOf(Unbox(v))
	if t == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conv == nil {
		r.conv = map[reflect.Type]func(any) error{}
	}
	r.conv[t] = conv
}

// asError converts x, a value of a declared error type, to an error with
// the type's converter; nil when there is none or it fails.
func (r *typeRegistry) asError(t reflect.Type, x any) (err error) {
	r.mu.RLock()
	conv := r.conv[t]
	r.mu.RUnlock()
	if conv == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	return conv(x)
}

// errSubject is the subject of a type switch with a case error: a value of
// an error type declared in the session, which yaegi's switch cannot match
// against error, is given to it as the interpreter's error wrapper (an
// error natively) when no earlier case lists its type; where that cannot
// be done, it is refused.
func (r *typeRegistry) errSubject(x any, listed []any) any {
	t := reflect.TypeOf(Unbox(x))
	if t == nil {
		return x
	}
	for _, l := range listed {
		if reflect.TypeOf(Unbox(l)) == t {
			return x
		}
	}
	r.mu.RLock()
	name, declared := r.errs[t]
	r.mu.RUnlock()
	if declared {
		if e := r.asError(t, x); e != nil {
			return e
		}
		panic(fmt.Sprintf("a type switch cannot match a value of %s, declared in the REPL, against case error here; add a case for its type (case %s: or case *%s:) before case error, or use a type assertion", name, name, name))
	}
	return x
}

// Unbox returns the value inside the boxes yaegi puts interpreted values
// in when they cross into native code as interfaces: its error wrapper
// (field IValue) and valueInterface (unexported field value, read through
// an addressable copy).
func Unbox(x any) any {
	x = unwrapIface(x)
	v := reflect.ValueOf(x)
	if !v.IsValid() || v.Kind() != reflect.Struct || v.Type().PkgPath() != yaegiPkg {
		return x
	}
	f, ok := v.Type().FieldByName("value")
	if !ok || f.Type != reflect.TypeOf(reflect.Value{}) {
		return x
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	inner := *(*reflect.Value)(unsafe.Pointer(c.FieldByIndex(f.Index).UnsafeAddr()))
	if !inner.IsValid() || !inner.CanInterface() {
		return x
	}
	return inner.Interface()
}

func (r *typeRegistry) registerLayout(name string, v any, embedded []string) {
	t := reflect.TypeOf(Unbox(v))
	if t == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.layout == nil {
		r.layout, r.embedded = map[reflect.Type]string{}, map[reflect.Type][]string{}
	}
	r.layout[t] = name
	r.embedded[t] = embedded
	r.views.Clear()
}

// jsonProblem returns why encoding/json would not treat v as Go does, or "".
func (r *typeRegistry) jsonProblem(v any) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.layout) == 0 {
		return ""
	}
	if name := r.hidden(reflect.ValueOf(v), 0); name != "" {
		return fmt.Sprintf("encoding/json of type %s, declared in the REPL with embedded or unexported fields, is not supported here: "+
			"the interpreter gives json a struct where those are plain exported fields; declare the type with exported fields only (tags work), or use a map", name)
	}
	return ""
}

// hidden returns the name of a layout-registered type inside v, or "".
func (r *typeRegistry) hidden(v reflect.Value, depth int) string {
	if depth > 6 || !v.IsValid() {
		return ""
	}
	if name, ok := r.layout[v.Type()]; ok {
		return name
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			if v.Kind() == reflect.Pointer {
				return r.hiddenType(v.Type().Elem(), 0)
			}
			return ""
		}
		return r.hidden(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if n := r.hiddenType(v.Type().Elem(), 0); n != "" {
			return n
		}
		for i := 0; i < v.Len() && i < 64; i++ {
			if n := r.hidden(v.Index(i), depth+1); n != "" {
				return n
			}
		}
	case reflect.Map:
		if n := r.hiddenType(v.Type().Elem(), 0); n != "" {
			return n
		}
		it := v.MapRange()
		for i := 0; it.Next() && i < 64; i++ {
			if n := r.hidden(it.Value(), depth+1); n != "" {
				return n
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if n := r.hidden(v.Field(i), depth+1); n != "" {
				return n
			}
		}
	}
	return ""
}

// hiddenType is hidden for the static type t (an empty slice or a nil
// pointer to unmarshal into).
func (r *typeRegistry) hiddenType(t reflect.Type, depth int) string {
	if depth > 6 {
		return ""
	}
	if name, ok := r.layout[t]; ok {
		return name
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return r.hiddenType(t.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if n := r.hiddenType(t.Field(i).Type, depth+1); n != "" {
				return n
			}
		}
	}
	return ""
}

func (r *typeRegistry) register(name string, v any, methods bool) {
	t := reflect.TypeOf(Unbox(v))
	if t == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names == nil {
		r.names, r.meth, r.kinds = map[reflect.Type]string{}, map[reflect.Type]bool{}, map[string]string{}
	}
	if t.PkgPath() == "" && t.Name() != "" {
		r.kinds[name] = t.Name() // int, float64, string...
	}
	for _, t := range []reflect.Type{t, reflect.PointerTo(t)} {
		if old, ok := r.names[t]; ok && old != name {
			if r.dup == nil {
				r.dup = map[reflect.Type]bool{}
			}
			r.dup[t] = true
		}
		if _, ok := r.names[t]; !ok || methods {
			r.names[t] = name
		}
		if methods {
			r.meth[t] = true
		}
	}
}

// problem returns why fmt cannot print args as Go would with the verbs of
// format ("" for Print and Println), or "".
func (r *typeRegistry) problem(format string, args []any) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.names) == 0 {
		return ""
	}
	verbs := verbsOf(format, len(args))
	for i, a := range args {
		v := reflect.ValueOf(a)
		if !v.IsValid() {
			continue
		}
		// %T and %#v are typeVerbs' to print or refuse, and %+v of renamed
		// fields plusV's; a value yaegi wrapped has its methods.
		if verb := verbs[i]; verb == "T" || verb == "#v" || isWrapper(v.Type()) {
			continue
		}
		if name := r.nested(v, 0, true); name != "" {
			msg := fmt.Sprintf("fmt cannot call the String or Error method of %s on a value inside a slice, map, array, struct or pointer here; call the method yourself, e.g. loop and print x.String()", name)
			if k := r.kinds[name]; k != "" {
				msg += fmt.Sprintf(" (the interpreter cannot tell %s from %s: plain %s values in a container are refused too; print them one by one)", name, k, k)
			}
			return msg
		}
	}
	return ""
}

// resolveViews returns args with each of the interpreter's print views
// (third_party/yaegi printview.go) replaced by what format's verb prints:
// the value itself for %T and %#v, whose output shows its types, which
// the view changes, else the view; args itself when there is none.
func resolveViews(format string, args []any) []any {
	var out []any
	var verbs []string
	for i, a := range args {
		pv, ok := a.(interp.PrintView)
		if !ok {
			continue
		}
		if verbs == nil {
			verbs = verbsOf(format, len(args))
			out = slices.Clone(args)
		}
		out[i] = pv.View
		if verbs[i] == "T" || verbs[i] == "#v" {
			out[i] = pv.Orig
		}
	}
	if out == nil {
		return args
	}
	return out
}

// plainVerbs returns args with the value inside each of yaegi's method
// wrappers that format's verb prints without calling String or Error:
// fmt calls them for %v, %s, %x, %X and %q only, and prints the value
// itself for %d, %f, %c and the rest, where the wrapper would print as a
// struct ({2 5403712} for %d of a Level 2).
func plainVerbs(format string, args []any) []any {
	verbs := verbsOf(format, len(args))
	var out []any
	for i, a := range args {
		v := reflect.ValueOf(a)
		verb := verbs[i]
		if !v.IsValid() || verb == "" || strings.ContainsAny(verb[len(verb)-1:], "vsxXqTpw") {
			continue
		}
		var inner any
		if isWrapper(v.Type()) {
			inner = operandValue(a)
		} else if c, ok := unwrapInside(v, 0); ok {
			// The interpreter's print view of a []T or a struct holds
			// each T with methods in its wrapper (third_party/yaegi
			// printview.go).
			inner = c.Interface()
		} else {
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = inner
	}
	if out == nil {
		return args
	}
	return out
}

// unwrapInside returns a copy of v with the value inside each method
// wrapper held in an interface within it (slices, arrays, map values,
// struct fields) in place of the wrapper; ok is false when there is none.
func unwrapInside(v reflect.Value, depth int) (reflect.Value, bool) {
	if depth > 8 || !v.IsValid() {
		return v, false
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		if e := v.Elem(); isWrapper(e.Type()) {
			inner := operandValue(e.Interface())
			return reflect.ValueOf(inner), inner != nil
		}
		return unwrapInside(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		var out reflect.Value
		for i := 0; i < v.Len(); i++ {
			c, ok := unwrapInside(v.Index(i), depth+1)
			if !ok || !c.Type().AssignableTo(v.Type().Elem()) {
				continue
			}
			if !out.IsValid() {
				if v.Kind() == reflect.Slice {
					out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
					reflect.Copy(out, v)
				} else {
					out = reflect.New(v.Type()).Elem()
					out.Set(v)
				}
			}
			out.Index(i).Set(c)
		}
		return out, out.IsValid()
	case reflect.Map:
		var out reflect.Value
		for it := v.MapRange(); it.Next(); {
			c, ok := unwrapInside(it.Value(), depth+1)
			if !ok || !c.Type().AssignableTo(v.Type().Elem()) {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(v.Type(), v.Len())
				for it2 := v.MapRange(); it2.Next(); {
					out.SetMapIndex(it2.Key(), it2.Value())
				}
			}
			out.SetMapIndex(it.Key(), c)
		}
		return out, out.IsValid()
	case reflect.Struct:
		var out reflect.Value
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			c, ok := unwrapInside(v.Field(i), depth+1)
			if !ok || !c.Type().AssignableTo(v.Type().Field(i).Type) {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
			}
			out.Field(i).Set(c)
		}
		return out, out.IsValid()
	}
	return v, false
}

// nested returns the name of a declared type with fmt methods found inside
// v (not v itself when top, which yaegi wraps), or "".
func (r *typeRegistry) nested(v reflect.Value, depth int, top bool) string {
	if depth > 4 || !v.IsValid() {
		return ""
	}
	if isWrapper(v.Type()) {
		return "" // a value yaegi wrapped with its methods
	}
	if !top && r.meth[v.Type()] {
		return r.names[v.Type()]
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return r.nested(v.Elem(), depth+1, false)
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		if !top || r.meth[v.Type()] {
			return "" // fmt prints a pointer inside a value as its address
		}
		return r.nested(v.Elem(), depth+1, false)
	case reflect.Slice, reflect.Array:
		if r.meth[v.Type().Elem()] && v.Len() > 0 {
			return r.names[v.Type().Elem()]
		}
		if !mayHold(v.Type().Elem()) {
			return ""
		}
		for i := 0; i < v.Len() && i < 64; i++ {
			if n := r.nested(v.Index(i), depth+1, false); n != "" {
				return n
			}
		}
	case reflect.Map:
		if (r.meth[v.Type().Elem()] || r.meth[v.Type().Key()]) && v.Len() > 0 {
			if r.meth[v.Type().Key()] {
				return r.names[v.Type().Key()]
			}
			return r.names[v.Type().Elem()]
		}
		if !mayHold(v.Type().Elem()) {
			return ""
		}
		it := v.MapRange()
		for i := 0; it.Next() && i < 64; i++ {
			if n := r.nested(it.Value(), depth+1, false); n != "" {
				return n
			}
		}
	case reflect.Struct:
		if top && r.meth[v.Type()] {
			return ""
		}
		for i := 0; i < v.NumField(); i++ {
			if renamedField(v.Type().Field(i).Name) {
				continue // fmt calls no method of an unexported field's value
			}
			if n := r.nested(v.Field(i), depth+1, false); n != "" {
				return n
			}
		}
	}
	return ""
}

// isWrapper reports whether t is one of the types yaegi wraps interpreted
// values in to give them methods: its own, or structs built at run time
// that hold the value in a field IValue next to the method funcs.
func isWrapper(t reflect.Type) bool {
	if t.PkgPath() == yaegiPkg {
		return true
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	_, ok := t.FieldByName("IValue")
	return ok
}

// mayHold reports whether values of type t can hold other values.
func mayHold(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map, reflect.Struct:
		return true
	}
	return false
}

// renamedFields reports whether t (or what it points to) is a struct with
// a field yaegi renamed from unexported (Xname).
func renamedFields(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		if renamedField(t.Field(i).Name) {
			return true
		}
	}
	return false
}

// renamedField reports whether name is that of a field yaegi renamed from
// unexported (Xname).
func renamedField(name string) bool {
	return len(name) > 1 && name[0] == 'X' && (unicode.IsLower(rune(name[1])) || name[1] == '_')
}

// verbsOf returns, for each of n operands, the verb of format that prints
// it ("v", "+v", "#v", "T", ...); with no format every operand is "v".
func verbsOf(format string, n int) []string {
	verbs := make([]string, n)
	for i := range verbs {
		verbs[i] = "v"
	}
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		flags := ""
		for i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0 {
			switch format[i] {
			case '*':
				arg++
			case '[':
				return verbs // explicit indexes: keep the default
			case '+', '#':
				flags += string(format[i])
			}
			i++
		}
		if i >= len(format) || format[i] == '%' {
			continue
		}
		if arg < n {
			verbs[arg] = flags + string(format[i])
			if format[i] != 'v' {
				verbs[arg] = string(format[i])
			}
		}
		arg++
	}
	return verbs
}

// fmtFuncs returns the shims of fmt's printing functions; the Print
// functions write to out.
func (s *Shims) fmtFuncs(out io.Writer) map[string]reflect.Value {
	// printArgs is what the Print functions give fmt: the interpreter's
	// print views resolved, and checked.
	printArgs := func(a []any) []any {
		a = resolveViews("", a)
		if p := s.types.problem("", a); p != "" {
			panic(p)
		}
		return a
	}
	// printfArgs is what the Printf functions give fmt: the same, with
	// %T, %#v, %+v and the verbs that print no method prepared.
	printfArgs := func(f string, a []any) (string, []any) {
		a = resolveViews(f, a)
		if p := s.types.problem(f, a); p != "" {
			panic(p)
		}
		f, a, p := s.types.typeVerbs(f, a)
		if p != "" {
			panic(p)
		}
		if a, p = s.types.plusV(f, plainVerbs(f, a)); p != "" {
			panic(p)
		}
		return f, a
	}
	return map[string]reflect.Value{
		"__rlmFmtPrint":    reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprint(out, printArgs(a)...) }),
		"__rlmFmtPrintln":  reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprintln(out, printArgs(a)...) }),
		"__rlmFmtSprint":   reflect.ValueOf(func(a ...any) string { return fmt.Sprint(printArgs(a)...) }),
		"__rlmFmtSprintln": reflect.ValueOf(func(a ...any) string { return fmt.Sprintln(printArgs(a)...) }),
		"__rlmFmtFprint":   reflect.ValueOf(func(wr io.Writer, a ...any) (int, error) { return fmt.Fprint(wr, printArgs(a)...) }),
		"__rlmFmtFprintln": reflect.ValueOf(func(wr io.Writer, a ...any) (int, error) { return fmt.Fprintln(wr, printArgs(a)...) }),
		"__rlmFmtPrintf": reflect.ValueOf(func(f string, a ...any) (int, error) {
			f, a = printfArgs(f, a)
			return fmt.Fprintf(out, f, a...)
		}),
		"__rlmFmtSprintf": reflect.ValueOf(func(f string, a ...any) string {
			f, a = printfArgs(f, a)
			return fmt.Sprintf(f, a...)
		}),
		"__rlmFmtFprintf": reflect.ValueOf(func(wr io.Writer, f string, a ...any) (int, error) {
			f, a = printfArgs(f, a)
			return fmt.Fprintf(wr, f, a...)
		}),
		"__rlmErrorf": reflect.ValueOf(func(f string, a ...any) error {
			f, a = printfArgs(f, a)
			return errorf(f, a...)
		}),
	}
}

// jsonFuncs returns the shims of encoding/json's functions, which refuse
// declared structs json would see wrong.
func (s *Shims) jsonFuncs() map[string]reflect.Value {
	check := func(v any) {
		if p := s.types.jsonProblem(v); p != "" {
			panic(p)
		}
	}
	unsupported := func(err error) {
		panic(fmt.Sprintf("encoding/json of this value is not supported here: %v; declare the field without the pointer", err))
	}
	// view is v in its json view (jsonview.go), checked.
	view := func(v any) any {
		v2, err := s.types.jsonMarshalView(v)
		if err != nil {
			unsupported(err)
		}
		check(v2)
		return v2
	}
	return map[string]reflect.Value{
		"__rlmJSONMarshal": reflect.ValueOf(func(v any) ([]byte, error) { return json.Marshal(view(v)) }),
		"__rlmJSONMarshalIndent": reflect.ValueOf(func(v any, prefix, indent string) ([]byte, error) {
			return json.MarshalIndent(view(v), prefix, indent)
		}),
		"__rlmJSONUnmarshal": reflect.ValueOf(func(data []byte, v any) error {
			done, err := s.types.jsonUnmarshal(data, v, json.Unmarshal)
			if done {
				return err
			}
			if err != nil {
				unsupported(err)
			}
			check(v)
			return json.Unmarshal(data, v)
		}),
	}
}
