package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// Issue 24: one request whose rlm_query_batched started 32 child RLMs that
// each allocated 1,000 MiB drove the process tree to 10.8-16.9 GB; nothing
// bounded the sum of the workers' own limits. Each REPL session now
// reserves its worker's bound from --repl-memory-total (and the request's
// --request-repl-memory) before it starts.

// childAlloc is what each child RLM's cell allocates and holds.
const childAlloc = 380 << 20

// memoryScript is the fake upstream of these tests: the root starts
// `children` child RLMs at once (or holds its worker, for HOLD), and each
// child allocates childAlloc, holds it a moment and answers.
func memoryScript(children int) func(fakellm.Request) fakellm.Reply {
	return func(req fakellm.Request) fakellm.Reply {
		if req.Model == "sub" {
			if strings.Contains(req.LastUser(), "ALLOC") {
				return fakellm.Reply{Content: fmt.Sprintf("```go\nb := strings.Repeat(\"x\", %d)\ntime.Sleep(400 * time.Millisecond)\nFINAL(fmt.Sprint(len(b) >> 20))\n```", childAlloc)}
			}
			return fakellm.Reply{Content: "ok"}
		}
		attack := ""
		for _, m := range req.Messages {
			if i := strings.Index(m.Content, attackMarker); i >= 0 && m.Role == "user" {
				attack = strings.Fields(m.Content[i+len(attackMarker):])[0]
				break
			}
		}
		switch {
		case attack == "trivial":
			return fakellm.Reply{Content: "FINAL(hi)"}
		case attack == "hold" && req.Turn() == 1:
			return fakellm.Reply{Content: "```go\ntime.Sleep(3 * time.Second)\n```"}
		case attack == "hold":
			return fakellm.Reply{Content: "FINAL(held)"}
		}
		if req.Turn() == 1 {
			prompts := strings.TrimSuffix(strings.Repeat(`"ALLOC", `, children), ", ")
			return fakellm.Reply{Content: "```go\nr := rlm_query_batched([]string{" + prompts + "})\nfmt.Println(strings.Join(r, \",\"))\n```"}
		}
		return fakellm.Reply{Content: "FINAL(children done)"}
	}
}

// treeSampler sums the resident memory of a process and its children
// (the server and its REPL workers) every 10 ms, keeping the peak.
type treeSampler struct {
	stop chan struct{}
	done chan int64
}

func sampleTree(pid int) *treeSampler {
	s := &treeSampler{stop: make(chan struct{}), done: make(chan int64, 1)}
	go func() {
		var peak int64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, treeRSS(pid))
			select {
			case <-s.stop:
				s.done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// peak stops the sampler and returns the largest sum it saw.
func (s *treeSampler) peak() int64 {
	close(s.stop)
	return <-s.done
}

// treeRSS is the resident memory of pid and of its direct children.
func treeRSS(pid int) int64 {
	ents, _ := os.ReadDir("/proc")
	page := int64(os.Getpagesize())
	var sum int64
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// The fields after the command name's closing parenthesis: state,
		// ppid, ...
		rest := stat[bytes.LastIndexByte(stat, ')')+1:]
		f := strings.Fields(string(rest))
		if len(f) < 2 || (p != pid && f[1] != strconv.Itoa(pid)) {
			continue
		}
		statm, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", p))
		if err != nil {
			continue
		}
		if sf := strings.Fields(string(statm)); len(sf) > 1 {
			n, _ := strconv.ParseInt(sf[1], 10, 64)
			sum += n * page
		}
	}
	return sum
}

func TestREPLMemoryBudget(t *testing.T) {
	const children = 6
	const total = 1200 << 20 // the root's session and one child's: 2 x (512 + 64) MiB
	up := fakellm.New(memoryScript(children), fakellm.WithoutRecording())
	defer up.Close()
	s := startServer(t, up.URL, "--repl-memory-bytes", "512MiB", "--repl-heap-bytes", "450MiB",
		"--repl-memory-total", strconv.Itoa(total>>20)+"MiB", "--request-repl-memory", strconv.Itoa(total>>20)+"MiB",
		"--max-depth", "1")
	sampler := sampleTree(s.cmd.Process.Pid)
	start := time.Now()
	c, _ := s.chat(t, keyA, "children", "")
	peak := sampler.peak()
	if c.answer() != "children done" {
		t.Fatalf("answer %q", c.answer())
	}
	tr, _ := s.trace(t, keyA, c.RLM.TraceID)
	out := tr.Nodes[0].Turns[0].Cells[0].Output
	if got := strings.Count(out, strconv.Itoa(childAlloc>>20)); got != children {
		// Every failed cell of the tree, to tell why a child gave up.
		var failed []string
		for i, n := range tr.Nodes {
			for j, turn := range n.Turns {
				for k, cell := range turn.Cells {
					if cell.Error != "" {
						failed = append(failed, fmt.Sprintf("node %d turn %d cell %d: %s", i, j+1, k+1, cell.Error))
					}
				}
			}
		}
		t.Errorf("%d of %d children answered (they wait for each other's memory, none fails): %q\nfailed cells:\n%s",
			got, children, out, strings.Join(failed, "\n"))
	}
	// Unbounded, the tree held every child's allocation at once: about
	// children x 400 MiB, 2.4 GB here. Bounded, the workers hold at most
	// the budget; the server itself is under issue 10's 200 MB target.
	bound := int64(total) + 250<<20
	t.Logf("%d children of %d MiB in %v: process tree peak %d MiB (bound %d MiB; unbounded about %d MiB)",
		children, childAlloc>>20, time.Since(start).Round(time.Millisecond), peak>>20, bound>>20, children*(childAlloc>>20+30))
	if peak > bound {
		t.Errorf("process tree peak %d MiB, over the budget's bound of %d MiB", peak>>20, bound>>20)
	}
	s.alive(t)
}

// TestREPLMemoryExhausted: a run that cannot get REPL memory within
// --repl-memory-wait gets 503 repl_memory_exhausted with Retry-After, and
// the server goes on.
func TestREPLMemoryExhausted(t *testing.T) {
	up := fakellm.New(memoryScript(0), fakellm.WithoutRecording())
	defer up.Close()
	s := startServer(t, up.URL, "--repl-memory-bytes", "512MiB", "--repl-heap-bytes", "450MiB",
		"--repl-memory-total", "600MiB", "--repl-memory-wait", "300ms")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if c, _ := s.chat(t, keyA, "hold", ""); c.answer() != "held" {
			t.Errorf("the run holding the memory: answer %q", c.answer())
		}
	}()
	time.Sleep(500 * time.Millisecond) // the first run has its session
	body, _ := json.Marshal(map[string]any{"model": "rlm", "messages": []map[string]string{{"role": "user", "content": attackMarker + "trivial"}}})
	req, _ := http.NewRequest("POST", s.url+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+keyB)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || e.Error.Code != "repl_memory_exhausted" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("second run: %d %+v (Retry-After %q), want 503 repl_memory_exhausted", resp.StatusCode, e.Error, resp.Header.Get("Retry-After"))
	}
	wg.Wait()
	if c, _ := s.chat(t, keyB, "trivial", ""); c.answer() != "hi" {
		t.Errorf("after the first run ended: answer %q", c.answer())
	}
}
