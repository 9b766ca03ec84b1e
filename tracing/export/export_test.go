package export_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/export"
	"github.com/rlm-project/rlm/tracing/tracingtest"
	"github.com/rlm-project/rlm/training/data"
)

// TestExportFormats checks each format on a recorded run against the
// messages the engine (here its test double) actually sent.
func TestExportFormats(t *testing.T) {
	const turns = 3
	rec := tracing.NewRecorder(tracing.RunInfo{TraceID: "tr_exp", Owner: "alice"})
	var sent [][]llm.Message
	var responses []string
	llmCalls := map[string][2]string{} // answered llm_query calls by sample ID: prompt, answer
	spy := observerFunc(func(ev recursion.Event) {
		if ev.Kind == recursion.EventModelCall && ev.NodeID == "0" {
			sent = append(sent, ev.Model.Messages)
			responses = append(responses, ev.Model.Response)
		}
		if ev.Kind == recursion.EventSubCallEnd && ev.SubCall.Kind == "llm" && ev.SubCall.Err == "" {
			llmCalls["tr_exp/"+ev.SubCall.ID] = [2]string{ev.SubCall.Prompt, ev.SubCall.Response}
		}
		rec.Observe(ev)
	})
	res := tracingtest.Emit(spy, tracingtest.Shape{Turns: turns, Depth: 1, Fanout: 2, LLMPerCell: 3})
	tr := rec.Finish(res, nil)
	tr.Reward = &tracing.Reward{Score: 0.5}

	t.Run("sft per root turn", func(t *testing.T) {
		out, err := export.Samples(tr, export.FormatSFT)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != turns {
			t.Fatalf("%d samples, want one per root turn (%d)", len(out), turns)
		}
		for i, x := range out {
			s := x.(export.SFTSample)
			if s.ID != fmt.Sprintf("tr_exp/turn-%d", i+1) || s.TraceID != "tr_exp" || *s.Reward != 0.5 || s.StopReason != "final" {
				t.Errorf("sample %d header: %+v", i, s)
			}
			n := len(s.Messages)
			// Input: exactly what was sent for this turn.
			for j, m := range sent[i] {
				if s.Messages[j].Role != m.Role || s.Messages[j].Content != m.Content {
					t.Errorf("sample %d message %d differs from what was sent", i, j)
				}
				if m.Role == "assistant" && (s.Messages[j].Train == nil || *s.Messages[j].Train) {
					t.Errorf("sample %d: earlier assistant turn %d is trained", i, j)
				}
			}
			// Target: this turn's response, trained.
			if n != len(sent[i])+1 || s.Messages[n-1].Role != "assistant" || s.Messages[n-1].Content != responses[i] || s.Messages[n-1].Train != nil {
				t.Errorf("sample %d target = %+v", i, s.Messages[n-1])
			}
		}
	})
	t.Run("sft whole transcript", func(t *testing.T) {
		out, err := export.Samples(tr, export.FormatSFTTranscript)
		if err != nil || len(out) != 1 {
			t.Fatalf("%d samples, %v", len(out), err)
		}
		s := out[0].(export.SFTSample)
		assistants := 0
		for _, m := range s.Messages {
			if m.Role == "assistant" {
				assistants++
				if m.Train != nil {
					t.Errorf("assistant turn not trained in a whole-transcript sample")
				}
			}
		}
		if assistants != turns || len(s.Messages) != 2+2*turns-1 {
			t.Errorf("%d assistant turns in %d messages", assistants, len(s.Messages))
		}
	})
	t.Run("sft sub-calls", func(t *testing.T) {
		out, err := export.Samples(tr, export.FormatSFTSubCalls)
		if err != nil {
			t.Fatal(err)
		}
		if len(llmCalls) == 0 || len(out) != len(llmCalls) {
			t.Fatalf("%d samples for %d answered llm_query calls", len(out), len(llmCalls))
		}
		for _, x := range out {
			s := x.(export.SFTSample)
			if len(s.Messages) != 2 || s.Messages[0].Role != "user" || s.Messages[1].Role != "assistant" || *s.Reward != 0.5 {
				t.Fatalf("sample %s = %+v", s.ID, s)
			}
			want, ok := llmCalls[s.ID]
			if !ok || s.Messages[0].Content != want[0] || s.Messages[1].Content != want[1] {
				t.Errorf("sample %s: prompt %q answer %q, not an llm_query call the run made", s.ID, s.Messages[0].Content, s.Messages[1].Content)
			}
		}
	})
	t.Run("chat", func(t *testing.T) {
		out, err := export.Samples(tr, export.FormatChat)
		if err != nil || len(out) != 1 {
			t.Fatalf("%d samples, %v", len(out), err)
		}
		b, _ := json.Marshal(out[0])
		if strings.Contains(string(b), "train") || strings.Contains(string(b), "trace_id") || !strings.HasPrefix(string(b), `{"messages":[{"role":"system"`) {
			t.Errorf("chat line = %s", b)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		if _, err := export.Samples(tr, "xml"); !errors.Is(err, export.ErrFormat) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestExportReadByTrainer exports stored runs and reads them back with the
// trainer's own reader and chat renderer (training/data, model/tokenizer),
// so the two sides agree on the format.
func TestExportReadByTrainer(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	tracingtest.SaveRun(t, svc, "alice", "tr_good", t0, recursion.StopFinal, "m")
	tracingtest.SaveRun(t, svc, "alice", "tr_cut", t0.Add(time.Minute), recursion.StopMaxIterations, "m")
	tracingtest.SaveRun(t, svc, "alice", "tr_bad", t0.Add(2*time.Minute), recursion.StopFinal, "m")
	if _, err := svc.Feedback(t.Context(), "alice", "tr_good", tracing.Reward{Score: 1, Label: "correct"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Feedback(t.Context(), "alice", "tr_bad", tracing.Reward{Score: 0, Label: "wrong"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		f       tracing.Filter
		format  string
		samples int
		traces  string
	}{
		{"all per turn", tracing.Filter{}, export.FormatSFT, 6, "tr_bad tr_cut tr_good"},
		{"rewarded", tracing.Filter{MinReward: ptr(0.5)}, export.FormatSFT, 2, "tr_good"},
		{"final only", tracing.Filter{StopReason: "final"}, export.FormatSFTTranscript, 2, "tr_bad tr_good"},
		{"chat since", tracing.Filter{Since: t0.Add(30 * time.Second)}, export.FormatChat, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			st, err := export.Write(t.Context(), svc.Archive(), "alice", tc.f, tc.format, &buf)
			if err != nil {
				t.Fatal(err)
			}
			samples, rs, err := data.Read(t.Context(), &buf, data.Filter{})
			if err != nil {
				t.Fatalf("the trainer cannot read the export: %v", err)
			}
			if st.Samples != tc.samples || len(samples) != tc.samples || rs.NothingToTrain != 0 {
				t.Errorf("wrote %d, trainer kept %d (%+v), want %d", st.Samples, len(samples), rs, tc.samples)
			}
			seen := map[string]bool{}
			var traces []string
			for _, s := range samples {
				if s.TraceID != "" && !seen[s.TraceID] {
					seen[s.TraceID] = true
					traces = append(traces, s.TraceID)
				}
				msgs := s.ChatMessages()
				trained := 0
				for _, m := range msgs {
					if m.Train {
						trained++
					}
				}
				if tc.format == export.FormatSFT && trained != 1 {
					t.Errorf("per-turn sample %s trains on %d messages", s.ID, trained)
				}
				if _, err := tokenizer.RenderChat(msgs); err != nil {
					t.Errorf("render %s: %v", s.ID, err)
				}
			}
			if got := strings.Join(traces, " "); got != tc.traces {
				t.Errorf("traces %q, want %q", got, tc.traces)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

type observerFunc func(recursion.Event)

func (f observerFunc) Observe(ev recursion.Event) { f(ev) }
