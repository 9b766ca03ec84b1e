package shims

import (
	"fmt"
	"reflect"
	"strings"
)

// The interpreter builds a struct declared in the session with unexported
// fields renamed to exported ones (name becomes Xname) and embedded fields
// as plain fields, so encoding/json would marshal both. A json view of
// such a type is a struct built at run time with the fields Go's json
// sees: the unexported ones dropped, those of an embedded struct promoted
// (an outer field of the same name wins, as in Go). The json shims marshal
// a copy of the value in its view, and unmarshal into a view of the target
// and copy back what json set, so the output and the decoded values are
// Go's. Types are registered by the rewriter (__rlmRegisterLayout).

// jsonView is the view of one type; a nil *jsonView means the type is its
// own view.
type jsonView struct {
	typ reflect.Type
	// to returns v (of the type) in the view.
	to func(v reflect.Value) reflect.Value
	// from sets dst (of the type) from view, a value of the view type.
	from func(view, dst reflect.Value)
}

// jsonViewFor is jsonViewOf, kept per type: a program that marshals
// records one by one builds each view once. registerLayout forgets them,
// since a view depends on the layouts registered. r.mu must be held.
func (r *typeRegistry) jsonViewFor(t reflect.Type) (*jsonView, error) {
	type entry struct {
		view *jsonView
		err  error
	}
	if e, ok := r.views.Load(t); ok {
		return e.(entry).view, e.(entry).err
	}
	view, err := r.jsonViewOf(t, 0)
	r.views.Store(t, entry{view, err})
	return view, err
}

// jsonViewOf returns the view of t, nil when t needs none, or an error
// for what it cannot show as Go's json would. r.mu must be held.
func (r *typeRegistry) jsonViewOf(t reflect.Type, depth int) (*jsonView, error) {
	if depth > 16 {
		return nil, nil // a recursive type: deeper values marshal as they are
	}
	switch t.Kind() {
	case reflect.Pointer:
		ev, err := r.jsonViewOf(t.Elem(), depth+1)
		if ev == nil || err != nil {
			return nil, err
		}
		vt := reflect.PointerTo(ev.typ)
		return &jsonView{typ: vt,
			to: func(v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(vt)
				}
				p := reflect.New(ev.typ)
				p.Elem().Set(ev.to(v.Elem()))
				return p
			},
			from: func(view, dst reflect.Value) {
				if view.IsNil() {
					dst.Set(reflect.Zero(dst.Type()))
					return
				}
				if dst.IsNil() {
					dst.Set(reflect.New(dst.Type().Elem()))
				}
				ev.from(view.Elem(), dst.Elem())
			}}, nil
	case reflect.Slice:
		ev, err := r.jsonViewOf(t.Elem(), depth+1)
		if ev == nil || err != nil {
			return nil, err
		}
		vt := reflect.SliceOf(ev.typ)
		return &jsonView{typ: vt,
			to: func(v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(vt)
				}
				out := reflect.MakeSlice(vt, v.Len(), v.Len())
				for i := 0; i < v.Len(); i++ {
					out.Index(i).Set(ev.to(v.Index(i)))
				}
				return out
			},
			from: func(view, dst reflect.Value) {
				if view.IsNil() {
					dst.Set(reflect.Zero(dst.Type()))
					return
				}
				// json decodes into the elements already there (what
				// its view does not hold, such as unexported fields,
				// stays), and zero ones past them.
				out := reflect.MakeSlice(dst.Type(), view.Len(), view.Len())
				reflect.Copy(out, dst)
				for i := 0; i < view.Len(); i++ {
					ev.from(view.Index(i), out.Index(i))
				}
				dst.Set(out)
			}}, nil
	case reflect.Array:
		ev, err := r.jsonViewOf(t.Elem(), depth+1)
		if ev == nil || err != nil {
			return nil, err
		}
		vt := reflect.ArrayOf(t.Len(), ev.typ)
		return &jsonView{typ: vt,
			to: func(v reflect.Value) reflect.Value {
				out := reflect.New(vt).Elem()
				for i := 0; i < v.Len(); i++ {
					out.Index(i).Set(ev.to(v.Index(i)))
				}
				return out
			},
			from: func(view, dst reflect.Value) {
				for i := 0; i < view.Len(); i++ {
					ev.from(view.Index(i), dst.Index(i))
				}
			}}, nil
	case reflect.Map:
		ev, err := r.jsonViewOf(t.Elem(), depth+1)
		if ev == nil || err != nil {
			return nil, err
		}
		vt := reflect.MapOf(t.Key(), ev.typ)
		return &jsonView{typ: vt,
			to: func(v reflect.Value) reflect.Value {
				if v.IsNil() {
					return reflect.Zero(vt)
				}
				out := reflect.MakeMapWithSize(vt, v.Len())
				for it := v.MapRange(); it.Next(); {
					out.SetMapIndex(it.Key(), ev.to(it.Value()))
				}
				return out
			},
			from: func(view, dst reflect.Value) {
				if view.IsNil() {
					dst.Set(reflect.Zero(dst.Type()))
					return
				}
				out := reflect.MakeMapWithSize(dst.Type(), view.Len())
				for it := view.MapRange(); it.Next(); {
					e := reflect.New(dst.Type().Elem()).Elem()
					ev.from(it.Value(), e)
					out.SetMapIndex(it.Key(), e)
				}
				dst.Set(out)
			}}, nil
	case reflect.Struct:
		if t.PkgPath() != "" {
			return nil, nil // a package's type: json handles it
		}
		return r.jsonStructView(t, depth)
	}
	return nil, nil
}

