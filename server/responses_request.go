package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/rlm-project/rlm/internal/jsonscan"
)

// responsesRequest is the body of POST /v1/responses. As for chat, fields
// clients send that the server does not use (user, reasoning, include,
// truncation, parallel_tool_calls...) are accepted and ignored; what would
// change the answer and cannot be honoured (tools, a non-text format, a
// conversation object) is refused.
type responsesRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	Instructions       *string         `json:"instructions"`
	Metadata           cappedMetadata  `json:"metadata"`
	Store              *bool           `json:"store"`
	Stream             bool            `json:"stream"`
	Background         bool            `json:"background"`
	PreviousResponseID string          `json:"previous_response_id"`
	Temperature        *float64        `json:"temperature"`
	TopP               *float64        `json:"top_p"`
	MaxOutputTokens    *int            `json:"max_output_tokens"`
	Tools              json.RawMessage `json:"tools"`
	Conversation       json.RawMessage `json:"conversation"`
	Text               *struct {
		Format *struct {
			Type string `json:"type"`
		} `json:"format"`
	} `json:"text"`
	RLM *rlmOptions `json:"rlm"`
}

// inputItem is one message of a response's input, as it is stored and as
// GET /v1/responses/{id}/input_items lists it. Inline file data is not kept:
// its part keeps the file's name.
type inputItem struct {
	ID      string      `json:"id"`
	Type    string      `json:"type"`
	Role    string      `json:"role"`
	Status  string      `json:"status"`
	Content []inputPart `json:"content"`
}

// inputPart is a content part of an input message: input_text, input_file
// (file_id, or file_data with filename) or, in an assistant message of the
// history a client sends itself, output_text.
type inputPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	FileID   string `json:"file_id,omitempty"`
	FileData string `json:"file_data,omitempty"`
	Filename string `json:"filename,omitempty"`
	FileURL  string `json:"file_url,omitempty"`
}

// decodeResponsesRequest parses a request body (read whole, at most
// MaxRequestBytes) and its input items, under the chat caps: input items
// count as messages, their parts as content parts.
func decodeResponsesRequest(body []byte, cfg Config) (*responsesRequest, []inputItem, error) {
	var rr responsesRequest
	if err := json.Unmarshal(body, &rr); err != nil {
		return nil, nil, jsonError(err)
	}
	if rr.Model == "" {
		return nil, nil, badRequest("model", "you must provide a model parameter")
	}
	if t := bytes.TrimSpace(rr.Tools); len(t) > 0 && string(t) != "null" && string(t) != "[]" {
		return nil, nil, badRequest("tools", "this server runs no tools: the model works through its REPL; send no tools")
	}
	if c := bytes.TrimSpace(rr.Conversation); len(c) > 0 && string(c) != "null" {
		return nil, nil, badRequest("conversation", "conversation objects are not supported; continue a conversation with previous_response_id")
	}
	if rr.Text != nil && rr.Text.Format != nil && rr.Text.Format.Type != "" && rr.Text.Format.Type != "text" {
		return nil, nil, badRequest("text.format.type", "only text.format type \"text\" is supported, not %q", rr.Text.Format.Type)
	}
	items, err := decodeInput(rr.Input, cfg)
	if err != nil {
		return nil, nil, err
	}
	return &rr, items, nil
}

// decodeInput reads `input`: a string (one user message) or an array of
// message items, counted before each is decoded.
func decodeInput(raw json.RawMessage, cfg Config) ([]inputItem, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, badRequest("input", "you must provide input: a string or an array of input items")
	case raw[0] == '"':
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, badRequest("input", "input is not a valid JSON string")
		}
		return []inputItem{{Type: "message", Role: "user", Content: []inputPart{{Type: "input_text", Text: text}}}}, nil
	case raw[0] != '[':
		return nil, badRequest("input", "input must be a string or an array of input items")
	}
	if n, _ := jsonscan.Count(raw, cfg.MaxMessages); n > cfg.MaxMessages {
		return nil, arrayTooLong("input", "input items", cfg.MaxMessages)
	}
	var items []inputItem
	parts := 0
	err := jsonscan.Elements(raw, func(i int, elem []byte) error {
		it, n, err := decodeItem(fmt.Sprintf("input[%d]", i), elem, cfg.MaxContentParts-parts)
		parts += n
		items = append(items, it)
		return err
	})
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, badRequest("input", "input must be an array of input item objects")
	}
	if len(items) == 0 {
		return nil, badRequest("input", "input must not be an empty array")
	}
	return items, nil
}

