package api

import (
	"encoding/json"
)

// ResponseRequest is the body of POST /v1/responses.
type ResponseRequest struct {
	Model string `json:"model"`
	// Input is a string (one user message) or an array of items:
	// DecodeResponseInput reads it under a server's limits.
	Input              RawJSON         `json:"input"`
	Instructions       *string         `json:"instructions,omitempty"`
	Metadata           Metadata        `json:"metadata,omitempty"`
	Store              *bool           `json:"store,omitempty"`
	Stream             bool            `json:"stream,omitempty"`
	Background         bool            `json:"background,omitempty"`
	PreviousResponseID string          `json:"previous_response_id,omitempty"`
	Temperature        *float64        `json:"temperature,omitempty"`
	TopP               *float64        `json:"top_p,omitempty"`
	PresencePenalty    *float64        `json:"presence_penalty,omitempty"`
	FrequencyPenalty   *float64        `json:"frequency_penalty,omitempty"`
	TopLogprobs        *int            `json:"top_logprobs,omitempty"`
	MaxOutputTokens    *int            `json:"max_output_tokens,omitempty"`
	MaxToolCalls       *int            `json:"max_tool_calls,omitempty"`
	Tools              []ResponseTool  `json:"tools,omitempty"`
	ToolChoice         *ToolChoice     `json:"tool_choice,omitempty"`
	ParallelToolCalls  *bool           `json:"parallel_tool_calls,omitempty"`
	Text               *TextConfig     `json:"text,omitempty"`
	Reasoning          *Reasoning      `json:"reasoning,omitempty"`
	Truncation         string          `json:"truncation,omitempty"`
	Include            []string        `json:"include,omitempty"`
	Conversation       json.RawMessage `json:"conversation,omitempty"`
	// Prompt references a stored prompt template, which this server does
	// not keep: a request that names one is refused, not run without it.
	Prompt           json.RawMessage `json:"prompt,omitempty"`
	PromptCacheKey   *string         `json:"prompt_cache_key,omitempty"`
	SafetyIdentifier *string         `json:"safety_identifier,omitempty"`
	ServiceTier      string          `json:"service_tier,omitempty"`
	User             string          `json:"user,omitempty"`
	RLM              *RLMOptions     `json:"rlm,omitempty"`
}

// ResponseTool is a tool as the Responses API declares it; function tools
// carry their definition flat ({"type": "function", "name": ...}).
type ResponseTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description *string         `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

// TextConfig is a response's text options: its format (text, json_object,
// or json_schema with the schema flat in it).
type TextConfig struct {
	Format    TextFormat `json:"format"`
	Verbosity string     `json:"verbosity,omitempty"`
}

// TextFormat is text.format.
type TextFormat struct {
	Type        string          `json:"type"` // text, json_object, json_schema
	Name        string          `json:"name,omitempty"`
	Description *string         `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

func (f TextFormat) MarshalJSON() ([]byte, error) {
	if f.Type != "json_schema" {
		return json.Marshal(struct {
			Type string `json:"type"`
		}{f.Type})
	}
	strict := f.Strict != nil && *f.Strict
	schema := f.Schema
	if len(schema) == 0 {
		schema = json.RawMessage("null")
	}
	return json.Marshal(struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description *string         `json:"description"`
		Schema      json.RawMessage `json:"schema"`
		Strict      bool            `json:"strict"`
	}{f.Type, f.Name, f.Description, schema, strict})
}

// Reasoning is a request's or response's reasoning options.
type Reasoning struct {
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
}

// Response is a response object.
type Response struct {
	ID                 string             `json:"id"`
	Object             string             `json:"object"` // "response"
	CreatedAt          int64              `json:"created_at"`
	CompletedAt        *int64             `json:"completed_at"`
	Status             string             `json:"status"`
	Background         bool               `json:"background"`
	Error              *ResponseError     `json:"error"`
	IncompleteDetails  *IncompleteDetails `json:"incomplete_details"`
	Instructions       *string            `json:"instructions"`
	MaxOutputTokens    *int               `json:"max_output_tokens"`
	MaxToolCalls       *int               `json:"max_tool_calls"`
	Metadata           map[string]string  `json:"metadata"`
	Model              string             `json:"model"`
	Output             []Item             `json:"output"`
	ParallelToolCalls  bool               `json:"parallel_tool_calls"`
	PreviousResponseID *string            `json:"previous_response_id"`
	Reasoning          *Reasoning         `json:"reasoning"`
	Store              bool               `json:"store"`
	Temperature        float64            `json:"temperature"`
	TopP               float64            `json:"top_p"`
	PresencePenalty    float64            `json:"presence_penalty"`
	FrequencyPenalty   float64            `json:"frequency_penalty"`
	TopLogprobs        int                `json:"top_logprobs"`
	Text               TextConfig         `json:"text"`
	ToolChoice         any                `json:"tool_choice"` // ToolChoice.ResponsesJSON
	Tools              []ResponseTool     `json:"tools"`
	Truncation         string             `json:"truncation"`
	ServiceTier        string             `json:"service_tier"`
	SafetyIdentifier   *string            `json:"safety_identifier"`
	PromptCacheKey     *string            `json:"prompt_cache_key"`
	User               *string            `json:"user,omitempty"`
	Usage              *ResponseUsage     `json:"usage"`
	RLM                *RLMInfo           `json:"rlm,omitempty"`
}

