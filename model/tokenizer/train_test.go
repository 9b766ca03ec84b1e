package tokenizer

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"
)

// trainCorpus is a few hundred kB of Go sources and the reference corpus's
// hard cases (spaces, line ends, contractions, scripts, emoji).
func trainCorpus() []string {
	return append(referenceCorpus(), realText(300<<10))
}

func trainOn(t *testing.T, texts []string, size int) (*Trained, string) {
	t.Helper()
	tr := NewTrainer(nil)
	for _, s := range texts {
		tr.Add(s)
	}
	voc, err := tr.Train(context.Background(), TrainConfig{VocabSize: size})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := voc.Save(dir, 4096); err != nil {
		t.Fatal(err)
	}
	return voc, dir
}

// referenceEncode is BPE by its definition, written for clarity, not speed:
// in each pre-token, merge the adjacent pair of lowest rank (leftmost first)
// until no pair has a merge.
func referenceEncode(voc *Trained, text string) []int {
	vocab := map[string]int{}
	for id, tok := range voc.Tokens {
		vocab[tok] = id
	}
	rank := map[[2]string]int{}
	for r, m := range voc.Merges {
		rank[m] = r
	}
	enc := byteEncoder()
	var ids []int
	word := func(w string) {
		var syms []string
		for i := range len(w) {
			syms = append(syms, string(enc[w[i]]))
		}
		for {
			best, at := -1, -1
			for i := 0; i+1 < len(syms); i++ {
				if r, ok := rank[[2]string{syms[i], syms[i+1]}]; ok && (at < 0 || r < best) {
					best, at = r, i
				}
			}
			if at < 0 {
				break
			}
			syms = append(syms[:at], append([]string{syms[at] + syms[at+1]}, syms[at+2:]...)...)
		}
		for _, s := range syms {
			ids = append(ids, vocab[s])
		}
	}
	for rest := text; rest != ""; {
		i, size, id := len(rest), 0, 0
		for _, a := range voc.Added {
			if j := strings.Index(rest, a.Content); j >= 0 && (j < i || j == i && len(a.Content) > size) {
				i, size, id = j, len(a.Content), a.ID
			}
		}
		s := norm.NFC.String(rest[:i])
		for p := 0; p < len(s); {
			q := scanQwen(s, p)
			word(s[p:q])
			p = q
		}
		if size == 0 {
			break
		}
		ids = append(ids, id)
		rest = rest[i+size:]
	}
	return ids
}

func TestTrainBPE(t *testing.T) {
	corpus := trainCorpus()
	voc, dir := trainOn(t, corpus, 1024)
	if voc.VocabSize() != 1024 || len(voc.Merges) != 1024-256-len(ChatAddedTokens) {
		t.Fatalf("vocab %d with %d merges, want 1024", voc.VocabSize(), len(voc.Merges))
	}
	tok, err := Load(dir)
	if err != nil {
		t.Fatalf("the existing loader rejects the trained file: %v", err)
	}
	if tok.VocabSize() != 1024 {
		t.Fatalf("loaded vocab size %d", tok.VocabSize())
	}
	for _, a := range ChatAddedTokens {
		if id, ok := tok.TokenID(a.Content); !ok || id < 1024-len(ChatAddedTokens) {
			t.Errorf("added token %q: id %d, %v", a.Content, id, ok)
		}
	}
	heldOut := []string{
		"func main() {\n\tfmt.Println(\"held out\", 42)\n}\n",
		"Somewhere in the attached text there is a special magic number belonging to brave-falcon.",
		"ID: 104233 | name: Alice Novak | city: Lisbon | product: kettle | quantity: 3",
		"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nhello<|im_end|>",
		"bytes \x00\x01\xff\xfe and unicode: 中文 😀 e\u0301",
	}
	bytesIn, tokensOut := 0, 0
	for _, text := range append(slices.Clone(corpus), heldOut...) {
		ids := tok.Encode(text)
		if got, want := tok.Decode(ids), norm.NFC.String(text); got != want {
			t.Fatalf("round trip of %.60q gave %.60q", want, got)
		}
		if ref := referenceEncode(voc, text); !slices.Equal(ids, ref) {
			t.Fatalf("%.60q: encoder gave %v, merges in rank order give %v", text, ids[:min(20, len(ids))], ref[:min(20, len(ref))])
		}
		bytesIn += len(text)
		tokensOut += len(ids)
	}
	// Every byte stays encodable on its own, so no input is out of vocabulary.
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if ids := tok.EncodeOrdinary(string(all)); !bytes.Equal([]byte(tok.Decode(ids)), []byte(norm.NFC.String(string(all)))) {
		t.Error("the 256 bytes do not round-trip")
	}
	ratio := float64(bytesIn) / float64(tokensOut)
	t.Logf("1024-token vocabulary: %.2f bytes per token on %d bytes", ratio, bytesIn)
	if ratio < 1.8 { // 1.0 without merges
		t.Errorf("%.2f bytes per token: the merges do not compress the corpus they were learned from", ratio)
	}
}

