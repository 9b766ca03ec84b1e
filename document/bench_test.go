package document

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/testpdf"
)

// benchPages is the large PDF of the benchmarks: 400 pages of prose, about
// 2,000 characters each, made with groff and ps2pdf.
const benchPages = 400

func benchPDF(b *testing.B) ([]byte, int) {
	b.Helper()
	words := strings.Fields("the keeper of the lighthouse wrote in the log each night of storms and tides ships passing rocks fog horn lamp oil wick glass tower stairs")
	rng := rand.New(rand.NewPCG(7, 8))
	pages := make([]string, benchPages)
	chars := 0
	for i := range pages {
		var p strings.Builder
		fmt.Fprintf(&p, "Page %d.\n\n", i+1)
		for p.Len() < 2000 {
			p.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(40) == 0 {
				p.WriteString(".\n\n")
			} else {
				p.WriteByte(' ')
			}
		}
		pages[i] = p.String()
		chars += p.Len()
	}
	return testpdf.Make(b, pages), chars
}

// BenchmarkPDF extracts a 400-page PDF: pages/s and MB/s (of PDF bytes),
// with the PDF engine already started (BenchmarkPDFEngineStart is that
// one-time cost).
func BenchmarkPDF(b *testing.B) {
	pdf, chars := benchPDF(b)
	x := newTest(Options{})
	defer x.Close()
	if _, err := x.Extract(context.Background(), Source{Data: bytes.NewReader(pdf), Size: int64(len(pdf))}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(pdf)))
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		res, err := x.Extract(context.Background(), Source{Data: bytes.NewReader(pdf), Size: int64(len(pdf))})
		if err != nil || len(res.Pieces) != benchPages {
			b.Fatalf("%v, %d pages", err, len(res.Pieces))
		}
	}
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(benchPages*b.N)/secs, "pages/s")
	b.ReportMetric(float64(chars*b.N)/secs/1e6, "text-MB/s")
}

// BenchmarkPDFGhostscript is the baseline: Ghostscript's own text
// extraction (gs -sDEVICE=txtwrite, native C) of the same PDF, a process
// per run as a server shelling out would do.
func BenchmarkPDFGhostscript(b *testing.B) {
	pdf, _ := benchPDF(b)
	gs, err := exec.LookPath("gs")
	if err != nil {
		b.Skip("gs not installed")
	}
	path := filepath.Join(b.TempDir(), "bench.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(pdf)))
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		out, err := exec.Command(gs, "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=txtwrite", "-o", "-", path).Output()
		if err != nil || !bytes.Contains(out, []byte(fmt.Sprintf("Page %d.", benchPages))) {
			b.Fatalf("gs: %v", err)
		}
	}
	b.ReportMetric(float64(benchPages*b.N)/time.Since(start).Seconds(), "pages/s")
}

// BenchmarkPDFEngineStart is the one-time cost of the PDF engine: compiling
// PDFium's WebAssembly for this machine, paid by a server's first PDF.
func BenchmarkPDFEngineStart(b *testing.B) {
	pdf := helloPDF("start")
	for b.Loop() {
		x := New(Options{})
		if _, err := x.Extract(context.Background(), Source{Data: bytes.NewReader(pdf), Size: int64(len(pdf))}); err != nil {
			b.Fatal(err)
		}
		x.Close()
	}
}

// BenchmarkHTML extracts the text of a 4 MB HTML page.
func BenchmarkHTML(b *testing.B) {
	var page strings.Builder
	page.WriteString("<html><head><style>p{margin:0}</style><script>var x = 1;</script></head><body>")
	for i := 0; page.Len() < 4<<20; i++ {
		fmt.Fprintf(&page, "<h2>Section %d</h2><p>The keeper <b>wrote</b> in the log &amp; trimmed the wick.</p><ul><li>fog</li><li>tide</li></ul>\n", i)
	}
	page.WriteString("</body></html>")
	data := []byte(page.String())
	x := newTest(Options{})
	defer x.Close()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := x.Extract(context.Background(), Source{Data: bytes.NewReader(data), Size: int64(len(data)), Filename: "p.html"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTextCheck validates 64 MB of UTF-8 text, the whole cost a text
// upload pays.
func BenchmarkTextCheck(b *testing.B) {
	data := bytes.Repeat([]byte("caf\u00e9 lighthouse log line, tides and storms \u65e5\u672c\n"), (64<<20)/52)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var c TextChecker
		if _, err := c.Write(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPDFEngineStartCached is BenchmarkPDFEngineStart with the
// compiled code on disk (Options.CacheDir), as a restarted server has it.
func BenchmarkPDFEngineStartCached(b *testing.B) {
	pdf := helloPDF("start")
	dir := b.TempDir()
	x := newTest(Options{CacheDir: dir})
	if _, err := x.Extract(context.Background(), Source{Data: bytes.NewReader(pdf), Size: int64(len(pdf))}); err != nil {
		b.Fatal(err)
	}
	x.Close()
	b.ResetTimer()
	for b.Loop() {
		x := newTest(Options{CacheDir: dir})
		if _, err := x.Extract(context.Background(), Source{Data: bytes.NewReader(pdf), Size: int64(len(pdf))}); err != nil {
			b.Fatal(err)
		}
		x.Close()
	}
}
