package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
)

// Stored completions, OpenAI's way: a completion made with store: true is
// three things in the store, all under its owner:
//
//   - its record, completions/<owner>/<id>: the chat.completion with its
//     status, rewritten when the run ends;
//   - its summary, the entry <id without "chatcmpl-"> of the completions
//     index named <owner>: created, model and metadata, which is all a
//     listing filters on, so that a list reads summaries in order and only
//     the records of the page it returns;
//   - its request messages, completion_messages/<owner>/<id>, one JSON
//     message per line.
//
// Metadata lives in the summary alone, so that an update of it and the run
// rewriting its record when it ends never overwrite each other.
//
// Completion ids are time-ordered (see newCompletionID), so the index's key
// order is creation order and an `after` cursor is the index key itself.

const collMessages = "completion_messages"

// Page sizes of the list endpoints, as OpenAI's.
const (
	defaultPageLimit = 20
	maxPageLimit     = 100
)

// completionSummary is the index entry of a stored completion.
type completionSummary struct {
	Created  int64             `json:"created"`
	Model    string            `json:"model"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// storedView is a stored completion as the API shows it: its record and its
// metadata (always an object, as OpenAI's).
type storedView struct {
	*api.ChatCompletion
	Metadata map[string]string `json:"metadata"`
}

// storedMessage is one request message of a stored completion, in the
// shape of OpenAI's GET /v1/chat/completions/{id}/messages.
type storedMessage struct {
	ID           string       `json:"id"`
	Role         string       `json:"role"`
	Content      *string      `json:"content"`
	Name         *string      `json:"name"`
	ContentParts []storedPart `json:"content_parts"`
}

// storedPart is a content part as stored: inline file_data is not kept
// (the run had it; storing it again would double every inline upload).
type storedPart struct {
	Type string          `json:"type"`
	Text *string         `json:"text,omitempty"`
	File *storedFilePart `json:"file,omitempty"`
}

type storedFilePart struct {
	FileID   string `json:"file_id,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// newCompletionID returns "chatcmpl-" and 24 hex digits: 16 of the creation
// time in nanoseconds, strictly increasing within this server, and 8
// random. Ids of one owner therefore sort in creation order (across replicas,
// in the order of their clocks).
func (s *Server) newCompletionID() string {
	now := time.Now().UnixNano()
	for {
		last := s.lastCompletion.Load()
		if now <= last {
			now = last + 1
		}
		if s.lastCompletion.CompareAndSwap(last, now) {
			break
		}
	}
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now))
	rand.Read(b[8:])
	return "chatcmpl-" + hex.EncodeToString(b[:])
}

func completionKey(id string) string { return strings.TrimPrefix(id, "chatcmpl-") }

// createStored records a stored completion before its run starts: its
// registration as a run in progress of this server (see runs.go),
// messages, in_progress record, then the summary that makes it appear in
// lists. On failure it removes what it wrote, so that nothing half-made is
// listed. Each write is bounded by StoreTimeout and finished even if the
// client leaves.
func (s *Server) createStored(ctx context.Context, r *run, msgs []api.Message, md map[string]string) error {
	ctx = context.WithoutCancel(ctx)
	bounded := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, s.cfg.StoreTimeout) }
	key := r.owner + "/" + r.id
	undo := func() {
		// Best effort: a store that just failed may fail these too, and
		// an unlisted leftover is harmless.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		s.store.Delete(dctx, collMessages, key)
		s.store.Delete(dctx, collCompletions, key)
		s.store.DeleteEntry(dctx, collRuns, idxRunning, runningKey(r.owner, r.id))
	}
	wctx, cancel := bounded()
	err := s.registerRun(wctx, r.owner, r.id, r.created)
	cancel()
	if err != nil {
		undo()
		return fmt.Errorf("registering the run: %w", err)
	}
	wctx, cancel = bounded()
	n, err := s.putMessages(wctx, key, r.id, msgs)
	cancel()
	if err != nil {
		undo()
		return fmt.Errorf("messages: %w", err)
	}
	if err := s.saveCompletion(ctx, r, &api.ChatCompletion{Status: "in_progress"}); err != nil {
		undo()
		return fmt.Errorf("record: %w", err)
	}
	sum, err := json.Marshal(completionSummary{Created: r.created, Model: r.model, Metadata: md})
	if err == nil {
		wctx, cancel := bounded()
		err = s.store.PutEntry(wctx, collCompletions, r.owner, completionKey(r.id), sum)
		cancel()
	}
	if err != nil {
		undo()
		return fmt.Errorf("summary: %w", err)
	}
	s.quotas.completions.Add(r.owner, r.id, n)
	return nil
}