func TestTrainDeterministic(t *testing.T) {
	corpus := trainCorpus()[:40]
	corpus = append(corpus, realText(60<<10))
	a, _ := trainOn(t, corpus, 700)
	rev := slices.Clone(corpus)
	slices.Reverse(rev)
	b, _ := trainOn(t, rev, 700)
	ja, _ := a.TokenizerJSON()
	jb, _ := b.TokenizerJSON()
	if !bytes.Equal(ja, jb) {
		t.Fatal("the same corpus in another order gave another vocabulary")
	}
	// A small vocabulary is the prefix of a larger one: merges are taken
	// greedily, most frequent first.
	c, _ := trainOn(t, corpus, 500)
	if !slices.Equal(c.Merges, a.Merges[:len(c.Merges)]) {
		t.Error("the 500-token merges are not a prefix of the 700-token ones")
	}
}

func TestTrainLimits(t *testing.T) {
	tr := NewTrainer(nil)
	tr.Add("tiny corpus")
	if _, err := tr.Train(context.Background(), TrainConfig{VocabSize: 200}); err == nil {
		t.Error("a vocab size below 256 bytes + added tokens was accepted")
	}
	voc, err := tr.Train(context.Background(), TrainConfig{VocabSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	// No pair occurs twice: nothing to merge, the vocabulary stays small.
	if len(voc.Merges) != 0 {
		t.Errorf("%d merges from a corpus without repeated pairs", len(voc.Merges))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr.Add(strings.Repeat("abc ", 1000))
	if _, err := tr.Train(ctx, TrainConfig{VocabSize: 4096}); err == nil {
		t.Error("a cancelled training returned no error")
	}
}

// TestTrainedMatchesReference encodes with @lenml/tokenizers (transformers.js)
// and renders the chat template of tokenizer_config.json with
// @huggingface/jinja, on the trained files: both must agree with this
// package (ids, and RenderChat / EncodeChat / EncodePrompt).
func TestTrainedMatchesReference(t *testing.T) {
	needQwen3(t)
	corpus := trainCorpus()
	_, dir := trainOn(t, corpus, 1024)
	tok, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	texts := append(referenceCorpus(), realText(100<<10))
	req := nodeRequest{Dir: dir, Texts: texts}
	for _, c := range chatCases {
		req.Chats = append(req.Chats, toNode(c.msgs))
		req.Prompts = append(req.Prompts, toNode(c.msgs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := runNode(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if got := tok.Encode(text); !slices.Equal(got, resp.IDs[i]) {
			t.Errorf("text %d %.40q: ids differ from transformers.js (%d vs %d tokens)", i, text, len(got), len(resp.IDs[i]))
		}
	}
	for i, c := range chatCases {
		text, err := RenderChat(c.msgs)
		if err != nil {
			t.Fatal(err)
		}
		if text != resp.Chats[i].Text {
			t.Errorf("%s: chat template renders\n%q\nRenderChat\n%q", c.name, resp.Chats[i].Text, text)
		}
		ids, _, _ := tok.EncodeChat(c.msgs)
		if !slices.Equal(ids, resp.Chats[i].IDs) {
			t.Errorf("%s: EncodeChat ids differ from the reference", c.name)
		}
		p, _ := tok.EncodePrompt(c.msgs)
		if !slices.Equal(p, resp.Prompts[i].IDs) {
			t.Errorf("%s: EncodePrompt ids differ from the reference", c.name)
		}
	}
}
