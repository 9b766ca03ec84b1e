package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	"github.com/rlm-project/rlm/internal/jsonscan"
)

// RawJSON is a JSON value kept as its bytes, like json.RawMessage, but
// without a copy: decoded by json.Unmarshal, it is a slice of the body,
// valid as long as the body is and never written.
type RawJSON []byte

func (r *RawJSON) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

func (r RawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// DecodeResponseRequest parses a Responses request body and its input
// items under lim. The body belongs to the request for good: large texts
// of its input share its memory when they are most of it, as a chat
// request's messages do (see Content), so a body is held about once, never
// copied three times before its caps are checked.
func DecodeResponseRequest(body []byte, lim Limits) (*ResponseRequest, []Item, error) {
	var rr ResponseRequest
	if err := json.Unmarshal(body, &rr); err != nil {
		return nil, nil, DecodeError(err)
	}
	items, err := decodeInput(rr.Input, lim, len(body))
	if err != nil {
		return nil, nil, err
	}
	return &rr, items, nil
}

// DecodeResponseInput reads a response request's input under lim: a string
// (one user message) or an array of items, counted before each is decoded
// (items count as messages, their parts as content parts). Items are
// message items (type "message", or no type and a role; content a string
// or parts), function_call and function_call_output items, and references
// to stored items: {"type": "item_reference", "id": ...} or a bare
// {"id": ...}. A message's string content becomes one text part.
func DecodeResponseInput(raw []byte, lim Limits) ([]Item, error) {
	return decodeInput(raw, lim, -1)
}

// decodeInput is DecodeResponseInput; texts share the memory of a body of
// bodyLen bytes (-1: none) that they are most of.
func decodeInput(raw []byte, lim Limits, bodyLen int) ([]Item, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case isNull(raw):
		return nil, BadRequest("input", "you must provide input: a string or an array of input items")
	case raw[0] == '"':
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, BadRequest("input", "input is not a valid JSON string")
		}
		return []Item{{Type: ItemMessage, Role: "user", Status: StatusCompleted, Content: []ItemContent{{Type: ContentInputText, Text: text}}}}, nil
	case raw[0] != '[':
		return nil, BadRequest("input", "input must be a string or an array of input items")
	}
	if n, _ := jsonscan.Count(raw, lim.MaxMessages); n > lim.MaxMessages {
		return nil, ArrayTooLong("input", "input items", lim.MaxMessages)
	}
	d := inputDecoder{maxParts: lim.MaxContentParts}
	err := jsonscan.Elements(raw, func(i int, elem []byte) error {
		it, err := d.item(fmt.Sprintf("input[%d]", i), elem)
		d.items = append(d.items, it)
		return err
	})
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, BadRequest("input", "input must be an array of input item objects")
	}
	if len(d.items) == 0 {
		return nil, BadRequest("input", "input must not be an empty array")
	}
	if err := d.resolve(bodyLen); err != nil {
		return nil, err
	}
	return d.items, nil
}

// inputDecoder decodes input items, keeping their texts (and inline file
// data) as raw literals until all are read: resolve then decides whether
// they share the body's memory.
type inputDecoder struct {
	items    []Item
	maxParts int // content parts left
	pending  []pendingString
	plain    int // bytes of the pending literals that need no unquoting
}

// pendingString is a string of items[item].Content[part] still to decode.
type pendingString struct {
	item, part int
	file       bool // FileData, not Text
	raw        []byte
	param      string
}

func (d *inputDecoder) defer_(item, part int, file bool, raw []byte, param string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return
	}
	if plainJSONString(raw[1 : len(raw)-1]) {
		d.plain += len(raw)
	}
	d.pending = append(d.pending, pendingString{item, part, file, raw, param})
}

func (d *inputDecoder) resolve(bodyLen int) error {
	share := bodyLen > 0 && 2*d.plain >= bodyLen
	for _, p := range d.pending {
		var s string
		body := p.raw[1 : len(p.raw)-1]
		if share && len(body) > 0 && plainJSONString(body) {
			s = unsafe.String(&body[0], len(body))
		} else if err := json.Unmarshal(p.raw, &s); err != nil {
			return BadRequest(p.param, "%s is not a valid JSON string", p.param)
		}
		c := &d.items[p.item].Content[p.part]
		if p.file {
			c.FileData = s
		} else {
			c.Text = s
		}
	}
	return nil
}

// item reads one input item.
// rawItem is an input item before its type is known.
type rawItem struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	Role      string  `json:"role"`
	Content   RawJSON `json:"content"`
	CallID    string  `json:"call_id"`
	Name      string  `json:"name"`
	Arguments *string `json:"arguments"`
	Output    RawJSON `json:"output"`
}

