package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

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
	// completions: records and request messages.
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

// checkQuota refuses a write of incoming more bytes (0 when unknown) and
// one more item of k for owner past maxBytes or maxItems. With written set
// the item is in the store already, and counted.
func (s *Server) checkQuota(ctx context.Context, k retention.Kind, owner string, incoming, maxBytes, maxItems int64, written bool, param, what, remedy string) error {
	if maxBytes <= 0 && maxItems <= 0 {
		return nil
	}
	used, n, err := retention.Usage(ctx, s.store, k, owner)
	if err != nil {
		return serverError("checking the storage quota: %v", err)
	}
	if !written {
		used += max(incoming, 0)
		n++
	}
	switch {
	case maxItems > 0 && n > maxItems:
		return quotaExceeded(param, "this API key has %d %s, its quota; %s", n-1, what, remedy)
	case maxBytes > 0 && used > maxBytes:
		return quotaExceeded(param, "this API key's %s would take %s, over its quota of %s; %s", what, formatBytes(used), formatBytes(maxBytes), remedy)
	}
	return nil
}

func quotaExceeded(param, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param,
		Code: "storage_quota_exceeded", Kind: "quota", Message: fmt.Sprintf(format, args...)}
}

// checkFileQuota checks an upload of incoming bytes (before it is read) or,
// with written set, the upload just stored.
func (s *Server) checkFileQuota(ctx context.Context, owner string, incoming int64, written bool) error {
	files, _ := RecordKinds(s.store)
	return s.checkQuota(ctx, files, owner, incoming, s.cfg.Quota.FileBytes, s.cfg.Quota.Files, written,
		"file", "uploaded files", "delete files it no longer needs (DELETE /v1/files/{id})")
}

// checkCompletionQuota checks a store: true request of incoming bytes.
func (s *Server) checkCompletionQuota(ctx context.Context, owner string, incoming int64) error {
	_, completions := RecordKinds(s.store)
	return s.checkQuota(ctx, completions, owner, incoming, s.cfg.Quota.CompletionBytes, s.cfg.Quota.Completions, false,
		"store", "stored completions", "delete stored completions it no longer needs (DELETE /v1/chat/completions/{id}), or send store: false")
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
