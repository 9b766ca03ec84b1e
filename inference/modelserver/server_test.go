package modelserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/inference/inferencetest"
	"github.com/rlm-project/rlm/inference/modelserver"
	"github.com/rlm-project/rlm/model/tokenizer"
)

// The server runs a small random model (see inferencetest): its text is
// gibberish, so the tests compare the API with the engine, not with words.

func start(t *testing.T, ecfg inference.Config, acfg modelserver.Config) (*inference.Engine, string) {
	t.Helper()
	m, tok := inferencetest.Model(t, 3)
	ecfg.Name = "tiny"
	e, err := inference.New(m, tok, ecfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(modelserver.New(e, acfg))
	t.Cleanup(func() {
		srv.Close()
		e.Close()
	})
	return e, srv.URL + "/v1"
}

func client(base, key string) *openai.Client {
	c := openai.DefaultConfig(key)
	c.BaseURL = base
	return openai.NewClientWithConfig(c)
}

func promptIDs(t *testing.T, e *inference.Engine, msgs ...tokenizer.Message) []int32 {
	ids, err := e.Tokenizer().EncodePrompt(msgs)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out
}

// post sends a raw JSON body and decodes the answer.
func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: answer is not JSON: %q", url, raw)
	}
	return resp.StatusCode, out
}

func TestChatWithGoOpenAI(t *testing.T) {
	e, base := start(t, inference.Config{}, modelserver.Config{Keys: []string{"k1"}})
	c := client(base, "k1")
	ctx := context.Background()
	msgs := []openai.ChatCompletionMessage{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Count to three."}}
	want, err := e.Generate(ctx, inference.Request{Prompt: promptIDs(t, e, tokenizer.Message{Role: "system", Content: "Be brief."},
		tokenizer.Message{Role: "user", Content: "Count to three."}), MaxTokens: 20, Sampling: inference.Sampling{Logprobs: true, TopLogprobs: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "tiny", Messages: msgs, MaxTokens: 20,
		LogProbs: true, TopLogProbs: 2, Temperature: math.SmallestNonzeroFloat32})
	if err != nil {
		t.Fatal(err)
	}
	ch := resp.Choices[0]
	if resp.Object != "chat.completion" || resp.Model != "tiny" || ch.Message.Role != "assistant" {
		t.Errorf("response %+v", resp)
	}
	if ch.Message.Content != jsonText(want.Text) || string(ch.FinishReason) != want.FinishReason {
		t.Errorf("content %q finish %q, engine says %q %q", ch.Message.Content, ch.FinishReason, want.Text, want.FinishReason)
	}
	if ch.LogProbs == nil || len(ch.LogProbs.Content) != len(want.Tokens) {
		t.Fatalf("logprobs %+v for %d tokens", ch.LogProbs, len(want.Tokens))
	}
	for i, lp := range ch.LogProbs.Content {
		if math.Abs(lp.LogProb-want.Tokens[i].Logprob) > 1e-9 || len(lp.TopLogProbs) != 2 || lp.TopLogProbs[0].LogProb < lp.TopLogProbs[1].LogProb {
			t.Errorf("logprob %d: %+v, engine %+v", i, lp, want.Tokens[i])
		}
	}
	if resp.Usage.PromptTokens != len(want.PromptTokens) || resp.Usage.CompletionTokens != len(want.Tokens) ||
		resp.Usage.TotalTokens != len(want.PromptTokens)+len(want.Tokens) {
		t.Errorf("usage %+v for %d+%d tokens", resp.Usage, len(want.PromptTokens), len(want.Tokens))
	}
	if resp.Usage.PromptTokensDetails == nil || resp.Usage.PromptTokensDetails.CachedTokens == 0 {
		t.Errorf("the same prompt again came from the cache, usage says %+v", resp.Usage.PromptTokensDetails)
	}

	// Streamed: the pieces add up to the same text, and usage comes last.
	stream, err := c.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{Model: "tiny", Messages: msgs, MaxTokens: 20,
		Temperature: math.SmallestNonzeroFloat32, Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true}})
	if err != nil {
		t.Fatal(err)
	}
	var text, finish string
	var usage *openai.Usage
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, c := range chunk.Choices {
			text += c.Delta.Content
			if c.FinishReason != "" {
				finish = string(c.FinishReason)
			}
		}
	}
	stream.Close()
	if text != jsonText(want.Text) || finish != want.FinishReason || usage == nil || usage.CompletionTokens != len(want.Tokens) {
		t.Errorf("stream: %q %q usage %+v; want %q %q", text, finish, usage, want.Text, want.FinishReason)
	}

	// n choices, seeded: independent and each reproducible.
	seed := 11
	nreq := openai.ChatCompletionRequest{Model: "tiny", Messages: msgs, MaxTokens: 12, N: 3, Temperature: 1, Seed: &seed}
	a, err := c.CreateChatCompletion(ctx, nreq)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.CreateChatCompletion(ctx, nreq)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Choices) != 3 {
		t.Fatalf("%d choices", len(a.Choices))
	}
	for i := range a.Choices {
		if a.Choices[i].Index != i || a.Choices[i].Message.Content != b.Choices[i].Message.Content {
			t.Errorf("choice %d: %q then %q", i, a.Choices[i].Message.Content, b.Choices[i].Message.Content)
		}
	}
	if a.Choices[0].Message.Content == a.Choices[1].Message.Content && a.Choices[1].Message.Content == a.Choices[2].Message.Content {
		t.Errorf("three sampled choices are all %q", a.Choices[0].Message.Content)
	}
	models, err := c.ListModels(ctx)
	if err != nil || len(models.Models) != 1 || models.Models[0].ID != "tiny" {
		t.Errorf("models %+v, %v", models, err)
	}
	if _, err := client(base, "wrong").ListModels(ctx); err == nil {
		t.Error("a wrong API key was accepted")
	}
}

