package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
)

// Store collections of what uploads were read as (see readUpload).
const (
	collFileText  = "file_text"  // the text of an uploaded PDF or HTML file
	collFilePages = "file_pages" // a filePages record for every upload
)

// filePages records what an uploaded file was read as, so that requests
// using it neither read it again nor check it again.
type filePages struct {
	Kind  string                   `json:"kind"` // text, HTML or PDF
	Parts []recursion.DocumentPart `json:"parts,omitempty"`
}

// readUpload reads a stored upload as a document, once: a PDF or HTML
// file's text goes to collFileText, and what it was to collFilePages. An
// unreadable document is a 400 for the upload.
func (s *Server) readUpload(ctx context.Context, key, filename, mediaType string, kind document.Kind) error {
	rec := filePages{Kind: kind.String()}
	if kind == document.Text {
		s.m.documents.WithLabelValues(kind.String()).Inc() // checked as it streamed in
	} else {
		p, done, err := s.localPath(ctx, collFiles, key)
		if err != nil {
			return api.ServerError("reading the upload: %v", err)
		}
		defer done()
		doc, remove, err := s.extractDocument(ctx, "file", filename, mediaType, p)
		if err != nil {
			return err
		}
		defer remove()
		f, err := os.Open(doc.Path)
		if err != nil {
			return api.ServerError("saving the upload's text: %v", err)
		}
		_, err = s.store.Put(ctx, collFileText, key, f)
		f.Close()
		if err != nil {
			return api.ServerError("saving the upload's text: %v", err)
		}
		rec.Parts = doc.Parts
	}
	b, _ := json.Marshal(rec)
	if _, err := s.store.Put(ctx, collFilePages, key, bytes.NewReader(b)); err != nil {
		return api.ServerError("saving the upload's pages: %v", err)
	}
	return nil
}

// uploadedDocument is the Document of an upload that readUpload read;
// ok is false for files uploaded before uploads were read.
func (s *Server) uploadedDocument(ctx context.Context, key, name string) (_ recursion.Document, cleanup func(), ok bool, _ error) {
	r, err := s.store.Get(ctx, collFilePages, key)
	if errors.Is(err, store.ErrNotFound) {
		return recursion.Document{}, nil, false, nil
	}
	if err != nil {
		return recursion.Document{}, nil, false, api.ServerError("reading the file's pages: %v", err)
	}
	var rec filePages
	err = json.NewDecoder(r).Decode(&rec)
	r.Close()
	if err != nil {
		return recursion.Document{}, nil, false, api.ServerError("reading the file's pages: %v", err)
	}
	coll := collFileText
	if rec.Kind == document.Text.String() {
		coll = collFiles // a text file is its own text
	}
	p, cleanup, err := s.localPath(ctx, coll, key)
	if err != nil {
		return recursion.Document{}, nil, false, err
	}
	return recursion.Document{Name: name, Path: p, Parts: rec.Parts}, cleanup, true, nil
}

// documentError answers a document that cannot be read as text with a 400
// naming the file part and the reason, or the server's own failure.
func documentError(ctx context.Context, param, name string, err error) error {
	var de *document.Error
	if errors.As(err, &de) {
		return &api.Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param,
			Code: de.Kind.Code(), Kind: "invalid_request", Message: fmt.Sprintf("file %q: %s", name, de.Msg), Detail: err.Error()}
	}
	if ctx.Err() != nil {
		return &api.Error{Status: api.StatusClientClosed, Type: "invalid_request_error", Kind: "cancelled", Message: "request cancelled"}
	}
	return api.ServerError("reading the document %q: %v", name, err)
}

// extractDocument turns the file at path into the run's Document: a text
// file as it is; a PDF's pages, or an HTML page's text, written to a
// temporary file that cleanup removes.
func (s *Server) extractDocument(ctx context.Context, param, name, mediaType, path string) (recursion.Document, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return recursion.Document{}, nil, api.ServerError("opening the document %q: %v", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return recursion.Document{}, nil, api.ServerError("opening the document %q: %v", name, err)
	}
	res, err := s.docs.Extract(ctx, document.Source{Data: f, Size: st.Size(), Filename: name, MediaType: mediaType})
	if err != nil {
		var de *document.Error
		if errors.As(err, &de) {
			s.m.documents.WithLabelValues(de.Kind.Code()).Inc()
		}
		return recursion.Document{}, nil, documentError(ctx, param, name, err)
	}
	s.m.documents.WithLabelValues(res.Kind.String()).Inc()
	if res.Pieces == nil {
		return recursion.Document{Name: name, Path: path}, func() {}, nil
	}
	textPath, spans, err := document.SaveText("", res)
	if err != nil {
		return recursion.Document{}, nil, api.ServerError("saving the document's text: %v", err)
	}
	doc := recursion.Document{Name: name, Path: textPath}
	for _, sp := range spans {
		doc.Parts = append(doc.Parts, recursion.DocumentPart{Label: sp.Label, Start: sp.Start, End: sp.End})
	}
	return doc, func() { os.Remove(textPath) }, nil
}