func (d *inputDecoder) item(p string, elem []byte) (Item, error) {
	var raw rawItem
	if err := json.Unmarshal(elem, &raw); err != nil {
		return Item{}, BadRequest(p, "%s must be an input item object", p)
	}
	switch raw.Type {
	case "":
		if raw.Role == "" && raw.ID != "" {
			return Item{Type: ItemReference, ID: raw.ID}, nil // a bare reference
		}
	case ItemMessage:
	case ItemReference:
		if raw.ID == "" {
			return Item{}, BadRequest(p+".id", "an item_reference needs the id of a stored item")
		}
		return Item{Type: ItemReference, ID: raw.ID}, nil
	case ItemFunctionCall:
		switch {
		case raw.CallID == "":
			return Item{}, BadRequest(p+".call_id", "a function_call item needs its call_id")
		case raw.Name == "":
			return Item{}, BadRequest(p+".name", "a function_call item needs the function's name")
		}
		args := ""
		if raw.Arguments != nil {
			args = *raw.Arguments
		}
		return Item{Type: ItemFunctionCall, ID: raw.ID, CallID: raw.CallID, Name: raw.Name, Arguments: args, Status: StatusCompleted}, nil
	case ItemFunctionCallOutput:
		if raw.CallID == "" {
			return Item{}, BadRequest(p+".call_id", "a function_call_output item needs the call_id of the call it answers")
		}
		out := bytes.TrimSpace(raw.Output)
		if len(out) == 0 || (out[0] != '"' && out[0] != '[') {
			return Item{}, BadRequest(p+".output", "a function_call_output's output must be a string or an array of content parts")
		}
		return Item{Type: ItemFunctionCallOutput, ID: raw.ID, CallID: raw.CallID, Output: json.RawMessage(bytes.Clone(out)), Status: StatusCompleted}, nil
	default:
		return Item{}, BadRequest(p+".type", "unsupported input item type %q: use message, function_call, function_call_output or item_reference", raw.Type)
	}
	return d.message(p, &raw)
}

// message decodes a message item, its text deferred (see defer_).
func (d *inputDecoder) message(p string, raw *rawItem) (Item, error) {
	it := Item{Type: ItemMessage, Role: raw.Role, Status: StatusCompleted}
	switch raw.Role {
	case "user", "system", "developer", "assistant":
	case "":
		return it, BadRequest(p+".role", "%s.role is required", p)
	default:
		return it, BadRequest(p+".role", "unsupported role %q: use user, system, developer or assistant", raw.Role)
	}
	content := bytes.TrimSpace(raw.Content)
	textType := ContentInputText
	if raw.Role == "assistant" {
		textType = ContentOutputText
	}
	index := len(d.items)
	switch {
	case len(content) > 0 && content[0] == '"':
		if d.maxParts--; d.maxParts < 0 {
			return it, tooManyInputParts(p)
		}
		it.Content = []ItemContent{{Type: textType}}
		d.defer_(index, 0, false, content, p+".content")
		return it, nil
	case len(content) == 0 || content[0] != '[':
		return it, BadRequest(p+".content", "%s.content must be a string or an array of content parts", p)
	}
	if n, _ := jsonscan.Count(content, d.maxParts); n > d.maxParts {
		return it, tooManyInputParts(p)
	}
	err := jsonscan.Elements(content, func(j int, pe []byte) error {
		pp := fmt.Sprintf("%s.content[%d]", p, j)
		part, text, file, err := decodeItemContent(pp, pe)
		if err != nil {
			return err
		}
		d.maxParts--
		d.defer_(index, len(it.Content), false, text, pp+".text")
		d.defer_(index, len(it.Content), true, file, pp+".file_data")
		it.Content = append(it.Content, part)
		return nil
	})
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			return it, ae
		}
		return it, BadRequest(p+".content", "%s.content must be an array of content part objects", p)
	}
	return it, nil
}

func tooManyInputParts(p string) *Error {
	return &Error{Status: 400, Type: TypeInvalidRequest, Param: p + ".content", Code: "array_above_max_length",
		Kind: "invalid_request", Message: "too many content parts in the input for this server"}
}

// decodeItemContent reads one content part of an input message, and the
// raw literals of its text and inline file data, decoded later.
func decodeItemContent(pp string, pe []byte) (c ItemContent, text, fileData []byte, err error) {
	var part struct {
		Type     string  `json:"type"`
		Text     RawJSON `json:"text"`
		Refusal  RawJSON `json:"refusal"`
		ImageURL RawJSON `json:"image_url"` // a string; an object ({"url": ...}) as chat sends it is taken too
		Detail   string  `json:"detail"`
		FileID   string  `json:"file_id"`
		FileData RawJSON `json:"file_data"`
		Filename string  `json:"filename"`
		FileURL  string  `json:"file_url"`
	}
	if err := json.Unmarshal(pe, &part); err != nil {
		return c, nil, nil, BadRequest(pp, "%s must be a content part object", pp)
	}
	c = ItemContent{Type: part.Type, Detail: part.Detail, FileID: part.FileID, Filename: part.Filename, FileURL: part.FileURL}
	switch c.Type {
	case ContentInputText, ContentOutputText:
		return c, part.Text, nil, nil
	case ContentRefusal:
		c.Type = ContentOutputText
		return c, part.Refusal, nil, nil
	case ContentInputFile:
		if c.FileID == "" && len(part.FileData) == 0 && c.FileURL == "" {
			return c, nil, nil, BadRequest(pp+".file_id", "an input_file part needs file_id, file_data or file_url")
		}
		return c, nil, part.FileData, nil
	case ContentInputImage:
		if u := bytes.TrimSpace(part.ImageURL); len(u) > 0 && u[0] == '"' {
			json.Unmarshal(u, &c.ImageURL)
		} else if len(u) > 0 && u[0] == '{' {
			var obj ImageURL
			json.Unmarshal(u, &obj)
			c.ImageURL = obj.URL
		}
		if c.ImageURL == "" && c.FileID == "" {
			return c, nil, nil, BadRequest(pp+".image_url", "an input_image part needs image_url or file_id")
		}
		return c, nil, nil, nil
	case "":
		return c, nil, nil, BadRequest(pp+".type", "%s.type is required", pp)
	}
	return c, nil, nil, BadRequest(pp+".type", "unsupported content part type %q: use input_text, input_image or input_file", c.Type)
}
