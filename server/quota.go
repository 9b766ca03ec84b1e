package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/retention"
)

// Quota bounds what one API key (owner) keeps in the store, so that no key
// can fill the disk, or push another key's records out of a shared bound.
// A write past a bound is refused with 400 storage_quota_exceeded: OpenAI
// answers its own file storage quota with 400 invalid_request_error, and
// 4xx other than 408, 409 and 429 is what OpenAI's clients do not retry (a
// 429 would have them upload the same 512 MiB again, twice, for nothing).
// Zero fields bound nothing.
type Quota struct {
	// FileBytes and Files bound an owner's uploaded files, with the text
	// read from them.
	FileBytes, Files int64
	// CompletionBytes and Completions bound an owner's stored
	// completions (records and request messages), and, apart, its stored
	// responses (records): each kind may hold this much.
	CompletionBytes, Completions int64
}

// RecordKinds are the records the server keeps in st, for a retention sweep
// (see package retention): uploaded files and stored completions. Both are
// deleted as their DELETE endpoints delete them, what lists them first.
func RecordKinds(st store.Store) (files, completions retention.Kind) {
	files = retention.Kind{
		Name:  "files",
		Colls: []string{collFileMeta, collFiles, collFileText, collFilePages},
		Item:  ownerKeyItem(collFileMeta),
		Delete: func(ctx context.Context, owner, id string) error {
			return deleteAll(ctx, st, owner+"/"+id, collFileMeta, collFiles, collFileText, collFilePages)
		},
	}
	completions = retention.Kind{
		Name:  "completions",
		Colls: []string{collCompletions, collMessages},
		Item:  ownerKeyItem(collCompletions),
		Delete: func(ctx context.Context, owner, id string) error {
			err := st.DeleteEntry(ctx, collCompletions, owner, completionKey(id))
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			return deleteAll(ctx, st, owner+"/"+id, collCompletions, collMessages)
		},
	}
	return files, completions
}

// ResponseKind is the stored responses of st as retention sees them: a
// record under "<owner>/<id>", with its events and any cancel marker,
// which go with it.
func ResponseKind(st store.Store) retention.Kind {
	return retention.Kind{
		Name:  "responses",
		Colls: []string{collResponses},
		Item:  ownerKeyItem(collResponses),
		Delete: func(ctx context.Context, owner, id string) error {
			if err := st.Delete(ctx, collResponses, owner+"/"+id); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			deleteResponseEntries(ctx, st, owner, id)
			return nil
		},
	}
}

// ownerKeyItem maps keys "<owner>/<id>" to their item; main is the
// collection whose value makes the item exist.
func ownerKeyItem(main string) func(coll, key string) (string, string, bool, bool) {
	return func(coll, key string) (string, string, bool, bool) {
		owner, id, ok := strings.Cut(key, "/")
		return owner, id, coll == main, ok && !strings.Contains(id, "/")
	}
}

// deleteAll deletes key from each collection in order; missing values are
// no error unless all are missing.
func deleteAll(ctx context.Context, st store.Store, key string, colls ...string) error {
	found := false
	for _, coll := range colls {
		err := st.Delete(ctx, coll, key)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		found = found || err == nil
	}
	if !found {
		return fmt.Errorf("delete %s: %w", key, store.ErrNotFound)
	}
	return nil
}

// quotaLedgers count what each owner keeps, for the quota checks.
type quotaLedgers struct {
	files, completions, responses *retention.Ledger
}

func newQuotaLedgers(st store.Store) quotaLedgers {
	files, completions := RecordKinds(st)
	return quotaLedgers{files: &retention.Ledger{Store: st, Kind: files},
		completions: &retention.Ledger{Store: st, Kind: completions},
		responses:   &retention.Ledger{Store: st, Kind: ResponseKind(st)}}
}