// putMessages streams a request's messages into the store, one per line:
// a 40 MB message is encoded into the store's writer, not into a buffer.
// It returns the bytes written.
func (s *Server) putMessages(ctx context.Context, key, id string, msgs []api.Message) (int64, error) {
	pr, pw := io.Pipe()
	go func() {
		for i, m := range msgs {
			var large largeStrings
			sm := storedMessageOf(id, i, m)
			if sm.Content != nil {
				held := large.hold(*sm.Content)
				sm.Content = &held
			}
			for j, p := range sm.ContentParts {
				if p.Text != nil {
					held := large.hold(*p.Text)
					sm.ContentParts[j].Text = &held
				}
			}
			if err := large.encode(pw, sm); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.Close()
	}()
	n, err := s.store.Put(ctx, collMessages, key, pr)
	// Unblocks the encoder if the store stopped reading early.
	pr.CloseWithError(errors.New("store write ended"))
	return n, err
}

func storedMessageOf(id string, i int, m api.Message) storedMessage {
	sm := storedMessage{ID: fmt.Sprintf("%s-%d", id, i), Role: m.Role}
	if m.Name != "" {
		sm.Name = &m.Name
	}
	mc := m.Content
	if mc.Parts == nil {
		sm.Content = &mc.Text
		return sm
	}
	var texts []string
	sm.ContentParts = []storedPart{}
	for _, p := range mc.Parts {
		sp := storedPart{Type: p.Type}
		switch {
		case p.Type == "text":
			text := p.Text
			sp.Text = &text
			texts = append(texts, p.Text)
		case p.File != nil:
			sp.File = &storedFilePart{FileID: p.File.FileID, Filename: p.File.Filename}
		}
		sm.ContentParts = append(sm.ContentParts, sp)
	}
	joined := strings.Join(texts, "\n")
	sm.Content = &joined
	return sm
}

// storedStillThere reports whether a stored completion still exists when
// its run ends: one deleted meanwhile must not come back with the run's
// final record. A store that cannot answer counts as yes (the save that
// follows reports the failure).
func (s *Server) storedStillThere(ctx context.Context, r *run) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	_, err := s.store.GetEntry(ctx, collCompletions, r.owner, completionKey(r.id))
	return !errors.Is(err, store.ErrNotFound)
}

// withCompletionID returns err as an *api.Error that names the stored
// completion id, in its body and its message, leaving err itself untouched.
func withCompletionID(err error, id string) *api.Error {
	ae := *api.ErrorOf(err)
	ae.CompletionID = id
	if !strings.Contains(ae.Message, id) {
		ae.Message += fmt.Sprintf(" (stored completion %s)", id)
	}
	return &ae
}

// loadView reads a stored completion and its metadata; sum is its summary
// when the caller has it already. It returns an *api.Error 404 when the
// completion does not exist.
func (s *Server) loadView(ctx context.Context, own, id string, sum *completionSummary) (*storedView, error) {
	rd, err := s.store.Get(ctx, collCompletions, own+"/"+id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.NotFound("completion_id", "no stored completion %q (only completions created with store: true are kept)", id)
	}
	if err != nil {
		return nil, api.ServerError("reading completion: %v", err)
	}
	defer rd.Close()
	var comp api.ChatCompletion
	if err := json.NewDecoder(rd).Decode(&comp); err != nil {
		return nil, api.ServerError("reading completion %s/%s: %v", own, id, err)
	}
	if sum == nil {
		b, err := s.store.GetEntry(ctx, collCompletions, own, completionKey(id))
		switch {
		case errors.Is(err, store.ErrNotFound):
			// A record from before summaries existed: no metadata.
		case err != nil:
			return nil, api.ServerError("reading completion summary: %v", err)
		default:
			sum = &completionSummary{}
			if err := json.Unmarshal(b, sum); err != nil {
				return nil, api.ServerError("reading completion summary %s/%s: %v", own, id, err)
			}
		}
	}
	v := &storedView{ChatCompletion: &comp, Metadata: map[string]string{}}
	if sum != nil && sum.Metadata != nil {
		v.Metadata = sum.Metadata
	}
	return v, nil
}

