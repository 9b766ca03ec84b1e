package document

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// FuzzExtract: whatever the bytes and names, Extract ends within its
// timeout with text or a *document.Error: never a panic, a hang or a
// server error. Seeds are hand-made (no tools needed); run with
// go test ./document -fuzz FuzzExtract to explore.
func FuzzExtract(f *testing.F) {
	hello := helloPDF("Hello fuzz")
	f.Add(hello, "a.pdf", "application/pdf")
	f.Add(hello[:len(hello)/2], "a.pdf", "")
	f.Add(append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("0 0 obj<<>>"), 50)...), "", "")
	f.Add([]byte("<html><body><p>hi<script>x</script></p><pre> a  b </pre></body></html>"), "page.html", "text/html; charset=utf-8")
	f.Add([]byte("<meta charset=shift_jis><p>\x82\xa0</p>"), "", "text/html")
	f.Add([]byte("plain caf\xc3\xa9 text\n"), "notes.txt", "text/plain")
	f.Add([]byte("\x7fELF\x02\x01\x01\x00"), "a.out", "")
	f.Add([]byte{}, "", "")
	x := newTest(Options{Timeout: 10 * time.Second, MaxPieces: 50, PDFMemoryBytes: 256 << 20})
	f.Cleanup(func() { x.Close() })
	// Start the engine first: its one-time start is not a document's time.
	if _, err := x.Extract(context.Background(), Source{Data: bytes.NewReader(hello), Size: int64(len(hello))}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, filename, mediaType string) {
		start := time.Now()
		res, err := x.Extract(context.Background(), Source{Data: bytes.NewReader(data), Size: int64(len(data)), Filename: filename, MediaType: mediaType})
		if d := time.Since(start); d > 15*time.Second {
			t.Fatalf("took %v", d)
		}
		if err != nil {
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("not a *document.Error: %v (%T)", err, err)
			}
			return
		}
		if res.Kind == Text && res.Pieces != nil || res.Kind != Text && len(res.Pieces) == 0 || len(res.Pieces) > 50 {
			t.Fatalf("kind %v with %d pieces", res.Kind, len(res.Pieces))
		}
	})
}

func TestHelloPDF(t *testing.T) {
	x := newTest(Options{})
	defer x.Close()
	res, err := extract(t, x, helloPDF("Hello fuzz"), "", "")
	if err != nil || len(res.Pieces) != 1 || res.Pieces[0] != "Hello fuzz" {
		t.Fatalf("%v %v", res, err)
	}
}
