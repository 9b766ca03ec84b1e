package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is this package's rlm binary, built at most once per test process:
// the tests that run it as a separate process (the README's blocks, the
// example scripts) share it instead of linking a 60 MB binary each.
var built struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
}

// rlmBinary returns the path of the rlm binary built from this package,
// building it the first time; a test that needs `go` and cannot have it
// fails in CI and skips elsewhere (requireTool).
func rlmBinary(t *testing.T) string {
	t.Helper()
	goTool := requireTool(t, "go")
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "rlm-test-binary-*")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		path := filepath.Join(dir, "rlm")
		if out, err := exec.Command(goTool, "build", "-o", path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.path = path
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// removeBinary removes the binary rlmBinary built, if any.
func removeBinary() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}
