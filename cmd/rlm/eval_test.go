package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/cmd/rlm/internal/tracecmd"
	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/eval/fakemodel"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/training/data"
)

// TestEvalEndToEnd runs `rlm eval` over every built-in task at small sizes
// through the real engine and REPL, against a fake upstream (a test double
// for the model: its root writes correct Go for the task, its sub-model
// answers from the text it is given). The harness must carry every instance
// to a perfect score and produce the table, files and chart; a second run
// must resume everything from results.jsonl without calling the upstream.
func TestEvalEndToEnd(t *testing.T) {
	fake := fakellm.New(fakemodel.Script("root"))
	defer fake.Close()
	out := t.TempDir()
	args := []string{"--task", "sniah,oolong,oolong-pairs", "--lengths", "2k,8k", "--n", "6", "--seed", "3",
		"--out", out, "--parallel", "2", "--baseline", "direct", "--baseline-model", "sub", "--model-window", "4k",
		"--upstream", fake.URL, "--upstream-key", "test", "--root-model", "root", "--sub-model", "sub"}
	var stdout, stderr bytes.Buffer
	if err := runEval(context.Background(), cli.Env{}, args, &stdout, &stderr); err != nil {
		t.Fatalf("rlm eval: %v\nstderr:\n%s", err, stderr.String())
	}

	res, err := eval.ReadResults(filepath.Join(out, eval.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 72 {
		t.Fatalf("%d results, want 3 tasks x 2 lengths x 6 instances x 2 modes = 72", len(res))
	}
	for _, r := range res {
		switch {
		case r.Mode == eval.ModeRLM:
			if r.Score != 1 || r.StopReason != "final" || r.TraceID == "" || r.LLMCalls < 1 {
				t.Errorf("%s: score %v stop %q trace %q calls %d answer %q error %q",
					r.Key(), r.Score, r.StopReason, r.TraceID, r.LLMCalls, r.Answer, r.Error)
			}
			if r.Task != "sniah" && r.LLMCalls < 2 {
				t.Errorf("%s: %d LLM calls; the root should have asked the sub-model for labels", r.Key(), r.LLMCalls)
			}
		case r.Tokens > 4096:
			if r.Skipped == "" {
				t.Errorf("%s: beyond the context window but not skipped", r.Key())
			}
		case r.Task == "sniah" && r.Score != 1:
			t.Errorf("%s: the fake sub-model finds needles, score %v", r.Key(), r.Score)
		}
	}

	table := stdout.String()
	if os.Getenv("EVAL_SHOW") != "" {
		t.Logf("table:\n%s", table)
		os.WriteFile(os.Getenv("EVAL_SHOW"), mustRead(t, filepath.Join(out, eval.ChartSVG)), 0o644)
	}
	for _, want := range []string{"sniah", "oolong", "oolong-pairs", "2K", "8K", "rlm", "direct", "skipped", "final="} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if n := strings.Count(table, "\n"); n != 13 {
		t.Errorf("table has %d lines, want a header and 12 rows:\n%s", n, table)
	}
	for _, f := range []string{eval.SummaryJSON, eval.SummaryCSV, eval.ResultsCSV, eval.ChartSVG} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var sum struct{ Summaries []eval.Summary }
	b, _ := os.ReadFile(filepath.Join(out, eval.SummaryJSON))
	if err := json.Unmarshal(b, &sum); err != nil || len(sum.Summaries) != 12 {
		t.Fatalf("summary.json: %v, %d summaries", err, len(sum.Summaries))
	}
	svg, _ := os.ReadFile(filepath.Join(out, eval.ChartSVG))
	if strings.Count(string(svg), "<polyline") != 3 { // one RLM line per task; the baseline has one point each
		t.Errorf("chart has %d lines, want 3", strings.Count(string(svg), "<polyline"))
	}
	if !strings.Contains(stderr.String(), "72/72 runs") {
		t.Errorf("no progress bar on stderr:\n%s", stderr.String())
	}

	// Every run, RLM or direct, left its trajectory in OUT/traces under its
	// trace ID; a direct one is one node with one model call and no cells.
	st, err := store.OpenDisk(filepath.Join(out, "traces"))
	if err != nil {
		t.Fatal(err)
	}
	svc := tracing.NewService(tracing.Config{Store: st})
	traced := 0
	for _, r := range res {
		if r.Skipped != "" {
			if r.TraceID != "" {
				t.Errorf("%s: skipped but traced as %s", r.Key(), r.TraceID)
			}
			continue
		}
		traced++
		if r.TraceID == "" || r.TraceError != "" {
			t.Errorf("%s: trace %q not saved: %s", r.Key(), r.TraceID, r.TraceError)
			continue
		}
		keys, err := st.List(context.Background(), tracing.Collection, "open/t/"+r.TraceID)
		if err != nil || len(keys) != 1 {
			t.Errorf("%s: trajectory %s: %v %v", r.Key(), r.TraceID, keys, err)
		}
		if r.Mode != eval.ModeDirect {
			continue
		}
		raw, err := svc.Raw(context.Background(), "open", r.TraceID)
		if err != nil {
			t.Errorf("%s: trajectory %s: %v", r.Key(), r.TraceID, err)
			continue
		}
		var tr tracing.Trajectory
		if err := json.Unmarshal(raw, &tr); err != nil {
			t.Fatalf("%s: trajectory %s: %v", r.Key(), r.TraceID, err)
		}
		ok := tr.ID == r.TraceID && tr.Status == tracing.StatusCompleted && string(tr.StopReason) == r.StopReason &&
			tr.Answer == r.Answer && tr.Model == "sub" && tr.Used.LLMCalls == 1 && tr.Used.Cells == 0 &&
			tr.Used.Usage == r.Usage && len(tr.Nodes) == 1 && len(tr.Nodes[0].Turns) == 1
		if ok {
			turn := tr.Nodes[0].Turns[0]
			ok = len(turn.Calls) == 1 && len(turn.Cells) == 0 && turn.Calls[0].Response == r.Answer &&
				len(tr.Nodes[0].Transcript) == 1 && strings.Contains(tr.Nodes[0].Transcript[0].Content, r.Question)
		}
		if !ok {
			t.Errorf("%s: direct trajectory is not one node with one call answering %q:\n%s", r.Key(), r.Answer, raw)
		}
	}
	if traced != 54 {
		t.Errorf("%d runs traced, want 36 RLM and 18 direct ones within the window", traced)
	}

	// Every scored run's trajectory carries its score as its reward, and
	// its ID and model follow the gateway's conventions.
	idRE := regexp.MustCompile(`^trace-[0-9a-f]{24}$`)
	scoreOf := map[string]float64{}
	for _, r := range res {
		if r.TraceID == "" {
			continue
		}
		scoreOf[r.TraceID] = r.Score
		tr, err := svc.Archive().Load(context.Background(), "open", r.TraceID)
		if err != nil {
			t.Errorf("%s: %v", r.Key(), err)
			continue
		}
		if !idRE.MatchString(tr.ID) {
			t.Errorf("%s: trace id %q is not trace- and 24 hex digits, as the gateway's", r.Key(), tr.ID)
		}
		if tr.Reward == nil || tr.Reward.Score != r.Score || !strings.HasPrefix(tr.Reward.Label, "eval "+r.Task+" ") {
			t.Errorf("%s: reward %+v, want score %v labelled with the task", r.Key(), tr.Reward, r.Score)
		}
		// The viewer shows the task, the question, the gold answer and
		// the score, and colors the run by it.
		if tr.Question != r.Question || tr.Metadata["eval.task"] != r.Task || tr.Metadata["eval.mode"] != r.Mode ||
			tr.Metadata["eval.gold"] != r.Gold || tr.Metadata["eval.score"] != eval.FormatScore(r.Score) {
			t.Errorf("%s: question %q, metadata %v; want the question %q, task, mode, gold %q and score %v", r.Key(), tr.Question, tr.Metadata, r.Question, r.Gold, r.Score)
		}
		if want := map[string]string{eval.ModeRLM: "root", eval.ModeDirect: "sub"}[r.Mode]; tr.Model != want || !slices.Contains(tr.Models, want) {
			t.Errorf("%s: model %q, upstream models %q; want %q for both", r.Key(), tr.Model, tr.Models, want)
		}
	}

	// The rewards reach training data: an SFT export carries them, and the
	// trainer's reader keeps by --min-reward exactly the runs that scored.
	sft := filepath.Join(t.TempDir(), "sft.jsonl")
	if _, stderr, err := runTraces(context.Background(), "export", "--dir", filepath.Join(out, "traces"), "--format", "sft", "--out", sft); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	all, _, err := data.ReadFile(context.Background(), sft, data.Filter{})
	if err != nil || len(all) == 0 {
		t.Fatalf("export: %d samples, %v", len(all), err)
	}
	wantKept := 0
	for _, smp := range all {
		score, ok := scoreOf[smp.TraceID]
		if !ok || smp.Reward == nil || *smp.Reward != score {
			t.Fatalf("sample %s: reward %v, want the score of its run %v", smp.ID, smp.Reward, score)
		}
		if score >= 1 {
			wantKept++
		}
	}
	one := 1.0
	kept, stats, err := data.ReadFile(context.Background(), sft, data.Filter{MinReward: &one})
	if err != nil || len(kept) != wantKept || wantKept == 0 || stats.LowReward != len(all)-wantKept {
		t.Errorf("--min-reward 1 kept %d of %d samples (%+v), want %d: %v", len(kept), len(all), stats, wantKept, err)
	}

	// `rlm traces` reads them where rlm eval put them.
	var list bytes.Buffer
	if err := tracecmd.Run(context.Background(), cli.Env{}, []string{"list", "--dir", filepath.Join(out, "traces"), "--limit", "1000"}, &list, &bytes.Buffer{}); err != nil {
		t.Fatalf("rlm traces list: %v", err)
	}
	for _, r := range res {
		if r.TraceID != "" && !strings.Contains(list.String(), r.TraceID) {
			t.Errorf("rlm traces list lacks %s", r.TraceID)
		}
	}

	// Everything is done: a second run resumes it all and calls nothing.
	calls := len(fake.Requests())
	stdout.Reset()
	stderr.Reset()
	if err := runEval(context.Background(), cli.Env{}, args, &stdout, &stderr); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if n := len(fake.Requests()); n != calls {
		t.Errorf("resumed run made %d upstream calls", n-calls)
	}
	if !strings.Contains(stderr.String(), "72/72 runs (72 resumed)") || !strings.Contains(stderr.String(), "skipped 18") {
		t.Errorf("second run did not resume: %s", stderr.String())
	}
}

func TestEvalBadInput(t *testing.T) {
	base := []string{"--root-model", "root", "--upstream", "http://127.0.0.1:1/v1", "--out", t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string // in the error; empty means a usage error
	}{
		{[]string{"--n", "x"}, ""},
		{[]string{"stray"}, ""},
		{[]string{"--task", "nope"}, "unknown task"},
		{[]string{"--task", "custom:/does/not/exist.jsonl"}, "exist"},
		{[]string{"--lengths", "12q"}, "--lengths"},
		{[]string{"--baseline", "rag"}, "baseline"},
		{[]string{"--temperature", "hot"}, "temperature"},
		{[]string{"--seed", "1.5"}, "--seed"},
		{[]string{"--sampling-seed", "1"}, ""},
		{[]string{"--context-window", "4k"}, ""},
		{[]string{"--model-window", "0"}, "model-window"},
		{[]string{"--trace-owner", "a b"}, "trace-owner"},
	} {
		var stderr bytes.Buffer
		err := runEval(context.Background(), cli.Env{}, append(append([]string{}, base...), tc.args...), &bytes.Buffer{}, &stderr)
		if tc.want == "" {
			if err != cli.ErrUsage {
				t.Errorf("%v: got %v, want a usage error", tc.args, err)
			}
			continue
		}
		// A value the flag cannot parse is a usage error, said on stderr.
		if said := err != nil && strings.Contains(err.Error(), tc.want) || err == cli.ErrUsage && strings.Contains(stderr.String(), tc.want); !said {
			t.Errorf("%v: got %v (%s), want an error about %q", tc.args, err, stderr.String(), tc.want)
		}
	}
	t.Setenv("RLM_ROOT_MODEL", "")
	if err := runEval(context.Background(), cli.Env{}, []string{"--upstream", "http://127.0.0.1:1/v1", "--out", t.TempDir()}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "root model") {
		t.Errorf("no root model: %v", err)
	}
	t.Setenv("RLM_UPSTREAM", "")
	t.Setenv("OPENAI_BASE_URL", "")
	if err := runEval(context.Background(), cli.Env{}, []string{"--root-model", "root", "--local-model", "none", "--out", t.TempDir()}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no upstream") {
		t.Errorf("no upstream: %v", err)
	}
}

// closedPort returns the URL of a port nothing listens on: an upstream
// that is down.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// TestEvalUpstreamDown runs rlm eval with the upstream down (a closed
// port): every run is a failure, not a zero. The table and summary count
// them as failed with no score, nothing gets a reward, and rlm exits 1.
// With the upstream back, the same command retries every failure, and only
// those, and exits 0.
func TestEvalUpstreamDown(t *testing.T) {
	out := t.TempDir()
	args := func(url string) []string {
		return []string{"eval", "--task", "sniah", "--lengths", "1k", "--n", "2", "--out", out, "--baseline", "direct",
			"--upstream", url, "--upstream-key", "test", "--root-model", "root", "--sub-model", "sub", "--upstream-retries", "0"}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args(closedPort(t)), &stdout, &stderr); code != 1 {
		t.Fatalf("exit status %d with the upstream down, want 1\nstderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "runs failed: 4 of 4 ended") || !strings.Contains(stderr.String(), "run the same command again") {
		t.Errorf("stderr does not say that the runs failed and how to retry:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "failed 4") {
		t.Errorf("progress does not count the failures:\n%s", stderr.String())
	}
	res, err := eval.ReadResults(filepath.Join(out, eval.ResultsFile))
	if err != nil || len(res) != 4 {
		t.Fatalf("%d results, %v", len(res), err)
	}
	for _, r := range res {
		if r.Error == "" {
			t.Errorf("%s: scored %v (stop %q) with the upstream down; want a failure", r.Key(), r.Score, r.StopReason)
		}
	}
	var sum struct{ Summaries []eval.Summary }
	if err := json.Unmarshal(mustRead(t, filepath.Join(out, eval.SummaryJSON)), &sum); err != nil {
		t.Fatal(err)
	}
	for _, s := range sum.Summaries {
		if s.Failed != 2 || s.Runs != 0 {
			t.Errorf("summary %s %s: %d failed, %d scored; want 2 failed", s.Length, s.Mode, s.Failed, s.Runs)
		}
	}
	if !regexp.MustCompile(`sniah +1K +rlm +0 +2 +-`).MatchString(stdout.String()) {
		t.Errorf("table does not show 2 failed and no score:\n%s", stdout.String())
	}
	svc := tracing.NewService(tracing.Config{Store: mustOpenDisk(t, filepath.Join(out, "traces"))})
	page, err := svc.List(context.Background(), "open", tracing.Filter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range page.Data {
		if s.Reward != nil {
			t.Errorf("failed run %s got reward %v", s.ID, s.Reward.Score)
		}
	}

	fake := fakellm.New(fakemodel.Script("root"))
	defer fake.Close()
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), args(fake.URL), &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d with the upstream back, want 0\nstderr:\n%s", code, stderr.String())
	}
	if n := len(fake.Requests()); n < 4 {
		t.Errorf("%d upstream calls on the retry, want every failed run run again", n)
	}
	if !strings.Contains(stderr.String(), "4/4 runs") || strings.Contains(stderr.String(), "resumed") {
		t.Errorf("retry progress:\n%s", stderr.String())
	}
	if !regexp.MustCompile(`sniah +1K +rlm +2 +0 +1\.000`).MatchString(stdout.String()) {
		t.Errorf("table after the retry:\n%s", stdout.String())
	}
}

func mustOpenDisk(t *testing.T, dir string) *store.Disk {
	d, err := store.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
