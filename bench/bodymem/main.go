// Command bodymem measures the peak memory of the real `rlm serve` binary
// for one large chat request: a 40 MiB user message, sent with a
// Content-Length (as SDKs send it) or chunked. It starts the binary as a
// subprocess against fakellm (a scripted fake upstream, a test double, not a
// model: its root prints len(context) in one cell, then answers FINAL), resets
// the server's peak RSS (/proc/PID/clear_refs), sends the request and reads
// the peak (VmHWM) back. The rise over the RSS before the request, divided
// by the payload, is the figure BENCHMARKS.md records; the in-process
// benchmark (go test -bench 40MB ./server) has no engine, traces or REPL
// behind the handler.
//
//	go run ./bench/bodymem [-bin rlm] [-mb 40] [-runs 3]
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

func main() {
	bin := flag.String("bin", "", "rlm binary (default: go build ./cmd/rlm into a temp dir)")
	mb := flag.Int("mb", 40, "message size in MiB")
	runs := flag.Int("runs", 3, "requests per mode; the worst peak is reported")
	flag.Parse()
	if err := run(*bin, *mb, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bodymem:", err)
		os.Exit(1)
	}
}

func run(bin string, mb, runs int) error {
	dir, err := os.MkdirTemp("", "bodymem-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		bin = filepath.Join(dir, "rlm")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/rlm").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Turn() == 1 {
			return fakellm.Reply{Content: fakellm.Code("import \"fmt\"\nfmt.Println(len(context))")}
		}
		return fakellm.Reply{Content: "FINAL(done)"}
	})
	defer up.Close()
	size := int64(mb) << 20
	fmt.Printf("rlm serve, %d MiB user message, worst of %d runs, each in a fresh server process\n", mb, runs)
	fmt.Printf("| request | RSS before MB | peak rise MB | × payload |\n| --- | --- | --- | --- |\n")
	for _, chunked := range []bool{false, true} {
		var worst, before int64
		for range runs {
			b, d, err := measure(bin, dir, up.URL, size, chunked)
			if err != nil {
				return err
			}
			if d > worst {
				worst, before = d, b
			}
		}
		name := "with Content-Length"
		if chunked {
			name = "chunked"
		}
		fmt.Printf("| `POST /v1/chat/completions`, %d MiB message, %s | %.0f | %.0f | %.1f |\n",
			mb, name, float64(before)/1024, float64(worst)/1024, float64(worst*1024)/float64(size))
	}
	return nil
}

// measure starts rlm serve, sends one request and returns the server's RSS
// before it and the rise of its peak RSS, in KiB.
func measure(bin, dir, upstream string, size int64, chunked bool) (before, rise int64, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	addr := ln.Addr().String()
	ln.Close()
	data, err := os.MkdirTemp(dir, "data-*")
	if err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(bin, "serve", "--listen", addr, "--upstream", upstream, "--root-model", "m",
		"--data-dir", data, "--log-level", "warn", "--repl-workers", "1")
	cmd.Env = append(os.Environ(), "RLM_CONFIG=")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	base := "http://" + addr
	for i := 0; ; i++ {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if i > 200 {
			return 0, 0, fmt.Errorf("rlm serve did not become ready:\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	pid := cmd.Process.Pid
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return 0, 0, fmt.Errorf("reset peak RSS: %w", err)
	}
	before = statusKB(pid, "VmRSS")
	if err := chat(base, size, chunked); err != nil {
		return 0, 0, err
	}
	return before, statusKB(pid, "VmHWM") - before, nil
}

// chat sends one request whose user message is size bytes of text,
// streamed, and checks the answer.
func chat(base string, size int64, chunked bool) error {
	head := []byte(`{"model":"rlm","messages":[{"role":"user","content":"`)
	tail := []byte(`"}]}`)
	body := io.MultiReader(bytes.NewReader(head), &pattern{n: size}, bytes.NewReader(tail))
	req, err := http.NewRequestWithContext(context.Background(), "POST", base+"/v1/chat/completions", body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if !chunked {
		req.ContentLength = int64(len(head)) + size + int64(len(tail))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"content":"done"`)) {
		return fmt.Errorf("chat: %d %s", resp.StatusCode, b)
	}
	return nil
}

// pattern yields n bytes of JSON-safe text without holding them.
type pattern struct{ n int64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.n {
		b = b[:p.n]
	}
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	p.n -= int64(len(b))
	return len(b), nil
}

func statusKB(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return 0
}