func TestCompletionsWithGoOpenAI(t *testing.T) {
	e, base := start(t, inference.Config{}, modelserver.Config{})
	c := client(base, "")
	ctx := context.Background()
	resp, err := c.CreateCompletion(ctx, openai.CompletionRequest{Model: "tiny", Prompt: "Once upon a time", MaxTokens: 10,
		Temperature: math.SmallestNonzeroFloat32, LogProbs: 2})
	if err != nil {
		t.Fatal(err)
	}
	ids := e.Tokenizer().Encode("Once upon a time")
	p := make([]int32, len(ids))
	for i, id := range ids {
		p[i] = int32(id)
	}
	want, err := e.Generate(ctx, inference.Request{Prompt: p, MaxTokens: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := resp.Choices[0]
	if resp.Object != "text_completion" || ch.Text != jsonText(want.Text) || ch.FinishReason != want.FinishReason || ch.LogProbs.Tokens == nil ||
		len(ch.LogProbs.TokenLogprobs) != len(want.Tokens) || len(ch.LogProbs.TopLogprobs[0]) == 0 {
		t.Errorf("completion %+v, engine %q", resp, want.Text)
	}
	if resp.Usage.PromptTokens != len(p) {
		t.Errorf("usage %+v for a prompt of %d tokens", resp.Usage, len(p))
	}
}

// TestReturnTokenIDs: the extension returns the exact prompt and completion
// tokens; a completion prompt may be those ids, and gives the same result.
func TestReturnTokenIDs(t *testing.T) {
	e, base := start(t, inference.Config{}, modelserver.Config{})
	status, out := post(t, base+"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hello"}],
		"max_tokens":15,"temperature":0,"return_token_ids":true}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, out)
	}
	prompt := toInts(out["prompt_token_ids"])
	if want := promptIDs(t, e, tokenizer.Message{Role: "user", Content: "hello"}); !slices.Equal(prompt, want) {
		t.Errorf("prompt_token_ids %v, want %v", prompt, want)
	}
	choice := out["choices"].([]any)[0].(map[string]any)
	completion := toInts(choice["token_ids"])
	if len(completion) == 0 {
		t.Fatal("no token_ids")
	}
	body, _ := json.Marshal(map[string]any{"model": "tiny", "prompt": prompt, "max_tokens": 15, "temperature": 0, "return_token_ids": true, "stream": true})
	resp, err := http.Post(base+"/completions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var streamed []int32
	var promptBack []int32
	for _, line := range strings.Split(string(raw), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch map[string]any
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		if p, ok := ch["prompt_token_ids"]; ok {
			promptBack = toInts(p)
		}
		for _, c := range ch["choices"].([]any) {
			streamed = append(streamed, toInts(c.(map[string]any)["token_ids"])...)
		}
	}
	if !slices.Equal(streamed, completion) || !slices.Equal(promptBack, prompt) {
		t.Errorf("streamed completion of the token-id prompt: %v (prompt %v), chat gave %v", streamed, promptBack, completion)
	}
	if !strings.HasSuffix(string(raw), "data: [DONE]\n\n") {
		t.Errorf("stream does not end with [DONE]: %q", raw)
	}
}

