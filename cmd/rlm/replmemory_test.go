package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/repl"
)

// TestREPLMemorySettings: the budgets resolve from auto and sizes, and a
// configuration whose worst case the machine cannot hold is refused at
// start with a message naming the setting.
func TestREPLMemorySettings(t *testing.T) {
	machine := machineMemory()
	if machine == 0 {
		t.Skip("no /proc/meminfo")
	}
	gib := int64(1 << 30)
	for _, c := range []struct {
		total, request string
		wait           time.Duration
		wantTotal      int64
		wantRequest    int64
		err            string
	}{
		{total: "auto", request: "auto", wantTotal: machine / 2, wantRequest: max(machine/4, min(machine/2, 2*(gib+sessionOverhead)))},
		{total: "4GiB", request: "auto", wantTotal: 4 * gib, wantRequest: 2*gib + 2*sessionOverhead},
		{total: "8GiB", request: "2GiB", wantTotal: 8 * gib, wantRequest: 2 * gib},
		{total: "2GiB", request: "8GiB", wantTotal: 2 * gib, wantRequest: 2 * gib},
		{total: "1024GiB", request: "auto", err: "is more than this machine's memory"},
		{total: "512MiB", request: "auto", err: "repl-memory-total 512 MiB cannot hold one REPL session"},
		{total: "8GiB", request: "100MiB", err: "request-repl-memory 100 MiB cannot hold one REPL session"},
		{total: "lots", request: "auto", err: `repl-memory-total "lots": want a size`},
		{total: "auto", request: "auto", wait: -time.Second, err: "repl-memory-wait -1s: must not be negative"},
	} {
		ec := &engineConfig{REPL: repl.Limits{MemoryBytes: gib}, REPLMemoryTotal: c.total, RequestREPLMemory: c.request, REPLMemoryWait: c.wait}
		b, err := ec.replMemory()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s/%s: %v, want an error with %q", c.total, c.request, err, c.err)
			}
		case err != nil:
			t.Errorf("%s/%s: %v", c.total, c.request, err)
		case b.total != c.wantTotal || b.request != c.wantRequest:
			t.Errorf("%s/%s: total %d, request %d; want %d, %d", c.total, c.request, b.total, b.request, c.wantTotal, c.wantRequest)
		}
	}
}
