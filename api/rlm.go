package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// RLMOptions are a request's rlm object: the run's limits, each clamped to
// the server's maximum. Timeout is seconds (a number) or a Go duration
// ("90s"). Unlike the rest of a request, whose unknown fields are ignored
// for compatibility with OpenAI clients, the rlm object is this server's
// own: an unknown key in it is a typo ("max_iteration") that would silently
// lose a limit, so it is refused (see UnmarshalJSON).
type RLMOptions struct {
	MaxDepth         *int            `json:"max_depth,omitempty"`
	MaxIterations    *int            `json:"max_iterations,omitempty"`
	MaxFailedTurns   *int            `json:"max_failed_turns,omitempty"`
	MaxLLMCalls      *int            `json:"max_llm_calls,omitempty"`
	MaxTotalTokens   *int            `json:"max_total_tokens,omitempty"`
	Timeout          json.RawMessage `json:"timeout,omitempty"`
	SubModel         string          `json:"sub_model,omitempty"`
	OffloadThreshold *int            `json:"offload_threshold,omitempty"`
	// RequireSession makes a follow-up response (previous_response_id) fail
	// with 409 session_gone rather than run in a new REPL session when the
	// previous response's session cannot be continued. Chat ignores it.
	RequireSession bool `json:"require_session,omitempty"`
	// Progress adds the engine's events to a Responses stream as events
	// of type rlm.progress. Off by default: the official SDKs' stream
	// helpers refuse event types they do not know. Chat streams always
	// carry progress chunks.
	Progress bool `json:"progress,omitempty"`
}

// rlmKeys are the keys the rlm object accepts, from RLMOptions' tags.
var rlmKeys = func() []string {
	t := reflect.TypeFor[RLMOptions]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	sort.Strings(keys)
	return keys
}()

// UnmarshalJSON decodes the rlm object, refusing keys it does not know.
func (o *RLMOptions) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// The decoder adds where the rlm object is.
			return &json.UnmarshalTypeError{Value: te.Value, Type: reflect.TypeFor[RLMOptions](), Offset: te.Offset}
		}
		return err
	}
	var unknown []string
	for k := range fields {
		if _, ok := slices.BinarySearch(rlmKeys, k); !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Param: "rlm." + unknown[0],
			Code: "unknown_parameter", Kind: "invalid_request",
			Message: fmt.Sprintf("unknown key %q in the rlm object; allowed keys: %s", unknown[0], strings.Join(rlmKeys, ", "))}
	}
	type plain RLMOptions // without this method
	return json.Unmarshal(b, (*plain)(o))
}

// RLMInfo is the rlm object of an answer: how the run went.
type RLMInfo struct {
	TraceID    string `json:"trace_id"`
	StopReason string `json:"stop_reason"`
	Iterations int    `json:"iterations"`
	LLMCalls   int    `json:"llm_calls"`
	MaxDepth   int    `json:"max_depth"`
	DurationMS int64  `json:"duration_ms"`
	// Models are the models that answered the run's calls (root turns and
	// sub-calls), as each upstream named itself: the request's model is an
	// alias of the server, these are who wrote the answer.
	Models []string `json:"models,omitempty"`
	// Session says, for a follow-up response, whether it ran in the
	// previous response's REPL session ("continued": its variables were
	// there) or in a new one ("new", with SessionNote saying why).
	Session     string `json:"session,omitempty"`
	SessionNote string `json:"session_note,omitempty"`
}

// Progress is the rlm object of a progress chunk or rlm.progress event: a
// summary of an engine event, small enough to stream (no prompts or full
// outputs).
type Progress struct {
	Event      string `json:"event"`
	Node       string `json:"node,omitempty"`
	Parent     string `json:"parent,omitempty"`
	Depth      int    `json:"depth"`
	Turn       int    `json:"turn,omitempty"`
	Cell       int    `json:"cell,omitempty"`
	Code       string `json:"code,omitempty"`
	Output     string `json:"output,omitempty"`
	OutputSize int    `json:"output_bytes,omitempty"`
	Error      string `json:"error,omitempty"`
	SubCall    string `json:"subcall_id,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Model      string `json:"model,omitempty"`
	Prompt     string `json:"prompt,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	StopReason string `json:"stop_reason,omitempty"`
	Tokens     int    `json:"tokens,omitempty"`
}
