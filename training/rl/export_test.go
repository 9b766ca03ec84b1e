package rl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/datasetschema"
)

// TestExportRollouts runs two steps with each export format and reads
// OUT/rollouts.jsonl back against the format's published schema (in Go and
// with python3's json module), then checks what the lines say: every
// rollout is there, advantages are rewards minus their group's mean, the
// sampler's logprobs sit on the sampled tokens only, and both formats carry
// the same sampled tokens (the run is deterministic from its seed).
func TestExportRollouts(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model: two RL steps per format")
	}
	pool := newPool(t)
	sampled := map[string]int{}
	for _, tc := range []struct{ format, schema string }{
		{ExportVerifiers, datasetschema.VerifiersProcessed},
		{ExportTRLPromptCompletion, datasetschema.TRLPromptCompletion},
	} {
		t.Run(tc.format, func(t *testing.T) {
			out := t.TempDir()
			cfg := testConfig(t, pool, out)
			cfg.Steps, cfg.MaxStaleness, cfg.Export = 2, 0, tc.format
			m, tok := harnessModel(t) // the same weights for both formats
			run(t, cfg, m, tok)
			path := filepath.Join(out, ExportFile)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			n, err := datasetschema.CheckJSONL(bytes.NewReader(raw), tc.schema, datasetschema.Options{})
			if err != nil {
				t.Fatalf("against %s: %v", tc.schema, err)
			}
			pn, err := datasetschema.CheckPython(t.Context(), "../../tests/python/check_dataset.py", path, tc.schema, datasetschema.Options{})
			if err != nil || pn != n {
				t.Fatalf("python3 read %d of %d lines: %v", pn, n, err)
			}

			type key struct{ step, group, rollout int }
			rewards := map[key]float64{}
			advs := map[key]float64{}
			sc := bufio.NewScanner(bytes.NewReader(raw))
			sc.Buffer(nil, 1<<26)
			for sc.Scan() {
				var l struct {
					VerifiersLine
					Prompt, Completion string
				}
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatal(err)
				}
				k := key{l.Step, l.Group, l.Rollout}
				if r, ok := rewards[k]; ok && (r != l.Reward || advs[k] != l.Advantage) {
					t.Errorf("%v: lines of one rollout disagree on reward or advantage", k)
				}
				rewards[k], advs[k] = l.Reward, l.Advantage
				if l.Task == "" {
					t.Errorf("%v: no task", k)
				}
				switch tc.format {
				case ExportVerifiers:
					for i, on := range l.CompletionMask {
						lp := l.CompletionLogprobs[i]
						if (on == 1) != (lp != 0) || lp > 0 {
							t.Fatalf("%v: token %d mask %d, logprob %g", k, i, on, lp)
						}
						sampled[tc.format] += on
					}
					if l.CompletionMask[0] != 1 {
						t.Errorf("%v: completion starts with context", k)
					}
				case ExportTRLPromptCompletion:
					if len(l.CompletionIDs) == 0 || len(l.CompletionLogprobs) != len(l.CompletionIDs) ||
						!strings.Contains(l.Prompt, "<|im_start|>assistant") || l.Completion == "" {
						t.Errorf("%v: line %.200s", k, sc.Text())
					}
					for _, lp := range l.CompletionLogprobs {
						if lp >= 0 || math.IsNaN(lp) {
							t.Fatalf("%v: sampled token with logprob %g", k, lp)
						}
					}
					sampled[tc.format] += len(l.CompletionIDs)
				}
			}
			if want := cfg.Steps * cfg.TasksPerStep * cfg.Group; len(rewards) != want {
				t.Fatalf("%d rollouts exported, want %d", len(rewards), want)
			}
			for s := 1; s <= cfg.Steps; s++ {
				for g := range cfg.TasksPerStep {
					var mean float64
					for r := range cfg.Group {
						mean += rewards[key{s, g, r}] / float64(cfg.Group)
					}
					for r := range cfg.Group {
						k := key{s, g, r}
						if math.Abs(advs[k]-(rewards[k]-mean)) > 1e-12 {
							t.Errorf("%v: advantage %g, reward %g, group mean %g", k, advs[k], rewards[k], mean)
						}
					}
				}
			}
		})
	}
	if sampled[ExportVerifiers] == 0 || sampled[ExportVerifiers] != sampled[ExportTRLPromptCompletion] {
		t.Errorf("sampled tokens: %v; want the same nonzero count in both formats", sampled)
	}
}
