// Package document turns the files people attach (plain text, HTML, PDF)
// into text for the REPL, and refuses everything else. Its one job: bytes
// plus a declared type or file name in, text pieces or a typed *Error out.
package document

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	pdferrors "github.com/klippa-app/go-pdfium/errors"
)

// Defaults of Options.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultMaxPieces      = 10000
	DefaultPDFMemoryBytes = 1 << 30
	// The PDF engine's cap lies between the module's own initial memory
	// (18 MiB) plus room to work, and the module's declared maximum.
	MinPDFMemoryBytes = 32 << 20
	MaxPDFMemoryBytes = 2 << 30
)

// SniffLen is how many leading bytes Detect looks at.
const SniffLen = 1024

// Kind is what a document is, as far as extraction goes.
type Kind int

const (
	Text Kind = iota // UTF-8 text of any sort (plain, Markdown, CSV, code, JSON...)
	HTML
	PDF
)

func (k Kind) String() string {
	switch k {
	case HTML:
		return "HTML"
	case PDF:
		return "PDF"
	}
	return "text"
}

// ErrorKind says why a document was refused.
type ErrorKind int

const (
	Unsupported   ErrorKind = iota // binary content that is not a PDF
	Malformed                      // a PDF (or HTML) that cannot be read
	NoText                         // a PDF without a text layer (scanned pages)
	TooManyPieces                  // more pages than Options.MaxPieces
	TooLarge                       // more than the PDF engine's memory cap
	Timeout                        // extraction outlived Options.Timeout
	Empty                          // no text at all: 0 bytes, or only white space
)

// Code is the error's machine-readable name, as sent to API clients.
func (k ErrorKind) Code() string {
	return [...]string{"unsupported_file_type", "malformed_document", "no_text_in_document",
		"too_many_document_pieces", "document_too_large", "document_timeout", "empty_document"}[k]
}

