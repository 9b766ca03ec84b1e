package server

import (
	"os"
	"testing"

	"github.com/rlm-project/rlm/repl"
)

// pdfCache keeps the PDF engine's compiled code for the servers of this
// test binary: compiled once, not by every server (seconds each).
var pdfCache string

// TestMain lets this test binary serve as a REPL worker, for the tests that
// start a real repl.Pool.
func TestMain(m *testing.M) {
	repl.MaybeRunWorker()
	dir, err := os.MkdirTemp("", "rlm-pdf-cache-*")
	if err != nil {
		panic(err)
	}
	pdfCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
