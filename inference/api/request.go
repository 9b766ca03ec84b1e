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
	"github.com/rlm-project/rlm/training/tokenizer"
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
	stop, err := stringOrList(f.Stop)
	if err != nil {
		return req, 0, invalid("stop", "stop: %v", err)
	}
	if len(stop) > 4 {
		return req, 0, invalid("stop", "stop takes at most 4 sequences, got %d", len(stop))
	}
	req.Stop = stop
	req.IgnoreEOS = f.IgnoreEOS
	return req, n, nil
}

// stringOrList reads a field that is a string or an array of strings.
func stringOrList(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("expected a string or an array of strings")
	}
	return many, nil
}

// chatMessages reads messages: each with a role and a content that is a
// string or an array of text parts.
func chatMessages(raw json.RawMessage) ([]tokenizer.Message, *apiError) {
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, invalid("messages", "messages is required")
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, invalid("messages", "messages: expected an array of message objects")
	}
	if len(msgs) == 0 {
		return nil, invalid("messages", "messages must not be empty")
	}
	out := make([]tokenizer.Message, 0, len(msgs))
	for i, m := range msgs {
		role := m.Role
		if role == "developer" {
			role = tokenizer.RoleSystem
		}
		switch role {
		case tokenizer.RoleSystem, tokenizer.RoleUser, tokenizer.RoleAssistant, tokenizer.RoleTool:
		default:
			return nil, invalid(fmt.Sprintf("messages[%d].role", i), "messages[%d].role: %q is not one of system, developer, user, assistant, tool", i, m.Role)
		}
		text, err := contentText(m.Content)
		if err != nil {
			return nil, invalid(fmt.Sprintf("messages[%d].content", i), "messages[%d].content: %v", i, err)
		}
		out = append(out, tokenizer.Message{Role: role, Content: text})
	}
	return out, nil
}

func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("expected a string or an array of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return "", fmt.Errorf("content part of type %q is not supported (only text)", p.Type)
		}
		b.WriteString(*p.Text)
	}
	return b.String(), nil
}

// prompts reads the prompt of a completion: a string, an array of strings,
// an array of token ids, or an array of arrays of token ids.
func prompts(raw json.RawMessage, tok *tokenizer.Tokenizer) ([][]int32, *apiError) {
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
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return [][]int32{encode(one)}, nil
	}
	var strs []string
	if json.Unmarshal(raw, &strs) == nil && len(strs) > 0 {
		var out [][]int32
		for _, s := range strs {
			out = append(out, encode(s))
		}
		return out, nil
	}
	var ids []int32
	if json.Unmarshal(raw, &ids) == nil && len(ids) > 0 {
		return [][]int32{ids}, nil
	}
	var batch [][]int32
	if json.Unmarshal(raw, &batch) == nil && len(batch) > 0 {
		return batch, nil
	}
	return nil, invalid("prompt", "prompt: expected a string, an array of strings, an array of token ids or an array of such arrays")
}