// viewField is one field of a struct's view: the struct's own field
// index, and, for a field promoted from an embedded struct, its index in
// that struct's view.
type viewField struct {
	outer, inner int // inner is -1 for the struct's own field
}

// jsonStructView is jsonViewOf for a struct type.
func (r *typeRegistry) jsonStructView(t reflect.Type, depth int) (*jsonView, error) {
	_, declared := r.layout[t]
	embedded := r.embedded[t]
	var fields []reflect.StructField
	var where []viewField
	subs := make([]*jsonView, t.NumField())
	changed := declared
	// Go's json keeps a field's own fields before promoted ones of the
	// same name, and lists promoted fields where their struct is embedded.
	promote := make([]bool, t.NumField())
	own := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		for _, e := range embedded {
			if name := strings.TrimPrefix(e, "*"); name == sf.Name || "X"+name == sf.Name {
				if strings.HasPrefix(e, "*") && jsonName(sf) == "" {
					return nil, fmt.Errorf("an embedded pointer field (%s)", e)
				}
				promote[i] = jsonName(sf) == "" && sf.Type.Kind() == reflect.Struct
			}
		}
		if !promote[i] && !(declared && renamedField(sf.Name)) {
			own[keyName(sf)] = true
		}
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		sub, err := r.jsonViewOf(sf.Type, depth+1)
		if err != nil {
			return nil, err
		}
		subs[i] = sub
		if sub != nil {
			changed = true
		}
		if promote[i] {
			st := sf.Type
			if sub != nil {
				st = sub.typ
			}
			for j := 0; j < st.NumField(); j++ {
				f := st.Field(j)
				if own[keyName(f)] {
					continue // the outer field wins
				}
				f.Index, f.Offset, f.Anonymous = nil, 0, false
				fields = append(fields, f)
				where = append(where, viewField{i, j})
			}
			continue
		}
		if declared && renamedField(sf.Name) {
			continue // an unexported field: json does not see it
		}
		f := sf
		f.Index, f.Offset, f.Anonymous = nil, 0, false
		if sub != nil {
			f.Type = sub.typ
		}
		fields = append(fields, f)
		where = append(where, viewField{i, -1})
	}
	if !changed {
		return nil, nil
	}
	uniqueGoNames(fields)
	vt := reflect.StructOf(fields)
	return &jsonView{typ: vt,
		to: func(v reflect.Value) reflect.Value {
			out := reflect.New(vt).Elem()
			inner := map[int]reflect.Value{}
			for k, w := range where {
				fv := v.Field(w.outer)
				if s := subs[w.outer]; s != nil {
					if w.inner < 0 {
						out.Field(k).Set(s.to(fv))
						continue
					}
					if _, ok := inner[w.outer]; !ok {
						inner[w.outer] = s.to(fv)
					}
					fv = inner[w.outer]
				}
				if w.inner >= 0 {
					fv = fv.Field(w.inner)
				}
				out.Field(k).Set(fv)
			}
			return out
		},
		from: func(view, dst reflect.Value) {
			inner := map[int]reflect.Value{}
			for k, w := range where {
				fv := view.Field(k)
				s := subs[w.outer]
				switch {
				case w.inner < 0 && s != nil:
					s.from(fv, dst.Field(w.outer))
				case w.inner < 0:
					dst.Field(w.outer).Set(fv)
				default:
					if _, ok := inner[w.outer]; !ok {
						// The embedded struct's view, from what it holds
						// now, so that fields json did not set keep it.
						iv := reflect.New(dst.Field(w.outer).Type()).Elem()
						iv.Set(dst.Field(w.outer))
						if s != nil {
							iv = s.to(iv)
						}
						c := reflect.New(iv.Type()).Elem()
						c.Set(iv)
						inner[w.outer] = c
					}
					inner[w.outer].Field(w.inner).Set(fv)
				}
			}
			for outer, iv := range inner {
				if s := subs[outer]; s != nil {
					s.from(iv, dst.Field(outer))
				} else {
					dst.Field(outer).Set(iv)
				}
			}
		}}, nil
}

