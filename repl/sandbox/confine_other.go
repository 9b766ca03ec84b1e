//go:build !linux

package sandbox

import "os"

// Outside Linux a worker has no OS-level confinement (docs/security.md):
// only the interpreter's import allowlist and the limits hold it.

// Layers selects confinement layers; there are none here.
type Layers uint

// AllLayers is every layer there is: none.
const AllLayers Layers = 0

// Confine does nothing: there is no layer to apply.
func Confine(Layers, int64, *os.File) error { return nil }

// inheritedStatm is for the re-exec of Linux workers; there is none here.
func inheritedStatm() *os.File { return nil }
