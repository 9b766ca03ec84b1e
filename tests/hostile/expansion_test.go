package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// Issue 24, finding 3: request bodies were expanded before admission. A
// body of many tiny items is small on the wire and huge once decoded (a
// message object, a transcript line, a prompt, a goroutine each), and all
// of it was built before the server looked at its limits.

// tinyMessages is a chat body of n tiny user messages, about 47 bytes each.
func tinyMessages(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"rlm","messages":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":"tiny message %07d"}`, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// postRaw posts body with key and returns the status, the decoded error
// (when there is one) and the time the answer took.
func postRaw(t testing.TB, url, key string, body []byte) (int, apiErr, time.Duration) {
	t.Helper()
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		t.Errorf("POST %s: %v", url, err)
		return 0, apiErr{}, time.Since(start)
	}
	defer resp.Body.Close()
	var e struct {
		Error apiErr `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Error, time.Since(start)
}

type apiErr struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   string `json:"param"`
	Code    string `json:"code"`
}

// TestManyTinyMessagesRefusedWhileDecoding reproduces the audit's attack:
// 1.25 million tiny messages (58 MB), six at once against
// --max-concurrent 2. The server decoded every message, built a 32 MB
// root prompt and sent it upstream: 1 GB for one request, 4 GB for six,
// and the 429s came after 12 s. Now the messages array is refused at its
// 2,049th element with 400, before anything else is built, and the
// server holds little more than the bodies themselves.
func TestManyTinyMessagesRefusedWhileDecoding(t *testing.T) {
	up := fakellm.New(rootScript, fakellm.WithoutRecording())
	defer up.Close()
	s := startServer(t, up.URL, "--max-concurrent", "2")
	body := tinyMessages(1_250_000)
	const parallel = 6
	var wg sync.WaitGroup
	var mu sync.Mutex
	var answers []string
	start := time.Now()
	for range parallel {
		wg.Go(func() {
			status, e, d := postRaw(t, s.url+"/v1/chat/completions", keyA, body)
			mu.Lock()
			answers = append(answers, fmt.Sprintf("%d after %v", status, d.Round(100*time.Millisecond)))
			mu.Unlock()
			if status != http.StatusBadRequest || e.Param != "messages" || e.Code != "array_above_max_length" || !strings.Contains(e.Message, "2048") {
				t.Errorf("status %d, error %+v after %v; want 400 array_above_max_length on messages", status, e, d)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if n := up.Count(); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
	s.alive(t)
	// The bodies are read whole (they are under --max-request-bytes), and
	// that is all the server may hold for them.
	peak := s.peakRSS(t)
	limit := int64(parallel*len(body)) + 150<<20
	if peak > limit {
		t.Errorf("peak RSS %d MiB for %d bodies of %d MB, over %d MiB", peak>>20, parallel, len(body)/1e6, limit>>20)
	}
	if elapsed > 20*time.Second {
		t.Errorf("the six refusals took %v", elapsed)
	}
	t.Logf("%d bodies of %d bytes (%d messages each): %s; all answered in %v; server peak RSS %d MiB",
		parallel, len(body), 1_250_000, strings.Join(answers, ", "), elapsed.Round(time.Millisecond), peak>>20)
}

// TestLongTranscriptOffloaded: 2,000 messages (under --max-messages) of
// 15,000 characters each (under the offload threshold) stayed in the root's
// view, and the first root prompt carried all 30 MB of them to the
// upstream, far beyond any model's window. A transcript that would not fit
// the window goes into the REPL's context instead, and the question stays
// in view.
func TestLongTranscriptOffloaded(t *testing.T) {
	attacks["peek"] = []string{"```go\nfmt.Println(\"pieces\", len(contexts), \"first\", strings.Contains(context, \"000000 www\"))\n```", "FINAL(peeked)"}
	t.Cleanup(func() { delete(attacks, "peek") })
	up := fakellm.New(rootScript)
	defer up.Close()
	s := startServer(t, up.URL)
	const n, size = 2000, 15_000
	msgs := make([]map[string]string, 0, n+1)
	for i := range n {
		role := []string{"user", "assistant"}[i%2]
		msgs = append(msgs, map[string]string{"role": role, "content": fmt.Sprintf("%06d ", i) + strings.Repeat("w", size-7)})
	}
	msgs = append(msgs, map[string]string{"role": "user", "content": attackMarker + "peek"})
	body, err := json.Marshal(map[string]any{"model": "rlm", "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	status, b := s.do(t, "POST", "/v1/chat/completions", keyA, body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %.300s", status, b)
	}
	var c completion
	json.Unmarshal(b, &c)
	if c.answer() != "peeked" {
		t.Fatalf("answer %q", c.answer())
	}
	reqs := up.Requests()
	first := 0
	for _, m := range reqs[0].Messages {
		first += len(m.Content)
	}
	// The default window is 131,072 tokens, about 512 KiB of text.
	if first > 512<<10 {
		t.Errorf("the first root prompt is %d bytes: the transcript was sent inline", first)
	}
	if !strings.Contains(reqs[0].LastUser(), attackMarker+"peek") {
		t.Errorf("the question is not in view: %.300q", reqs[0].LastUser())
	}
	// The cell saw the whole transcript in context.
	if out := reqs[1].LastUser(); !strings.Contains(out, "pieces 1 first true") {
		t.Errorf("cell output %.300q; want the transcript as one piece in contexts", out)
	}
	t.Logf("first root prompt %d bytes for a %d-byte body", first, len(body))
}

// promptFlood is a /v1/completions body of n one-token prompts: [[1],[1],...].
func promptFlood(model string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"` + model + `","max_tokens":1,"prompt":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("[1]")
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestModelServePromptFlood: `rlm model serve` with prompt [[1]] × 3,000,000
// (12 MB) made a job and a goroutine per prompt before the engine's queue
// refused all but a few hundred: 2.9 GB and 30 s, then 429. The prompt
// array is now refused while it is decoded, past --max-prompts.
func TestModelServePromptFlood(t *testing.T) {
	s := startRLM(t, "model", "serve", "--listen", "127.0.0.1:0", "builtin")
	body := promptFlood("rlm-tiny-demo", 3_000_000)
	base := s.peakRSS(t)
	status, e, d := postRaw(t, s.url+"/v1/completions", "", body)
	if status != http.StatusBadRequest || e.Param != "prompt" || e.Code != "array_above_max_length" {
		t.Errorf("status %d, error %+v; want 400 array_above_max_length on prompt", status, e)
	}
	s.alive(t)
	peak := s.peakRSS(t)
	if grew := peak - base; grew > 3*int64(len(body))+64<<20 {
		t.Errorf("peak RSS grew by %d MiB for a %d MB body", grew>>20, len(body)/1e6)
	}
	if d > 10*time.Second {
		t.Errorf("the refusal took %v", d)
	}
	t.Logf("%d-byte body: %d after %v; peak RSS %d MiB (%d MiB at start)", len(body), status, d.Round(time.Millisecond), peak>>20, base>>20)
}
