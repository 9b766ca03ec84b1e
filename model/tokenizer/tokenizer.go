// Package tokenizer is a byte-level BPE tokenizer that loads a Hugging Face
// tokenizer.json of the Qwen2/Qwen3 family, and renders chat messages in the
// ChatML format of the Qwen3 chat template, with a loss mask for training.
//
// Encoding follows the Hugging Face tokenizers pipeline: added tokens are
// matched first, the text between them is NFC-normalized, split by the Qwen
// pre-tokenizer pattern, mapped to the GPT-2 byte alphabet and merged by rank.
package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// AddedToken is a token matched in the text before BPE, such as <|im_start|>
// (special) or <think> (not special).
type AddedToken struct {
	ID      int
	Content string
	Special bool
}

// Tokenizer encodes text to token ids and back. It is safe for concurrent use.
type Tokenizer struct {
	vocab      map[string]int32 // token (in the byte-level alphabet) to id
	tokenBytes [][]byte         // id to the bytes it stands for
	merges     map[uint64]merge
	byteID     [256]int32 // id of the single-byte token of each byte

	added      []AddedToken
	addedIndex [256][]AddedToken // by first byte, longest first
	addedFirst string            // the first bytes of added tokens
	// splittable is false when an added token contains a line break or a
	// space, which would make the chunk boundaries of parallel encoding unsafe.
	splittable bool

	pool sync.Pool // *encoder
}

