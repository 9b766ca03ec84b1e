package document

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/testpdf"
)

// testCache keeps the PDF engine's compiled code for the test binary: it
// is compiled once, not by every Extractor (seconds each).
var testCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rlm-pdf-cache-*")
	if err != nil {
		panic(err)
	}
	testCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func newTest(o Options) *Extractor {
	if o.CacheDir == "" {
		o.CacheDir = testCache
	}
	return New(o)
}

func extract(t *testing.T, x *Extractor, data []byte, filename, mediaType string) (*Result, error) {
	t.Helper()
	return x.Extract(context.Background(), Source{Data: bytes.NewReader(data), Size: int64(len(data)), Filename: filename, MediaType: mediaType})
}

func errorKind(t *testing.T, err error) ErrorKind {
	t.Helper()
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T) is not a *document.Error", err, err)
	}
	return de.Kind
}

// squash drops white space: groff's PostScript encodes some word gaps as
// character spacing, which PDF text extractors (PDFium and Ghostscript's
// txtwrite alike) do not turn back into spaces.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func TestPDFPagesAreSeparatePieces(t *testing.T) {
	pages := []string{
		"Alpha page one talks about lighthouses.",
		"Bravo page two: caf\u00e9 na\u00efve \u00fcber.",
		"", // a page with no text keeps its place
		"Delta page four.\n\nAnother paragraph on page four.",
	}
	pdf := testpdf.Make(t, pages)
	x := newTest(Options{})
	defer x.Close()
	res, err := extract(t, x, pdf, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != PDF || len(res.Pieces) != len(pages) {
		t.Fatalf("kind %v, %d pieces, want PDF and %d: %q", res.Kind, len(res.Pieces), len(pages), res.Pieces)
	}
	for i, want := range pages {
		if squash(res.Pieces[i]) != squash(want) {
			t.Errorf("page %d = %q, want %q", i+1, res.Pieces[i], want)
		}
		if strings.ContainsAny(res.Pieces[i], "\r\x00\x02") {
			t.Errorf("page %d has CR, NUL or U+0002: %q", i+1, res.Pieces[i])
		}
	}
	if !strings.Contains(res.Pieces[3], "\n") {
		t.Errorf("page 4 lost its line break: %q", res.Pieces[3])
	}
}

func TestHTMLToText(t *testing.T) {
	x := newTest(Options{})
	defer x.Close()
	for _, tc := range []struct{ name, in, want string }{
		{"blocks and inline", `<!DOCTYPE html><html><head><title>T</title><style>p{color:red}</style>
<script>var secret = "not text";</script></head><body>
<h1>Heading   one</h1><p>First <b>bold</b>
 paragraph.</p><p>Second&nbsp;one &amp; more.</p>
<ul><li>item a</li><li>item b</li></ul>
<table><tr><td>c1</td><td>c2</td></tr><tr><td>c3</td><td>c4</td></tr></table>
line<br>break<br><br>gap<noscript>enable js</noscript></body></html>`,
			"T\n\nHeading one\n\nFirst bold paragraph.\n\nSecond\u00a0one & more.\n\nitem a\nitem b\n\nc1 | c2\nc3 | c4\n\nline\nbreak\n\ngap"},
		{"pre keeps spaces", "<p>a</p><pre>x  =  1\n  y</pre><p>b</p>", "a\n\nx  =  1\n  y\n\nb"},
		{"declared charset", `<meta charset="windows-1252"><p>caf` + "\xe9" + `</p>`, "caf\u00e9"},
		{"unclosed tags", "<div><p>open <i>forever", "open forever"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := extract(t, x, []byte(tc.in), "page.html", "")
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != HTML || len(res.Pieces) != 1 || res.Pieces[0] != tc.want {
				t.Fatalf("got %v %q, want HTML %q", res.Kind, res.Pieces, tc.want)
			}
		})
	}
	// Sniffed without a name or type.
	res, err := extract(t, x, []byte("<!DOCTYPE html><p>hi</p>"), "", "")
	if err != nil || res.Kind != HTML {
		t.Fatalf("sniffed HTML: %v, %v", res, err)
	}
}

// TestEmptyDocument: a document with no text to ask about is refused with
// a clear error (issue 26), whatever its declared type.
func TestEmptyDocument(t *testing.T) {
	x := newTest(Options{})
	defer x.Close()
	for _, tc := range []struct{ name, data, file, typ string }{
		{"0 bytes", "", "a.txt", "text/plain"},
		{"0 bytes, no name", "", "", ""},
		{"white space", " \n\t\r\n  \n", "notes.md", ""},
		{"0-byte PDF", "", "report.pdf", "application/pdf"},
	} {
		_, err := extract(t, x, []byte(tc.data), tc.file, tc.typ)
		var de *Error
		if !errors.As(err, &de) || de.Kind != Empty || de.Kind.Code() != "empty_document" || !strings.Contains(de.Msg, "empty") {
			t.Errorf("%s: %v, want an empty_document error", tc.name, err)
		}
	}
}