// uniqueGoNames renames fields that share a Go name (an own field and a
// promoted one, whose json keys differ since one of them has a json tag):
// the one with the tag, whose key does not come from its Go name.
func uniqueGoNames(fields []reflect.StructField) {
	at := map[string]int{}
	for i := range fields {
		j, dup := at[fields[i].Name]
		if !dup {
			at[fields[i].Name] = i
			continue
		}
		k := i
		if jsonName(fields[i]) == "" {
			k = j
		}
		fields[k].Name = fmt.Sprintf("%s_%d", fields[k].Name, k)
		at[fields[i].Name] = i
		at[fields[j].Name] = j
	}
}

// jsonName is the name a json tag gives a field, or "".
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// keyName is the key json writes a field under (for the outer-wins rule).
func keyName(f reflect.StructField) string {
	if n := jsonName(f); n != "" {
		return n
	}
	return f.Name
}

// jsonMarshalView returns v in its json view (v itself when it needs
// none), or an error for what the view cannot show.
func (r *typeRegistry) jsonMarshalView(v any) (any, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.layout) == 0 || v == nil {
		return v, nil
	}
	rv := reflect.ValueOf(v)
	if isWrapper(rv.Type()) {
		return v, nil // it has MarshalJSON or the like: json calls it
	}
	view, err := r.jsonViewFor(rv.Type())
	if err != nil || view == nil {
		return v, err
	}
	return view.to(rv).Interface(), nil
}

// jsonUnmarshal is json.Unmarshal into target through its json view.
func (r *typeRegistry) jsonUnmarshal(data []byte, target any, unmarshal func([]byte, any) error) (bool, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	tv := reflect.ValueOf(target)
	if len(r.layout) == 0 || !tv.IsValid() || tv.Kind() != reflect.Pointer || tv.IsNil() {
		return false, nil
	}
	view, err := r.jsonViewFor(tv.Type().Elem())
	if err != nil || view == nil {
		return false, err
	}
	p := reflect.New(view.typ)
	p.Elem().Set(view.to(tv.Elem()))
	uerr := unmarshal(data, p.Interface())
	view.from(p.Elem(), tv.Elem())
	return true, uerr
}