// Response statuses.
const (
	StatusQueued     = "queued"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusIncomplete = "incomplete"
	StatusFailed     = "failed"
	StatusCancelled  = "cancelled"
)

// Terminal reports whether a response of this status has ended.
func Terminal(status string) bool {
	switch status {
	case StatusCompleted, StatusFailed, StatusCancelled, StatusIncomplete:
		return true
	}
	return false
}

// ResponseError is a failed response's error.
type ResponseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// IncompleteDetails says why a response stopped before its answer.
type IncompleteDetails struct {
	Reason string `json:"reason"`
}

// ResponseUsage is a response's token count.
type ResponseUsage struct {
	InputTokens         int                 `json:"input_tokens"`
	InputTokensDetails  InputTokensDetails  `json:"input_tokens_details"`
	OutputTokens        int                 `json:"output_tokens"`
	OutputTokensDetails OutputTokensDetails `json:"output_tokens_details"`
	TotalTokens         int                 `json:"total_tokens"`
}

// InputTokensDetails says how many input tokens came from a cache.
type InputTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// OutputTokensDetails says how many output tokens were reasoning.
type OutputTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// Item types.
const (
	ItemMessage            = "message"
	ItemFunctionCall       = "function_call"
	ItemFunctionCallOutput = "function_call_output"
	ItemReference          = "item_reference"
)

// Item is an item of a response's input or output: a message, a function
// call, a function call's output, or (input only) a reference to an item
// stored earlier. It holds the fields of every type; it is written with
// those of its own type alone, each present as the specification requires.
type Item struct {
	Type    string        `json:"type"`
	ID      string        `json:"id,omitempty"`
	Status  string        `json:"status,omitempty"`
	Role    string        `json:"role,omitempty"`    // message
	Content []ItemContent `json:"content,omitempty"` // message
	// CallID ties a function_call to its function_call_output.
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`      // function_call
	Arguments string `json:"arguments,omitempty"` // function_call: a JSON text
	// Output is a function_call_output's output: a string or an array of
	// content parts.
	Output json.RawMessage `json:"output,omitempty"`
}

func (it Item) MarshalJSON() ([]byte, error) {
	switch it.Type {
	case ItemMessage:
		content := it.Content
		if content == nil {
			content = []ItemContent{}
		}
		return json.Marshal(struct {
			Type    string        `json:"type"`
			ID      string        `json:"id"`
			Status  string        `json:"status"`
			Role    string        `json:"role"`
			Content []ItemContent `json:"content"`
		}{it.Type, it.ID, it.Status, it.Role, content})
	case ItemFunctionCall:
		return json.Marshal(struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
			Status    string `json:"status"`
		}{it.Type, it.ID, it.CallID, it.Name, it.Arguments, it.Status})
	case ItemFunctionCallOutput:
		out := it.Output
		if len(out) == 0 {
			out = json.RawMessage(`""`)
		}
		return json.Marshal(struct {
			Type   string          `json:"type"`
			ID     string          `json:"id"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
			Status string          `json:"status"`
		}{it.Type, it.ID, it.CallID, out, it.Status})
	}
	type plain Item
	return json.Marshal(plain(it))
}

// OutputText is a function_call_output's output as text: the string, or
// the text of its parts.
func (it Item) OutputText() string {
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []ItemContent
	json.Unmarshal(it.Output, &parts)
	var b []byte
	for _, p := range parts {
		b = append(b, p.Text...)
	}
	return string(b)
}

// Content types of items.
const (
	ContentInputText  = "input_text"
	ContentInputImage = "input_image"
	ContentInputFile  = "input_file"
	ContentOutputText = "output_text"
	ContentRefusal    = "refusal"
)

// ItemContent is a content part of an item: input_text, input_image,
// input_file, output_text or refusal. Like Item, it holds the fields of
// every type and is written with its own type's.
type ItemContent struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	// output_text
	Annotations []any          `json:"annotations,omitempty"`
	Logprobs    []TokenLogprob `json:"logprobs,omitempty"`
	// input_image: a URL (or data URL) or an uploaded file
	ImageURL string `json:"image_url,omitempty"`
	Detail   string `json:"detail,omitempty"`
	// input_file (and input_image's file_id)
	FileID   string `json:"file_id,omitempty"`
	FileData string `json:"file_data,omitempty"`
	Filename string `json:"filename,omitempty"`
	FileURL  string `json:"file_url,omitempty"`
	Refusal  string `json:"refusal,omitempty"`
}

