package tokenizer

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/text/unicode/norm"
)

// ChatAddedTokens are the added tokens of the Qwen3 chat format, in the
// order Qwen3 numbers them: what RenderChat and the chat template of
// ChatTemplate write around and inside messages.
var ChatAddedTokens = []AddedToken{
	{Content: "<|endoftext|>", Special: true},
	{Content: "<|im_start|>", Special: true},
	{Content: "<|im_end|>", Special: true},
	{Content: "<think>"},
	{Content: "</think>"},
}

// Trainer learns a byte-level BPE vocabulary from a corpus, with the same
// normalization (NFC) and pre-tokenizer (the Qwen pattern) as the
// tokenizer it produces, so that what it merges is what encoding sees.
// Feed it text with Add, then call Train. Training is deterministic: the
// same texts, in any order, give the same vocabulary.
type Trainer struct {
	added  []AddedToken
	counts map[string]int // pre-token to occurrences
	probe  *Tokenizer     // finds added tokens in the corpus
}

// NewTrainer returns a trainer whose vocabulary ends with added (nil means
// ChatAddedTokens); their IDs are assigned by Train. Occurrences of added
// tokens in the corpus are cut out of it, as encoding does.
func NewTrainer(added []AddedToken) *Trainer {
	if added == nil {
		added = ChatAddedTokens
	}
	probe := &Tokenizer{}
	for _, a := range added {
		if a.Content == "" {
			continue
		}
		if len(probe.addedIndex[a.Content[0]]) == 0 {
			probe.addedFirst += a.Content[:1]
		}
		probe.addedIndex[a.Content[0]] = append(probe.addedIndex[a.Content[0]], a)
	}
	for _, list := range probe.addedIndex {
		slices.SortStableFunc(list, func(x, y AddedToken) int { return len(y.Content) - len(x.Content) })
	}
	return &Trainer{added: slices.Clone(added), counts: map[string]int{}, probe: probe}
}

// Add counts the pre-tokens of text.
func (t *Trainer) Add(text string) {
	for start := 0; start < len(text); {
		i, a := t.probe.nextAdded(text, start, true)
		end := i
		if i < 0 {
			end = len(text)
		}
		if start < end {
			s := norm.NFC.String(text[start:end])
			for p := 0; p < len(s); {
				q := scanQwen(s, p)
				t.counts[s[p:q]]++
				p = q
			}
		}
		if i < 0 {
			break
		}
		start = i + len(a.Content)
	}
}

// TrainConfig configures Train.
type TrainConfig struct {
	// VocabSize is the size of the vocabulary, added tokens included: 256
	// byte tokens, then one token per merge, then the added tokens.
	VocabSize int
	// MinFrequency is the fewest occurrences of a pair worth a merge
	// (default 2); with too small a corpus the vocabulary stays smaller
	// than VocabSize.
	MinFrequency int
}

// Trained is a learned vocabulary.
type Trained struct {
	// Tokens are the vocabulary in the byte-level alphabet, by id: the 256
	// bytes (id = byte value), then one per merge, in rank order.
	Tokens []string
	// Merges are the pairs merged, by rank; merge r made token 256+r.
	Merges [][2]string
	// Added are the added tokens, with their ids after the vocabulary.
	Added []AddedToken
}

// word is one distinct pre-token as a sequence of token ids.
type word struct {
	ids []int32
	n   int // occurrences in the corpus
}

// pairCount is a heap entry: a pair and its count when it was pushed.
// Entries whose count no longer matches the current one are stale.
type pairCount struct {
	count int
	a, b  int32
}

type pairHeap []pairCount

func (h pairHeap) Len() int { return len(h) }

// Less puts the most frequent pair first; ties go to the smallest ids, so
// that training does not depend on map order.
func (h pairHeap) Less(i, j int) bool {
	if h[i].count != h[j].count {
		return h[i].count > h[j].count
	}
	if h[i].a != h[j].a {
		return h[i].a < h[j].a
	}
	return h[i].b < h[j].b
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairCount)) }
func (h *pairHeap) Pop() any     { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }

