package recursion

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
)

// TestKeptConversationUsesNoCPU: the root session a run keeps for a
// follow-up stands still between runs, in the real REPL. The first run's
// cell leaves goroutines spinning (as the audit's did, counting and calling
// llm_query in a loop); once the run returned, its worker process is
// stopped and uses no CPU time over a second (read from /proc/PID/stat).
// The follow-up's cell sees the goroutines going on again.
func TestKeptConversationUsesNoCPU(t *testing.T) {
	script := func(req fakellm.Request) fakellm.Reply {
		last := req.LastUser()
		switch {
		case req.Model == "sub-model":
			return fakellm.Reply{Content: "sub"}
		case strings.Contains(last, "Follow-up"):
			return fakellm.Reply{Content: "```go\na, b := atomic.LoadInt64(&spins), atomic.LoadInt64(&calls)\n" +
				"time.Sleep(300 * time.Millisecond)\n" +
				"FINAL(fmt.Sprint(atomic.LoadInt64(&spins) > a, atomic.LoadInt64(&calls) > b))\n```"}
		case strings.Contains(last, "spin"):
			return fakellm.Reply{Content: "```go\nvar spins, calls int64\n" +
				"go func() { for { atomic.AddInt64(&spins, 1) } }()\n" +
				"go func() { for { time.Sleep(time.Millisecond); llm_query(\"x\"); atomic.AddInt64(&calls, 1) } }()\n" +
				"fmt.Println(\"started\")\n```"}
		case req.Turn() == 2:
			return fakellm.Reply{Content: "FINAL(spinning)"}
		}
		return fakellm.Reply{Content: "FINAL(unexpected)"}
	}
	e, _, _ := realEngine(t, script, Config{RequestREPLMemory: 4 << 30})
	first, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: "spin"}}, Keep: true})
	if err != nil || first.Answer != "spinning" || first.Conversation == nil {
		t.Fatalf("first run: %+v, %v", first, err)
	}
	conv := first.Conversation
	defer conv.Close()

	// The kept worker is the test's only stopped child process.
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		pid = stoppedChild(t)
		if pid == 0 && time.Now().After(deadline) {
			t.Fatal("no worker process of the test is stopped 5s after the run kept its session")
		}
	}
	before := cpuTicks(t, pid)
	time.Sleep(time.Second)
	idle := cpuTicks(t, pid) - before
	t.Logf("kept worker %d: %d clock ticks (1/100 s) of CPU in 1s", pid, idle)
	if idle > 1 {
		t.Errorf("the kept session's worker used %d0ms of CPU in 1s", idle)
	}

	second, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: "still there?"}}, Continue: conv})
	if err != nil || second.Answer != "true true" {
		t.Fatalf("follow-up: %+v, %v", second, err)
	}
	if got := stoppedChild(t); got != pid {
		t.Errorf("after the follow-up, stopped child %d, want the kept worker %d", got, pid)
	}
}

// stoppedChild returns the pid of a child process of the test that is
// stopped (state T in /proc/PID/stat), or 0.
func stoppedChild(t *testing.T) int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range stats {
		state, ppid, _, ok := procStat(f)
		if ok && ppid == os.Getpid() && state == "T" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			return pid
		}
	}
	return 0
}

// cpuTicks is the user and system CPU time of process pid in clock ticks.
func cpuTicks(t *testing.T, pid int) int {
	t.Helper()
	_, _, ticks, ok := procStat("/proc/" + strconv.Itoa(pid) + "/stat")
	if !ok {
		t.Fatalf("cannot read /proc/%d/stat", pid)
	}
	return ticks
}

// procStat reads a /proc/PID/stat file: the state, the parent's pid and
// the user plus system time in clock ticks.
func procStat(path string) (state string, ppid, ticks int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0, 0, false
	}
	// The command name (field 2) may hold spaces; the fields after it
	// start past its closing parenthesis: state is field 3.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return "", 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	utime, err2 := strconv.Atoi(f[11])
	stime, err3 := strconv.Atoi(f[12])
	return f[0], ppid, utime + stime, err1 == nil && err2 == nil && err3 == nil
}
