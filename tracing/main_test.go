package tracing_test

import (
	"os"
	"testing"

	"github.com/rlm-project/rlm/repl"
)

// TestMain lets the test binary serve as a REPL worker for the tests that
// run the real sandbox.
func TestMain(m *testing.M) {
	repl.MaybeRunWorker()
	os.Exit(m.Run())
}
