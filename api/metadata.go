package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"unicode/utf8"

	"github.com/rlm-project/rlm/internal/jsonscan"
)

// OpenAI's limits on metadata.
const (
	MaxMetadataKeys     = 16
	MaxMetadataKeyLen   = 64
	MaxMetadataValueLen = 512
)

// Metadata is a request's metadata object as sent. Its members are counted
// before a map is built for them, so that an object of a million keys is
// refused without holding them; Strings checks the rest of OpenAI's limits.
type Metadata map[string]any

func (m *Metadata) UnmarshalJSON(b []byte) error {
	if n, err := jsonscan.Members(b, math.MaxInt); err == nil && n > MaxMetadataKeys {
		return tooManyMetadataKeys(n)
	}
	return json.Unmarshal(b, (*map[string]any)(m))
}

// Strings checks m against OpenAI's limits (at most 16 keys of 1 to 64
// characters, string values of at most 512) and returns it as strings; nil
// for no metadata.
func (m Metadata) Strings() (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	if len(m) > MaxMetadataKeys {
		return nil, tooManyMetadataKeys(len(m))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first bad key is named the same way every time
	out := make(map[string]string, len(m))
	for _, k := range keys {
		if n := utf8.RuneCountInString(k); n > MaxMetadataKeyLen || n == 0 {
			return nil, &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: "metadata",
				Code: "invalid_metadata_key", Kind: "invalid_request",
				Message: fmt.Sprintf("Invalid 'metadata': key %.80q has %d characters; keys must have 1 to %d.", k, n, MaxMetadataKeyLen)}
		}
		v, ok := m[k].(string)
		if !ok {
			return nil, &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: "metadata." + k,
				Code: "invalid_type", Kind: "invalid_request",
				Message: fmt.Sprintf("Invalid type for 'metadata.%s': expected a string, but got %s instead.", k, jsonTypeOf(m[k]))}
		}
		if n := utf8.RuneCountInString(v); n > MaxMetadataValueLen {
			return nil, &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: "metadata." + k,
				Code: "string_above_max_length", Kind: "invalid_request",
				Message: fmt.Sprintf("Invalid 'metadata.%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", k, MaxMetadataValueLen, n)}
		}
		out[k] = v
	}
	return out, nil
}

func tooManyMetadataKeys(n int) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: "metadata",
		Code: "object_above_max_properties", Kind: "invalid_request",
		Message: fmt.Sprintf("Invalid 'metadata': too many properties. Expected an object with at most %d properties, but got an object with %d properties instead.", MaxMetadataKeys, n)}
}

func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a value"
}
