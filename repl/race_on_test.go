//go:build race

package repl

// raceEnabled reports whether the tests run under the race detector, whose
// shadow memory makes a process's anonymous-memory counts meaningless.
const raceEnabled = true
