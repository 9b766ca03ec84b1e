//go:build linux && !cgo

package repl

// A pure-Go build of rlm links purego, whose fake cgo keeps the runtime
// from changing all threads at once, so its workers confine themselves by
// re-exec (repl/sandbox/reexec_linux.go). Linked here too, the tests of a CGO_ENABLED=0
// run (CI does one) take that path, as the binary does.
import _ "github.com/ebitengine/purego"