func TestTextPassesThrough(t *testing.T) {
	x := newTest(Options{})
	defer x.Close()
	for _, tc := range []struct{ name, data string }{
		{"ascii", "line one\nline two\n"},
		{"utf-8", "na\u00efve caf\u00e9 \u65e5\u672c\u8a9e \U0001F600"},
		{"mentions the PDF header", "notes about files that start with %PDF-1.7 and more"},
		{"csv", "a,b\n1,2\n"},
		{"ansi log", "\x1b[31mred\x1b[0m\n"},
	} {
		res, err := extract(t, x, []byte(tc.data), "a.txt", "text/plain")
		if err != nil || res.Kind != Text || res.Pieces != nil {
			t.Errorf("%s: %v %v, want text as it is", tc.name, res, err)
		}
	}
}

func TestBinaryIsRefused(t *testing.T) {
	x := newTest(Options{})
	defer x.Close()
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	elf := append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00"), make([]byte, 100)...)
	for _, tc := range []struct{ name, filename, mediaType, want string }{
		{"elf", "a.out", "", "ELF executable"},
		{"elf named text", "notes.txt", "text/plain", "ELF executable"},
		{"random", "data.bin", "", "binary data"},
		{"png", "x.png", "", "image/png"},
		{"zip", "report.docx", "", "ZIP archive"},
		{"nul in text", "a.txt", "", "NUL bytes"},
		{"latin-1", "a.txt", "", "not UTF-8 text"},
		{"cut character", "a.txt", "", "ends inside a character"},
		{"named pdf", "a.pdf", "", "does not start like one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := map[string][]byte{
				"elf": elf, "elf named text": elf, "random": random,
				"png":           []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
				"zip":           []byte("PK\x03\x04\x14\x00\x06\x00"),
				"nul in text":   append([]byte(strings.Repeat("text ", 400)), 0, 'x'),
				"latin-1":       []byte(strings.Repeat("text ", 400) + "caf\xe9"),
				"cut character": []byte("abc\xe6\x97"),
				"named pdf":     []byte("hello"),
			}[tc.name]
			_, err := extract(t, x, data, tc.filename, tc.mediaType)
			if err == nil {
				t.Fatal("accepted")
			}
			errorKind(t, err)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

func TestTextCheckerAcrossWrites(t *testing.T) {
	s := []byte("a\u00e9\u65e5\U0001F600z")
	for split := range len(s) {
		var c TextChecker
		if _, err := c.Write(s[:split]); err != nil {
			t.Fatalf("split %d: %v", split, err)
		}
		for _, b := range s[split:] {
			if _, err := c.Write([]byte{b}); err != nil {
				t.Fatalf("split %d: %v", split, err)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatalf("split %d: %v", split, err)
		}
	}
	var c TextChecker
	c.Write([]byte("ok \xe6"))
	if _, err := c.Write([]byte("x")); err == nil || !strings.Contains(err.Error(), "at byte 3") {
		t.Fatalf("bad continuation across writes: %v", err)
	}
}

// TestBadPDFs feeds damaged and hostile PDFs: each ends with text (PDFium
// repairs some damage, as viewers do) or a *document.Error, within the
// timeout, and the engine keeps working afterwards.
func TestBadPDFs(t *testing.T) {
	good := testpdf.Make(t, []string{"Page one of a real document.", "Page two of it."})
	x := newTest(Options{Timeout: 20 * time.Second})
	defer x.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	garbage := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	flipped := bytes.Clone(good)
	for range 200 {
		flipped[rng.IntN(len(flipped))] ^= byte(1 + rng.IntN(255))
	}
	cases := map[string][]byte{
		"header only":       []byte("%PDF-1.7\n"),
		"header and junk":   append([]byte("%PDF-1.4\n"), garbage(10000)...),
		"truncated 10%":     good[:len(good)/10],
		"truncated 50%":     good[:len(good)/2],
		"truncated 90%":     good[:len(good)*9/10],
		"no trailer":        good[:bytes.LastIndex(good, []byte("trailer"))+1],
		"bytes flipped":     flipped,
		"endless xref loop": []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[2 0 R]/Count 1>>endobj\nxref\n0 3\n0000000000 65535 f \n0000000009 00000 n \n0000000058 00000 n \ntrailer<</Size 3/Root 1 0 R/Prev 999>>\nstartxref\n110\n%%EOF\n"),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			res, err := extract(t, x, data, "bad.pdf", "application/pdf")
			if err != nil {
				k := errorKind(t, err)
				t.Logf("%v (%s) after %v", k.Code(), err, time.Since(start).Round(time.Millisecond))
				return
			}
			t.Logf("repaired: %d pages after %v", len(res.Pieces), time.Since(start).Round(time.Millisecond))
		})
	}
	if _, err := extract(t, x, good, "good.pdf", ""); err != nil {
		t.Fatalf("the engine failed after bad PDFs: %v", err)
	}
}

func TestEncryptedPDF(t *testing.T) {
	pdf := testpdf.MakeWith(t, []string{"secret page"}, "-sOwnerPassword=owner", "-sUserPassword=user")
	x := newTest(Options{})
	defer x.Close()
	_, err := extract(t, x, pdf, "locked.pdf", "")
	if errorKind(t, err) != Unsupported || !strings.Contains(err.Error(), "password") {
		t.Fatalf("got %v", err)
	}
}

func TestPDFLimits(t *testing.T) {
	pdf := testpdf.Make(t, []string{"one", "two", "three"})
	t.Run("pieces", func(t *testing.T) {
		x := newTest(Options{MaxPieces: 2})
		defer x.Close()
		_, err := extract(t, x, pdf, "", "")
		if errorKind(t, err) != TooManyPieces || !strings.Contains(err.Error(), "3 pages") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("memory", func(t *testing.T) {
		x := newTest(Options{PDFMemoryBytes: MinPDFMemoryBytes})
		defer x.Close()
		// A page whose content stream inflates from ~40 KB to 40 MiB:
		// the engine runs out of its memory, not the server.
		bomb := flateBomb(t, 40<<20)
		_, err := extract(t, x, bomb, "", "")
		if errorKind(t, err) != TooLarge {
			t.Fatalf("got %v", err)
		}
		// With room enough, the same file reads (as a page of spaces).
		roomy := newTest(Options{})
		defer roomy.Close()
		if _, err := extract(t, roomy, bomb, "", ""); errorKind(t, err) != NoText {
			t.Fatalf("with the default cap: %v", err)
		}
		over := append(bytes.Clone(pdf), bytes.Repeat([]byte("%padding\n"), MinPDFMemoryBytes/2/9)...)
		if _, err := extract(t, x, over, "", ""); errorKind(t, err) != TooLarge {
			t.Fatalf("got %v", err)
		}
		if _, err := extract(t, x, pdf, "", ""); err != nil {
			t.Fatalf("a small PDF after the cap was hit: %v", err)
		}
	})
}

func TestPDFTimeoutStopsTheEngine(t *testing.T) {
	pages := make([]string, 300)
	for i := range pages {
		pages[i] = fmt.Sprintf("Page %d.\n\n%s", i+1, strings.Repeat("Words upon words fill the page. ", 60))
	}
	pdf := testpdf.Make(t, pages)
	x := newTest(Options{})
	defer x.Close()
	if _, err := extract(t, x, []byte("%PDF-1.4\n"), "", ""); err == nil { // starts the engine
		t.Fatal("header-only PDF accepted")
	}
	slow := newTest(Options{Timeout: 30 * time.Millisecond})
	defer slow.Close()
	extract(t, slow, []byte("%PDF-1.4\n"), "", "") // starts the engine, times out or not
	start := time.Now()
	_, err := slow.Extract(context.Background(), Source{Data: bytes.NewReader(pdf), Size: int64(len(pdf))})
	if errorKind(t, err) != Timeout {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the timeout took %v to stop the engine", d)
	}
	if res, err := extract(t, x, pdf, "", ""); err != nil || len(res.Pieces) != 300 {
		t.Fatalf("after a timeout: %v", err)
	}
}

// flateBomb is a one-page PDF whose content stream is n bytes of spaces,
// Flate-compressed.
func flateBomb(t *testing.T, n int) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for range n >> 20 {
		zw.Write(chunk)
	}
	zw.Close()
	return buildPDF(
		"<</Type/Catalog/Pages 2 0 R>>",
		"<</Type/Pages/Kids[3 0 R]/Count 1>>",
		"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>",
		fmt.Sprintf("<</Length %d/Filter/FlateDecode>>stream\n%s\nendstream", z.Len(), z.Bytes()),
	)
}

// helloPDF is a hand-made one-page PDF that shows text in Helvetica.
func helloPDF(text string) []byte {
	content := fmt.Sprintf("BT /F1 24 Tf 72 700 Td (%s) Tj ET", text)
	return buildPDF(
		"<</Type/Catalog/Pages 2 0 R>>",
		"<</Type/Pages/Kids[3 0 R]/Count 1>>",
		"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
		fmt.Sprintf("<</Length %d>>stream\n%s\nendstream", len(content), content),
		"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
	)
}

// buildPDF numbers objs from 1 and writes them with a correct xref table.
func buildPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
