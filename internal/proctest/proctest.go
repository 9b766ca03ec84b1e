// Package proctest reads this process's child processes from /proc, for
// tests and benchmarks that check no REPL worker outlives what started it.
package proctest

import (
	"fmt"
	"os"
	"strings"
)

// Children returns the process IDs of this process's children: those of
// every thread, as /proc/self/task/*/children lists them. It fails where
// there is no /proc.
func Children() ([]string, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("children: %w", err)
	}
	var pids []string
	for _, task := range tasks {
		// A thread that ended since ReadDir has no file: it has no children.
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err == nil {
			pids = append(pids, strings.Fields(string(b))...)
		}
	}
	return pids, nil
}
