package store

import (
	"fmt"
	"strings"
)

// blobSuffix ends the name of every value file of the disk store, so that a
// key "a" (file a.blob) and a key "a/b" (directory a) never collide.
const blobSuffix = ".blob"

// ErrInvalidKey is wrapped by the errors for collection names and keys that
// a store refuses.
var ErrInvalidKey = fmt.Errorf("invalid key")

// CheckKey reports whether coll and key are acceptable to every Store
// implementation. Keys are '/'-separated segments; each segment must be
// non-empty, must not start with '.', must not contain '\\', ':' or NUL, and
// no segment but the last may end in ".blob". The rules exist so that the
// disk store can map keys to subdirectories without any path escaping the
// store's root ("../x", "/etc/passwd") and so that Redis key names stay
// unambiguous.
func CheckKey(coll, key string) error {
	if coll == "" || strings.ContainsAny(coll, "/\\:\x00") || strings.HasPrefix(coll, ".") {
		return fmt.Errorf("%w: collection %q", ErrInvalidKey, coll)
	}
	if key == "" || len(key) > 1024 {
		return fmt.Errorf("%w: key of %d bytes", ErrInvalidKey, len(key))
	}
	segs := strings.Split(key, "/")
	for i, s := range segs {
		if s == "" || strings.HasPrefix(s, ".") || strings.ContainsAny(s, "\\:\x00") {
			return fmt.Errorf("%w: %q", ErrInvalidKey, key)
		}
		if i < len(segs)-1 && strings.HasSuffix(s, blobSuffix) {
			return fmt.Errorf("%w: %q: only the last segment may end in %s", ErrInvalidKey, key, blobSuffix)
		}
	}
	return nil
}

// ErrEntryTooLarge is returned by PutEntry for a value above MaxEntryBytes.
var ErrEntryTooLarge = fmt.Errorf("index entry above %d bytes", MaxEntryBytes)

// CheckEntry reports whether an index name and an entry key are acceptable
// to every Store implementation: each is one key segment (no '/') of at most
// 200 bytes, so that the disk store can name a file after it.
func CheckEntry(coll, index, key string) error {
	for _, s := range []string{index, key} {
		if err := CheckKey(coll, s); err != nil {
			return err
		}
		if strings.Contains(s, "/") || len(s) > 200 {
			return fmt.Errorf("%w: index or entry key %q", ErrInvalidKey, s)
		}
	}
	return nil
}