// Error is a document that could not be turned into text. Msg is meant for
// the person who sent the file: it says what is wrong and what to do.
type Error struct {
	Kind ErrorKind
	Msg  string
	Err  error // the engine's error, when there is one
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Options bound extraction. Zero fields take the defaults.
type Options struct {
	// Timeout bounds the extraction of one document.
	Timeout time.Duration
	// MaxPieces bounds the pieces (PDF pages) one document may become.
	MaxPieces int
	// PDFMemoryBytes caps the memory of the PDF engine for one document,
	// the file's own bytes included; it is held between MinPDFMemoryBytes
	// and MaxPDFMemoryBytes. PDFs larger than half of it are refused.
	PDFMemoryBytes int64
	// CacheDir, when set, keeps the PDF engine's compiled code on disk, so
	// that the next Extractor (a restarted server) loads it instead of
	// compiling PDFium's WebAssembly again, which takes seconds. Empty:
	// compile in memory.
	CacheDir string
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxPieces <= 0 {
		o.MaxPieces = DefaultMaxPieces
	}
	if o.PDFMemoryBytes <= 0 {
		o.PDFMemoryBytes = DefaultPDFMemoryBytes
	}
	o.PDFMemoryBytes = min(max(o.PDFMemoryBytes, MinPDFMemoryBytes), MaxPDFMemoryBytes)
	return o
}

// Extractor extracts documents. It is safe for concurrent use; Close
// releases the PDF engine.
type Extractor struct {
	opts Options
	pdf  *pdfEngine
}

// New returns an Extractor. The PDF engine starts on the first PDF.
func New(opts Options) *Extractor {
	opts = opts.withDefaults()
	return &Extractor{opts: opts, pdf: &pdfEngine{memoryBytes: opts.PDFMemoryBytes, cacheDir: opts.CacheDir}}
}

// Close stops the PDF engine; Extract fails on PDFs afterwards.
func (x *Extractor) Close() error { return x.pdf.close() }

// Source is one document to extract.
type Source struct {
	Data      io.ReaderAt
	Size      int64
	Filename  string // may be empty
	MediaType string // the declared type (a Content-Type or data URL's); may be empty
}

// Result is an extracted document.
type Result struct {
	Kind Kind
	// Pieces are the document's text, one piece per PDF page (empty for a
	// page without text). Nil for Text: the source is its own text, used
	// as it is, since text files may be as large as the upload limit.
	Pieces []string
}

// Extract turns src into text. Errors about the document are *Error; any
// other error is the server's (the PDF engine failed to start).
func (x *Extractor) Extract(ctx context.Context, src Source) (*Result, error) {
	// The timeout is the document's: for a PDF it starts once the engine
	// has an instance free for it (waiting for one is not the document's
	// fault), so the PDF branch gets the caller's context.
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, x.opts.Timeout, errTimeout)
	defer cancel()
	if src.Size == 0 {
		return nil, emptyError
	}
	head := make([]byte, min(src.Size, SniffLen))
	if _, err := src.Data.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read document: %w", err)
	}
	kind, err := Detect(head, src.Filename, src.MediaType)
	if err != nil {
		return nil, err
	}
	r := io.NewSectionReader(src.Data, 0, src.Size)
	switch kind {
	case PDF:
		if src.Size > x.opts.PDFMemoryBytes/2 {
			return nil, &Error{Kind: TooLarge, Msg: fmt.Sprintf("the PDF is %d bytes; rlm reads PDFs of up to %d bytes (half the PDF engine's memory cap, --pdf-memory-bytes)", src.Size, x.opts.PDFMemoryBytes/2)}
		}
		data := make([]byte, src.Size)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("read document: %w", err)
		}
		pages, err := x.pdf.pages(parent, x.opts.Timeout, data, x.opts.MaxPieces)
		if err != nil {
			return nil, err
		}
		empty := true
		for _, p := range pages {
			if strings.TrimSpace(p) != "" {
				empty = false
				break
			}
		}
		if empty {
			return nil, &Error{Kind: NoText, Msg: fmt.Sprintf("the PDF's %d page(s) have no text layer (scanned images?); run OCR on it first", len(pages))}
		}
		return &Result{Kind: PDF, Pieces: pages}, nil
	case HTML:
		var b strings.Builder
		if err := htmlText(ctx, &b, r, src.MediaType); err != nil {
			return nil, err
		}
		// Bytes that are not UTF-8 in a page declared UTF-8 pass the
		// decoder; the run's text is UTF-8 throughout.
		return &Result{Kind: HTML, Pieces: []string{strings.ToValidUTF8(b.String(), "\uFFFD")}}, nil
	default:
		blank, err := checkText(ctx, r)
		if err != nil {
			return nil, err
		}
		if blank {
			return nil, emptyError
		}
		return &Result{Kind: Text}, nil
	}
}

// emptyError is a document with nothing to ask about: a run over it could
// only fail (issue 26: 31 turns of junk over a 0-byte file).
var emptyError = &Error{Kind: Empty, Msg: "the document is empty (no text, or only white space); attach the file you meant to ask about"}

var errTimeout = errors.New("document timeout")

func timeoutError(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errTimeout) {
		return &Error{Kind: Timeout, Msg: "reading the document took too long; it may be malformed, or too large for the per-document timeout (--document-timeout)"}
	}
	return ctx.Err()
}

// pdfError turns an engine error into an *Error for the sender.
func pdfError(err error, memoryBytes int64) error {
	var de *Error
	if errors.As(err, &de) {
		return err
	}
	switch {
	case errors.Is(err, pdferrors.ErrPassword), errors.Is(err, pdferrors.ErrSecurity):
		return &Error{Kind: Unsupported, Msg: "the PDF is encrypted or password-protected; send a decrypted copy", Err: err}
	case strings.Contains(err.Error(), "wasm error"):
		// PDFium aborts when an allocation fails, which is how a document
		// that needs more than the cap (a decompression bomb) ends.
		return &Error{Kind: TooLarge, Msg: fmt.Sprintf("the PDF engine stopped on this document: it needs more than the engine's memory cap of %d bytes, or it is damaged", memoryBytes), Err: err}
	}
	return &Error{Kind: Malformed, Msg: "the PDF could not be read: it is damaged or not a valid PDF (" + err.Error() + ")", Err: err}
}