// quotaError is the refusal of a write that would take owner's usage u past
// maxBytes or maxItems.
func quotaError(u retention.Usage, maxBytes, maxItems int64, param, what, remedy string) *api.Error {
	if maxItems > 0 && u.Items > maxItems {
		return quotaExceeded(param, "this API key has %d %s, its quota; %s", u.Items-1, what, remedy)
	}
	return quotaExceeded(param, "this API key's %s would take %s, over its quota of %s; %s", what, formatBytes(u.Bytes), formatBytes(maxBytes), remedy)
}

// quotaUnchecked answers a write whose quota could not be checked, as a
// write the store cannot take is answered.
func (s *Server) quotaUnchecked(err error) *api.Error {
	s.log.Error("checking a storage quota", "err", err)
	return &api.Error{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "store_unavailable", Kind: "store",
		RetryAfter: 1, Message: "the storage quota could not be checked, so nothing was stored; retry later (details are in the server log)"}
}

func quotaExceeded(param, format string, args ...any) *api.Error {
	return &api.Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param,
		Code: "storage_quota_exceeded", Kind: "quota", Message: fmt.Sprintf(format, args...)}
}

const (
	fileWhat       = "uploaded files"
	fileRemedy     = "delete files it no longer needs (DELETE /v1/files/{id})"
	completionWhat = "stored completions"
	completionFix  = "delete stored completions it no longer needs (DELETE /v1/chat/completions/{id}), or send store: false"
	responseWhat   = "stored responses"
	responseFix    = "delete stored responses it no longer needs (DELETE /v1/responses/{id}), or send store: false"
)

// checkFileQuota checks, before it is read, an upload of incoming bytes
// (0 when unknown).
func (s *Server) checkFileQuota(ctx context.Context, owner string, incoming int64) error {
	q := s.cfg.Quota
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
	defer cancel()
	u, ok, err := s.quotas.files.Fits(ctx, owner, incoming, q.FileBytes, q.Files)
	if err != nil {
		return s.quotaUnchecked(err)
	}
	if !ok {
		return quotaError(u, q.FileBytes, q.Files, "file", fileWhat, fileRemedy)
	}
	return nil
}

// admitFile counts the upload id of bytes, just stored, if it is within
// the quota; uploads that came together may have passed checkFileQuota
// together, and one of them is refused here.
func (s *Server) admitFile(ctx context.Context, owner, id string, bytes int64) error {
	q := s.cfg.Quota
	if q.FileBytes <= 0 && q.Files <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
	defer cancel()
	u, ok, err := s.quotas.files.Admit(ctx, owner, id, bytes, q.FileBytes, q.Files)
	if err != nil {
		return s.quotaUnchecked(err)
	}
	if !ok {
		return quotaError(u, q.FileBytes, q.Files, "file", fileWhat, fileRemedy)
	}
	return nil
}

// checkCompletionQuota checks a store: true request of incoming bytes; the
// completion is counted once stored (see createStored).
func (s *Server) checkCompletionQuota(ctx context.Context, owner string, incoming int64) error {
	q := s.cfg.Quota
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
	defer cancel()
	u, ok, err := s.quotas.completions.Fits(ctx, owner, incoming, q.CompletionBytes, q.Completions)
	if err != nil {
		return s.quotaUnchecked(err)
	}
	if !ok {
		return quotaError(u, q.CompletionBytes, q.Completions, "store", completionWhat, completionFix)
	}
	return nil
}

// checkResponseQuota checks a stored response of incoming bytes; the
// response is counted once stored (see putResponse).
func (s *Server) checkResponseQuota(ctx context.Context, owner string, incoming int64) error {
	q := s.cfg.Quota
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
	defer cancel()
	u, ok, err := s.quotas.responses.Fits(ctx, owner, incoming, q.CompletionBytes, q.Completions)
	if err != nil {
		return s.quotaUnchecked(err)
	}
	if !ok {
		return quotaError(u, q.CompletionBytes, q.Completions, "store", responseWhat, responseFix)
	}
	return nil
}

// formatBytes writes n in the largest binary unit that keeps it above 1.
func formatBytes(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}
