package hostile

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// TestWorkersDieWithTheServer: a server killed with SIGKILL (or crashing, or
// forced to exit by a second Ctrl-C) leaves no REPL worker behind, not even
// one spinning in a cell, which only the server's cell timeout would stop:
// a worker exits when its protocol pipe from the server closes.
func TestWorkersDieWithTheServer(t *testing.T) {
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Content: "```go\nfor {}\n```"}
	}, fakellm.WithoutRecording())
	defer up.Close()
	s := startServer(t, up.URL, "--cell-timeout", "10m")
	go func() {
		// Its answer never comes: the server is killed under it.
		req, _ := http.NewRequest("POST", s.url+"/v1/chat/completions", strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"spin"}]}`))
		req.Header.Set("Authorization", "Bearer "+keyA)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	var workers []int
	deadline := time.Now().Add(20 * time.Second)
	for len(workers) < 3 && time.Now().Before(deadline) { // two idle, one in the spinning cell
		time.Sleep(50 * time.Millisecond)
		workers = children(s.cmd.Process.Pid)
	}
	if len(workers) < 3 {
		t.Fatalf("%d workers, want the cell's and the idle ones", len(workers))
	}
	time.Sleep(300 * time.Millisecond) // the cell spins
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done
	deadline = time.Now().Add(5 * time.Second)
	for {
		var alive []int
		for _, p := range workers {
			if syscall.Kill(p, 0) == nil && !zombie(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers %v still run 5 s after the server was killed", alive)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	for _, p := range allPIDs() {
		if ppid(p) == pid {
			out = append(out, p)
		}
	}
	return out
}

func zombie(pid int) bool {
	f := statFields(pid)
	return len(f) > 0 && f[0] == "Z"
}

func ppid(pid int) int {
	f := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// statFields are the fields of /proc/PID/stat after the command name.
func statFields(pid int) []string {
	b := readProc(pid, "stat")
	i := strings.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(b[i+1:])
}

func readProc(pid int, name string) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + name)
	return string(b)
}

func allPIDs() []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, p)
		}
	}
	return out
}