// jsonText is s as it reads after a trip through JSON, which replaces each
// byte of invalid UTF-8 (a random model writes some) with U+FFFD.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	var out string
	json.Unmarshal(b, &out)
	return out
}

func toInts(v any) []int32 {
	var out []int32
	list, _ := v.([]any)
	for _, x := range list {
		out = append(out, int32(x.(float64)))
	}
	return out
}

func TestBadRequests(t *testing.T) {
	_, base := start(t, inference.Config{MaxModelLen: 100}, modelserver.Config{MaxRequestBytes: 4096})
	msg := `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct {
		path, body string
		status     int
		param      string
	}{
		{"/chat/completions", `{`, 400, ""},
		{"/chat/completions", `{"model":"other",` + msg + `}`, 404, "model"},
		{"/chat/completions", `{` + msg + `}`, 400, "model"},
		{"/chat/completions", `{"model":"tiny"}`, 400, "messages"},
		{"/chat/completions", `{"model":"tiny","messages":"hi"}`, 400, "messages"},
		{"/chat/completions", `{"model":"tiny","messages":[]}`, 400, "messages"},
		{"/chat/completions", `{"model":"tiny","messages":[{"role":"robot","content":"hi"}]}`, 400, "messages[0].role"},
		{"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":[{"type":"image_url"}]}]}`, 400, "messages[0].content"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"temperature":3}`, 400, "temperature"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"temperature":"hot"}`, 400, "temperature"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"top_p":0}`, 400, "top_p"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"n":0}`, 400, "n"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"max_tokens":0}`, 400, "max_tokens"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"max_tokens":1000}`, 400, "max_tokens"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"top_logprobs":3}`, 400, "top_logprobs"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"logprobs":true,"top_logprobs":30}`, 400, "top_logprobs"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"stop":["a","b","c","d","e"]}`, 400, "stop"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"stop":5}`, 400, "stop"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"tools":[{"type":"function"}]}`, 400, "tools"},
		{"/chat/completions", `{"model":"tiny",` + msg + `,"presence_penalty":1}`, 400, "presence_penalty"},
		{"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"` + strings.Repeat("x", 5000) + `"}]}`, 413, ""},
		{"/completions", `{"model":"tiny"}`, 400, "prompt"},
		{"/completions", `{"model":"tiny","prompt":[999999]}`, 400, "prompt"},
		{"/completions", `{"model":"tiny","prompt":{"a":1}}`, 400, "prompt"},
		{"/completions", `{"model":"tiny","prompt":"x","echo":true}`, 400, "echo"},
		{"/completions", `{"model":"tiny","prompt":"x","logprobs":21}`, 400, "logprobs"},
		{"/nothing", `{}`, 404, ""},
	} {
		status, out := post(t, base+tc.path, tc.body)
		e, _ := out["error"].(map[string]any)
		if status != tc.status || e == nil || e["message"] == "" || e["type"] == nil {
			t.Errorf("%s %s: status %d, body %v; want %d with an OpenAI error", tc.path, tc.body, status, out, tc.status)
			continue
		}
		if tc.param != "" && e["param"] != tc.param {
			t.Errorf("%s %s: param %v, want %s", tc.path, tc.body, e["param"], tc.param)
		}
	}
}