// Detect tells what a document is from its first bytes (up to SniffLen),
// its file name and its declared media type. Content wins over names: a
// file that starts like a PDF is one, whatever it is called. Binary content
// that is not a PDF is an *Error of kind Unsupported; whether text is
// really UTF-8 throughout is checked by Extract (and CheckText).
func Detect(head []byte, filename, mediaType string) (Kind, error) {
	mt, _, _ := mime.ParseMediaType(mediaType)
	ext := strings.ToLower(path.Ext(filename))
	declaredPDF := mt == "application/pdf" || ext == ".pdf"
	// PDF readers accept junk before the header, in the first 1024 bytes;
	// so do we for a file declared a PDF. Text that merely mentions the
	// header stays text.
	if bytes.HasPrefix(head, []byte("%PDF-")) || declaredPDF && bytes.Contains(head[:min(len(head), SniffLen)], []byte("%PDF-")) {
		return PDF, nil
	}
	if what, ok := binaryKind(head); ok {
		return 0, unsupported(what)
	}
	if declaredPDF {
		return 0, &Error{Kind: Malformed, Msg: "the file is named or declared a PDF but does not start like one (no %PDF- header)"}
	}
	if mt == "text/html" || mt == "application/xhtml+xml" || ext == ".html" || ext == ".htm" || ext == ".xhtml" ||
		strings.HasPrefix(http.DetectContentType(head), "text/html") {
		return HTML, nil
	}
	return Text, nil
}

// binaryKind names the binary formats people most often attach by mistake,
// and reports any other content that cannot be text.
func binaryKind(head []byte) (string, bool) {
	magics := []struct{ magic, name string }{
		{"\x7fELF", "an ELF executable"},
		{"MZ", "a Windows executable"},
		{"PK\x03\x04", "a ZIP archive (or a DOCX, XLSX or PPTX file, which are ZIP archives)"},
		{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Microsoft Office file"},
		{"\x1f\x8b", "a gzip archive"},
	}
	for _, m := range magics {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.name, true
		}
	}
	// The sniffing algorithm of the WHATWG (what browsers do) names images,
	// audio, video, fonts and archives, and says application/octet-stream
	// for any other binary data.
	switch ct := http.DetectContentType(head); {
	case strings.HasPrefix(ct, "text/"), strings.HasPrefix(ct, "application/json"):
		return "", false
	case ct == "application/octet-stream":
		return "binary data", true
	default:
		return ct, true
	}
}

func unsupported(what string) error {
	return &Error{Kind: Unsupported, Msg: fmt.Sprintf("the file is %s; rlm reads UTF-8 text, HTML and PDF files", what)}
}

// Span is one piece's byte range [Start, End) in the file SaveText writes.
type Span struct {
	Label string // "page 3"
	Start int64
	End   int64
}

// SaveText writes r's pieces to a new file in dir (the system's temporary
// directory when empty), a form feed between two pieces, so that the file
// read whole still shows where each page ends. It returns the file's path
// and, for a PDF, each page's span; the caller removes the file.
func SaveText(dir string, r *Result) (string, []Span, error) {
	f, err := os.CreateTemp(dir, "rlm-doctext-*")
	if err != nil {
		return "", nil, fmt.Errorf("save document text: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var spans []Span
	var pos int64
	for i, p := range r.Pieces {
		if i > 0 {
			w.WriteByte('\f')
			pos++
		}
		n, _ := w.WriteString(p)
		if r.Kind == PDF {
			spans = append(spans, Span{Label: fmt.Sprintf("page %d", i+1), Start: pos, End: pos + int64(n)})
		}
		pos += int64(n)
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("save document text: %w", err)
	}
	return f.Name(), spans, nil
}