// Train learns merges until the vocabulary has cfg.VocabSize tokens or no
// pair occurs cfg.MinFrequency times. It checks ctx between merges.
func (t *Trainer) Train(ctx context.Context, cfg TrainConfig) (*Trained, error) {
	if cfg.MinFrequency <= 0 {
		cfg.MinFrequency = 2
	}
	nMerges := cfg.VocabSize - 256 - len(t.added)
	if nMerges < 0 {
		return nil, fmt.Errorf("train tokenizer: vocab size %d is below the %d byte and added tokens", cfg.VocabSize, 256+len(t.added))
	}
	enc := byteEncoder()
	tr := &Trained{}
	tokBytes := make([][]byte, 256, 256+nMerges)
	for b := range 256 {
		tr.Tokens = append(tr.Tokens, string(enc[b]))
		tokBytes[b] = []byte{byte(b)}
	}

	keys := make([]string, 0, len(t.counts))
	for k := range t.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	words := make([]word, len(keys))
	pairs := map[uint64]int{}
	where := map[uint64][]int32{}
	for wi, k := range keys {
		ids := make([]int32, len(k))
		for i := range len(k) {
			ids[i] = int32(k[i])
		}
		words[wi] = word{ids: ids, n: t.counts[k]}
		for i := 0; i+1 < len(ids); i++ {
			p := pairKey(ids[i], ids[i+1])
			pairs[p] += words[wi].n
			if l := where[p]; len(l) == 0 || l[len(l)-1] != int32(wi) {
				where[p] = append(l, int32(wi))
			}
		}
	}
	h := make(pairHeap, 0, len(pairs))
	for p, c := range pairs {
		h = append(h, pairCount{count: c, a: int32(p >> 32), b: int32(uint32(p))})
	}
	heap.Init(&h)

	changed := map[uint64]bool{}
	for len(tr.Merges) < nMerges && h.Len() > 0 {
		if len(tr.Merges)%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		top := heap.Pop(&h).(pairCount)
		key := pairKey(top.a, top.b)
		if pairs[key] != top.count {
			continue // stale
		}
		if top.count < cfg.MinFrequency {
			break
		}
		id := int32(len(tr.Tokens))
		tr.Tokens = append(tr.Tokens, tr.Tokens[top.a]+tr.Tokens[top.b])
		tr.Merges = append(tr.Merges, [2]string{tr.Tokens[top.a], tr.Tokens[top.b]})
		tokBytes = append(tokBytes, append(slices.Clone(tokBytes[top.a]), tokBytes[top.b]...))
		clear(changed)
		for _, wi := range where[key] {
			w := &words[wi]
			if !containsPair(w.ids, top.a, top.b) {
				continue
			}
			for i := 0; i+1 < len(w.ids); i++ {
				p := pairKey(w.ids[i], w.ids[i+1])
				pairs[p] -= w.n
				changed[p] = true
			}
			// Left to right, as encoding applies one merge to a word.
			out := w.ids[:0]
			for i := 0; i < len(w.ids); i++ {
				if i+1 < len(w.ids) && w.ids[i] == top.a && w.ids[i+1] == top.b {
					out = append(out, id)
					i++
				} else {
					out = append(out, w.ids[i])
				}
			}
			w.ids = out
			for i := 0; i+1 < len(w.ids); i++ {
				p := pairKey(w.ids[i], w.ids[i+1])
				pairs[p] += w.n
				changed[p] = true
				if w.ids[i] == id || w.ids[i+1] == id {
					if l := where[p]; len(l) == 0 || l[len(l)-1] != wi {
						where[p] = append(l, wi)
					}
				}
			}
		}
		delete(where, key)
		for p := range changed {
			if c := pairs[p]; c > 0 {
				heap.Push(&h, pairCount{count: c, a: int32(p >> 32), b: int32(uint32(p))})
			} else {
				delete(pairs, p)
			}
		}
	}
	for i, a := range t.added {
		tr.Added = append(tr.Added, AddedToken{ID: len(tr.Tokens) + i, Content: a.Content, Special: a.Special})
	}
	return tr, nil
}

func containsPair(ids []int32, a, b int32) bool {
	for i := 0; i+1 < len(ids); i++ {
		if ids[i] == a && ids[i+1] == b {
			return true
		}
	}
	return false
}

// VocabSize is the number of ids, added tokens included.
func (tr *Trained) VocabSize() int { return len(tr.Tokens) + len(tr.Added) }

// byteLevelConfig is the ByteLevel step of the pre-tokenizer, post-processor
// and decoder, as the Qwen files write it.
var byteLevelConfig = map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}

