//go:build linux && !amd64 && !arm64

package sandbox

import "errors"

// SeccompSupported is false where no filter is written for the
// architecture; the worker runs with its other layers.
const SeccompSupported = false

func installSeccomp() error { return errors.New("no seccomp filter for this architecture") }
