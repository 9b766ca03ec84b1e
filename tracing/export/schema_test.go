package export_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/datasetschema"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/export"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// TestExportSchemas exports stored runs, one scored by feedback and one not,
// in each format meant for other trainers and reads every line back against
// the format's published schema, in Go and with python3's json module.
func TestExportSchemas(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	t0 := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	tracingtest.SaveRun(t, svc, "alice", "tr_scored", t0, recursion.StopFinal, "m")
	tracingtest.SaveRun(t, svc, "alice", "tr_unscored", t0.Add(time.Minute), recursion.StopFinal, "m")
	if _, err := svc.Feedback(t.Context(), "alice", "tr_scored", tracing.Reward{Score: 0.75}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		format, schema string
		perRun         int // samples of one run
	}{
		{export.FormatTRLMessages, datasetschema.TRLConversational, 1},
		{export.FormatChat, datasetschema.TRLConversational, 1},
		{export.FormatTRLPromptCompletion, datasetschema.TRLPromptCompletion, 2},
		{export.FormatVerifiers, datasetschema.VerifiersRollout, 1},
	}
	if _, err := os.Stat("../../tests/python/check_dataset.py"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			var buf bytes.Buffer
			st, err := export.Write(t.Context(), svc.Archive(), "alice", tracing.Filter{}, tc.format, &buf)
			if err != nil {
				t.Fatal(err)
			}
			raw := buf.Bytes()
			o := datasetschema.Options{NullReward: true}
			n, err := datasetschema.CheckJSONL(bytes.NewReader(raw), tc.schema, o)
			if err != nil {
				t.Fatalf("%s against %s: %v\n%s", tc.format, tc.schema, err, raw)
			}
			if n != 2*tc.perRun || st.Samples != n {
				t.Errorf("%d lines (stats %+v), want %d", n, st, 2*tc.perRun)
			}
			// Strictly without nulls, only the scored run's lines fit where
			// the schema has a reward.
			if tc.schema == datasetschema.VerifiersRollout {
				var scored bytes.Buffer
				if _, err := export.Write(t.Context(), svc.Archive(), "alice", tracing.Filter{MinReward: ptr(0.5)}, tc.format, &scored); err != nil {
					t.Fatal(err)
				}
				if _, err := datasetschema.CheckJSONL(&scored, tc.schema, datasetschema.Options{}); err != nil {
					t.Errorf("scored runs: %v", err)
				}
				if _, err := datasetschema.CheckJSONL(bytes.NewReader(raw), tc.schema, datasetschema.Options{}); err == nil {
					t.Errorf("an unscored run passed a schema that wants a float reward")
				}
			}
			path := filepath.Join(t.TempDir(), "export.jsonl")
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			pn, err := datasetschema.CheckPython(t.Context(), "../../tests/python/check_dataset.py", path, tc.schema, o)
			if err != nil {
				t.Fatal(err)
			}
			if pn != n {
				t.Errorf("python read %d records, Go %d", pn, n)
			}
		})
	}
}

// TestExportFeedbackIsReward checks that a score posted as feedback is the
// reward of every format that carries one.
func TestExportFeedbackIsReward(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	tracingtest.SaveRun(t, svc, "alice", "tr_a", time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC), recursion.StopFinal, "m")
	tr, err := svc.Feedback(t.Context(), "alice", "tr_a", tracing.Reward{Score: 0.25, Label: "meh"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{export.FormatSFT, export.FormatSFTTranscript, export.FormatTRLMessages, export.FormatTRLPromptCompletion, export.FormatVerifiers} {
		out, err := export.Samples(tr, f)
		if err != nil || len(out) == 0 {
			t.Fatalf("%s: %d samples, %v", f, len(out), err)
		}
		for _, x := range out {
			var r *float64
			switch s := x.(type) {
			case export.SFTSample:
				r = s.Reward
			case export.TRLMessagesSample:
				r = s.Reward
			case export.TRLPromptCompletionSample:
				r = s.Reward
			case export.VerifiersSample:
				r = s.Reward
			}
			if r == nil || *r != 0.25 {
				t.Errorf("%s: reward %v, want the feedback's 0.25", f, r)
			}
		}
	}
}