// TokenizerJSON returns the vocabulary as a Hugging Face tokenizer.json of
// the Qwen2/Qwen3 kind, which Load (and the tokenizers library) reads.
func (tr *Trained) TokenizerJSON() ([]byte, error) {
	added := make([]map[string]any, len(tr.Added))
	for i, a := range tr.Added {
		added[i] = map[string]any{"id": a.ID, "content": a.Content, "single_word": false, "lstrip": false,
			"rstrip": false, "normalized": false, "special": a.Special}
	}
	vocab := make(map[string]int, len(tr.Tokens))
	for id, tok := range tr.Tokens {
		if _, dup := vocab[tok]; dup {
			return nil, fmt.Errorf("tokenizer.json: token %q twice", tok)
		}
		vocab[tok] = id
	}
	f := map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": added,
		"normalizer":   map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": qwenPattern}, "behavior": "Isolated", "invert": false},
			byteLevelConfig,
		}},
		"post_processor": byteLevelConfig,
		"decoder":        byteLevelConfig,
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "", "end_of_word_suffix": "",
			"fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
			"vocab": vocab, "merges": tr.Merges,
		},
	}
	return json.MarshalIndent(f, "", " ")
}

// ChatTemplate is the Jinja chat template written to tokenizer_config.json:
// Qwen3's template without the tool-calling parts, which renders exactly
// what RenderChat renders (and, with add_generation_prompt, EncodePrompt).
const ChatTemplate = `{%- if messages[0].role == 'system' %}
    {{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}
        {%- set ns.multi_step_tool = false %}
        {%- set ns.last_query_index = index %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- if message.content is string %}
        {%- set content = message.content %}
    {%- else %}
        {%- set content = '' %}
    {%- endif %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}
        {{- '<|im_start|>' + message.role + '\n' + content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {%- set reasoning_content = '' %}
        {%- if '</think>' in content %}
            {%- set reasoning_content = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n') %}
            {%- set content = content.split('</think>')[-1].lstrip('\n') %}
        {%- endif %}
        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<|im_start|>' + message.role + '\n<think>\n' + reasoning_content.strip('\n') + '\n</think>\n\n' + content.lstrip('\n') }}
            {%- else %}
                {{- '<|im_start|>' + message.role + '\n' + content }}
            {%- endif %}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\n' + content }}
        {%- endif %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}`

// TokenizerConfigJSON returns a tokenizer_config.json in the Qwen3 layout,
// with ChatTemplate and <|im_end|> as the end-of-turn token.
func (tr *Trained) TokenizerConfigJSON(maxLength int) ([]byte, error) {
	dec := map[string]any{}
	eos, pad := "", ""
	for _, a := range tr.Added {
		dec[strconv.Itoa(a.ID)] = map[string]any{"content": a.Content, "lstrip": false, "normalized": false,
			"rstrip": false, "single_word": false, "special": a.Special}
		switch a.Content {
		case "<|im_end|>":
			eos = a.Content
		case "<|endoftext|>":
			pad = a.Content
		}
	}
	cfg := map[string]any{
		"add_bos_token": false, "add_prefix_space": false, "added_tokens_decoder": dec, "bos_token": nil,
		"chat_template": ChatTemplate, "clean_up_tokenization_spaces": false, "errors": "replace",
		"model_max_length": maxLength, "split_special_tokens": false, "tokenizer_class": "Qwen2Tokenizer", "unk_token": nil,
	}
	if eos != "" {
		cfg["eos_token"] = eos
	}
	if pad != "" {
		cfg["pad_token"] = pad
	}
	return json.MarshalIndent(cfg, "", "  ")
}

// Save writes tokenizer.json and tokenizer_config.json into dir, creating
// it. maxLength is the model_max_length recorded in the config.
func (tr *Trained) Save(dir string, maxLength int) error {
	tj, err := tr.TokenizerJSON()
	if err != nil {
		return err
	}
	cj, err := tr.TokenizerConfigJSON(maxLength)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save tokenizer: %w", err)
	}
	for name, b := range map[string][]byte{"tokenizer.json": tj, "tokenizer_config.json": cj} {
		if err := writeFileAtomic(filepath.Join(dir, name), append(b, '\n')); err != nil {
			return fmt.Errorf("save tokenizer: %w", err)
		}
	}
	return nil
}

// writeFileAtomic writes through a temporary file and a rename, so that a
// crash never leaves a half-written tokenizer file behind.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	werr := tmp.Chmod(0o644)
	if werr == nil {
		_, werr = tmp.Write(b)
	}
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
