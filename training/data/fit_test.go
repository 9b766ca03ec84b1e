package data

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// trainedTokens returns the ids under the loss mask.
func trainedTokens(e Example) []int {
	var out []int
	for i, m := range e.Mask {
		if m {
			out = append(out, e.IDs[i])
		}
	}
	return out
}

func TestFit(t *testing.T) {
	tok := loadTiny(t)
	const (
		system   = "You are a careful assistant. Use the REPL."
		question = "Which key opens the vault?"
		answer   = "FINAL(the blue key)"
	)
	output := func(k int) string { return strings.Repeat("output line of step "+string(rune('a'+k))+"\n", 20) }
	notTrained := false
	m := func(role, content string) Message { return Message{Role: role, Content: content} }
	early := Message{Role: "assistant", Content: "print(context[:100])" + strings.Repeat(" # look at the start", 10) + " # last comment", Train: &notTrained}
	transcript := []Message{m("system", system), m("user", question), early, m("user", output(0)),
		{Role: "assistant", Content: "print(context[100:200])", Train: &notTrained}, m("tool", output(1)),
		{Role: "assistant", Content: "print(context[200:300])", Train: &notTrained}, m("user", output(2)),
		m("assistant", answer)}
	longQuestion := []Message{m("system", system), m("user", question+" "+strings.Repeat("filler words here ", 200)), m("assistant", answer)}
	length := func(msgs []Message) int {
		ex, _, err := Fit(tok, Sample{Messages: msgs}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(ex.IDs)
	}
	full := length(transcript)
	noOutputs := slices.Clone(transcript)
	for _, i := range []int{3, 5, 7} {
		noOutputs[i].Content = OutputCutMarker
	}
	tests := []struct {
		name      string
		msgs      []Message
		maxLen    int
		wantCut   FitStats // TokensCut is checked to be > 0 when Truncated
		wantFits  bool
		wantParts []string // must survive
		gone      []string // must be cut
	}{
		{"fits: unchanged", transcript, full, FitStats{}, true,
			[]string{system, question, answer, output(0), output(2)}, nil},
		{"oldest output first", transcript, full - 5, FitStats{Truncated: 1, OutputsCut: 1}, true,
			[]string{system, question, answer, output(1), output(2)}, []string{output(0)}},
		{"all outputs", transcript, length(noOutputs), FitStats{Truncated: 1, OutputsCut: 3}, true,
			[]string{system, question, answer, early.Content}, []string{output(0), output(1), output(2)}},
		{"then elide inside the longest untrained message", transcript, length(noOutputs) - 12, FitStats{Truncated: 1, OutputsCut: 3, MessagesElided: 1}, true,
			[]string{system, question, answer, "print(context[:100])", "# last comment", "chars cut"}, []string{output(0), early.Content}},
		{"a long question is elided in the middle, its start and end kept", longQuestion, 250, FitStats{Truncated: 1, MessagesElided: 1}, true,
			[]string{system, question, "filler words here <|im_end|>", answer, "chars cut"}, nil},
		{"trained turn alone too long: left too long for Pack to drop", []Message{m("user", question), m("assistant", strings.Repeat(answer, 50))}, 40,
			FitStats{}, false, []string{question, strings.Repeat(answer, 50)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, _, err := Fit(tok, Sample{Messages: tt.msgs}, 0)
			if err != nil {
				t.Fatal(err)
			}
			ex, st, err := Fit(tok, Sample{ID: "s", Messages: tt.msgs}, tt.maxLen)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(ex.IDs) <= tt.maxLen; got != tt.wantFits {
				t.Fatalf("%d tokens for a limit of %d: fits %v, want %v", len(ex.IDs), tt.maxLen, got, tt.wantFits)
			}
			if st.Truncated > 0 && st.TokensCut != len(orig.IDs)-len(ex.IDs) || st.Truncated > 0 && st.TokensCut <= 0 {
				t.Errorf("TokensCut %d, cut %d", st.TokensCut, len(orig.IDs)-len(ex.IDs))
			}
			st.TokensCut = 0
			if st != tt.wantCut {
				t.Errorf("stats %+v, want %+v", st, tt.wantCut)
			}
			if len(ex.Mask) != len(ex.IDs) {
				t.Fatalf("%d ids, %d mask entries", len(ex.IDs), len(ex.Mask))
			}
			// The trained turns are untouched, so the tokens under the mask
			// are exactly those of the uncut sample.
			if !slices.Equal(trainedTokens(ex), trainedTokens(orig)) {
				t.Errorf("trained tokens changed:\n got %q\nwant %q", tok.Decode(trainedTokens(ex)), tok.Decode(trainedTokens(orig)))
			}
			text := tok.Decode(ex.IDs)
			for _, p := range tt.wantParts {
				if !strings.Contains(text, p) {
					t.Errorf("%q was cut:\n%s", p, text)
				}
			}
			for _, p := range tt.gone {
				if strings.Contains(text, p) {
					t.Errorf("%q survived", p)
				}
			}
		})
	}
}

func TestBuildTruncatesFromTheMiddle(t *testing.T) {
	tok := loadTiny(t)
	line := `{"id": "long", "messages": [{"role": "system", "content": "SYS"}, {"role": "user", "content": "Q?"}, {"role": "assistant", "content": "look", "train": false}, {"role": "user", "content": "` +
		strings.Repeat("xyz ", 300) + `"}, {"role": "assistant", "content": "A!"}]}` + "\n"
	path := t.TempDir() + "/d.jsonl"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, st, err := Build(t.Context(), path, tok, Config{Pack: PackConfig{SeqLen: 160, PadID: 266}})
	if err != nil {
		t.Fatal(err)
	}
	seqs := ds.Train
	if len(seqs) != 1 || st.Pack.Truncated != 1 || st.Pack.OutputsCut != 1 || st.Pack.TokensCut <= 0 {
		t.Fatalf("%d sequences, stats %+v", len(seqs), st.Pack)
	}
	var in []int
	for _, id := range seqs[0].Input {
		if id != 266 {
			in = append(in, id)
		}
	}
	text := tok.Decode(in)
	for _, p := range []string{"SYS", "Q?", "A!", OutputCutMarker} {
		if !strings.Contains(text, p) {
			t.Errorf("%q missing from %q", p, text)
		}
	}
}
