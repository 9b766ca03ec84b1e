package symbols

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
)

// MapTypes tells the interpreter which interfaces a value declared in
// interpreted code must be wrapped in when it is passed as an `any` to these
// functions, so that they see its methods: without it fmt prints the
// fields of a value whose String or Error method the program declared, and
// json ignores its MarshalJSON. The order is fmt's: Formatter, then error,
// then Stringer.
var MapTypes = map[reflect.Value][]reflect.Type{}

// FmtTypes are the interfaces fmt's printing functions look for.
var FmtTypes = []reflect.Type{
	reflect.TypeOf((*fmt.Formatter)(nil)).Elem(),
	reflect.TypeOf((*error)(nil)).Elem(),
	reflect.TypeOf((*fmt.Stringer)(nil)).Elem(),
}

func init() {
	for _, f := range []any{fmt.Errorf, fmt.Fprint, fmt.Fprintf, fmt.Fprintln, fmt.Print, fmt.Printf,
		fmt.Println, fmt.Sprint, fmt.Sprintf, fmt.Sprintln, fmt.Append, fmt.Appendf, fmt.Appendln} {
		MapTypes[reflect.ValueOf(f)] = FmtTypes
	}
	marshal := []reflect.Type{
		reflect.TypeOf((*json.Marshaler)(nil)).Elem(),
		reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem(),
	}
	MapTypes[reflect.ValueOf(json.Marshal)] = marshal
	MapTypes[reflect.ValueOf(json.MarshalIndent)] = marshal
	MapTypes[reflect.ValueOf(json.Unmarshal)] = []reflect.Type{
		reflect.TypeOf((*json.Unmarshaler)(nil)).Elem(),
		reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem(),
	}
	Symbols["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(MapTypes)}
}