// file is the part of tokenizer.json this package reads.
type file struct {
	AddedTokens []struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		Special    bool   `json:"special"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
	} `json:"added_tokens"`
	Normalizer   *struct{ Type string } `json:"normalizer"`
	PreTokenizer *struct {
		Type          string `json:"type"`
		Pretokenizers []struct {
			Type    string `json:"type"`
			Pattern struct {
				Regex string `json:"Regex"`
			} `json:"pattern"`
			Behavior    string `json:"behavior"`
			Invert      bool   `json:"invert"`
			AddPrefixSp bool   `json:"add_prefix_space"`
			UseRegex    *bool  `json:"use_regex"`
		} `json:"pretokenizers"`
	} `json:"pre_tokenizer"`
	Model struct {
		Type                    string           `json:"type"`
		Vocab                   map[string]int32 `json:"vocab"`
		Merges                  json.RawMessage  `json:"merges"`
		ByteFallback            bool             `json:"byte_fallback"`
		ContinuingSubwordPrefix string           `json:"continuing_subword_prefix"`
		EndOfWordSuffix         string           `json:"end_of_word_suffix"`
	} `json:"model"`
}

// maxVocab bounds token ids so that a corrupt file cannot make Parse
// allocate without limit.
const maxVocab = 1 << 24

// Load reads a tokenizer from a tokenizer.json file or from a model
// directory that holds one.
func Load(path string) (*Tokenizer, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	return t, nil
}

// Parse builds a tokenizer from the contents of a tokenizer.json. It accepts
// only the configuration it implements exactly (byte-level BPE with the Qwen
// Split pattern and optional NFC) and rejects anything else with an error.
func Parse(data []byte) (*Tokenizer, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	t := &Tokenizer{
		vocab:      f.Model.Vocab,
		splittable: true,
	}
	size := 0
	for _, id := range f.Model.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("parse tokenizer.json: negative token id %d", id)
		}
		size = max(size, int(id)+1)
	}
	for _, a := range f.AddedTokens {
		if a.ID < 0 || a.Content == "" {
			return nil, fmt.Errorf("parse tokenizer.json: bad added token %q (id %d)", a.Content, a.ID)
		}
		size = max(size, a.ID+1)
	}
	if size > maxVocab {
		return nil, fmt.Errorf("parse tokenizer.json: token id %d is beyond the supported %d", size-1, maxVocab)
	}
	t.tokenBytes = make([][]byte, size)
	dec := byteDecoder()
	for tok, id := range f.Model.Vocab {
		b, ok := decodeByteLevel(tok, dec)
		if !ok {
			return nil, fmt.Errorf("parse tokenizer.json: vocab token %q is not in the byte-level alphabet", tok)
		}
		t.tokenBytes[id] = b
	}
	enc := byteEncoder()
	for b := 0; b < 256; b++ {
		id, ok := t.vocab[string(enc[b])]
		if !ok {
			return nil, fmt.Errorf("parse tokenizer.json: vocab lacks the token for byte %#x", b)
		}
		t.byteID[b] = id
	}
	if err := t.loadMerges(f.Model.Merges); err != nil {
		return nil, err
	}
	for _, a := range f.AddedTokens {
		if a.LStrip || a.RStrip || a.SingleWord {
			return nil, fmt.Errorf("parse tokenizer.json: added token %q uses lstrip/rstrip/single_word, which this tokenizer does not implement", a.Content)
		}
		at := AddedToken{ID: a.ID, Content: a.Content, Special: a.Special}
		t.added = append(t.added, at)
		if len(t.addedIndex[a.Content[0]]) == 0 {
			t.addedFirst += a.Content[:1]
		}
		t.addedIndex[a.Content[0]] = append(t.addedIndex[a.Content[0]], at)
		t.tokenBytes[a.ID] = []byte(a.Content)
		if strings.ContainsAny(a.Content, " \r\n") {
			t.splittable = false
		}
	}
	for _, list := range t.addedIndex {
		sort.SliceStable(list, func(i, j int) bool { return len(list[i].Content) > len(list[j].Content) })
	}
	return t, nil
}

func (f *file) check() error {
	if f.Model.Type != "BPE" {
		return fmt.Errorf("parse tokenizer.json: model type %q, want BPE", f.Model.Type)
	}
	if f.Model.ByteFallback || f.Model.ContinuingSubwordPrefix != "" || f.Model.EndOfWordSuffix != "" {
		return fmt.Errorf("parse tokenizer.json: BPE options byte_fallback, continuing_subword_prefix and end_of_word_suffix are not supported")
	}
	if f.Normalizer != nil && f.Normalizer.Type != "NFC" {
		return fmt.Errorf("parse tokenizer.json: normalizer %q, want NFC or none", f.Normalizer.Type)
	}
	p := f.PreTokenizer
	if p == nil || p.Type != "Sequence" || len(p.Pretokenizers) != 2 {
		return fmt.Errorf("parse tokenizer.json: pre_tokenizer must be a Sequence of Split and ByteLevel (Qwen2/Qwen3 style)")
	}
	split, bl := p.Pretokenizers[0], p.Pretokenizers[1]
	if split.Type != "Split" || split.Pattern.Regex != qwenPattern || split.Invert || split.Behavior != "Isolated" {
		return fmt.Errorf("parse tokenizer.json: unsupported Split pre-tokenizer (pattern %q, behavior %q)", split.Pattern.Regex, split.Behavior)
	}
	if bl.Type != "ByteLevel" || bl.AddPrefixSp || (bl.UseRegex != nil && *bl.UseRegex) {
		return fmt.Errorf("parse tokenizer.json: second pre-tokenizer must be ByteLevel without prefix space or regex")
	}
	return nil
}

// loadMerges accepts both encodings of merges: "a b" strings (older files)
// and ["a", "b"] pairs (newer files).
func (t *Tokenizer) loadMerges(raw json.RawMessage) error {
	var pairs [][2]string
	var strs []string
	if err := json.Unmarshal(raw, &strs); err == nil {
		pairs = make([][2]string, len(strs))
		for i, s := range strs {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return fmt.Errorf("parse tokenizer.json: merge %d %q is not two tokens", i, s)
			}
			pairs[i] = [2]string{a, b}
		}
	} else if err := json.Unmarshal(raw, &pairs); err != nil {
		return fmt.Errorf("parse tokenizer.json: merges: %w", err)
	}
	t.merges = make(map[uint64]merge, len(pairs))
	for rank, p := range pairs {
		a, ok1 := t.vocab[p[0]]
		b, ok2 := t.vocab[p[1]]
		id, ok3 := t.vocab[p[0]+p[1]]
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("parse tokenizer.json: merge %d (%q %q) uses a token missing from the vocab", rank, p[0], p[1])
		}
		k := pairKey(a, b)
		if _, dup := t.merges[k]; !dup {
			t.merges[k] = merge{rank: int32(rank), id: id}
		}
	}
	return nil
}

// VocabSize is one more than the largest token id, added tokens included.
// A model's embedding table may be larger (Qwen3 pads it to 151936).
func (t *Tokenizer) VocabSize() int { return len(t.tokenBytes) }

// TokenID returns the id of a token given as text: an added token such as
// "<|im_end|>", or a vocabulary entry spelled in the byte-level alphabet
// (a leading space is "Ġ").
func (t *Tokenizer) TokenID(s string) (int, bool) {
	for _, a := range t.added {
		if a.Content == s {
			return a.ID, true
		}
	}
	id, ok := t.vocab[s]
	return int(id), ok
}

// AddedTokens lists the added tokens in file order.
func (t *Tokenizer) AddedTokens() []AddedToken { return append([]AddedToken(nil), t.added...) }

// Decode returns the text of ids. The bytes are joined as they are, so a
// sequence cut inside a multi-byte character gives invalid UTF-8 rather than
// a replacement character; ids out of range are skipped.
func (t *Tokenizer) Decode(ids []int) string {
	var b bytes.Buffer
	for _, id := range ids {
		if id >= 0 && id < len(t.tokenBytes) {
			b.Write(t.tokenBytes[id])
		}
	}
	return b.String()
}

// TokenBytes returns the bytes token id stands for (nil when out of range).
// The slice must not be modified.
func (t *Tokenizer) TokenBytes(id int) []byte {
	if id < 0 || id >= len(t.tokenBytes) {
		return nil
	}
	return t.tokenBytes[id]
}

// Encode tokenizes text with the Hugging Face defaults (split_special_tokens
// false): every added token in the text, special or not, becomes its id.
// Use EncodeOrdinary for untrusted text that must not produce control tokens.
func (t *Tokenizer) Encode(text string) []int {
	return t.encode(text, true)
}

// EncodeWithSpecial is Encode; the name says at the call site that special
// tokens in text are honoured.
func (t *Tokenizer) EncodeWithSpecial(text string) []int { return t.encode(text, true) }

// EncodeOrdinary tokenizes text as plain text: special tokens such as
// <|im_start|> are encoded as their characters, while non-special added tokens
// such as <think> are still matched, as the chat format needs.
func (t *Tokenizer) EncodeOrdinary(text string) []int { return t.encode(text, false) }

// encoder holds the per-goroutine state of encoding: scratch buffers and a
// cache of pre-token encodings, which repeat heavily in natural text.
type encoder struct {
	t     *Tokenizer
	cache map[string][]int32
	ids   []int32
	syms  []symbol
	heap  candidateHeap
}

const (
	cacheMaxEntries = 1 << 16
	cacheMaxWordLen = 64
)

func (t *Tokenizer) getEncoder() *encoder {
	if e, ok := t.pool.Get().(*encoder); ok {
		return e
	}
	return &encoder{t: t, cache: make(map[string][]int32, 1024)}
}

// word appends the ids of one pre-token.
func (e *encoder) word(dst []int, w string) []int {
	if len(w) > cacheMaxWordLen {
		return e.bpe(dst, w)
	}
	if ids, ok := e.cache[w]; ok {
		for _, id := range ids {
			dst = append(dst, int(id))
		}
		return dst
	}
	n := len(dst)
	dst = e.bpe(dst, w)
	if len(e.cache) >= cacheMaxEntries {
		clear(e.cache)
	}
	ids := make([]int32, len(dst)-n)
	for i, id := range dst[n:] {
		ids[i] = int32(id)
	}
	e.cache[strings.Clone(w)] = ids
	return dst
}

// text appends the ids of a piece of text that holds no added token.
func (e *encoder) text(dst []int, s string) []int {
	return e.normalized(dst, norm.NFC.String(s))
}

// normalized appends the ids of an NFC-normalized piece of text that holds
// no added token.
func (e *encoder) normalized(dst []int, s string) []int {
	for i := 0; i < len(s); {
		j := scanQwen(s, i)
		dst = e.word(dst, s[i:j])
		i = j
	}
	return dst
}

// nextAdded finds the first added token in s at or after from; special
// false skips special tokens. It returns -1 when there is none.
func (t *Tokenizer) nextAdded(s string, from int, special bool) (int, AddedToken) {
	for i := from; i < len(s); i++ {
		switch len(t.addedFirst) {
		case 0:
			return -1, AddedToken{}
		case 1: // Qwen: every added token starts with '<'
			k := strings.IndexByte(s[i:], t.addedFirst[0])
			if k < 0 {
				return -1, AddedToken{}
			}
			i += k
		default:
			if len(t.addedIndex[s[i]]) == 0 {
				continue
			}
		}
		for _, a := range t.addedIndex[s[i]] {
			if (special || !a.Special) && strings.HasPrefix(s[i:], a.Content) {
				return i, a
			}
		}
	}
	return -1, AddedToken{}
}

// encodeSerial encodes s on the calling goroutine.
func (e *encoder) encodeSerial(dst []int, s string, special bool) []int {
	for start := 0; start < len(s); {
		i, a := e.t.nextAdded(s, start, special)
		if i < 0 {
			return e.text(dst, s[start:])
		}
		if start < i {
			dst = e.text(dst, s[start:i])
		}
		dst = append(dst, a.ID)
		start = i + len(a.Content)
	}
	return dst
}

func (t *Tokenizer) encode(s string, special bool) []int {
	workers := runtime.GOMAXPROCS(0)
	chunks := t.chunks(s, workers, minChunk)
	if len(chunks) <= 1 {
		e := t.getEncoder()
		defer t.pool.Put(e)
		return e.encodeSerial(make([]int, 0, len(s)/3+1), s, special)
	}
	return t.encodeParallel(chunks, special, workers)
}
