// Command turngap times an RLM harness from outside, whichever harness it
// is: it serves a scripted OpenAI-compatible upstream (a test double, not a
// model) on a loopback port and records, for each chat request, when its
// body had arrived and when its reply was about to be written. The time from a
// reply to the next request of the same run is the harness's own cost of a
// root turn: reading the reply, running its cell, encoding and sending the
// next request. The fake's own parse of the request is not in it.
//
// It serves until SIGINT/SIGTERM or -timeout, then prints, per model name
// (give each harness its own), the runs, the turns and the median, p90
// and mean gap. The harnesses themselves are started by whatever times
// them as whole processes (hyperfine, /usr/bin/time), against the URL it
// prints on stdout:
//
//	turngap -script turns -turns 20 -haystack /tmp/h.txt -size 100000 &
//	rlm query --upstream URL/v1 --root-model a --context /tmp/h.txt q
//
// Scripts, the same replies for every harness (cells in ```go fences, the
// answer as a FINAL_VAR line, which both rlm and rlm-go-style harnesses
// read):
//   - turns: -turns-1 identical cells (len(context), strings.Count over its
//     first 1000 bytes, a line printed), then FINAL_VAR(n).
//   - niah: look at the text (its length and first 200 bytes), find the
//     needle line with strings.Index and keep the code in a variable, then
//     FINAL_VAR(code).
//
// With -haystack it first writes an S-NIAH haystack of -size bytes there:
// filler lines with one needle line at 70%, whose code it prints on stderr.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	script := flag.String("script", "turns", "reply script: turns or niah")
	turns := flag.Int("turns", 20, "root turns of the turns script, the last one the answer")
	haystack := flag.String("haystack", "", "write an S-NIAH haystack of -size bytes to this file first")
	size := flag.Int("size", 1_000_000, "haystack size in bytes")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	timeout := flag.Duration("timeout", 30*time.Minute, "exit after this long even if never stopped")
	flag.Parse()

	replies, err := scriptReplies(*script, *turns)
	if err == nil && *haystack != "" {
		err = writeHaystack(*haystack, *size)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "turngap:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := serve(ctx, *addr, replies, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "turngap:", err)
		os.Exit(1)
	}
}

// needle is the line hidden in the haystack and the code the niah script
// finds; a harness that answers anything else did not run the script.
const (
	needlePrefix = "The secret launch code is "
	needleCode   = "KX-4471-ZETA"
)

// scriptReplies returns the root's reply for each turn, the last one the
// answer.
func scriptReplies(name string, turns int) ([]string, error) {
	fence := func(src string) string { return "```go\n" + src + "\n```" }
	switch name {
	case "turns":
		if turns < 2 {
			return nil, fmt.Errorf("-turns %d: at least 2 (a cell, then the answer)", turns)
		}
		cell := "Looking.\n" + fence("n := len(context)\nfmt.Println(n, strings.Count(context[:1000], \"x\"))")
		r := slices.Repeat([]string{cell}, turns-1)
		return append(r, "FINAL_VAR(n)"), nil
	case "niah":
		return []string{
			"Looking at the text.\n" + fence("fmt.Println(len(context))\nfmt.Println(context[:200])"),
			"Searching.\n" + fence(`i := strings.Index(context, "`+needlePrefix+`")
line := context[i+len("`+needlePrefix+`"):]
code := line[:strings.Index(line, ".")]
fmt.Println(code)`),
			"FINAL_VAR(code)",
		}, nil
	}
	return nil, fmt.Errorf("unknown -script %q (turns or niah)", name)
}

// writeHaystack writes size bytes of filler lines with the needle line at
// 70%.
func writeHaystack(path string, size int) error {
	const filler = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.\n"
	needle := needlePrefix + needleCode + ".\n"
	var b strings.Builder
	b.Grow(size + len(filler))
	for b.Len() < size*7/10 {
		b.WriteString(filler)
	}
	b.WriteString(needle)
	for b.Len() < size {
		b.WriteString(filler)
	}
	if err := os.WriteFile(path, []byte(b.String()[:size]), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "turngap: wrote %s (%d bytes), the code is %s\n", path, size, needleCode)
	return nil
}

// serve answers chat requests with replies until ctx ends, then writes the
// gaps to out.
func serve(ctx context.Context, addr string, replies []string, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	t := &timer{replies: replies}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", t.chat)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[]}`)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	fmt.Fprintf(out, "http://%s\n", ln.Addr())
	<-ctx.Done()
	srv.Close()
	t.report(out)
	return nil
}

// timer is the scripted upstream and its clock.
type timer struct {
	replies []string

	mu   sync.Mutex
	last map[string]time.Time // model -> when its last reply was written
	gaps map[string][]time.Duration
	runs map[string]int
}

func (t *timer) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	arrived := time.Now()
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	turn := 1
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			turn++
		}
	}
	content := t.replies[min(turn, len(t.replies))-1]
	reply, _ := json.Marshal(map[string]any{
		"id": "turngap", "object": "chat.completion", "created": arrived.Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": len(content) / 4,
			"total_tokens": len(body)/4 + len(content)/4},
	})
	// The run and its gap are counted, and the reply's time noted, before
	// the reply goes out: once the client has it, its next request (or a
	// report) must find them. The time is taken just before the write,
	// microseconds early on loopback.
	t.mu.Lock()
	if t.runs == nil {
		t.last, t.gaps, t.runs = map[string]time.Time{}, map[string][]time.Duration{}, map[string]int{}
	}
	if turn == 1 {
		t.runs[req.Model]++
	} else if last, ok := t.last[req.Model]; ok {
		t.gaps[req.Model] = append(t.gaps[req.Model], arrived.Sub(last))
	}
	t.last[req.Model] = time.Now()
	t.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(reply)))
	w.Write(reply)
	http.NewResponseController(w).Flush()
}

func (t *timer) report(out io.Writer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	models := make([]string, 0, len(t.runs))
	for m := range t.runs {
		models = append(models, m)
	}
	slices.Sort(models)
	fmt.Fprintf(out, "%-24s %5s %6s %10s %10s %10s\n", "model", "runs", "gaps", "p50 µs", "p90 µs", "mean µs")
	for _, m := range models {
		g := slices.Clone(t.gaps[m])
		if len(g) == 0 {
			fmt.Fprintf(out, "%-24s %5d %6d\n", m, t.runs[m], 0)
			continue
		}
		slices.SortFunc(g, cmp.Compare)
		var sum time.Duration
		for _, d := range g {
			sum += d
		}
		pct := func(p float64) float64 { return float64(g[int(p*float64(len(g)-1))].Nanoseconds()) / 1e3 }
		fmt.Fprintf(out, "%-24s %5d %6d %10.0f %10.0f %10.0f\n", m, t.runs[m], len(g), pct(0.5), pct(0.9),
			float64(sum.Nanoseconds())/1e3/float64(len(g)))
	}
}
