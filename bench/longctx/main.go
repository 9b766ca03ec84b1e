// Command longctx measures the 10M-token path of the RLM gateway: it runs
// `rlm serve` against a fake upstream (eval/fakemodel over
// internal/fakellm: a test double whose root writes correct Go for the task
// and whose sub-model answers from the text it is given), uploads each
// document through /v1/files, asks the question in a chat completion that
// references it, and reports upload time, time from request to the first
// root-model call, REPL time of the root's code, total wall time, and the
// peak memory of the server and of its REPL workers. With -mode engine it
// measures the same path through the engine in-process instead of the
// gateway. See BENCHMARKS.md.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/eval/fakemodel"
	"github.com/rlm-project/rlm/gateway"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

func main() {
	// This binary is also the REPL worker (-mode engine and gateway) and the
	// gateway process (-mode gateway).
	repl.MaybeRunWorker()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	if addr := os.Getenv("LONGCTX_GATEWAY_ADDR"); addr != "" {
		err = runGateway(ctx, addr, os.Getenv("LONGCTX_GATEWAY_DATA"))
	} else {
		err = run(ctx, os.Args[1:])
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "longctx:", err)
		os.Exit(1)
	}
}

// measurement is one case's numbers.
type measurement struct {
	Case         string  `json:"case"`
	Mode         string  `json:"mode"`
	Tokens       int     `json:"tokens"`
	Bytes        int64   `json:"bytes"`
	GenerateSec  float64 `json:"generate_s"`
	UploadSec    float64 `json:"upload_s"`     // serve mode only
	FirstRootSec float64 `json:"first_root_s"` // request sent -> first root call reaches the upstream
	REPLSec      float64 `json:"repl_s"`       // root node's cells, sub-calls made from them included
	TotalSec     float64 `json:"total_s"`      // request sent -> answer received
	ServerPeakMB float64 `json:"server_peak_rss_mb"`
	WorkerPeakMB float64 `json:"worker_peak_rss_mb"`
	Score        float64 `json:"score"`
	LLMCalls     int     `json:"llm_calls"`
	Answer       string  `json:"answer"`
	Runs         int     `json:"runs"`
}

// firstRoot remembers when the fake upstream first saw a root-model call.
type firstRoot struct {
	mu sync.Mutex
	t  time.Time
}

