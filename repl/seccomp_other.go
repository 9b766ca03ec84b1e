//go:build linux && !amd64 && !arm64

package repl

import "errors"

// seccompSupported is false where no filter is written for the
// architecture; the worker runs with its other layers.
const seccompSupported = false

func installSeccomp() error { return errors.New("no seccomp filter for this architecture") }
