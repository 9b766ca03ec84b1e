package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/store"
)

// Store collections. Keys are "<owner>/<id>", so one key's records are
// invisible to another's.
const (
	collFiles       = "files"
	collFileMeta    = "file_meta"
	collCompletions = "completions"
)

// uploadFile streams a multipart upload straight into the store: the file
// part is never held in memory whole nor spooled to a temporary file by the
// multipart parser.
func (s *Server) uploadFile(c *echo.Context) error {
	req := c.Request()
	mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return api.BadRequest("file", "upload a file as multipart/form-data with fields \"file\" and \"purpose\"")
	}
	// Room for the form's other fields and part headers on top of the file.
	req.Body = http.MaxBytesReader(c.Response(), req.Body, s.cfg.MaxUploadBytes+1<<20)
	ctx := req.Context()
	own := owner(c)
	if err := s.checkFileQuota(ctx, own, req.ContentLength); err != nil {
		drainRefused(req)
		return err
	}
	mr, err := req.MultipartReader()
	if err != nil {
		return api.BadRequest("file", "malformed multipart body: %v", err)
	}
	obj := api.File{ID: newID("file-"), Object: "file", CreatedAt: time.Now().Unix(), Status: "processed"}
	key := own + "/" + obj.ID
	stored := false
	cleanup := func() {
		if stored {
			for _, coll := range []string{collFiles, collFileText, collFilePages} {
				s.store.Delete(context.WithoutCancel(ctx), coll, key)
			}
		}
	}
	var check *uploadChecker
	var mediaType string
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			cleanup()
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return api.TooLarge(s.cfg.MaxUploadBytes, "the uploaded file")
			}
			return api.BadRequest("file", "malformed multipart body: %v", err)
		}
		switch part.FormName() {
		case "purpose":
			b, err := io.ReadAll(io.LimitReader(part, 256))
			if err != nil {
				cleanup()
				return api.BadRequest("purpose", "reading purpose: %v", err)
			}
			obj.Purpose = strings.TrimSpace(string(b))
		case "file":
			if stored {
				cleanup()
				return api.BadRequest("file", "send exactly one file part")
			}
			obj.Filename = part.FileName()
			if obj.Filename == "" {
				obj.Filename = "upload"
			}
			mediaType = part.Header.Get("Content-Type")
			check = newUploadChecker(part, obj.Filename, mediaType)
			if obj.Bytes, err = s.storeUpload(ctx, key, obj.Filename, check); err != nil {
				return err // the store keeps nothing of a failed Put
			}
			stored = true
		default:
			// Unknown fields are ignored, as everywhere else.
			io.Copy(io.Discard, io.LimitReader(part, 1<<20))
		}
	}
	if !stored {
		return api.BadRequest("file", "the multipart body has no \"file\" part")
	}
	if obj.Bytes == 0 {
		cleanup()
		return api.BadRequest("file", "the uploaded file %q is empty: a run would have nothing to read", obj.Filename)
	}
	if obj.Purpose == "" {
		obj.Purpose = "user_data"
	}
	if err := s.admitUpload(ctx, own, obj, mediaType, check.kind); err != nil {
		cleanup()
		return err
	}
	return c.JSON(http.StatusOK, obj)
}

// admitUpload reads a stored upload's text, counts it in own's quota and
// saves its metadata, which makes it visible.
func (s *Server) admitUpload(ctx context.Context, own string, obj api.File, mediaType string, kind document.Kind) error {
	key := own + "/" + obj.ID
	if err := s.readUpload(ctx, key, obj.Filename, mediaType, kind); err != nil {
		return err
	}
	if err := s.admitFile(ctx, own, obj.ID, obj.Bytes); err != nil {
		return err
	}
	meta, _ := json.Marshal(obj)
	if _, err := s.store.Put(ctx, collFileMeta, key, strings.NewReader(string(meta))); err != nil {
		s.quotas.files.Drop(own, obj.ID)
		return api.ServerError("saving file metadata: %v", err)
	}
	return nil
}

// storeUpload streams an upload's file part into the store under key, as
// check reads it, and returns its size.
func (s *Server) storeUpload(ctx context.Context, key, filename string, check *uploadChecker) (int64, error) {
	cr := &countingReader{r: check, limit: s.cfg.MaxUploadBytes}
	n, err := s.store.Put(ctx, collFiles, key, cr)
	if check.err != nil {
		var de *document.Error
		if errors.As(check.err, &de) {
			s.m.documents.WithLabelValues(de.Kind.Code()).Inc()
		}
		return 0, documentError(ctx, "file", filename, check.err)
	}
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.Is(err, errTooLarge) || errors.As(err, &mbe):
			return 0, api.TooLarge(s.cfg.MaxUploadBytes, "the uploaded file")
		case ctx.Err() != nil:
			return 0, &api.Error{Status: api.StatusClientClosed, Type: "invalid_request_error", Kind: "cancelled", Message: "upload cancelled"}
		case cr.err != nil:
			return 0, api.BadRequest("file", "reading the upload failed: %v", cr.err)
		}
		return 0, api.ServerError("storing the upload failed: %v", err)
	}
	return n, nil
}

