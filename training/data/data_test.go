package data

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/model/tokenizer"
)

func loadTiny(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Load("../../model/tokenizer/testdata/tiny")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

const sampleFile = `{"id": "a", "trace_id": "t1", "reward": 1.0, "stop_reason": "final", "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}, {"role": "assistant", "content": "A"}]}
{"id": "b", "reward": 0.2, "stop_reason": "final", "messages": [{"role": "user", "content": "U"}, {"role": "assistant", "content": "A"}]}

{"id": "c", "reward": 1, "stop_reason": "max_iterations", "messages": [{"role": "user", "content": "U"}, {"role": "assistant", "content": "A"}]}
{"id": "d", "reward": 1, "stop_reason": "final", "messages": [{"role": "user", "content": "U"}, {"role": "assistant", "content": "A", "train": false}]}
{"messages": [{"role": "user", "content": "plain TRL line"}, {"role": "assistant", "content": "ok"}]}
`

func ptr[T any](v T) *T { return &v }

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		filter  Filter
		wantIDs []string
		want    ReadStats
	}{
		{"no filter", Filter{}, []string{"a", "b", "c", ""},
			ReadStats{Samples: 5, Kept: 4, NothingToTrain: 1}},
		{"min reward drops missing rewards too", Filter{MinReward: ptr(0.5)}, []string{"a", "c"},
			ReadStats{Samples: 5, Kept: 2, LowReward: 2, NothingToTrain: 1}},
		{"stop reasons", Filter{StopReasons: []string{"final"}}, []string{"a", "b"},
			ReadStats{Samples: 5, Kept: 2, StopReason: 2, NothingToTrain: 1}},
		{"both", Filter{MinReward: ptr(1.0), StopReasons: []string{"final"}}, []string{"a"},
			ReadStats{Samples: 5, Kept: 1, LowReward: 2, StopReason: 1, NothingToTrain: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples, st, err := Read(t.Context(), strings.NewReader(sampleFile), tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range samples {
				ids = append(ids, s.ID)
			}
			if !slices.Equal(ids, tt.wantIDs) {
				t.Errorf("kept %q, want %q", ids, tt.wantIDs)
			}
			if st != tt.want {
				t.Errorf("stats %+v, want %+v", st, tt.want)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct{ name, input, wantErr string }{
		{"bad json", "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}\n{oops\n", "line 2"},
		{"no messages", `{"id": "x"}`, "no messages"},
		{"unknown role", `{"messages": [{"role": "robot", "content": "x"}]}`, `role "robot"`},
		{"content parts", `{"messages": [{"role": "user", "content": [{"type": "text"}]}]}`, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Read(t.Context(), strings.NewReader(tt.input), Filter{})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := Read(ctx, strings.NewReader(sampleFile), Filter{}); err == nil {
		t.Error("Read with a cancelled context succeeded")
	}
	if _, _, err := ReadFile(t.Context(), filepath.Join(t.TempDir(), "missing.jsonl"), Filter{}); err == nil {
		t.Error("ReadFile of a missing file succeeded")
	}
}

func TestChatMessagesTrainFlag(t *testing.T) {
	s := Sample{Messages: []Message{
		{Role: "system", Content: "s"},
		{Role: "user", Content: "u", Train: ptr(true)},
		{Role: "assistant", Content: "a1", Train: ptr(false)},
		{Role: "assistant", Content: "a2"},
		{Role: "assistant", Content: "a3", Train: ptr(true)},
	}}
	var got []bool
	for _, m := range s.ChatMessages() {
		got = append(got, m.Train)
	}
	if want := []bool{false, false, false, true, true}; !slices.Equal(got, want) {
		t.Errorf("train flags %v, want %v", got, want)
	}
}

func TestTokenize(t *testing.T) {
	tok := loadTiny(t)
	samples, _, err := Read(t.Context(), strings.NewReader(sampleFile), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	examples, err := Tokenize(t.Context(), tok, samples)
	if err != nil {
		t.Fatal(err)
	}
	for i, ex := range examples {
		ids, mask, err := tok.EncodeChat(samples[i].ChatMessages())
		if err != nil {
			t.Fatal(err)
		}
		if ex.ID != samples[i].ID || !slices.Equal(ex.IDs, ids) || !slices.Equal(ex.Mask, mask) {
			t.Errorf("example %d differs from EncodeChat of its sample", i)
		}
	}
	bad := []Sample{{ID: "bad", Messages: []Message{{Role: "robot"}}}}
	if _, err := Tokenize(t.Context(), tok, bad); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("Tokenize of a bad sample: error %v, want one naming it", err)
	}
}

func TestShuffleDeterministic(t *testing.T) {
	base := make([]int, 50)
	for i := range base {
		base[i] = i
	}
	a, b, c := slices.Clone(base), slices.Clone(base), slices.Clone(base)
	Shuffle(a, 7)
	Shuffle(b, 7)
	Shuffle(c, 8)
	if !slices.Equal(a, b) {
		t.Error("same seed, different orders")
	}
	if slices.Equal(a, c) || slices.Equal(a, base) {
		t.Error("different seeds gave the same order, or nothing moved")
	}
	slices.Sort(a)
	if !slices.Equal(a, base) {
		t.Error("shuffle lost or duplicated elements")
	}
}

func TestBuild(t *testing.T) {
	tok := loadTiny(t)
	path := filepath.Join(t.TempDir(), "data.jsonl")
	if err := os.WriteFile(path, []byte(sampleFile), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Pack: PackConfig{SeqLen: 64, PadID: 266}, Seed: 1}
	ds, st, err := Build(t.Context(), path, tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	seqs := ds.Train
	if st.Read.Kept != 4 || st.Pack.Examples != 4 || len(seqs) != st.Pack.Sequences {
		t.Errorf("stats %+v with %d sequences", st, len(seqs))
	}
	againDS, _, err := Build(t.Context(), path, tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	again := againDS.Train
	for i := range seqs {
		if !slices.Equal(seqs[i].Input, again[i].Input) || !slices.Equal(seqs[i].Target, again[i].Target) {
			t.Fatal("Build is not deterministic for a seed")
		}
	}
	cfg.Filter.MinReward = ptr(5.0)
	if _, _, err := Build(t.Context(), path, tok, cfg); err == nil || !strings.Contains(err.Error(), "no sample passed") {
		t.Errorf("Build with nothing kept: error %v", err)
	}
}

// TestRootTurnSample checks the one-sample-per-root-turn export: earlier
// assistant turns marked train false are context, only the last is trained.
func TestRootTurnSample(t *testing.T) {
	tok := loadTiny(t)
	line := `{"messages": [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "hello", "train": false}, {"role": "user", "content": "q2"}, {"role": "assistant", "content": "the"}]}`
	samples, _, err := Read(t.Context(), strings.NewReader(line), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	examples, err := Tokenize(t.Context(), tok, samples)
	if err != nil {
		t.Fatal(err)
	}
	var trained []int
	for i, m := range examples[0].Mask {
		if m {
			trained = append(trained, examples[0].IDs[i])
		}
	}
	if got, want := tok.Decode(trained), "<think>\n\n</think>\n\nthe<|im_end|>"; got != want {
		t.Errorf("trained text %q, want %q", got, want)
	}
}

// TestBuildValidationSplit: the held-out samples are deterministic for a
// seed and none of their tokens is in a training sequence.
func TestBuildValidationSplit(t *testing.T) {
	tok := loadTiny(t)
	var lines strings.Builder
	for i := range 40 {
		fmt.Fprintf(&lines, `{"id": "s%02d", "messages": [{"role": "user", "content": "question q%02dq"}, {"role": "assistant", "content": "answer a%02da"}]}`+"\n", i, i, i)
	}
	path := filepath.Join(t.TempDir(), "data.jsonl")
	if err := os.WriteFile(path, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	decodeAll := func(seqs []Sequence) string {
		var b strings.Builder
		for _, s := range seqs {
			b.WriteString(tok.Decode(s.Input))
		}
		return b.String()
	}
	for _, tc := range []struct {
		frac    float64
		samples int
		wantVal int
	}{
		{-1, 40, 2}, {-1, 19, 0}, {0, 40, 0}, {0.25, 40, 10}, {0.01, 40, 1}, {0.5, 2, 1},
	} {
		t.Run(fmt.Sprintf("%g of %d", tc.frac, tc.samples), func(t *testing.T) {
			p := path
			if tc.samples < 40 {
				p = filepath.Join(t.TempDir(), "few.jsonl")
				few := strings.SplitAfterN(lines.String(), "\n", tc.samples+1)[:tc.samples]
				if err := os.WriteFile(p, []byte(strings.Join(few, "")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := Config{Pack: PackConfig{SeqLen: 64, PadID: 266}, Seed: 3, ValFraction: tc.frac}
			ds, st, err := Build(t.Context(), p, tok, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if st.ValSamples != tc.wantVal || len(ds.ValIDs) != tc.wantVal || st.Pack.Examples != tc.samples-tc.wantVal || st.Val.Examples != tc.wantVal {
				t.Fatalf("%d held out (%v), %d trained, want %d held out", st.ValSamples, ds.ValIDs, st.Pack.Examples, tc.wantVal)
			}
			train, val := decodeAll(ds.Train), decodeAll(ds.Val)
			for _, id := range ds.ValIDs {
				n := strings.TrimPrefix(id, "s")
				if !strings.Contains(val, "a"+n+"a") || strings.Contains(train, "q"+n+"q") || strings.Contains(train, "a"+n+"a") {
					t.Errorf("held-out sample %s: in validation %v, in training %v", id, strings.Contains(val, "a"+n+"a"), strings.Contains(train, "a"+n+"a"))
				}
			}
			again, _, err := Build(t.Context(), p, tok, cfg)
			if err != nil || !slices.Equal(again.ValIDs, ds.ValIDs) {
				t.Errorf("split not deterministic: %v then %v (%v)", ds.ValIDs, again.ValIDs, err)
			}
		})
	}
	if _, _, err := Build(t.Context(), path, tok, Config{Pack: PackConfig{SeqLen: 64}, ValFraction: 1}); err == nil {
		t.Error("validation fraction 1 accepted")
	}
}