func (f *firstRoot) reset() { f.mu.Lock(); f.t = time.Time{}; f.mu.Unlock() }
func (f *firstRoot) mark() {
	f.mu.Lock()
	if f.t.IsZero() {
		f.t = time.Now()
	}
	f.mu.Unlock()
}
func (f *firstRoot) get() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("longctx", flag.ContinueOnError)
	mode := fs.String("mode", "serve", "serve: through `rlm serve` over HTTP; gateway: through the gateway package (gateway.New) over HTTP in a child process; engine: through the engine in-process")
	rlmBin := fs.String("rlm", "", "rlm binary for -mode serve (default: go build ./cmd/rlm)")
	cases := fs.String("cases", "sniah:128k,sniah:1m,sniah:10m,oolong:128k,oolong:1m", "comma-separated task:length cases")
	seed := fs.Int64("seed", 1, "instance seed")
	index := fs.Int("index", 0, "instance index (oolong: 0 is a count question)")
	workDir := fs.String("workdir", "", "directory for generated documents and logs (default: a temporary one)")
	jsonOut := fs.String("json", "", "also write the measurements as JSON to this `file`")
	maxCalls := fs.Int("max-calls", 1000, "LLM-call budget per request")
	maxTokens := fs.Int("max-tokens", 100_000_000, "token budget per request (OOLONG at 10M sends ~11M tokens to the sub-model)")
	repeat := fs.Int("repeat", 3, "runs per case; times are medians, memory the largest peak")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *mode != "serve" && *mode != "gateway" && *mode != "engine" {
		return fmt.Errorf("-mode %q: want serve, gateway or engine", *mode)
	}
	dir := *workDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "rlm-longctx-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	if *mode == "serve" && *rlmBin == "" {
		*rlmBin = filepath.Join(dir, "rlm")
		fmt.Fprintln(os.Stderr, "building rlm ...")
		b := exec.CommandContext(ctx, "go", "build", "-o", *rlmBin, "./cmd/rlm")
		b.Stdout, b.Stderr = os.Stderr, os.Stderr
		if err := b.Run(); err != nil {
			return fmt.Errorf("build rlm: %w", err)
		}
	}

	var fr firstRoot
	script := fakemodel.Script("root")
	fake := fakellm.New(func(r fakellm.Request) fakellm.Reply {
		if r.Model == "root" {
			fr.mark()
		}
		return script(r)
	})
	defer fake.Close()

	var ms []measurement
	for _, c := range strings.Split(*cases, ",") {
		name, length, ok := strings.Cut(strings.TrimSpace(c), ":")
		if !ok {
			return fmt.Errorf("case %q: want task:length", c)
		}
		tokens, err := eval.ParseLength(length)
		if err != nil {
			return err
		}
		task, err := eval.NewTask(name, eval.TaskOptions{Depth: 0.5})
		if err != nil {
			return err
		}
		doc := filepath.Join(dir, fmt.Sprintf("%s-%d.txt", name, tokens))
		t0 := time.Now()
		inst, err := generate(ctx, task, doc, eval.Spec{Tokens: tokens, Index: *index, Seed: *seed})
		genSec := time.Since(t0).Seconds()
		if err != nil {
			return err
		}
		var runs []measurement
		for rep := 0; rep < max(*repeat, 1); rep++ {
			m := measurement{Case: c, Mode: *mode, Tokens: tokens, Bytes: inst.Bytes, GenerateSec: genSec}
			fr.reset()
			switch *mode {
			case "serve":
				cmd := func(addr string) *exec.Cmd {
					return exec.Command(*rlmBin, "serve", "--listen", addr, "--upstream", fake.URL, "--upstream-key", "fake",
						"--root-model", "root", "--sub-model", "sub", "--models", "root", "--data-dir", filepath.Join(dir, "data"),
						"--max-llm-calls", strconv.Itoa(*maxCalls), "--max-total-tokens", strconv.Itoa(*maxTokens), "--log-level", "warn")
				}
				err = measureHTTP(ctx, cmd, fake.URL, dir, doc, inst, *maxCalls, *maxTokens, &fr, &m)
			case "gateway":
				self, err2 := os.Executable()
				if err2 != nil {
					return err2
				}
				cmd := func(addr string) *exec.Cmd {
					c := exec.Command(self)
					c.Env = append(os.Environ(), "LONGCTX_GATEWAY_ADDR="+addr, "LONGCTX_GATEWAY_DATA="+filepath.Join(dir, "data"))
					return c
				}
				err = measureHTTP(ctx, cmd, fake.URL, dir, doc, inst, *maxCalls, *maxTokens, &fr, &m)
			default:
				err = measureEngine(ctx, fake.URL, doc, inst, *maxCalls, *maxTokens, &fr, &m)
			}
			if err != nil {
				os.Remove(doc)
				return fmt.Errorf("%s: %w", c, err)
			}
			if m.Score, err = eval.Score(inst, m.Answer); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%s run %d: score %.2f, upload %.2fs, total %.2fs\n", c, rep+1, m.Score, m.UploadSec, m.TotalSec)
			runs = append(runs, m)
		}
		os.Remove(doc)
		m := combine(runs)
		ms = append(ms, m)
	}
	printTable(os.Stdout, ms)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(ms, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// combine takes the median of each time and the largest memory peak and
// the smallest score of repeated runs of one case.
func combine(runs []measurement) measurement {
	med := func(get func(measurement) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = get(r)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	m := runs[0]
	m.UploadSec = med(func(r measurement) float64 { return r.UploadSec })
	m.FirstRootSec = med(func(r measurement) float64 { return r.FirstRootSec })
	m.REPLSec = med(func(r measurement) float64 { return r.REPLSec })
	m.TotalSec = med(func(r measurement) float64 { return r.TotalSec })
	for _, r := range runs {
		m.ServerPeakMB, m.WorkerPeakMB = max(m.ServerPeakMB, r.ServerPeakMB), max(m.WorkerPeakMB, r.WorkerPeakMB)
		m.Score = min(m.Score, r.Score)
	}
	m.Runs = len(runs)
	return m
}

func generate(ctx context.Context, t eval.Task, path string, spec eval.Spec) (eval.Instance, error) {
	f, err := os.Create(path)
	if err != nil {
		return eval.Instance{}, err
	}
	inst, err := t.Generate(ctx, f, spec)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return inst, err
}

func printTable(w io.Writer, ms []measurement) {
	fmt.Fprintln(w, "| case | mode | MB | upload s | first root call s | REPL s (root code) | total s | server peak RSS MB | worker peak RSS MB | LLM calls | score |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, m := range ms {
		up := "-"
		if m.Mode != "engine" {
			up = fmt.Sprintf("%.2f", m.UploadSec)
		}
		fmt.Fprintf(w, "| %s | %s | %.1f | %s | %.2f | %.2f | %.2f | %.0f | %.0f | %d | %.2f |\n",
			m.Case, m.Mode, float64(m.Bytes)/1e6, up, m.FirstRootSec, m.REPLSec, m.TotalSec,
			m.ServerPeakMB, m.WorkerPeakMB, m.LLMCalls, m.Score)
	}
}

// measureEngine runs the case through the engine in this process. The
// "server" memory is then this process's, fake upstream included.
func measureEngine(ctx context.Context, upstreamURL, doc string, inst eval.Instance, maxCalls, maxTokens int, fr *firstRoot, m *measurement) error {
	eng, err := gateway.NewEngine(gateway.EngineConfig{Recursion: recursion.Config{RootModel: "root", SubModel: "sub"},
		Upstream: upstream.Config{BaseURL: upstreamURL, APIKey: "fake"}})
	if err != nil {
		return err
	}
	defer eng.Close()
	s := startSampler(os.Getpid())
	obs := &cellTimer{}
	start := time.Now()
	res, err := eng.Run(ctx, recursion.Request{
		Messages:  []llm.Message{{Role: "user", Content: inst.Question}},
		Documents: []recursion.Document{{Name: "context.txt", Path: doc}},
		Limits:    recursion.Limits{MaxLLMCalls: maxCalls, MaxTotalTokens: maxTokens},
		Observer:  obs,
	})
	m.TotalSec = time.Since(start).Seconds()
	m.ServerPeakMB, m.WorkerPeakMB = s.stop()
	if err != nil {
		return err
	}
	if t := fr.get(); !t.IsZero() {
		m.FirstRootSec = t.Sub(start).Seconds()
	}
	m.REPLSec, m.Answer, m.LLMCalls = obs.total().Seconds(), res.Answer, res.LLMCalls
	return nil
}

// cellTimer sums the durations of the root node's cells.
type cellTimer struct {
	mu  sync.Mutex
	sum time.Duration
}

func (c *cellTimer) Observe(ev recursion.Event) {
	if ev.Kind == recursion.EventCellEnd && ev.NodeID == "0" && ev.CellRun != nil {
		c.mu.Lock()
		c.sum += ev.CellRun.Duration
		c.mu.Unlock()
	}
}

func (c *cellTimer) total() time.Duration { c.mu.Lock(); defer c.mu.Unlock(); return c.sum }

// measureHTTP starts a fresh gateway process with newCmd (so that its peak
// memory is this case's), uploads doc, and asks the question over HTTP with
// streaming, to read the REPL time from the progress events.
func measureHTTP(ctx context.Context, newCmd func(addr string) *exec.Cmd, upstreamURL, dir, doc string, inst eval.Instance, maxCalls, maxTokens int, fr *firstRoot, m *measurement) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := newCmd(addr)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+upstreamURL, "OPENAI_API_KEY=fake",
		"RLM_ROOT_MODEL=root", "RLM_SUB_MODEL=sub")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start gateway: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}()
	base := "http://" + addr
	if err := waitHealthy(ctx, base, exited); err != nil {
		b, _ := os.ReadFile(logf.Name())
		return fmt.Errorf("%w; server log:\n%s", err, b)
	}
	s := startSampler(cmd.Process.Pid)
	defer s.stop()

	t0 := time.Now()
	id, err := upload(ctx, base, doc)
	if err != nil {
		return err
	}
	m.UploadSec = time.Since(t0).Seconds()

	body, _ := json.Marshal(map[string]any{
		"model":  "root",
		"stream": true,
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": inst.Question},
			map[string]any{"type": "file", "file": map[string]string{"file_id": id}},
		}}},
		"rlm": map[string]any{"max_llm_calls": maxCalls, "max_total_tokens": maxTokens},
	})
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("chat: %s: %s", resp.Status, b)
	}
	var answer strings.Builder
	var replTime time.Duration
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			RLM struct {
				Event      string `json:"event"`
				Node       string `json:"node"`
				Kind       string `json:"kind"`
				DurationMS int64  `json:"duration_ms"`
				LLMCalls   int    `json:"llm_calls"` // in the final chunk
			} `json:"rlm"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return fmt.Errorf("chat: bad chunk %q: %w", data, err)
		}
		if ch.Error != nil {
			return fmt.Errorf("chat: %s", ch.Error.Message)
		}
		for _, c := range ch.Choices {
			answer.WriteString(c.Delta.Content)
		}
		switch {
		case ch.RLM.Event == string(recursion.EventCellEnd) && ch.RLM.Node == "0":
			replTime += time.Duration(ch.RLM.DurationMS) * time.Millisecond
		case ch.RLM.LLMCalls > 0:
			m.LLMCalls = ch.RLM.LLMCalls
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("chat: read stream: %w", err)
	}
	m.TotalSec = time.Since(start).Seconds()
	m.ServerPeakMB, m.WorkerPeakMB = s.stop()
	if t := fr.get(); !t.IsZero() {
		m.FirstRootSec = t.Sub(start).Seconds()
	}
	m.REPLSec, m.Answer = replTime.Seconds(), answer.String()
	return nil
}

func waitHealthy(ctx context.Context, base string, exited <-chan error) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("gateway exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("gateway did not become healthy in 60s")
}

// upload streams doc as a multipart upload, never holding it in memory.
func upload(ctx context.Context, base, doc string) (string, error) {
	f, err := os.Open(doc)
	if err != nil {
		return "", err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := mw.WriteField("purpose", "user_data")
		if err == nil {
			var part io.Writer
			if part, err = mw.CreateFormFile("file", filepath.Base(doc)); err == nil {
				if _, err = io.Copy(part, f); err == nil {
					err = mw.Close()
				}
			}
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/files", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("upload: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("upload: %s: %s", resp.Status, b)
	}
	var obj struct{ ID string }
	if err := json.Unmarshal(b, &obj); err != nil || obj.ID == "" {
		return "", fmt.Errorf("upload: bad reply %s", b)
	}
	return obj.ID, nil
}

// sampler polls the peak resident set (VmHWM) of a process and of all its
// descendants (the REPL workers) every 20ms until stopped.
type sampler struct {
	pid            int
	done           chan struct{}
	wg             sync.WaitGroup
	mu             sync.Mutex
	server, worker int64 // kB
	once           sync.Once
}

func startSampler(pid int) *sampler {
	s := &sampler{pid: pid, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			s.poll()
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// stop returns the peaks in MB.
func (s *sampler) stop() (server, worker float64) {
	s.once.Do(func() { close(s.done); s.wg.Wait(); s.poll() })
	s.mu.Lock()
	defer s.mu.Unlock()
	return float64(s.server) / 1024, float64(s.worker) / 1024
}

func (s *sampler) poll() {
	hwm := func(pid int) int64 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return 0
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				return n
			}
		}
		return 0
	}
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name may hold spaces; the fields after its ')' do not.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	isDesc := func(pid int) bool {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == s.pid {
				return true
			}
		}
		return false
	}
	server := hwm(s.pid)
	var worker int64
	for pid := range parent {
		if isDesc(pid) {
			worker = max(worker, hwm(pid))
		}
	}
	s.mu.Lock()
	s.server, s.worker = max(s.server, server), max(s.worker, worker)
	s.mu.Unlock()
}

// runGateway is the gateway process of -mode gateway: gateway.New, as
// `rlm serve` assembles it, with a disk store in data and the upstream and
// models from the environment measureHTTP sets. It runs in a process of its
// own so that the peak memory measured is the gateway's alone, not the
// generated documents'.
func runGateway(ctx context.Context, addr, data string) error {
	root := os.Getenv("RLM_ROOT_MODEL")
	g, err := gateway.New(ctx, gateway.Config{
		Store:  gateway.StoreConfig{Kind: gateway.StoreDisk, Dir: data},
		Models: []gateway.Model{{Alias: root, Upstream: root}},
		Engine: gateway.EngineConfig{
			Recursion: recursion.Config{RootModel: root, SubModel: os.Getenv("RLM_SUB_MODEL")},
			Upstream:  upstream.Config{BaseURL: os.Getenv("OPENAI_BASE_URL"), APIKey: os.Getenv("OPENAI_API_KEY")},
		},
		Probe: gateway.ProbeConfig{Timeout: 5 * time.Second},
	})
	if err != nil {
		return err
	}
	defer g.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- g.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return g.Shutdown(sctx)
}
