package store

import (
	"crypto/sha256"
	"encoding/hex"
)

// OwnerOfKey is the owner an API key's requests, files, completions and runs
// are recorded under: the first 8 bytes of the key's SHA-256, in hex. Every
// store key a request touches is prefixed with it, so tenancy is a property
// of the store's keys. Being a hash, it can be computed from the key (rlm
// traces --api-key does) but not guessed from the store.
func OwnerOfKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:8])
}
