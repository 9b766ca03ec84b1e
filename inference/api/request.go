package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/internal/jsonscan"
	"github.com/rlm-project/rlm/model/tokenizer"
)

// samplingFields are the request fields chat and completions share.
type samplingFields struct {
	Model               string          `json:"model"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	TopK                *int            `json:"top_k"` // extension (vLLM's)
	N                   *int            `json:"n"`
	Stop                json.RawMessage `json:"stop"`
	Seed                *int64          `json:"seed"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	PresencePenalty  *float64       `json:"presence_penalty"`
	FrequencyPenalty *float64       `json:"frequency_penalty"`
	LogitBias        map[string]any `json:"logit_bias"`
	BestOf           *int           `json:"best_of"`
	IgnoreEOS        bool           `json:"ignore_eos"` // extension (vLLM's)
	// ReturnTokenIDs is an extension, as in vLLM: the response carries
	// prompt_token_ids and each choice its token_ids, the exact tokens the
	// prompt was rendered to and the completion sampled.
	ReturnTokenIDs bool `json:"return_token_ids"`
}

type chatRequest struct {
	samplingFields
	Messages       json.RawMessage `json:"messages"`
	Logprobs       bool            `json:"logprobs"`
	TopLogprobs    *int            `json:"top_logprobs"`
	Tools          json.RawMessage `json:"tools"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

type completionRequest struct {
	samplingFields
	Prompt   json.RawMessage `json:"prompt"`
	Logprobs *int            `json:"logprobs"`
	Echo     bool            `json:"echo"`
	Suffix   *string         `json:"suffix"`
}

// decode reads a JSON body into v, describing a malformed body or a field
// of the wrong type in the request's terms.
func decode(w http.ResponseWriter, r *http.Request, limit int64, v any) *apiError {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error", code: "request_too_large",
				message: fmt.Sprintf("the request body is larger than the server's limit of %d bytes", limit)}
		}
		return invalid("", "reading the request body: %v", err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := strings.TrimPrefix(te.Field, "samplingFields.")
			return invalid(field, "%s: expected %s, got a JSON %s", field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return invalid("", "the request body is not valid JSON: %v", err)
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "a number"
}

// params turns the shared fields into an engine request (without its
// prompt) and the number of choices.
func (f *samplingFields) params() (inference.Request, int, *apiError) {
	var req inference.Request
	switch {
	case f.PresencePenalty != nil && *f.PresencePenalty != 0:
		return req, 0, unsupported("presence_penalty")
	case f.FrequencyPenalty != nil && *f.FrequencyPenalty != 0:
		return req, 0, unsupported("frequency_penalty")
	case len(f.LogitBias) > 0:
		return req, 0, unsupported("logit_bias")
	}
	n := 1
	if f.N != nil {
		n = *f.N
	}
	if n < 1 || n > 128 {
		return req, 0, invalid("n", "n must be between 1 and 128, got %d", n)
	}
	if f.BestOf != nil && *f.BestOf != n {
		return req, 0, unsupported("best_of")
	}
	req.Temperature = 1 // OpenAI's default
	if f.Temperature != nil {
		if *f.Temperature < 0 || *f.Temperature > 2 {
			return req, 0, invalid("temperature", "temperature must be between 0 and 2, got %g", *f.Temperature)
		}
		req.Temperature = *f.Temperature
	}
	if f.TopP != nil {
		if *f.TopP <= 0 || *f.TopP > 1 {
			return req, 0, invalid("top_p", "top_p must be in (0, 1], got %g", *f.TopP)
		}
		req.TopP = *f.TopP
	}
	if f.TopK != nil {
		if *f.TopK < -1 {
			return req, 0, invalid("top_k", "top_k must be -1 or 0 (off) or positive, got %d", *f.TopK)
		}
		req.TopK = max(*f.TopK, 0)
	}
	maxTok := f.MaxCompletionTokens
	param := "max_completion_tokens"
	if maxTok == nil {
		maxTok, param = f.MaxTokens, "max_tokens"
	}
	if maxTok != nil {
		if *maxTok < 1 {
			return req, 0, invalid(param, "%s must be at least 1, got %d", param, *maxTok)
		}
		req.MaxTokens = *maxTok
	}
	if f.Seed != nil {
		s := uint64(*f.Seed)
		req.Seed = &s
	}
	stop, err := stringOrList(f.Stop, maxStop)
	if err == errTooMany {
		return req, 0, tooMany("stop", "stop sequences", maxStop)
	}
	if err != nil {
		return req, 0, invalid("stop", "stop: %v", err)
	}
	req.Stop = stop
	req.IgnoreEOS = f.IgnoreEOS
	return req, n, nil
}

// stringOrList reads a field that is a string or an array of at most limit
// strings (counted before they are decoded); more is errTooMany.
func stringOrList(raw json.RawMessage, limit int) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	if n, _ := jsonscan.Count(raw, limit); n > limit {
		return nil, errTooMany
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("expected a string or an array of strings")
	}
	return many, nil
}

// maxStop is OpenAI's limit on stop sequences.
const maxStop = 4

// errTooMany is an array past its cap.
var errTooMany = errors.New("too many elements")

// tooMany is the 400 of an array past a cap, as OpenAI words it.
func tooMany(param, what string, limit int) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, code: "array_above_max_length",
		message: fmt.Sprintf("Invalid '%s': array too long. This server takes at most %d %s in one request.", param, limit, what)}
}

// chatMessages reads messages, each with a role and a content that is a
// string or an array of text parts, under the caps: the elements are
// decoded one at a time, and the first past a cap refuses the request.
func (h *Handler) chatMessages(raw json.RawMessage) ([]tokenizer.Message, *apiError) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, invalid("messages", "messages is required")
	}
	var out []tokenizer.Message
	parts := 0
	var fail *apiError
	err := jsonscan.Elements(raw, func(i int, elem []byte) error {
		if i >= h.cfg.MaxMessages {
			fail = tooMany("messages", "messages", h.cfg.MaxMessages)
			return errTooMany
		}
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(elem, &m); err != nil {
			return err
		}
		role := m.Role
		if role == "developer" {
			role = tokenizer.RoleSystem
		}
		switch role {
		case tokenizer.RoleSystem, tokenizer.RoleUser, tokenizer.RoleAssistant, tokenizer.RoleTool:
		default:
			fail = invalid(fmt.Sprintf("messages[%d].role", i), "messages[%d].role: %q is not one of system, developer, user, assistant, tool", i, m.Role)
			return errTooMany
		}
		text, err := contentText(m.Content, &parts, h.cfg.MaxContentParts)
		if err == errTooMany {
			fail = tooMany(fmt.Sprintf("messages[%d].content", i), "content parts in all messages together", h.cfg.MaxContentParts)
			return err
		}
		if err != nil {
			fail = invalid(fmt.Sprintf("messages[%d].content", i), "messages[%d].content: %v", i, err)
			return err
		}
		out = append(out, tokenizer.Message{Role: role, Content: text})
		return nil
	})
	switch {
	case fail != nil:
		return nil, fail
	case err != nil:
		return nil, invalid("messages", "messages: expected an array of message objects")
	case len(out) == 0:
		return nil, invalid("messages", "messages must not be empty")
	}
	return out, nil
}

// contentText reads a content, a string or an array of text parts; *parts
// counts the parts of the request so far, at most limit.
func contentText(raw json.RawMessage, parts *int, limit int) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var b strings.Builder
	err := jsonscan.Elements(raw, func(_ int, elem []byte) error {
		if *parts++; *parts > limit {
			return errTooMany
		}
		var p struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(elem, &p); err != nil {
			return errors.New("expected a string or an array of content parts")
		}
		if p.Type != "text" || p.Text == nil {
			return fmt.Errorf("content part of type %q is not supported (only text)", p.Type)
		}
		b.WriteString(*p.Text)
		return nil
	})
	if err == jsonscan.ErrNotArray || err == jsonscan.ErrSyntax {
		return "", errors.New("expected a string or an array of content parts")
	}
	return b.String(), err
}

// promptCount counts the prompts of a completion without decoding them: 1
// for a string or an array of token ids, else the elements of an array of
// strings or of token-id arrays. More than limit is errTooMany; the count
// stops there.
func promptCount(raw json.RawMessage, limit int) (int, *apiError) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return 0, invalid("prompt", "prompt is required")
	case raw[0] == '"':
		return 1, nil
	case raw[0] != '[':
		return 0, badPrompt()
	}
	n, first := 0, byte(0)
	err := jsonscan.Elements(raw, func(i int, elem []byte) error {
		if i == 0 {
			first = elem[0]
		}
		if first != '"' && first != '[' {
			return errSingle // a single prompt of token ids
		}
		if n++; n > limit {
			return errTooMany
		}
		return nil
	})
	switch {
	case err == errSingle:
		return 1, nil
	case err == errTooMany:
		return n, tooMany("prompt", "prompts", limit)
	case err != nil || n == 0:
		return 0, badPrompt()
	}
	return n, nil
}

var errSingle = errors.New("a single prompt")

func badPrompt() *apiError {
	return invalid("prompt", "prompt: expected a string, an array of strings, an array of token ids or an array of such arrays")
}

// prompts reads the prompt of a completion: a string, an array of strings,
// an array of token ids, or an array of arrays of token ids. A prompt of
// more token ids than maxLen, which could never run, is refused as its ids
// are counted, before they are decoded.
func prompts(raw json.RawMessage, tok *tokenizer.Tokenizer, maxLen int) ([][]int32, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, invalid("prompt", "prompt is required")
	}
	encode := func(s string) []int32 {
		ids := tok.Encode(s)
		out := make([]int32, len(ids))
		for i, id := range ids {
			out[i] = int32(id)
		}
		return out
	}
	ids := func(b []byte) ([]int32, *apiError) {
		if n, _ := jsonscan.Count(b, maxLen); n > maxLen {
			return nil, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "prompt", code: "context_length_exceeded",
				message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your prompt has more than %d tokens.", maxLen, maxLen)}
		}
		var out []int32
		if err := json.Unmarshal(b, &out); err != nil || len(out) == 0 {
			return nil, badPrompt()
		}
		return out, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return [][]int32{encode(one)}, nil
	}
	var out [][]int32
	var fail *apiError
	var kind byte // of the first element: all are alike
	err := jsonscan.Elements(raw, func(i int, elem []byte) error {
		if i == 0 {
			kind = elem[0]
		}
		switch {
		case elem[0] != kind && (kind == '"' || kind == '['):
			return errTooMany // a mixed array
		case elem[0] == '"':
			var s string
			if err := json.Unmarshal(elem, &s); err != nil {
				return err
			}
			out = append(out, encode(s))
		case elem[0] == '[':
			p, e := ids(elem)
			if e != nil {
				fail = e
				return errTooMany
			}
			out = append(out, p)
		default: // token ids: the whole array is one prompt
			p, e := ids(raw)
			if e != nil {
				fail = e
				return errTooMany
			}
			out = [][]int32{p}
			return errSingle
		}
		return nil
	})
	switch {
	case fail != nil:
		return nil, fail
	case err != nil && err != errSingle, len(out) == 0:
		return nil, badPrompt()
	}
	return out, nil
}