// decodeItem reads one input item with at most maxParts content parts, and
// returns how many it has.
func decodeItem(p string, elem []byte, maxParts int) (inputItem, int, error) {
	var raw struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(elem, &raw); err != nil {
		return inputItem{}, 0, badRequest(p, "%s must be an input item object", p)
	}
	if raw.Type != "" && raw.Type != "message" {
		return inputItem{}, 0, badRequest(p+".type", "unsupported input item type %q: this server takes message items (no tool calls or reasoning items)", raw.Type)
	}
	it := inputItem{Type: "message", Role: raw.Role, Status: "completed"}
	switch raw.Role {
	case "user", "system", "developer", "assistant":
	case "":
		return it, 0, badRequest(p+".role", "%s.role is required", p)
	default:
		return it, 0, badRequest(p+".role", "unsupported role %q: use user, system, developer or assistant", raw.Role)
	}
	content := bytes.TrimSpace(raw.Content)
	textType := "input_text"
	if raw.Role == "assistant" {
		textType = "output_text"
	}
	switch {
	case len(content) > 0 && content[0] == '"':
		var text string
		if err := json.Unmarshal(content, &text); err != nil {
			return it, 0, badRequest(p+".content", "%s.content is not a valid JSON string", p)
		}
		it.Content = []inputPart{{Type: textType, Text: text}}
		return it, 1, nil
	case len(content) == 0 || content[0] != '[':
		return it, 0, badRequest(p+".content", "%s.content must be a string or an array of content parts", p)
	}
	if n, _ := jsonscan.Count(content, maxParts); n > maxParts {
		return it, n, &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: p + ".content",
			Code: "array_above_max_length", Kind: "invalid_request", Message: "too many content parts in the input: this server takes at most " +
				fmt.Sprint(maxParts) + " more"}
	}
	err := jsonscan.Elements(content, func(j int, pe []byte) error {
		pp := fmt.Sprintf("%s.content[%d]", p, j)
		var part inputPart
		if err := json.Unmarshal(pe, &part); err != nil {
			return badRequest(pp, "%s must be a content part object", pp)
		}
		switch part.Type {
		case "input_text", "output_text":
		case "input_file":
			switch {
			case part.FileURL != "":
				return badRequest(pp+".file_url", "file_url is not supported: upload the file (POST /v1/files) and send its file_id, or send file_data")
			case part.FileID == "" && part.FileData == "":
				return badRequest(pp+".file_id", "an input_file part needs file_id or file_data")
			}
		case "":
			return badRequest(pp+".type", "%s.type is required", pp)
		default:
			return badRequest(pp+".type", "unsupported content part type %q: use input_text or input_file", part.Type)
		}
		it.Content = append(it.Content, part)
		return nil
	})
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			return it, len(it.Content), ae
		}
		return it, len(it.Content), badRequest(p+".content", "%s.content must be an array of content part objects", p)
	}
	return it, len(it.Content), nil
}

// chatRequest turns the request and its input items into the chat request
// the engine's request is built from: instructions become a leading system
// message, input_text and output_text parts text parts, input_file parts
// file parts.
func (rr *responsesRequest) chatRequest(history []chatMessage, items []inputItem) *chatRequest {
	cr := &chatRequest{Model: rr.Model, Temperature: rr.Temperature, TopP: rr.TopP,
		MaxCompletionTokens: rr.MaxOutputTokens, RLM: rr.RLM, Stream: rr.Stream}
	if rr.Instructions != nil && *rr.Instructions != "" {
		cr.Messages = append(cr.Messages, chatMessage{Role: "system", Content: messageContent{text: *rr.Instructions}})
	}
	cr.Messages = append(cr.Messages, history...)
	for _, it := range items {
		cr.Messages = append(cr.Messages, it.chatMessage())
	}
	return cr
}

func (it inputItem) chatMessage() chatMessage {
	parts := make([]contentPart, 0, len(it.Content))
	for _, p := range it.Content {
		cp := contentPart{Type: "text", Text: p.Text}
		if p.Type == "input_file" {
			cp = contentPart{Type: "file"}
			cp.File = &struct {
				FileID   string `json:"file_id"`
				FileData string `json:"file_data"`
				Filename string `json:"filename"`
			}{p.FileID, p.FileData, p.Filename}
		}
		parts = append(parts, cp)
	}
	return chatMessage{Role: it.Role, Content: messageContent{parts: parts}}
}

// stored is the item as it is kept: inline file data dropped (the run has
// read it), ids given.
func (it inputItem) stored() inputItem {
	it.ID = newID("msg_")
	parts := make([]inputPart, len(it.Content))
	for i, p := range it.Content {
		if p.FileData != "" {
			p.FileData = ""
			if p.Filename == "" {
				p.Filename = "inline"
			}
		}
		parts[i] = p
	}
	it.Content = parts
	return it
}
