package modelserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/internal/jsonscan"
	"github.com/rlm-project/rlm/model/tokenizer"
)

// readBody reads a request body whole, bounded by MaxRequestBytes.
func (s *Server) readBody(c *echo.Context) ([]byte, error) {
	r := c.Request()
	if r.ContentLength > s.cfg.MaxRequestBytes {
		return nil, api.TooLarge(s.cfg.MaxRequestBytes, "the request body")
	}
	return api.ReadBody(http.MaxBytesReader(c.Response(), r.Body, s.cfg.MaxRequestBytes), r.ContentLength)
}

// params turns the shared fields into an engine request (without its
// prompt) and the number of choices.
func params(f *api.SamplingParams) (inference.Request, int, *api.Error) {
	var req inference.Request
	switch {
	case f.PresencePenalty != nil && *f.PresencePenalty != 0:
		return req, 0, api.Unsupported("presence_penalty", "presence_penalty is not supported by this server")
	case f.FrequencyPenalty != nil && *f.FrequencyPenalty != 0:
		return req, 0, api.Unsupported("frequency_penalty", "frequency_penalty is not supported by this server")
	case len(f.LogitBias) > 0:
		return req, 0, api.Unsupported("logit_bias", "logit_bias is not supported by this server")
	}
	n := 1
	if f.N != nil {
		n = *f.N
	}
	if n < 1 || n > 128 {
		return req, 0, api.BadRequest("n", "n must be between 1 and 128, got %d", n)
	}
	if f.BestOf != nil && *f.BestOf != n {
		return req, 0, api.Unsupported("best_of", "best_of is not supported by this server")
	}
	req.Temperature = 1 // OpenAI's default
	if f.Temperature != nil {
		if *f.Temperature < 0 || *f.Temperature > 2 {
			return req, 0, api.BadRequest("temperature", "temperature must be between 0 and 2, got %g", *f.Temperature)
		}
		req.Temperature = *f.Temperature
	}
	if f.TopP != nil {
		if *f.TopP <= 0 || *f.TopP > 1 {
			return req, 0, api.BadRequest("top_p", "top_p must be in (0, 1], got %g", *f.TopP)
		}
		req.TopP = *f.TopP
	}
	if f.TopK != nil {
		if *f.TopK < -1 {
			return req, 0, api.BadRequest("top_k", "top_k must be -1 or 0 (off) or positive, got %d", *f.TopK)
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
			return req, 0, api.BadRequest(param, "%s must be at least 1, got %d", param, *maxTok)
		}
		req.MaxTokens = *maxTok
	}
	if f.Seed != nil {
		seed := uint64(*f.Seed)
		req.Seed = &seed
	}
	stop, e := api.StopSequences(f.Stop)
	if e != nil {
		return req, 0, e
	}
	req.Stop = stop
	req.IgnoreEOS = f.IgnoreEOS
	return req, n, nil
}

// chatMessages is a chat request's messages for the chat template: each
// with a role and a content that is a string or an array of text parts.
func chatMessages(msgs []api.Message) ([]tokenizer.Message, *api.Error) {
	if len(msgs) == 0 {
		return nil, api.BadRequest("messages", "messages must be a non-empty array")
	}
	out := make([]tokenizer.Message, 0, len(msgs))
	for i, m := range msgs {
		p := fmt.Sprintf("messages[%d]", i)
		role := m.Role
		if role == "developer" {
			role = tokenizer.RoleSystem
		}
		switch role {
		case tokenizer.RoleSystem, tokenizer.RoleUser, tokenizer.RoleAssistant, tokenizer.RoleTool:
		default:
			return nil, api.BadRequest(p+".role", "%s.role: %q is not one of system, developer, user, assistant, tool", p, m.Role)
		}
		if err := m.Content.Err(); err != nil {
			return nil, api.BadRequest(p+".content", "%s.content: %v", p, err)
		}
		text := m.Content.Text
		if m.Content.Parts != nil {
			var b bytes.Buffer
			for _, part := range m.Content.Parts {
				if part.Type != "text" {
					return nil, api.BadRequest(p+".content", "%s.content: content part of type %q is not supported (only text)", p, part.Type)
				}
				b.WriteString(part.Text)
			}
			text = b.String()
		}
		out = append(out, tokenizer.Message{Role: role, Content: text})
	}
	return out, nil
}

// promptCount counts the prompts of a completion without decoding them: 1
// for a string or an array of token ids, else the elements of an array of
// strings or of token-id arrays. More than limit refuses the request; the
// count stops there.
func promptCount(raw json.RawMessage, limit int) (int, *api.Error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return 0, api.BadRequest("prompt", "prompt is required")
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
		return n, api.ArrayTooLong("prompt", "prompts", limit)
	case err != nil || n == 0:
		return 0, badPrompt()
	}
	return n, nil
}

var (
	errSingle  = errors.New("a single prompt")
	errTooMany = errors.New("too many elements")
)

func badPrompt() *api.Error {
	return api.BadRequest("prompt", "prompt: expected a string, an array of strings, an array of token ids or an array of such arrays")
}

// prompts reads the prompt of a completion: a string, an array of strings,
// an array of token ids, or an array of arrays of token ids. A prompt of
// more token ids than maxLen, which could never run, is refused as its ids
// are counted, before they are decoded.
func prompts(raw json.RawMessage, tok *tokenizer.Tokenizer, maxLen int) ([][]int32, *api.Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, api.BadRequest("prompt", "prompt is required")
	}
	encode := func(s string) []int32 {
		ids := tok.Encode(s)
		out := make([]int32, len(ids))
		for i, id := range ids {
			out[i] = int32(id)
		}
		return out
	}
	ids := func(b []byte) ([]int32, *api.Error) {
		if n, _ := jsonscan.Count(b, maxLen); n > maxLen {
			return nil, &api.Error{Status: http.StatusBadRequest, Type: api.TypeInvalidRequest, Param: "prompt", Code: "context_length_exceeded",
				Message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your prompt has more than %d tokens.", maxLen, maxLen)}
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
	var fail *api.Error
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