// uploadChecker refuses, while an upload streams into the store, content
// that is neither text, HTML nor PDF: the client learns at once, not at
// its first chat request. PDFs are read fully only when a request uses
// them.
type uploadChecker struct {
	r    *bufio.Reader
	kind document.Kind
	txt  *document.TextChecker // nil: not text, nothing more to check
	err  error                 // *document.Error once the content is refused
}

func newUploadChecker(r io.Reader, filename, mediaType string) *uploadChecker {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(document.SniffLen)
	c := &uploadChecker{r: br}
	kind, err := document.Detect(head, filename, mediaType)
	c.kind = kind
	switch {
	case err != nil:
		c.err = err
	case kind == document.Text:
		c.txt = &document.TextChecker{}
	}
	return c
}

func (c *uploadChecker) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if c.txt != nil {
		if _, werr := c.txt.Write(p[:n]); werr != nil {
			c.err = werr
			return 0, werr
		}
		if err == io.EOF {
			if cerr := c.txt.Close(); cerr != nil {
				c.err = cerr
				return 0, cerr
			}
		}
	}
	return n, err
}

// resolveFile turns a file part into a document on local disk.
func (s *Server) resolveFile(ctx context.Context, own string, f fileRef) (recursion.Document, func(), error) {
	if f.inline {
		tmp, err := os.CreateTemp("", "rlm-inline-*")
		if err != nil {
			return recursion.Document{}, nil, api.ServerError("saving inline file: %v", err)
		}
		// Decoded as it is written: the file's bytes are never held whole.
		// An error of the decoder is the client's; any other, the disk's.
		src := &readErr{r: base64.NewDecoder(base64.StdEncoding, strings.NewReader(f.data))}
		n, err := io.Copy(tmp, src)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if src.err != nil {
			os.Remove(tmp.Name())
			return recursion.Document{}, nil, api.BadRequest(f.param+".file_data", "file_data is not valid base64: %v", src.err)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return recursion.Document{}, nil, api.ServerError("saving inline file: %v", err)
		}
		if n == 0 {
			os.Remove(tmp.Name())
			return recursion.Document{}, nil, api.BadRequest(f.param+".file_data", "the file %q is empty: a run would have nothing to read", f.filename)
		}
		doc, cleanup, err := s.extractDocument(ctx, f.param, f.filename, f.mediaType, tmp.Name())
		if err != nil {
			os.Remove(tmp.Name())
			return recursion.Document{}, nil, err
		}
		return doc, func() { cleanup(); os.Remove(tmp.Name()) }, nil
	}
	meta, err := s.fileMeta(ctx, own, f.id)
	if err != nil {
		var ae *api.Error
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			ae.Param = f.param + ".file_id"
		}
		return recursion.Document{}, nil, err
	}
	name := meta.Filename
	if f.filename != "" {
		name = f.filename
	}
	if name == "" {
		name = f.id // the engine would show the model the path instead
	}
	// An upload was read when it came: its text is ready.
	doc, cleanup, ok, err := s.uploadedDocument(ctx, own+"/"+f.id, name)
	if errors.Is(err, store.ErrNotFound) {
		return recursion.Document{}, nil, api.NotFound(f.param+".file_id", "no such file: %q", f.id)
	}
	if err != nil {
		return recursion.Document{}, nil, api.ServerError("preparing the file for the run: %v", err)
	}
	if ok {
		return doc, cleanup, nil
	}
	p, cleanup, err := s.documentPath(ctx, own, f.id)
	if errors.Is(err, store.ErrNotFound) {
		return recursion.Document{}, nil, api.NotFound(f.param+".file_id", "no such file: %q", f.id)
	}
	if err != nil {
		return recursion.Document{}, nil, api.ServerError("preparing the file for the run: %v", err)
	}
	// Uploaded before uploads were read: read it now. The stored file's
	// own name says what it is, whatever the request calls it.
	doc, extracted, err := s.extractDocument(ctx, f.param, meta.Filename, f.mediaType, p)
	if err != nil {
		cleanup()
		return recursion.Document{}, nil, err
	}
	doc.Name = name
	return doc, func() { extracted(); cleanup() }, nil
}

// readErr keeps the error, other than io.EOF, its reader returned.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}