// drainRefused reads the body of an upload refused before it was read, so
// that the client, which is sending it, gets the answer rather than a reset
// connection (which OpenAI's clients would retry, sending it all again). A
// client that waits for "100 Continue" before sending is answered at once.
func drainRefused(req *http.Request) {
	if !strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		io.Copy(io.Discard, req.Body)
	}
}

func (s *Server) fileMeta(ctx context.Context, own, id string) (api.File, error) {
	var obj api.File
	if !validID(id, "file-") {
		return obj, api.NotFound("file_id", "no such file: %q", id)
	}
	r, err := s.store.Get(ctx, collFileMeta, own+"/"+id)
	if errors.Is(err, store.ErrNotFound) {
		return obj, api.NotFound("file_id", "no such file: %q", id)
	}
	if err != nil {
		return obj, api.ServerError("reading file metadata: %v", err)
	}
	defer r.Close()
	if err := json.NewDecoder(r).Decode(&obj); err != nil {
		return obj, api.ServerError("decoding file metadata: %v", err)
	}
	return obj, nil
}

func (s *Server) getFile(c *echo.Context) error {
	obj, err := s.fileMeta(c.Request().Context(), owner(c), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, obj)
}

func (s *Server) listFiles(c *echo.Context) error {
	ctx := c.Request().Context()
	own := owner(c)
	keys, err := s.store.List(ctx, collFileMeta, own+"/")
	if err != nil {
		return api.ServerError("listing files: %v", err)
	}
	purpose := c.QueryParam("purpose")
	var (
		data []api.File
		ids  []string
	)
	for _, k := range keys {
		obj, err := s.fileMeta(ctx, own, strings.TrimPrefix(k, own+"/"))
		if err != nil {
			continue // deleted meanwhile
		}
		if purpose == "" || obj.Purpose == purpose {
			data = append(data, obj)
			ids = append(ids, obj.ID)
		}
	}
	return c.JSON(http.StatusOK, api.NewPage(data, ids, false))
}

func (s *Server) deleteFile(c *echo.Context) error {
	ctx := c.Request().Context()
	id := c.Param("id")
	if _, err := s.fileMeta(ctx, owner(c), id); err != nil {
		return err
	}
	key := owner(c) + "/" + id
	if err := s.store.Delete(ctx, collFileMeta, key); err != nil && !errors.Is(err, store.ErrNotFound) {
		return api.ServerError("deleting file: %v", err)
	}
	for _, coll := range []string{collFiles, collFileText, collFilePages} {
		if err := s.store.Delete(ctx, coll, key); err != nil && !errors.Is(err, store.ErrNotFound) {
			return api.ServerError("deleting file: %v", err)
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"id": id, "object": "file", "deleted": true})
}

func (s *Server) fileContent(c *echo.Context) error {
	ctx := c.Request().Context()
	id := c.Param("id")
	if _, err := s.fileMeta(ctx, owner(c), id); err != nil {
		return err
	}
	r, err := s.store.Get(ctx, collFiles, owner(c)+"/"+id)
	if errors.Is(err, store.ErrNotFound) {
		return api.NotFound("file_id", "no such file: %q", id)
	}
	if err != nil {
		return api.ServerError("reading file: %v", err)
	}
	defer r.Close()
	return c.Stream(http.StatusOK, "application/octet-stream", r)
}

// localPather is what stores offer to give a local file for a value; the
// REPL maps documents from local disk.
type localPather interface {
	LocalPath(ctx context.Context, coll, key string) (string, error)
}

// documentPath returns a local path holding the file, and a cleanup to call
// after the run (removing a temporary copy for stores without LocalPath).
func (s *Server) documentPath(ctx context.Context, own, id string) (string, func(), error) {
	return s.localPath(ctx, collFiles, own+"/"+id)
}

// localPath returns a local path holding coll/key and its cleanup.
func (s *Server) localPath(ctx context.Context, coll, key string) (string, func(), error) {
	id := key
	if lp, ok := s.store.(localPather); ok {
		p, err := lp.LocalPath(ctx, coll, key)
		if err != nil {
			return "", nil, fmt.Errorf("local copy of %s: %w", id, err)
		}
		return p, func() {}, nil
	}
	r, err := s.store.Get(ctx, coll, key)
	if err != nil {
		return "", nil, fmt.Errorf("open %s: %w", id, err)
	}
	defer r.Close()
	f, err := os.CreateTemp("", "rlm-doc-*")
	if err != nil {
		return "", nil, fmt.Errorf("local copy of %s: %w", id, err)
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("local copy of %s: %w", id, err)
	}
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}
