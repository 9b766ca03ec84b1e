package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

// failingReader returns a header, then fails the test if the body is read.
type failingReader struct {
	hdr  []byte
	read bool
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.hdr) == 0 {
		f.read = true
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, f.hdr)
	f.hdr = f.hdr[n:]
	return n, nil
}

func TestFrameRefusedFromHeader(t *testing.T) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 200<<20)
	fr := &failingReader{hdr: hdr[:]}
	_, err := NewReader(fr).Recv(32 << 20)
	var big *FrameTooLargeError
	if !errors.As(err, &big) || big.Size != 200<<20 || big.Limit != 32<<20 {
		t.Fatalf("recv: %v, want a FrameTooLargeError of 200 MiB over 32 MiB", err)
	}
	if fr.read {
		t.Fatal("the body of a refused frame was read")
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.SetLimit(100)
	if err := w.Send(&Message{Kind: KindLLM, Prompts: []string{strings.Repeat("\x01", 50)}}); !errors.As(err, &big) {
		t.Fatalf("send of a frame over the limit: %v", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("%d bytes written for a refused frame", buf.Len())
	}
	// Markup is not escaped: 60 bytes of it fit a 100-byte frame.
	w.SetLimit(100)
	if err := w.Send(&Message{Kind: KindLLM, Prompts: []string{strings.Repeat("<&>", 20)}}); err != nil {
		t.Fatalf("send of 60 bytes of markup: %v", err)
	}
	got, err := NewReader(&buf).Recv(100)
	if err != nil || got.Prompts[0] != strings.Repeat("<&>", 20) {
		t.Fatalf("round trip: %v %+v", err, got)
	}
}

func TestFrameLimitCoversCaps(t *testing.T) {
	l := DefaultLimits()
	if got := FrameLimit(l); got < l.MaxCallBytes || got < 6*l.MaxFinalBytes {
		t.Fatalf("frame limit %d below the caps it carries", got)
	}
}