func (s *Server) getCompletion(c *echo.Context) error {
	id := c.Param("id")
	if !validID(id, "chatcmpl-") {
		return api.NotFound("completion_id", "no stored completion %q", id)
	}
	v, err := s.loadView(c.Request().Context(), owner(c), id, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// pageParams are the query parameters every list endpoint shares.
type pageParams struct {
	after string
	limit int
	desc  bool
}

func parsePage(q url.Values) (pageParams, error) {
	p := pageParams{after: q.Get("after"), limit: defaultPageLimit}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxPageLimit {
			return p, api.BadRequest("limit", "limit must be an integer from 1 to %d, not %q", maxPageLimit, l)
		}
		p.limit = n
	}
	switch o := q.Get("order"); o {
	case "", "asc":
	case "desc":
		p.desc = true
	default:
		return p, api.BadRequest("order", "order must be \"asc\" or \"desc\", not %q", o)
	}
	return p, nil
}

// listCompletions answers GET /v1/chat/completions: the caller's stored
// completions in creation order, filtered by model and metadata[key]=value.
// It scans the caller's summaries from the cursor and reads the records of
// the page alone.
func (s *Server) listCompletions(c *echo.Context) error {
	q := c.Request().URL.Query()
	page, err := parsePage(q)
	if err != nil {
		return err
	}
	if page.after != "" && !validID(page.after, "chatcmpl-") {
		return api.BadRequest("after", "after must be the id of a stored completion (chatcmpl-…), not %q", page.after)
	}
	model := q.Get("model")
	want := map[string]string{}
	for k, vs := range q {
		name, ok := strings.CutPrefix(k, "metadata[")
		if !ok {
			continue
		}
		name, ok = strings.CutSuffix(name, "]")
		if !ok || name == "" || len(vs) != 1 {
			return api.BadRequest("metadata", "filter by metadata with one metadata[key]=value per key, not %q", k)
		}
		want[name] = vs[0]
	}
	ctx := c.Request().Context()
	own := owner(c)
	type hit struct {
		key string
		sum completionSummary
	}
	var hits []hit
	err = s.store.ScanEntries(ctx, collCompletions, own, completionKey(page.after), page.desc, func(e store.Entry) bool {
		var sum completionSummary
		if err := json.Unmarshal(e.Value, &sum); err != nil {
			// One damaged summary must not hide every other completion.
			s.log.Error("skipping an unreadable stored-completion summary", "owner", own, "key", e.Key, "err", err)
			return true
		}
		if model != "" && sum.Model != model {
			return true
		}
		for k, v := range want {
			if got, ok := sum.Metadata[k]; !ok || got != v {
				return true
			}
		}
		hits = append(hits, hit{e.Key, sum})
		return len(hits) <= page.limit // one more than the page: has_more
	})
	if err != nil {
		return api.ServerError("listing completions: %v", err)
	}
	hasMore := len(hits) > page.limit
	if hasMore {
		hits = hits[:page.limit]
	}
	data := make([]*storedView, 0, len(hits))
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		id := "chatcmpl-" + h.key
		v, err := s.loadView(ctx, own, id, &h.sum)
		var ae *api.Error
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			continue // deleted since the scan
		}
		if err != nil {
			return err
		}
		data = append(data, v)
		ids = append(ids, id)
	}
	return c.JSON(http.StatusOK, api.NewPage(data, ids, hasMore))
}

// updateCompletion answers POST /v1/chat/completions/{id}: replaces the
// metadata, the only thing OpenAI lets a client change.
func (s *Server) updateCompletion(c *echo.Context) error {
	id := c.Param("id")
	if !validID(id, "chatcmpl-") {
		return api.NotFound("completion_id", "no stored completion %q", id)
	}
	hreq := c.Request()
	var body map[string]json.RawMessage
	if err := json.NewDecoder(http.MaxBytesReader(c.Response(), hreq.Body, 1<<20)).Decode(&body); err != nil {
		return api.DecodeError(err)
	}
	for k := range body {
		if k != "metadata" {
			return &api.Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: k, Code: "unknown_parameter",
				Kind: "invalid_request", Message: fmt.Sprintf("unknown parameter %q: only metadata can be updated", k)}
		}
	}
	raw, ok := body["metadata"]
	if !ok {
		return api.BadRequest("metadata", "missing required parameter: metadata")
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return api.BadRequest("metadata", "metadata must be an object of string values or null")
	}
	md, err := api.Metadata(m).Strings()
	if err != nil {
		return err
	}
	ctx := hreq.Context()
	own := owner(c)
	v, err := s.loadView(ctx, own, id, nil)
	if err != nil {
		return err
	}
	sum := completionSummary{Created: v.Created, Model: v.Model, Metadata: md}
	b, err := json.Marshal(sum)
	if err == nil {
		sctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
		err = s.store.PutEntry(sctx, collCompletions, own, completionKey(id), b)
		cancel()
	}
	if err != nil {
		return api.ServerError("updating completion metadata: %v", err)
	}
	v.Metadata = map[string]string{}
	if md != nil {
		v.Metadata = md
	}
	return c.JSON(http.StatusOK, v)
}

