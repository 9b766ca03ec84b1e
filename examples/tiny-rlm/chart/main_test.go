package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/eval"
)

// writeEvalDir lays out summaries the way eval.sh does: DIR/<variant>/summary.json.
func writeEvalDir(t *testing.T, variants map[string][]eval.Summary) string {
	t.Helper()
	dir := t.TempDir()
	for name, sums := range variants {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(map[string]any{"summaries": sums})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "summary.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestWriteChart(t *testing.T) {
	sft := writeEvalDir(t, map[string][]eval.Summary{
		"sniah": {
			{Task: "sniah[phrasings=out]", Tokens: 131072, Length: "128K", Runs: 10, Score: 1},
			{Task: "sniah[phrasings=out]", Tokens: 8192, Length: "8K", Runs: 10, Score: 0.9},
		},
		"labelcount": {{Task: "label-count[phrasings=out]", Tokens: 8192, Length: "8K", Runs: 10, Score: 0}},
	})
	rl := writeEvalDir(t, map[string][]eval.Summary{
		"sniah": {{Task: "sniah[phrasings=out]", Tokens: 8192, Length: "8K", Runs: 10, Score: 1}},
		// Skipped everywhere: no bar.
		"records": {{Task: "records[phrasings=out]", Tokens: 8192, Length: "8K", Runs: 0, Skipped: 10}},
	})
	var models []model
	for _, m := range []struct{ name, dir string }{{"SFT", sft}, {"RL <new>", rl}} {
		sums, err := loadSummaries(m.dir)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, model{m.name, sums})
	}
	var buf bytes.Buffer
	if err := writeChart(&buf, "held-out", models); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	for _, want := range []string{
		"<title>SFT, sniah[phrasings=out] 8K: 0.900</title>",
		"<title>SFT, sniah[phrasings=out] 128K: 1.000</title>",
		"<title>SFT, label-count[phrasings=out] 8K: 0.000</title>",
		"<title>RL &lt;new&gt;, sniah[phrasings=out] 8K: 1.000</title>",
		">sniah</text>", ">label-count</text>",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if n := strings.Count(svg, "<title>"); n != 4 {
		t.Errorf("%d bars, want 4 (RL has no 128K or label-count run, records none scored)", n)
	}
	if strings.Contains(svg, "records") {
		t.Error("a cell no model scored has a group")
	}
	// Lengths ascend within a task: 8K's label comes before 128K's.
	if i, j := strings.Index(svg, ">8K<"), strings.Index(svg, ">128K<"); i < 0 || j < 0 || i > j {
		t.Errorf("length labels out of order (8K at %d, 128K at %d)", i, j)
	}
}

func TestLoadSummariesErrors(t *testing.T) {
	if _, err := loadSummaries(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no */summary.json") {
		t.Errorf("empty folder: err = %v", err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sniah"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sniah", "summary.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadSummaries(dir); err == nil || !strings.Contains(err.Error(), "parse") {
		t.Errorf("truncated summary: err = %v", err)
	}
	if err := writeChart(new(bytes.Buffer), "t", []model{{name: "a"}}); err == nil {
		t.Error("no scored runs: want an error")
	}
}

func TestShortTask(t *testing.T) {
	for in, want := range map[string]string{
		"sniah[phrasings=out]":        "sniah",
		"sniah[keys=4,phrasings=out]": "sniah keys=4",
		"label-count":                 "label-count",
	} {
		if got := shortTask(in); got != want {
			t.Errorf("shortTask(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteChartSameNames(t *testing.T) {
	sums := []eval.Summary{{Task: "sniah", Tokens: 8192, Length: "8K", Runs: 10, Score: 1}}
	var buf bytes.Buffer
	if err := writeChart(&buf, "t", []model{{"run", sums}, {"run", sums}}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "<title>run, sniah 8K: 1.000</title>"); n != 2 {
		t.Errorf("two models named alike drew %d bars, want 2", n)
	}
}