func (c ItemContent) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentInputText:
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{c.Type, c.Text})
	case ContentOutputText:
		ann, lp := c.Annotations, c.Logprobs
		if ann == nil {
			ann = []any{}
		}
		if lp == nil {
			lp = []TokenLogprob{}
		}
		return json.Marshal(struct {
			Type        string         `json:"type"`
			Text        string         `json:"text"`
			Annotations []any          `json:"annotations"`
			Logprobs    []TokenLogprob `json:"logprobs"`
		}{c.Type, c.Text, ann, lp})
	case ContentInputImage:
		detail := c.Detail
		if detail == "" {
			detail = "auto"
		}
		return json.Marshal(struct {
			Type     string  `json:"type"`
			ImageURL *string `json:"image_url"`
			FileID   *string `json:"file_id"`
			Detail   string  `json:"detail"`
		}{c.Type, nonEmpty(c.ImageURL), nonEmpty(c.FileID), detail})
	case ContentInputFile:
		return json.Marshal(struct {
			Type     string  `json:"type"`
			FileID   *string `json:"file_id"`
			FileData string  `json:"file_data,omitempty"`
			Filename string  `json:"filename,omitempty"`
			FileURL  string  `json:"file_url,omitempty"`
		}{c.Type, nonEmpty(c.FileID), c.FileData, c.Filename, c.FileURL})
	case ContentRefusal:
		return json.Marshal(struct {
			Type    string `json:"type"`
			Refusal string `json:"refusal"`
		}{c.Type, c.Refusal})
	}
	type plain ItemContent
	return json.Marshal(plain(c))
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Event types of a response stream.
const (
	EventCreated                = "response.created"
	EventQueued                 = "response.queued"
	EventInProgress             = "response.in_progress"
	EventCompleted              = "response.completed"
	EventFailed                 = "response.failed"
	EventIncomplete             = "response.incomplete"
	EventOutputItemAdded        = "response.output_item.added"
	EventOutputItemDone         = "response.output_item.done"
	EventContentPartAdded       = "response.content_part.added"
	EventContentPartDone        = "response.content_part.done"
	EventOutputTextDelta        = "response.output_text.delta"
	EventOutputTextDone         = "response.output_text.done"
	EventFunctionArgumentsDelta = "response.function_call_arguments.delta"
	EventFunctionArgumentsDone  = "response.function_call_arguments.done"
	EventError                  = "error"
	// EventProgress is rlm's: an engine event (RLMOptions.Progress).
	EventProgress = "rlm.progress"
)

// TerminalEvent reports whether an event of this type ends a stream.
func TerminalEvent(typ string) bool {
	switch typ {
	case EventCompleted, EventFailed, EventIncomplete:
		return true
	}
	return false
}

// ResponseEvent is an event of a response stream. It holds the fields of
// every type and is written with its own type's.
type ResponseEvent struct {
	Type           string       `json:"type"`
	SequenceNumber int          `json:"sequence_number"`
	Response       *Response    `json:"response,omitempty"`
	OutputIndex    int          `json:"output_index,omitempty"`
	ItemID         string       `json:"item_id,omitempty"`
	ContentIndex   int          `json:"content_index,omitempty"`
	Item           *Item        `json:"item,omitempty"`
	Part           *ItemContent `json:"part,omitempty"`
	Delta          string       `json:"delta,omitempty"`
	Text           string       `json:"text,omitempty"`
	Arguments      string       `json:"arguments,omitempty"`
	Name           string       `json:"name,omitempty"`
	Error          *ErrorObject `json:"error,omitempty"`
	RLM            *Progress    `json:"rlm,omitempty"`
}

func (e ResponseEvent) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": e.Type, "sequence_number": e.SequenceNumber}
	at := func() {
		m["item_id"], m["output_index"], m["content_index"] = e.ItemID, e.OutputIndex, e.ContentIndex
	}
	switch e.Type {
	case EventCreated, EventQueued, EventInProgress, EventCompleted, EventFailed, EventIncomplete:
		m["response"] = e.Response
	case EventOutputItemAdded, EventOutputItemDone:
		m["output_index"], m["item"] = e.OutputIndex, e.Item
	case EventContentPartAdded, EventContentPartDone:
		at()
		m["part"] = e.Part
	case EventOutputTextDelta:
		at()
		m["delta"], m["logprobs"] = e.Delta, []TokenLogprob{}
	case EventOutputTextDone:
		at()
		m["text"], m["logprobs"] = e.Text, []TokenLogprob{}
	case EventFunctionArgumentsDelta:
		m["item_id"], m["output_index"], m["delta"] = e.ItemID, e.OutputIndex, e.Delta
	case EventFunctionArgumentsDone:
		m["item_id"], m["output_index"], m["arguments"] = e.ItemID, e.OutputIndex, e.Arguments
		if e.Name != "" {
			m["name"] = e.Name
		}
	case EventError:
		m["error"] = e.Error
	case EventProgress:
		m["rlm"] = e.RLM
	default:
		type plain ResponseEvent
		return json.Marshal(plain(e))
	}
	return json.Marshal(m)
}

// DeletedObject answers a DELETE: {"id", "object": "<kind>.deleted",
// "deleted": true}.
type DeletedObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}