// deleteCompletion answers DELETE /v1/chat/completions/{id}. The summary
// goes first, so that a failure part way leaves a completion that is not
// listed rather than a listed one that cannot be read; a run still going
// sees it gone and does not write its record back.
func (s *Server) deleteCompletion(c *echo.Context) error {
	id := c.Param("id")
	if !validID(id, "chatcmpl-") {
		return api.NotFound("completion_id", "no stored completion %q", id)
	}
	ctx := c.Request().Context()
	own := owner(c)
	errSum := s.store.DeleteEntry(ctx, collCompletions, own, completionKey(id))
	if errSum != nil && !errors.Is(errSum, store.ErrNotFound) {
		return api.ServerError("deleting completion summary: %v", errSum)
	}
	errRec := s.store.Delete(ctx, collCompletions, own+"/"+id)
	if errRec != nil && !errors.Is(errRec, store.ErrNotFound) {
		return api.ServerError("deleting completion: %v", errRec)
	}
	if errors.Is(errSum, store.ErrNotFound) && errors.Is(errRec, store.ErrNotFound) {
		return api.NotFound("completion_id", "no stored completion %q", id)
	}
	if err := s.store.Delete(ctx, collMessages, own+"/"+id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return api.ServerError("deleting completion messages: %v", err)
	}
	return c.JSON(http.StatusOK, api.DeletedObject{ID: id, Object: "chat.completion.deleted", Deleted: true})
}

// completionMessages answers GET /v1/chat/completions/{id}/messages: the
// request's messages, a page at a time. The stored lines are decoded one by
// one, and only the page's are kept.
func (s *Server) completionMessages(c *echo.Context) error {
	id := c.Param("id")
	if !validID(id, "chatcmpl-") {
		return api.NotFound("completion_id", "no stored completion %q", id)
	}
	page, err := parsePage(c.Request().URL.Query())
	if err != nil {
		return err
	}
	after := -1
	if page.after != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(page.after, id+"-"))
		if !strings.HasPrefix(page.after, id+"-") || err != nil || n < 0 {
			return api.BadRequest("after", "after must be the id of a message of %s (%s-<n>), not %q", id, id, page.after)
		}
		after = n
	}
	ctx := c.Request().Context()
	own := owner(c)
	rd, err := s.store.Get(ctx, collMessages, own+"/"+id)
	if errors.Is(err, store.ErrNotFound) {
		// A completion stored before messages were kept has none.
		if _, err := s.loadView(ctx, own, id, &completionSummary{}); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, api.NewPage([]json.RawMessage{}, nil, false))
	}
	if err != nil {
		return api.ServerError("reading completion messages: %v", err)
	}
	defer rd.Close()
	type msg struct {
		i   int
		raw json.RawMessage
	}
	var kept []msg
	dec := json.NewDecoder(rd)
	for i := 0; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return api.ServerError("reading completion messages %s/%s: %v", own, id, err)
		}
		switch {
		case !page.desc && i > after:
			kept = append(kept, msg{i, raw})
		case page.desc && (after < 0 || i < after):
			// The last limit+1 before the cursor: a window, not all.
			kept = append(kept, msg{i, raw})
			if len(kept) > page.limit+1 {
				kept = kept[1:]
			}
		}
		if !page.desc && len(kept) > page.limit {
			break
		}
	}
	if page.desc {
		for l, r := 0, len(kept)-1; l < r; l, r = l+1, r-1 {
			kept[l], kept[r] = kept[r], kept[l]
		}
	}
	hasMore := len(kept) > page.limit
	if hasMore {
		kept = kept[:page.limit]
	}
	data := make([]json.RawMessage, len(kept))
	ids := make([]string, len(kept))
	for j, m := range kept {
		data[j], ids[j] = m.raw, fmt.Sprintf("%s-%d", id, m.i)
	}
	return c.JSON(http.StatusOK, api.NewPage(data, ids, hasMore))
}

// saveCompletion writes r's stored record, within StoreTimeout and whether
// or not ctx is cancelled: a record once begun is finished.
func (s *Server) saveCompletion(ctx context.Context, r *run, comp *api.ChatCompletion) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	if comp.ID == "" {
		comp.ID, comp.Object, comp.Created, comp.Model = r.id, "chat.completion", r.created, r.model
		comp.Choices = []api.Choice{}
		comp.RLM = &api.RLMInfo{TraceID: r.req.TraceID}
	}
	b, err := json.Marshal(comp)
	if err != nil {
		return err
	}
	_, err = s.store.Put(ctx, collCompletions, r.owner+"/"+r.id, bytes.NewReader(b))
	return err
}
