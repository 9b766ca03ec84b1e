package interp_test

import (
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// eval is the helper of upstream's interp_eval_test.go, which is not kept
// here (it needs yaegi's 19 MB stdlib symbol tables); interp_export_test.go
// uses it.
func eval(t *testing.T, i *interp.Interpreter, src string) reflect.Value {
	t.Helper()
	res, err := i.Eval(src)
	if err != nil {
		t.Logf("Error: %v", err)
		if e, ok := err.(interp.Panic); ok {
			t.Logf(string(e.Stack))
		}
		t.FailNow()
	}
	return res
}
