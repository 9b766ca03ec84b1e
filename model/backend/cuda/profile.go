//go:build linux && (amd64 || arm64)

package cuda

import (
	"fmt"
	"io"
	"sort"
)

// Profiling: between StartProfile and StopProfile every kernel launch and
// matrix product is bracketed by a pair of CUDA events on the stream, and
// StopProfile reports the GPU time of each kind of work. The events cost a
// little; profile a few steps, not a whole run.

type profEvent struct {
	name       string
	start, end uintptr
}

type profiler struct {
	on     bool
	events []profEvent
}

// StartProfile begins recording the GPU time of each operation.
func (be *Backend) StartProfile() {
	defer be.enter()()
	be.prof = profiler{on: true}
}

// ProfileEntry is the GPU time of one kind of operation.
type ProfileEntry struct {
	Name  string
	Calls int
	MS    float64
}

// StopProfile waits for the queued work and returns the recorded time per
// operation, largest first.
func (be *Backend) StopProfile() []ProfileEntry {
	defer be.enter()()
	d := be.drv
	d.check(d.cuCtxSynchronize(), "cuCtxSynchronize")
	byName := map[string]*ProfileEntry{}
	for _, e := range be.prof.events {
		var ms float32
		d.check(d.cuEventElapsedTime(&ms, e.start, e.end), "cuEventElapsedTime")
		d.cuEventDestroy(e.start)
		d.cuEventDestroy(e.end)
		p := byName[e.name]
		if p == nil {
			p = &ProfileEntry{Name: e.name}
			byName[e.name] = p
		}
		p.Calls++
		p.MS += float64(ms)
	}
	be.prof = profiler{}
	out := make([]ProfileEntry, 0, len(byName))
	for _, p := range byName {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].MS > out[j].MS })
	return out
}

// WriteProfile prints a profile as a table.
func WriteProfile(w io.Writer, entries []ProfileEntry) {
	var total float64
	for _, e := range entries {
		total += e.MS
	}
	fmt.Fprintf(w, "%-40s %8s %10s %6s\n", "operation", "calls", "ms", "share")
	for _, e := range entries {
		fmt.Fprintf(w, "%-40s %8d %10.3f %5.1f%%\n", e.Name, e.Calls, e.MS, 100*e.MS/total)
	}
	fmt.Fprintf(w, "%-40s %8s %10.3f\n", "total", "", total)
}

// timed brackets queued work with events when profiling; the caller holds
// be.mu.
func (be *Backend) timed(name string) func() {
	if !be.prof.on {
		return func() {}
	}
	d := be.drv
	var start, end uintptr
	d.check(d.cuEventCreate(&start, 0), "cuEventCreate")
	d.check(d.cuEventCreate(&end, 0), "cuEventCreate")
	d.check(d.cuEventRecord(start, 0), "cuEventRecord")
	return func() {
		d.check(d.cuEventRecord(end, 0), "cuEventRecord")
		be.prof.events = append(be.prof.events, profEvent{name, start, end})
	}
}
