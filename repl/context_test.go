package repl

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestContextShared checks that the context reaches workers without copies:
// each worker maps the file shared and read-only, and after scanning all of
// it a worker's anonymous memory (heap, stacks) is far below its size.
func TestContextShared(t *testing.T) {
	// Large beside the worker's own anonymous memory (about 8 MiB: the
	// runtime, the interpreter, the helpers' compiled expressions), so
	// that a copy shows and the baseline does not.
	const size = 64 << 20
	cf, err := WriteContext(t.TempDir(), []string{strings.Repeat("0123456789abcde\n", size/16)})
	if err != nil {
		t.Fatal(err)
	}
	p := newTestPool(t, 2)
	for i := range 2 {
		s2, err := p.NewSession(t.Context(), SessionConfig{Context: cf})
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		r := run(t, s2, `fmt.Print(strings.Count(context, "\n"), len(contexts[0]))`)
		if want := fmt.Sprint(size/16, size); r.Output != want {
			t.Fatalf("session %d: output %q, want %q (error %q)", i, r.Output, want, r.Error)
		}
		pid := s2.w.cmd.Process.Pid
		maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		mapped := false
		for _, l := range strings.Split(string(maps), "\n") {
			if strings.HasSuffix(l, cf.Path) && strings.Contains(l, " r--s ") {
				mapped = true
			}
		}
		if !mapped {
			t.Fatalf("worker %d does not map %s shared and read-only:\n%s", pid, cf.Path, maps)
		}
		anon := statusKB(t, pid, "RssAnon:") << 10
		t.Logf("worker %d: %d KiB anonymous, %d KiB file-backed", pid, anon>>10, statusKB(t, pid, "RssFile:"))
		// The race detector's shadow memory is anonymous and grows with what
		// the worker reads, so the count proves nothing under -race.
		if anon > size/2 && !raceEnabled {
			t.Fatalf("worker %d has %d bytes of anonymous memory for a %d byte context: it copied it", pid, anon, size)
		}
	}
}

func statusKB(t *testing.T, pid int, field string) int64 {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(st), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestQueryPredeclared: query holds SessionConfig.Query, word for word, and
// is empty without one; model code may shadow it like any predeclared name.
func TestQueryPredeclared(t *testing.T) {
	p := newTestPool(t, 1)
	for _, q := range []string{"What is the special magic number for brave-falcon?", "", "line one\n\"quoted\" `raw` ünï"} {
		s, err := p.NewSession(t.Context(), SessionConfig{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if r := run(t, s, `fmt.Print(query)`); r.Output != q || r.Error != "" {
			t.Errorf("query %q: output %q, error %q", q, r.Output, r.Error)
		}
		if r := run(t, s, "query := 7\nfmt.Print(query + 1)"); r.Output != "8" || r.Error != "" {
			t.Errorf("shadowing query: output %q, error %q", r.Output, r.Error)
		}
		s.Close()
	}
}
