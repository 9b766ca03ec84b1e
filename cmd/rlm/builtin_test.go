package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/models/tinydemo"
	"github.com/rlm-project/rlm/server"
)

// notices counts the built-in model's log line.
func notices(log string) int {
	return strings.Count(log, "answering with the built-in demo model "+tinydemo.Name)
}

// TestBuiltinServe: with no upstream, `rlm serve` answers chat completions
// with the built-in model in-process, through the real engine and REPL,
// says so once in its log, and names the model in /v1/models and in each
// response. The placeholder's answers are not right; the path is what is
// checked.
func TestBuiltinServe(t *testing.T) {
	s := startServe(t)
	models := call(t, "GET", s.URL+"/v1/models", "", "")
	var list struct {
		Data []struct {
			ID      string
			OwnedBy string `json:"owned_by"`
			RLM     struct {
				Model       string
				ServedBy    string `json:"served_by"`
				Description string
			} `json:"rlm"`
		}
	}
	if err := json.Unmarshal(models.body, &list); err != nil || len(list.Data) != 1 {
		t.Fatalf("/v1/models: %v %s", err, models.body)
	}
	if m := list.Data[0]; m.OwnedBy != "rlm-project" || m.RLM.Model != tinydemo.Name || m.RLM.Description != tinydemo.About {
		t.Errorf("/v1/models does not name the built-in model: %s", models.body)
	}
	if list.Data[0].ID != "rlm" || list.Data[0].RLM.ServedBy != "builtin" {
		t.Errorf("/v1/models: %s", models.body)
	}
	// A question with nothing to read gets the model's one answer at once
	// (issue 26: it wrote 7K tokens of junk for "What is the capital of
	// France?" and failed with 502 after 24 s).
	start := time.Now()
	r := call(t, "POST", s.URL+"/v1/chat/completions", "", `{"model":"rlm","messages":[{"role":"user","content":"What is the capital of France?"}]}`)
	if took := time.Since(start); r.status != http.StatusOK || took > 2*time.Second ||
		!strings.Contains(string(r.body), `"content":"`+builtinNoContext(builtinOffloadThreshold)+`"`) || !strings.Contains(string(r.body), `"finish_reason":"stop"`) ||
		!strings.Contains(string(r.body), `"stop_reason":"no_context"`) {
		t.Errorf("question without a document: %d in %v: %s", r.status, took, r.body)
	}
	doc, _ := json.Marshal(strings.Repeat("The grass is green. ", 1000) + "The secret number is 4821. What is the secret number?")
	for i := range 2 {
		r := call(t, "POST", s.URL+"/v1/chat/completions", "", `{"model":"rlm","temperature":0,"max_tokens":48,
			"messages":[{"role":"user","content":`+string(doc)+`}],
			"rlm":{"max_iterations":1}}`)
		if r.status != http.StatusOK {
			t.Fatalf("request %d: %d %s\nlog:\n%s", i, r.status, r.body, s.Stderr.String())
		}
		var c struct {
			Model   string
			Choices []struct {
				FinishReason string `json:"finish_reason"`
			}
			RLM struct {
				Models   []string
				LLMCalls int `json:"llm_calls"`
			}
		}
		if err := json.Unmarshal(r.body, &c); err != nil {
			t.Fatal(err)
		}
		if c.Model != "rlm" || !slices.Equal(c.RLM.Models, []string{tinydemo.Name}) || c.RLM.LLMCalls == 0 || len(c.Choices) != 1 {
			t.Errorf("request %d: the response does not say the built-in model answered: %s", i, r.body)
		}
	}
	// A small table pasted with its question is offloaded and read, not
	// refused as a question with nothing to read: the built-in model's
	// offload threshold is 1,000 characters, not 16,000 (this one is 1.6 KB).
	var table strings.Builder
	table.WriteString("service,port,protocol\n")
	for i := range 100 {
		fmt.Fprintf(&table, "svc-%d,%d,tcp\n", i, 9000+i)
	}
	msg, _ := json.Marshal("Which port does svc-42 use?\n\n" + table.String())
	r = call(t, "POST", s.URL+"/v1/chat/completions", "", `{"model":"rlm","messages":[{"role":"user","content":`+string(msg)+`}]}`)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"content":"9042"`) {
		t.Errorf("a 1.6 KB table with its question: %d %s", r.status, r.body)
	}
	log := s.Stderr.String()
	if n := notices(log); n != 1 {
		t.Errorf("the built-in model's line is in the log %d times, want once:\n%s", n, log)
	}
	if strings.Contains(log, "NOT CONFIGURED") || !strings.Contains(log, "set --upstream URL for a real model") {
		t.Errorf("log:\n%s", log)
	}
}

// TestBuiltinRefused: --local-model none (flag or environment) keeps the
// old behaviour: serve starts, says what is missing, and answers chats
// with 503 naming --upstream; query refuses to run.
func TestBuiltinRefused(t *testing.T) {
	for _, how := range []string{"flag", "env"} {
		t.Run(how, func(t *testing.T) {
			var args []string
			if how == "flag" {
				args = []string{"--local-model", "none"}
			} else {
				t.Setenv("RLM_LOCAL_MODEL", "none")
			}
			s := startServe(t, args...)
			r := call(t, "POST", s.URL+"/v1/chat/completions", "", `{"model":"rlm","messages":[{"role":"user","content":"hi"}]}`)
			if r.status != http.StatusServiceUnavailable || errorCode(t, r.body) != "not_configured" || !strings.Contains(string(r.body), "--upstream") {
				t.Errorf("chat: %d %s", r.status, r.body)
			}
			if log := s.Stderr.String(); notices(log) != 0 || !strings.Contains(log, "NOT CONFIGURED") {
				t.Errorf("log:\n%s", log)
			}
			var stdout, stderr bytes.Buffer
			status := run(t.Context(), append([]string{"query", "--quiet"}, append(args, "q")...), &stdout, &stderr)
			if status != 1 || !strings.Contains(stderr.String(), "no upstream: set --upstream") || notices(stderr.String()) != 0 {
				t.Errorf("query: status %d, stderr:\n%s", status, stderr.String())
			}
		})
	}
}

// TestBuiltinQuery: with no upstream, `rlm query` runs the built-in model
// in-process over the context file, says so once on stderr in one short
// line (not with --quiet), and ends with its usual summary; a run it
// cannot finish says that the question needs a real model.
func TestBuiltinQuery(t *testing.T) {
	ctxFile := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(ctxFile, []byte(strings.Repeat("nothing here\n", 100)+"the secret number is 4821\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, quiet := range []bool{false, true} {
		// --model-window bounds how much each call may write (query has
		// no max_tokens), so that the test takes seconds.
		args := []string{"query", "--temperature", "0", "--max-iterations", "1", "--model-window", "3072", "--context", ctxFile, "What is the secret number?"}
		if quiet {
			args = append(args, "--quiet")
		}
		var stdout, stderr bytes.Buffer
		status := run(t.Context(), args, &stdout, &stderr)
		errText := stderr.String()
		first, _, _ := strings.Cut(errText, "\n")
		switch n := notices(errText); {
		case quiet && n != 0:
			t.Errorf("--quiet: the built-in model's line is on stderr:\n%s", errText)
		case !quiet && (n != 1 || !strings.HasPrefix(first, "rlm: answering with the built-in") || len(first) > 160):
			t.Errorf("the built-in model's line is on stderr %d times, want once, first, under 160 characters:\n%s", n, errText)
		}
		if !strings.Contains(errText, "llm_calls=") ||
			(status != 0 && (!strings.Contains(errText, "rlm: query: No answer: the run stopped (") || !strings.Contains(errText, "This needs a real model"))) {
			t.Errorf("status %d, stdout %q, stderr:\n%s", status, stdout.String(), errText)
		}
	}
}

// TestBuiltinModelScore is the CI check of the shipped weights: they load,
// match their checksums, and reproduce the score recorded in eval.json on
// its small held-out subset, run as `rlm eval --local-model builtin` (the
// in-process path: engine, REPL and model). Greedy decoding makes the
// score exact. With -update it records the score of the weights in
// models/tinydemo/weights instead (examples/tiny-rlm/ship.sh runs that).
// Under -short it checks the weights and the record, not the score: the
// eval is 24 runs of the model, about 40 s of CPU, and no smaller run has
// a recorded score to reproduce.
func TestBuiltinModelScore(t *testing.T) {
	rec, err := tinydemo.RecordedEval()
	if err != nil {
		t.Fatal(err)
	}
	if err := tinydemo.Verify(); err != nil {
		t.Fatal(err)
	}
	sums, err := tinydemo.ReadSums(tinydemo.FS())
	if err != nil {
		t.Fatal(err)
	}
	if !*updateDocs && rec.WeightsSHA256 != sums["model.safetensors"] {
		t.Fatalf("eval.json was recorded for weights %s, these are %s: record their score with examples/tiny-rlm/ship.sh",
			rec.WeightsSHA256, sums["model.safetensors"])
	}
	if testing.Short() && !*updateDocs {
		t.Skip("the recorded eval of the built-in model runs in the full suite")
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := append(slices.Clone(rec.Args), "--local-model", "builtin", "--out", out, "--traces", "none")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := runEval(ctx, cli.Env{}, args, &stdout, &stderr); err != nil {
		t.Fatalf("rlm eval %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	res, err := eval.ReadResults(filepath.Join(out, eval.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := tinydemo.Eval{Model: tinydemo.Name, Subset: rec.Subset, Args: rec.Args, Instances: len(res),
		WeightsSHA256: sums["model.safetensors"], Note: rec.Note}
	for _, r := range res {
		if r.Error != "" {
			t.Fatalf("%s failed (not a wrong answer, a harness error): %s", r.Key(), r.Error)
		}
		got.Score += r.Score
		if r.Score == 1 {
			got.Solved++
		}
	}
	if len(res) > 0 {
		got.Score = math.Round(got.Score/float64(len(res))*1e6) / 1e6
	}
	t.Logf("%s on %s: score %.4f, %d/%d solved\n%s", tinydemo.Name, rec.Subset, got.Score, got.Solved, got.Instances, stdout.String())
	if *updateDocs {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "..", "models", "tinydemo", "weights", tinydemo.EvalFile)
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded in %s", path)
		return
	}
	if got.Instances != rec.Instances || got.Score != rec.Score || got.Solved != rec.Solved {
		t.Errorf("the shipped weights score %v (%d/%d solved), eval.json records %v (%d/%d)",
			got.Score, got.Solved, got.Instances, rec.Score, rec.Solved, rec.Instances)
	}
}

// TestModelInfo: /v1/models names the model behind each alias: the
// upstream model it maps to (the root model for a bare alias), or the
// in-process model, which answers every alias.
func TestModelInfo(t *testing.T) {
	e, err := cli.LoadModel(cli.ModelBuiltin, inference.Config{KVCacheTokens: 1024}, cli.Device{Kind: "cpu"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	aliases := map[string]string{"rlm": "", "small": "mini"}
	for _, tt := range []struct {
		name  string
		cfg   config
		local *inference.Engine
		want  map[string]server.ModelInfo
	}{
		{"upstream", config{engineConfig: engineConfig{Upstream: "http://u/v1", RootModel: "big"}}, nil, map[string]server.ModelInfo{
			"rlm": {Model: "big", ServedBy: "upstream"}, "small": {Model: "mini", ServedBy: "upstream"}}},
		{"upstream, no root model", config{engineConfig: engineConfig{Upstream: "http://u/v1"}}, nil, map[string]server.ModelInfo{
			"small": {Model: "mini", ServedBy: "upstream"}}},
		{"local", config{LocalModel: "/ckpt/mine"}, e, map[string]server.ModelInfo{
			"rlm": {Model: e.Name(), ServedBy: "local"}, "small": {Model: e.Name(), ServedBy: "local"}}},
		{"builtin", config{LocalModel: cli.ModelBuiltin}, e, map[string]server.ModelInfo{
			"rlm":   {Model: tinydemo.Name, ServedBy: "builtin", Description: tinydemo.About},
			"small": {Model: tinydemo.Name, ServedBy: "builtin", Description: tinydemo.About}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := modelInfo(&tt.cfg, aliases, tt.local); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestBuiltinAnswersHonestly: through the gateway, the built-in model's
// lookup in a web server's log answers the ticket the log holds as a
// complete answer, and, from the same log without that line, says "No
// answer" as an incomplete one (stop reason no_answer, finish_reason
// length; Responses: incomplete), never a value the log does not hold.
func TestBuiltinAnswersHonestly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built-in model")
	}
	s := startServe(t)
	var log strings.Builder
	for i := range 2000 {
		ts := fmt.Sprintf("2026-11-28T10:%02d:%02dZ", i/60, i%60)
		if i%50 == 7 {
			fmt.Fprintf(&log, "%s WARN disk /var is 97%% full\n", ts)
		} else {
			fmt.Fprintf(&log, "%s INFO GET /api/items 200 in %dms\n", ts, i%13+2)
		}
	}
	without := log.String()
	with := strings.Replace(without, "2026-11-28T10:20:34Z INFO", "2026-11-28T10:20:34Z NOTE the ticket of the disk-full alert is OPS-7719\n2026-11-28T10:20:34Z INFO", 1)
	ask := func(api, doc string) []byte {
		t.Helper()
		text, _ := json.Marshal(doc)
		q := `"What is the ticket of the disk-full alert?"`
		body := `{"model":"rlm","messages":[{"role":"user","content":` + string(text) + `},{"role":"user","content":` + q + `}]}`
		if api == "responses" {
			body = `{"model":"rlm","input":[{"role":"user","content":` + string(text) + `},{"role":"user","content":` + q + `}]}`
		}
		r := call(t, "POST", s.URL+"/v1/"+api, "", body)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", api, r.status, r.body)
		}
		return r.body
	}
	for _, tc := range []struct {
		doc   string
		wants []string
	}{
		{with, []string{`"content":"OPS-7719"`, `"finish_reason":"stop"`, `"stop_reason":"final"`}},
		{without, []string{`"content":"No answer: `, `"finish_reason":"length"`, `"stop_reason":"no_answer"`}},
	} {
		body := string(ask("chat/completions", tc.doc))
		for _, want := range tc.wants {
			if !strings.Contains(body, want) {
				t.Errorf("chat completion lacks %s: %s", want, body)
			}
		}
	}
	if body := string(ask("responses", without)); !strings.Contains(body, `"status":"incomplete"`) ||
		!strings.Contains(body, `"reason":"no_answer"`) || strings.Contains(body, "OPS-") {
		t.Errorf("response to a log without the answer: %s", body)
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 16000: "16,000", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
