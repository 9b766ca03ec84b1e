package server

import (
	"os"
	"testing"

	"github.com/rlm-project/rlm/repl"
)

// TestMain lets this test binary serve as a REPL worker, for the tests that
// start a real repl.Pool.
func TestMain(m *testing.M) {
	repl.MaybeRunWorker()
	os.Exit(m.Run())
}
