package tokenizer

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// benchText is about 40 MB of real text: the Go standard library's sources
// (code, comments, string literals in many scripts) followed by the
// reference corpus repeated, so that Unicode and whitespace runs are present.
var benchText = sync.OnceValue(func() string { return realText(40 << 20) })

// realText returns size bytes of Go sources padded with the reference corpus.
func realText(size int) string {
	var b strings.Builder
	b.Grow(size + 1<<20)
	root := filepath.Join(runtime.GOROOT(), "src")
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || b.Len() >= size*9/10 {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err == nil {
			b.Write(data)
		}
		return nil
	})
	corpus := strings.Join(referenceCorpus(), "\n")
	for b.Len() < size {
		b.WriteString(corpus)
	}
	return b.String()
}

// BenchmarkEncode reports tokens/s of the real Qwen3 tokenizer on benchText:
// serial is the baseline (one goroutine), parallel is Encode on all cores.
// Run with -benchtime=1x: one iteration is 40 MB.
func BenchmarkEncode(b *testing.B) {
	tok := loadQwen3(b)
	text := benchText()
	b.Run("serial", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		n := 0
		for b.Loop() {
			e := tok.getEncoder()
			n = len(e.encodeSerial(make([]int, 0, len(text)/3), text, true))
			tok.pool.Put(e)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
	})
	b.Run("parallel", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		n := 0
		for b.Loop() {
			n = len(tok.Encode(text))
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
	})
}

// BenchmarkEncodeShort is the cost of one chat-sized message.
func BenchmarkEncodeShort(b *testing.B) {
	tok := loadQwen3(b)
	text := "Let me look at the context first: `print(len(context))` then search for the answer."
	n := len(tok.Encode(text))
	for b.Loop() {
		tok.Encode(text)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkLoad(b *testing.B) {
	needQwen3(b)
	for b.Loop() {
		if _, err := Load(qwen3Dir); err != nil {
			b.Fatal(err)
		}
	}
}