// TestQueueFull429: with one sequence slot busy and no room to wait, a
// request gets 429 with Retry-After and OpenAI's error JSON.
func TestQueueFull429(t *testing.T) {
	e, base := start(t, inference.Config{MaxSeqs: 1, MaxQueued: 1, QueueWait: 30 * time.Second}, modelserver.Config{RetryAfter: 3 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_tokens":8000,"ignore_eos":true,"stream":true}`
	send := func() {
		for range 2 { // one runs, one waits
			req, _ := http.NewRequestWithContext(ctx, "POST", base+"/chat/completions", strings.NewReader(body))
			go func() {
				if resp, err := http.DefaultClient.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
	}
	send()
	sent := time.Now()
	for st := e.Stats(); st.Running != 1 || st.Waiting != 1; st = e.Stats() {
		// On a loaded machine the tiny model can finish the first request
		// before the second arrives: then both are sent again.
		if st.Running == 0 && st.Waiting == 0 && time.Since(sent) > 200*time.Millisecond {
			send()
			sent = time.Now()
		}
		time.Sleep(time.Millisecond)
	}
	resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || !strings.Contains(string(raw), `"rate_limit_exceeded"`) {
		t.Errorf("status %d, Retry-After %q, body %s", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}
	cancel()
	for e.Stats().Running+e.Stats().Waiting != 0 || e.Stats().KVBlocksHeld != 0 {
		time.Sleep(time.Millisecond)
	}
}

// TestRequestCaps: messages, content parts, prompts, a prompt's token ids
// and stop sequences past their caps are refused with a 400 naming the
// parameter, as are choices the engine could never hold at once.
func TestRequestCaps(t *testing.T) {
	_, base := start(t, inference.Config{MaxModelLen: 100, MaxSeqs: 2, MaxQueued: 4},
		modelserver.Config{MaxMessages: 2, MaxContentParts: 3, MaxPrompts: 3})
	ids := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]" }
	part := `{"type":"text","text":"p"}`
	for _, tc := range []struct {
		path, body  string
		status      int
		param, code string
	}{
		{"/chat/completions", `{"model":"tiny","max_tokens":1,"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, 200, "", ""},
		{"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"}]}`, 400, "messages", "array_above_max_length"},
		{"/chat/completions", `{"model":"tiny","max_tokens":1,"messages":[{"role":"user","content":[` + part + `,` + part + `]},{"role":"user","content":[` + part + `]}]}`, 200, "", ""},
		{"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":[` + part + `,` + part + `]},{"role":"user","content":[` + part + `,` + part + `]}]}`, 400, "messages[1].content", "array_above_max_length"},
		{"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"a"}],"stop":["a","b","c","d","e"]}`, 400, "stop", "array_above_max_length"},
		{"/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"a"}],"n":7}`, 400, "n", "invalid_value"},
		{"/completions", `{"model":"tiny","max_tokens":1,"prompt":["a","b","c"]}`, 200, "", ""},
		{"/completions", `{"model":"tiny","prompt":["a","b","c","d"]}`, 400, "prompt", "array_above_max_length"},
		{"/completions", `{"model":"tiny","prompt":[[1],[1],[1],[1]]}`, 400, "prompt", "array_above_max_length"},
		{"/completions", `{"model":"tiny","max_tokens":1,"prompt":` + ids(90) + `}`, 200, "", ""},
		{"/completions", `{"model":"tiny","prompt":` + ids(101) + `}`, 400, "prompt", "context_length_exceeded"},
		{"/completions", `{"model":"tiny","prompt":[[1],` + ids(101) + `]}`, 400, "prompt", "context_length_exceeded"},
		{"/completions", `{"model":"tiny","prompt":["a",[1]]}`, 400, "prompt", "invalid_value"},
		{"/completions", `{"model":"tiny","prompt":["a","b"],"n":4}`, 400, "n", "invalid_value"},
	} {
		status, out := post(t, base+tc.path, tc.body)
		if status != tc.status {
			t.Errorf("%s %.100s: status %d %v, want %d", tc.path, tc.body, status, out, tc.status)
			continue
		}
		if tc.status == 200 {
			continue
		}
		e, _ := out["error"].(map[string]any)
		if e == nil || e["param"] != tc.param || e["code"] != tc.code || e["type"] != "invalid_request_error" {
			t.Errorf("%s %.100s: error %v, want param %s code %s", tc.path, tc.body, out, tc.param, tc.code)
		}
	}
}

// allocated is the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestPromptFloodRefusedWhileDecoding reproduces issue 24's attack on
// `rlm model serve`: prompt [[1]] × 3,000,000 (12 MB) was decoded whole and
// made a job and a goroutine per prompt before the engine's queue refused
// them: 2.9 GB and 35 s, then 429. The prompts are now counted as they are
// walked, and the request refused at the first one past --max-prompts.
func TestPromptFloodRefusedWhileDecoding(t *testing.T) {
	_, base := start(t, inference.Config{}, modelserver.Config{MaxRequestBytes: 64 << 20})
	var b strings.Builder
	b.WriteString(`{"model":"tiny","max_tokens":1,"prompt":[`)
	for i := range 3_000_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("[1]")
	}
	b.WriteString("]}")
	body := b.String()
	var status int
	var out map[string]any
	start := time.Now()
	alloc := allocated(func() { status, out = post(t, base+"/completions", body) })
	e, _ := out["error"].(map[string]any)
	if status != 400 || e["param"] != "prompt" || e["code"] != "array_above_max_length" {
		t.Fatalf("status %d %v; want 400 array_above_max_length on prompt", status, out)
	}
	// The body, read once by the server (and its copy as the raw prompt),
	// and the client's side of the exchange.
	if limit := uint64(4*len(body)) + 32<<20; alloc > limit {
		t.Errorf("the refusal allocated %d MiB, over %d MiB", alloc>>20, limit>>20)
	}
	t.Logf("%d-byte body: 400 after %v, %d MiB allocated in the process", len(body), time.Since(start).Round(time.Millisecond), alloc>>20)
}

// TestFullServerRefusesBeforeBuilding: a request whose choices are not
// free is answered 429 before its prompt is tokenized (the engine's queue
// used to refuse it only after), and a server with no sequence free
// answers before reading the body at all.
func TestFullServerRefusesBeforeBuilding(t *testing.T) {
	e, base := start(t, inference.Config{MaxSeqs: 1, MaxQueued: 2, QueueWait: 30 * time.Second}, modelserver.Config{RetryAfter: 2 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hold := func() {
		body := `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_tokens":8000,"ignore_eos":true,"stream":true}`
		req, _ := http.NewRequestWithContext(ctx, "POST", base+"/chat/completions", strings.NewReader(body))
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	hold()
	hold()
	for e.Stats().Running != 1 || e.Stats().Waiting != 1 {
		time.Sleep(time.Millisecond)
	}
	// One sequence is free; this request needs two, and its 8 MB prompt
	// takes seconds and hundreds of MB to tokenize (the two running
	// sequences allocate meanwhile too).
	big := `{"model":"tiny","n":2,"prompt":"` + strings.Repeat("lorem ipsum ", 700_000) + `"}`
	var status int
	var out map[string]any
	start := time.Now()
	alloc := allocated(func() { status, out = post(t, base+"/completions", big) })
	if status != 429 || out["error"] == nil {
		t.Fatalf("status %d %v; want 429", status, out)
	}
	// Building it first took ~2 s and ~520 MiB on a 2-core machine;
	// reading and counting it, a tenth of that.
	if d, limit := time.Since(start), uint64(10*len(big))+64<<20; d > 5*time.Second || alloc > limit {
		t.Errorf("the refusal took %v and %d MiB (limit %d MiB): the prompt was built first", d, alloc>>20, limit>>20)
	} else {
		t.Logf("refused in %v, %d MiB allocated in the process", d.Round(time.Millisecond), alloc>>20)
	}
	hold()
	for e.Stats().Waiting != 2 {
		time.Sleep(time.Millisecond)
	}
	// Full: the answer comes from the headers, the body never sent.
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest("POST", base+"/completions", pr)
	req.ContentLength = 1 << 20
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(string(raw), "rate_limit_exceeded") {
		t.Errorf("full server: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}
	cancel()
	for e.Stats().Running+e.Stats().Waiting != 0 {
		time.Sleep(time.Millisecond)
	}
}
