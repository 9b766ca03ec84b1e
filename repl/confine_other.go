//go:build !linux

package repl

import "os"

// Outside Linux a worker has no OS-level confinement (docs/security.md):
// only the interpreter's import allowlist and the limits hold it.
type layers uint

const allLayers layers = 0

func confine(layers, int64, *os.File) error { return nil }

// inheritedStatm is for the re-exec of Linux workers; there is none here.
func inheritedStatm() *os.File { return nil }
