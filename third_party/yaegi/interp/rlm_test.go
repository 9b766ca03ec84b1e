package interp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// Tests of the patches in the setting of the rlm REPL, which embeds this
// interpreter: each program in testdata/rlm runs with the symbol table
// built here (a few packages; fmt's printers wrap interpreted values as
// errors too, as the REPL's symbols do) and package iter compiled from
// source, and must print what its "// Output:" comment says, which is
// what `go run` prints. The patches' tests in upstream's form, run by
// TestFile, are the programs they add to ../_test.

// rlmSymbols is the symbol table of the programs in testdata/rlm.
var rlmSymbols = interp.Exports{
	"fmt/fmt": {
		"Errorf":   reflect.ValueOf(fmt.Errorf),
		"Print":    reflect.ValueOf(fmt.Print),
		"Printf":   reflect.ValueOf(fmt.Printf),
		"Println":  reflect.ValueOf(fmt.Println),
		"Sprint":   reflect.ValueOf(fmt.Sprint),
		"Sprintf":  reflect.ValueOf(fmt.Sprintf),
		"Sprintln": reflect.ValueOf(fmt.Sprintln),
		"Stringer": reflect.ValueOf((*fmt.Stringer)(nil)),

		"_Stringer": reflect.ValueOf((*_fmt_Stringer)(nil)),
	},
	"errors/errors": {
		"As":     reflect.ValueOf(errors.As),
		"Is":     reflect.ValueOf(errors.Is),
		"Join":   reflect.ValueOf(errors.Join),
		"New":    reflect.ValueOf(errors.New),
		"Unwrap": reflect.ValueOf(errors.Unwrap),
	},
	"strings/strings": {
		"Fields":  reflect.ValueOf(strings.Fields),
		"Join":    reflect.ValueOf(strings.Join),
		"Split":   reflect.ValueOf(strings.Split),
		"ToUpper": reflect.ValueOf(strings.ToUpper),
	},
	"reflect/reflect": {
		"ValueOf": reflect.ValueOf(reflect.ValueOf),
	},
	"strconv/strconv": {
		"Itoa": reflect.ValueOf(strconv.Itoa),
	},
	"sort/sort": {
		"Strings": reflect.ValueOf(sort.Strings),
		"Ints":    reflect.ValueOf(sort.Ints),
	},
	".": {
		// As the REPL's symbols do: values of interpreted types passed as
		// an any to fmt are wrapped with their fmt methods.
		"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{
			reflect.ValueOf(fmt.Errorf):   fmtTypes,
			reflect.ValueOf(fmt.Print):    fmtTypes,
			reflect.ValueOf(fmt.Printf):   fmtTypes,
			reflect.ValueOf(fmt.Println):  fmtTypes,
			reflect.ValueOf(fmt.Sprint):   fmtTypes,
			reflect.ValueOf(fmt.Sprintf):  fmtTypes,
			reflect.ValueOf(fmt.Sprintln): fmtTypes,
		}),
	},
	"encoding/json/json": {
		"Marshal":       reflect.ValueOf(json.Marshal),
		"MarshalIndent": reflect.ValueOf(json.MarshalIndent),
		"Unmarshal":     reflect.ValueOf(json.Unmarshal),
	},
}

// _fmt_Stringer is the wrapper of fmt.Stringer that yaegi's extract
// generates, for interpreted values passed to fmt.
type _fmt_Stringer struct {
	IValue  interface{}
	WString func() string
}

func (W _fmt_Stringer) String() string { return W.WString() }

var fmtTypes = []reflect.Type{
	reflect.TypeOf((*fmt.Formatter)(nil)).Elem(),
	reflect.TypeOf((*error)(nil)).Elem(),
	reflect.TypeOf((*fmt.Stringer)(nil)).Elem(),
}

// iterSource is package iter, whose types are generic and so cannot be in
// a symbol table (the REPL compiles the same source).
const iterSource = `package iter

type Seq[V any] func(yield func(V) bool)

type Seq2[K, V any] func(yield func(K, V) bool)
`

func TestRLMPrograms(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "rlm", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no programs in testdata/rlm")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := expectedOutput(string(src))
			if !ok {
				t.Fatal("no // Output: comment")
			}
			var out bytes.Buffer
			i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
			if err := i.Use(rlmSymbols); err != nil {
				t.Fatal(err)
			}
			if _, err := i.Compile(iterSource); err != nil {
				t.Fatal(err)
			}
			if _, err := i.Eval(string(src)); err != nil {
				t.Fatalf("%v\noutput so far:\n%s", err, out.String())
			}
			if got := out.String(); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// expectedOutput returns the text of the "// Output:" comment at the end
// of src, as in yaegi's _test programs.
func expectedOutput(src string) (string, bool) {
	_, rest, ok := strings.Cut(src, "\n// Output:\n")
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(rest, "\n"), "\n") {
		l = strings.TrimPrefix(l, "//")
		b.WriteString(strings.TrimPrefix(l, " ") + "\n")
	}
	return b.String(), true
}
