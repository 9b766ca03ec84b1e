package tokenizer

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// testdata/tiny/tokenizer.json has the 256 byte tokens (id = byte value),
// ten merges whose ranks are chosen so that the order of merging matters, and
// five added tokens:
//
//	256 ll, 257 ell, 258 hell, 259 hello, 260 Ġhello,
//	261 he, 262 Ġt, 263 the, 264 Ġthe, 265 ĊĊ
//	266 <|endoftext|>, 267 <|im_start|>, 268 <|im_end|> (special)
//	269 <think>, 270 </think>
const tinyDir = "testdata/tiny"

func loadTiny(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := Load(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestEncodeTiny(t *testing.T) {
	tok := loadTiny(t)
	tests := []struct {
		text string
		want []int
	}{
		{"", nil},
		{"a", []int{'a'}},
		// l+l (rank 0), e+ll, h+ell, hell+o.
		{"hello", []int{259}},
		// " there": h+e (rank 5) beats Ġ+t (6), then Ġ+t, then Ġt+he.
		{"the hello there", []int{263, 260, 264, 'r', 'e'}},
		// Ġ is byte 0x20; Ċ byte 0x0a: "\n\n" merges, a lone "\n" does not.
		{"\n\n", []int{265}},
		{"a\n", []int{'a', '\n'}},
		// Two spaces before a word: the first stands alone (\s+(?!\S)).
		{"  hello", []int{' ', 260}},
		{"x  ", []int{'x', ' ', ' '}},
		// Added tokens are matched before BPE, special or not.
		{"<|im_start|>hello<|im_end|>", []int{267, 259, 268}},
		{"<think>the</think>", []int{269, 263, 270}},
		{"<|im_start", []int{'<', '|', 'i', 'm', '_', 's', 't', 'a', 'r', 't'}},
		// Multi-byte characters become one token per byte.
		{"é", []int{0xc3, 0xa9}},
		// NFC: e + combining acute is composed to é first.
		{"e\u0301", []int{0xc3, 0xa9}},
		{"1'S", []int{'1', '\'', 'S'}},
	}
	for _, tt := range tests {
		got := tok.Encode(tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestEncodeOrdinary(t *testing.T) {
	tok := loadTiny(t)
	got := tok.EncodeOrdinary("<|im_end|><think>")
	want := append(tok.Encode("<|"), tok.Encode("im_end|>")...)
	want = append(want, 269)
	if !slices.Equal(got, want) {
		t.Errorf("EncodeOrdinary = %v, want %v (special token as text, <think> still matched)", got, want)
	}
	if got := tok.EncodeWithSpecial("<|im_end|>"); !slices.Equal(got, []int{268}) {
		t.Errorf("EncodeWithSpecial = %v, want [268]", got)
	}
}

// TestPreTokenize checks the hand-written scanner against the pattern's
// meaning, alternative by alternative.
func TestPreTokenize(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Hello world", []string{"Hello", " world"}},
		{"don't", []string{"don", "'t"}},
		{"I'LL we'Re", []string{"I", "'LL", " we", "'Re"}},
		{"'hello", []string{"'hello"}},
		{"abc123", []string{"abc", "1", "2", "3"}},
		// A non-letter, non-digit character joins the letters after it.
		{"x = (a+b);\n", []string{"x", " =", " (", "a", "+b", ");\n"}},
		{"a  b", []string{"a", " ", " b"}},
		{"a \t\n\n  b", []string{"a", " \t\n\n", " ", " b"}},
		{"end   ", []string{"end", "   "}},
		{"\tx", []string{"\tx"}},
		{"\t1", []string{"\t", "1"}},
		{" 1", []string{" ", "1"}},
		{"a\r\nb", []string{"a", "\r\n", "b"}},
		{"...\n\nx", []string{"...\n\n", "x"}},
		{"中文，標點。", []string{"中文", "，標點", "。"}},
		{"😀😀 x", []string{"😀😀", " x"}},
		{"\u00a0word", []string{"\u00a0word"}},
		{"  \u3000", []string{"  \u3000"}},
	}
	for _, tt := range tests {
		var got []string
		for i := 0; i < len(tt.text); {
			j := scanQwen(tt.text, i)
			if j <= i {
				t.Fatalf("scanQwen(%q, %d) = %d: no progress", tt.text, i, j)
			}
			got = append(got, tt.text[i:j])
			i = j
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("pre-tokens of %q = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	tok := loadTiny(t)
	for _, s := range referenceCorpus() {
		if got, want := tok.Decode(tok.Encode(s)), norm.NFC.String(s); got != want {
			t.Errorf("Decode(Encode(%q)) = %q, want %q", s, got, want)
		}
	}
	// Invalid UTF-8 passes through byte by byte.
	if bad := "\xff\xfeab\xc3"; tok.Decode(tok.Encode(bad)) != bad {
		t.Errorf("invalid UTF-8 %q does not round-trip: %q", bad, tok.Decode(tok.Encode(bad)))
	}
	if got := tok.Decode([]int{-1, 259, 1 << 30}); got != "hello" {
		t.Errorf("Decode with ids out of range = %q, want %q", got, "hello")
	}
}

// TestMergeLargeEqualsSmall checks the heap merge against the quadratic one
// on random words over letters that the tiny merges combine.
func TestMergeLargeEqualsSmall(t *testing.T) {
	tok := loadTiny(t)
	e := tok.getEncoder()
	r := rand.New(rand.NewPCG(3, 4))
	const letters = "hellothe Ġ"
	for range 500 {
		n := 2 + r.IntN(60)
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = tok.byteID[letters[r.IntN(len(letters))]]
		}
		small := tok.mergeSmall(slices.Clone(ids))
		large := e.mergeLarge(slices.Clone(ids))
		if !slices.Equal(small, large) {
			t.Fatalf("merge %v: small %v, large %v", ids, small, large)
		}
	}
}

func TestParallelEqualsSerial(t *testing.T) {
	tok := loadTiny(t)
	var b strings.Builder
	r := rand.New(rand.NewPCG(5, 6))
	corpus := referenceCorpus()
	for b.Len() < 3*minChunk {
		b.WriteString(corpus[r.IntN(len(corpus))])
	}
	text := b.String()
	chunks := tok.chunks(text, 4, minChunk)
	if len(chunks) < 2 {
		t.Fatalf("text of %d bytes was not cut", len(text))
	}
	if strings.Join(chunks, "") != text {
		t.Fatal("chunks do not join to the text")
	}
	e := tok.getEncoder()
	want := e.encodeSerial(nil, text, true)
	if got := tok.encodeParallel(chunks, true, 4); !slices.Equal(got, want) {
		t.Errorf("parallel encoding differs from serial (%d vs %d tokens)", len(got), len(want))
	}
}

func TestLoad(t *testing.T) {
	for _, path := range []string{tinyDir, filepath.Join(tinyDir, "tokenizer.json")} {
		tok, err := Load(path)
		if err != nil {
			t.Fatalf("Load(%s): %v", path, err)
		}
		if got := tok.VocabSize(); got != 271 {
			t.Errorf("VocabSize = %d, want 271", got)
		}
		for s, want := range map[string]int{"<|im_end|>": 268, "Ġhello": 260, "a": 'a'} {
			if id, ok := tok.TokenID(s); !ok || id != want {
				t.Errorf("TokenID(%q) = %d, %v; want %d", s, id, ok, want)
			}
		}
		if _, ok := tok.TokenID("nope"); ok {
			t.Error("TokenID(nope) found a token")
		}
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of a directory without tokenizer.json succeeded")
	}
}

func TestParseErrors(t *testing.T) {
	base, err := os.ReadFile(filepath.Join(tinyDir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old, new, wantErr string
	}{
		{"not json", "{", "[", "parse tokenizer.json"},
		{"wordpiece", `"type": "BPE"`, `"type": "WordPiece"`, "want BPE"},
		{"other normalizer", `"type": "NFC"`, `"type": "NFKC"`, "normalizer"},
		{"other pattern", `\\p{N}|`, `\\p{N}+|`, "Split pre-tokenizer"},
		{"lstrip", `"lstrip": false`, `"lstrip": true`, "lstrip"},
		{"merge outside vocab", `"Ċ",`, `"Q",`, "missing from the vocab"},
		{"byte fallback", `"byte_fallback": false`, `"byte_fallback": true`, "byte_fallback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Replace(string(base), tt.old, tt.new, 1)
			if data == string(base) {
				t.Fatalf("fixture has no %q", tt.old)
			}
			_, err := Parse([]byte(data))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseHugeID(t *testing.T) {
	data := `{"model": {"type": "BPE", "vocab": {"a": 999999999}, "merges": []},
		"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
			{"type": "Split", "pattern": {"Regex": ` + strconvQuote(qwenPattern) + `}, "behavior": "Isolated"},
			{"type": "ByteLevel"}]}}`
	if _, err := Parse([]byte(data)); err == nil || !strings.Contains(err.Error(), "beyond") {
		t.Errorf("Parse with a huge id: error %v", err)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzEncode checks properties that need no reference: the scanner always
// makes progress and covers the text, decoding gives back the NFC text, and
// parallel chunks encode like the whole.
func FuzzEncode(f *testing.F) {
	for _, s := range referenceCorpus()[:60] {
		f.Add(s)
	}
	tok := loadTiny(f)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := tok.Decode(tok.Encode(s)), norm.NFC.String(s); got != want {
			t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, got, want)
		}
		big := strings.Repeat(s+"\nx ", 20)
		chunks := tok.chunks(big, 4, 16)
		if strings.Join(chunks, "") != big {
			t.Fatal("chunks do not join to the text")
		}
		e := tok.getEncoder()
		defer tok.pool.Put(e)
		if !slices.Equal(tok.encodeParallel(chunks, true, 4), e.encodeSerial(nil, big, true)) {
			t.Fatalf("parallel and serial encodings of %q repeated differ", s)
		}
	})
}

// TestAddedTokensWithDifferentFirstBytes covers the general search for added
// tokens (the tiny and Qwen3 files only have tokens starting with '<').
func TestAddedTokensWithDifferentFirstBytes(t *testing.T) {
	base, err := os.ReadFile(filepath.Join(tinyDir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Parse([]byte(strings.Replace(string(base), `"<|endoftext|>"`, `"[EOT]"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	got := tok.Encode("a[EOT]<think>[EO")
	want := []int{'a', 266, 269, '[', 'E', 'O'}
	if !slices.Equal(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
}
