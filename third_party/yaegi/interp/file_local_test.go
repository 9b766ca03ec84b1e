package interp_test

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// This file is the copy's own (../README.md): upstream runs the programs
// of ../_test with TestFile (interp_file_test.go), which needs yaegi's
// stdlib symbol tables, 19 MB the copy does not keep. Here ../_test holds
// only the programs of the copy's patches, and TestFileLocal runs them
// the same way with a symbol table of the packages they import, whose map
// types are those of yaegi's stdlib (stdlib/maptypes.go).

// stdlibSymbols is rlmSymbols with the map types of yaegi's stdlib: fmt's
// printers wrap interpreted values as fmt.Formatter and fmt.Stringer,
// not as error, which rlmSymbols adds as the REPL's symbols do.
var stdlibSymbols = func() interp.Exports {
	e := interp.Exports{}
	for k, v := range rlmSymbols {
		if k != "." {
			e[k] = v
		}
	}
	printing := []reflect.Type{
		reflect.TypeOf((*fmt.Formatter)(nil)).Elem(),
		reflect.TypeOf((*fmt.Stringer)(nil)).Elem(),
	}
	mapTypes := map[reflect.Value][]reflect.Type{
		reflect.ValueOf(json.Marshal): {
			reflect.TypeOf((*json.Marshaler)(nil)).Elem(),
			reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem(),
		},
		reflect.ValueOf(json.Unmarshal): {
			reflect.TypeOf((*json.Unmarshaler)(nil)).Elem(),
			reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem(),
		},
	}
	for _, f := range []any{fmt.Errorf, fmt.Print, fmt.Printf, fmt.Println, fmt.Sprint, fmt.Sprintf, fmt.Sprintln} {
		mapTypes[reflect.ValueOf(f)] = printing
	}
	e["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(mapTypes)}
	e["encoding/encoding"] = map[string]reflect.Value{
		"TextMarshaler":    reflect.ValueOf((*encoding.TextMarshaler)(nil)),
		"TextUnmarshaler":  reflect.ValueOf((*encoding.TextUnmarshaler)(nil)),
		"_TextMarshaler":   reflect.ValueOf((*_encoding_TextMarshaler)(nil)),
		"_TextUnmarshaler": reflect.ValueOf((*_encoding_TextUnmarshaler)(nil)),
	}
	return e
}()

// The wrappers of package encoding's interfaces that yaegi's extract
// generates, for interpreted values passed to json.

type _encoding_TextMarshaler struct {
	IValue       interface{}
	WMarshalText func() ([]byte, error)
}

func (W _encoding_TextMarshaler) MarshalText() ([]byte, error) { return W.WMarshalText() }

type _encoding_TextUnmarshaler struct {
	IValue         interface{}
	WUnmarshalText func(text []byte) error
}

func (W _encoding_TextUnmarshaler) UnmarshalText(text []byte) error {
	return W.WUnmarshalText(text)
}

func TestFileLocal(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "_test", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no programs in ../_test")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			want, wantErr, err := wanted(file)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
			if err := i.Use(stdlibSymbols); err != nil {
				t.Fatal(err)
			}
			_, err = i.EvalPath(file)
			switch {
			case wantErr && err == nil:
				t.Fatalf("no error, want one containing %q", want)
			case wantErr && !strings.Contains(err.Error(), want):
				t.Fatalf("error %q, want one containing %q", err, want)
			case wantErr:
			case err != nil:
				t.Fatalf("%v\noutput so far:\n%s", err, out.String())
			case strings.TrimSpace(out.String()) != want:
				t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
			}
		})
	}
}

// wanted returns what the last comment of a program says it prints
// ("Output:") or the error it fails with ("Error:"), as TestFile reads it.
func wanted(file string) (want string, isErr bool, err error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		return "", false, err
	}
	if len(f.Comments) == 0 {
		return "", false, errors.New("no comment")
	}
	text := f.Comments[len(f.Comments)-1].Text()
	if want, ok := strings.CutPrefix(text, "Output:\n"); ok {
		return strings.TrimSpace(want), false, nil
	}
	if want, ok := strings.CutPrefix(text, "Error:\n"); ok {
		return strings.TrimSpace(want), true, nil
	}
	return "", false, errors.New("the last comment says neither Output: nor Error:")
}
