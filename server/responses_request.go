package server

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/api"
)

// storedResponse is a response's record in the store.
type storedResponse struct {
	Response api.Response `json:"response"`
	Input    []api.Item   `json:"input"`
}

// checkResponseRequest refuses what a response request asks for that this
// server cannot honour, rather than run without it.
func checkResponseRequest(rr *api.ResponseRequest) error {
	switch {
	case rr.Model == "":
		return api.BadRequest("model", "you must provide a model parameter")
	case !isNullJSON(rr.Conversation):
		return api.Unsupported("conversation", "conversation objects are not supported; continue a conversation with previous_response_id")
	case !isNullJSON(rr.Prompt):
		return api.Unsupported("prompt", "this server keeps no stored prompts: send the prompt's text as instructions and input")
	case rr.PresencePenalty != nil && *rr.PresencePenalty != 0:
		return api.Unsupported("presence_penalty", "presence_penalty is not supported")
	case rr.FrequencyPenalty != nil && *rr.FrequencyPenalty != 0:
		return api.Unsupported("frequency_penalty", "frequency_penalty is not supported")
	case rr.TopLogprobs != nil && *rr.TopLogprobs != 0:
		return api.Unsupported("top_logprobs", "an RLM's answer is not sampled token by token from one model, so it has no logprobs")
	case rr.Reasoning != nil && rr.Reasoning.Effort != nil:
		return api.Unsupported("reasoning.effort", "reasoning effort is not supported: the RLM's models are set on the server")
	case rr.Truncation != "" && rr.Truncation != "disabled" && rr.Truncation != "auto":
		return api.BadRequest("truncation", "truncation must be \"auto\" or \"disabled\", not %q", rr.Truncation)
	}
	return nil
}

func isNullJSON(b []byte) bool {
	s := strings.TrimSpace(string(b))
	return s == "" || s == "null"
}

// newResponse is the response object of a new request: status queued, its
// settings as the specification states them (OpenAI's defaults where the
// request set none).
func newResponse(rr *api.ResponseRequest, md map[string]string, store bool) api.Response {
	if md == nil {
		md = map[string]string{}
	}
	one := func(p *float64) float64 {
		if p == nil {
			return 1
		}
		return *p
	}
	parallel := rr.ParallelToolCalls == nil || *rr.ParallelToolCalls
	truncation := rr.Truncation
	if truncation == "" {
		truncation = "disabled"
	}
	text := api.TextConfig{Format: api.TextFormat{Type: "text"}}
	if rr.Text != nil {
		text.Verbosity = rr.Text.Verbosity
		if rr.Text.Format.Type != "" {
			text.Format = rr.Text.Format
		}
	}
	tc := api.ToolChoice{Mode: api.ToolChoiceAuto}
	if rr.ToolChoice != nil {
		tc = *rr.ToolChoice
	}
	obj := api.Response{ID: newID(respPrefix), Object: "response", CreatedAt: time.Now().Unix(), Status: api.StatusQueued,
		Background: rr.Background, Instructions: rr.Instructions, MaxOutputTokens: rr.MaxOutputTokens, MaxToolCalls: rr.MaxToolCalls,
		Metadata: md, Model: rr.Model, Output: []api.Item{}, ParallelToolCalls: parallel, Store: store,
		Temperature: one(rr.Temperature), TopP: one(rr.TopP), Text: text, ToolChoice: tc.ResponsesJSON(),
		Tools: append([]api.ResponseTool{}, rr.Tools...), Truncation: truncation, ServiceTier: "default",
		SafetyIdentifier: rr.SafetyIdentifier, PromptCacheKey: rr.PromptCacheKey}
	if rr.User != "" {
		obj.User = &rr.User
	}
	if rr.PreviousResponseID != "" {
		prev := rr.PreviousResponseID
		obj.PreviousResponseID = &prev
	}
	return obj
}

// Item ids. Every item of a response, input or output, has an id made of
// its response's: PREFIX_HEX{i,o}N, where HEX is the response id's and N
// the item's place among the response's input (i) or output (o). A
// reference to an item (item_reference, or a bare {"id": ...}) then names
// the one response to read, with no index of items to keep.
func itemID(prefix, respID string, output bool, n int) string {
	side := "i"
	if output {
		side = "o"
	}
	return prefix + "_" + strings.TrimPrefix(respID, respPrefix) + side + strconv.Itoa(n)
}

// responseOfItem is the id of the response an item id belongs to.
func responseOfItem(id string) (string, bool) {
	_, rest, ok := strings.Cut(id, "_")
	if !ok || len(rest) < 26 {
		return "", false
	}
	hexID, tail := rest[:24], rest[24:]
	if _, err := hex.DecodeString(hexID); err != nil || (tail[0] != 'i' && tail[0] != 'o') {
		return "", false
	}
	if _, err := strconv.Atoi(tail[1:]); err != nil {
		return "", false
	}
	return respPrefix + hexID, true
}

// itemPrefix is the id prefix of an item type.
func itemPrefix(typ string) string {
	switch typ {
	case api.ItemFunctionCall:
		return "fc"
	case api.ItemFunctionCallOutput:
		return "fco"
	}
	return "msg"
}

// resolveReferences replaces each reference among items with the stored
// item it names: one of the caller's own responses' input or output items.
// Another key's item, or one that was deleted, is not found.
func (s *Server) resolveReferences(ctx context.Context, own string, items []api.Item) ([]api.Item, error) {
	out := items[:0:0]
	loaded := map[string]*storedResponse{}
	for i, it := range items {
		if it.Type != api.ItemReference {
			out = append(out, it)
			continue
		}
		param := fmt.Sprintf("input[%d].id", i)
		notFound := api.NotFound(param, "no stored item %q", it.ID)
		respID, ok := responseOfItem(it.ID)
		if !ok {
			return nil, notFound
		}
		sr, seen := loaded[respID]
		if !seen {
			var err error
			sr, err = s.loadResponse(ctx, own, respID)
			if isNotFound(err) {
				return nil, notFound
			}
			if err != nil {
				return nil, err
			}
			loaded[respID] = sr
		}
		found := false
		for _, stored := range append(append([]api.Item{}, sr.Input...), sr.Response.Output...) {
			if stored.ID == it.ID {
				out, found = append(out, stored), true
				break
			}
		}
		if !found {
			return nil, notFound
		}
	}
	return out, nil
}

// chatRequest turns a response request, the earlier turns of its
// conversation and its input items into the chat request the engine's
// request is built from: instructions become a leading system message,
// message items messages.
func chatRequest(rr *api.ResponseRequest, history []api.Message, items []api.Item) (*api.ChatCompletionRequest, error) {
	cr := &api.ChatCompletionRequest{RLM: rr.RLM, ToolChoice: rr.ToolChoice, ParallelToolCalls: rr.ParallelToolCalls}
	if rr.Text != nil && rr.Text.Format.Type != "" {
		f := rr.Text.Format
		cr.ResponseFormat = &api.ResponseFormat{Type: f.Type}
		if f.Type == "json_schema" {
			desc := ""
			if f.Description != nil {
				desc = *f.Description
			}
			cr.ResponseFormat.JSONSchema = &api.JSONSchemaFormat{Name: f.Name, Description: desc, Schema: f.Schema, Strict: f.Strict}
		}
	}
	cr.Model, cr.Temperature, cr.TopP, cr.MaxCompletionTokens, cr.Stream = rr.Model, rr.Temperature, rr.TopP, rr.MaxOutputTokens, rr.Stream
	for _, d := range responseToolDefs(rr.Tools) {
		strict := d.strict
		cr.Tools = append(cr.Tools, api.ChatTool{Type: d.typ, Function: api.FunctionDefinition{Name: d.name, Description: d.description,
			Parameters: d.parameters, Strict: &strict}})
	}
	if rr.Instructions != nil && *rr.Instructions != "" {
		cr.Messages = append(cr.Messages, api.Message{Role: "system", Content: api.TextContent(*rr.Instructions)})
	}
	cr.Messages = append(cr.Messages, history...)
	for i, it := range items {
		m, err := messageOf(fmt.Sprintf("input[%d]", i), it)
		if err != nil {
			return nil, err
		}
		cr.Messages = append(cr.Messages, m)
	}
	return cr, nil
}

// messageOf is an input item as a chat message: a function_call an
// assistant message with its tool call, a function_call_output a tool
// message.
func messageOf(p string, it api.Item) (api.Message, error) {
	switch it.Type {
	case api.ItemFunctionCall:
		return api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{ID: it.CallID, Type: "function",
			Function: api.FunctionCall{Name: it.Name, Arguments: it.Arguments}}}}, nil
	case api.ItemFunctionCallOutput:
		return api.Message{Role: "tool", ToolCallID: it.CallID, Content: api.TextContent(it.OutputText())}, nil
	}
	parts := make([]api.ContentPart, 0, len(it.Content))
	for j, c := range it.Content {
		switch c.Type {
		case api.ContentInputFile:
			if c.FileURL != "" {
				return api.Message{}, api.Unsupported(fmt.Sprintf("%s.content[%d].file_url", p, j),
					"file_url is not supported: upload the file (POST /v1/files) and send its file_id, or send file_data")
			}
			parts = append(parts, api.ContentPart{Type: "file", File: &api.FilePart{FileID: c.FileID, FileData: c.FileData, Filename: c.Filename}})
		case api.ContentInputImage:
			if c.FileID != "" {
				return api.Message{}, api.Unsupported(fmt.Sprintf("%s.content[%d].file_id", p, j), "images by file_id are not supported: send image_url, an https URL or a data URL")
			}
			parts = append(parts, api.ContentPart{Type: "image_url", ImageURL: &api.ImageURL{URL: c.ImageURL, Detail: c.Detail}})
		default:
			parts = append(parts, api.ContentPart{Type: "text", Text: c.Text})
		}
	}
	return api.Message{Role: it.Role, Content: api.Content{Parts: parts}}, nil
}

// stored is an input item as it is kept: inline file data dropped (the
// run has read it), its id given.
func stored(it api.Item, respID string, n int) api.Item {
	it.ID = itemID(itemPrefix(it.Type), respID, false, n)
	parts := make([]api.ItemContent, len(it.Content))
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

// conversation returns the earlier turns of the conversation that prev
// ends, oldest first: each turn's input messages and its answer. A turn's
// files come again by file_id; a file sent inline is not kept, and its
// place says so.
// tools are those of the previous response.
func (s *Server) conversation(ctx context.Context, own, prev string) (msgs []api.Message, tools []api.ResponseTool, err error) {
	var turns []storedResponse
	for id := prev; id != ""; {
		if len(turns) == maxConversation {
			return nil, nil, api.BadRequest("previous_response_id", "the conversation is longer than %d responses; start a new one", maxConversation)
		}
		sr, err := s.loadResponse(ctx, own, id)
		if err != nil {
			var ae *api.Error
			if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
				ae.Param = "previous_response_id"
				if id != prev {
					ae.Message = fmt.Sprintf("response %s, an earlier turn of this conversation, was deleted", id)
				}
			}
			return nil, nil, err
		}
		if st := sr.Response.Status; st != api.StatusCompleted && st != api.StatusIncomplete {
			return nil, nil, api.BadRequest("previous_response_id", "response %s is %s: a conversation continues from a completed or incomplete response", id, st)
		}
		turns = append(turns, *sr)
		id = ""
		if p := sr.Response.PreviousResponseID; p != nil {
			id = *p
		}
	}
	for i := len(turns) - 1; i >= 0; i-- {
		for j, it := range turns[i].Input {
			m, err := messageOf(fmt.Sprintf("input[%d]", j), historyItem(it))
			if err != nil {
				return nil, nil, err
			}
			msgs = append(msgs, m)
		}
		msgs = append(msgs, answerMessage(turns[i].Response))
	}
	if len(turns) > 0 {
		tools = turns[0].Response.Tools
	}
	return msgs, tools, nil
}

// answerMessage is a response's output as the assistant message of a later
// turn: its text, and the tool calls it made.
func answerMessage(r api.Response) api.Message {
	m := api.Message{Role: "assistant", Content: api.TextContent(answerText(r))}
	for _, o := range r.Output {
		if o.Type == api.ItemFunctionCall {
			m.ToolCalls = append(m.ToolCalls, api.ToolCall{ID: o.CallID, Type: "function", Function: api.FunctionCall{Name: o.Name, Arguments: o.Arguments}})
		}
	}
	return m
}

// toolOutputsOf are the outputs a Responses input brings, by call id,
// when the input is nothing else: after previous_response_id, they resume
// the paused run of that response.
func toolOutputsOf(items []api.Item) map[string]string {
	for _, it := range items {
		if it.Type != api.ItemFunctionCallOutput {
			return nil
		}
	}
	return trailingOutputItems(items)
}

// trailingOutputItems are the outputs a Responses input ends with, by call
// id: without previous_response_id, the client sends the whole
// conversation again (as the agent SDKs do), the calls the outputs answer
// before them, and the outputs resume the paused run of those calls.
func trailingOutputItems(items []api.Item) map[string]string {
	out := map[string]string{}
	for i := len(items) - 1; i >= 0 && items[i].Type == api.ItemFunctionCallOutput; i-- {
		out[items[i].CallID] = items[i].OutputText()
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// historyItem is a stored input item as an item of a later turn.
func historyItem(it api.Item) api.Item {
	parts := make([]api.ItemContent, len(it.Content))
	for i, p := range it.Content {
		if p.Type == api.ContentInputFile && p.FileID == "" {
			p = api.ItemContent{Type: api.ContentInputText,
				Text: fmt.Sprintf("(The file %s was sent inline in an earlier turn and is not kept; upload it with /v1/files to keep it across turns.)", p.Filename)}
		}
		parts[i] = p
	}
	it.Content = parts
	return it
}

// answerText is the text of a response's output messages.
func answerText(r api.Response) string {
	var b strings.Builder
	for _, o := range r.Output {
		for _, c := range o.Content {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// fixParam renames the chat request's parameters in an error to the
// Responses API's. The input's items are the chat request's messages from
// offset on (instructions and earlier turns come before them).
func fixParam(err error, offset int) error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return err
	}
	switch {
	case ae.Param == "max_tokens":
		ae.Param, ae.Message = "max_output_tokens", strings.ReplaceAll(ae.Message, "max_tokens", "max_output_tokens")
	case strings.HasPrefix(ae.Param, "messages["):
		rest := strings.TrimPrefix(ae.Param, "messages[")
		n, tail, _ := strings.Cut(rest, "]")
		if i, err := strconv.Atoi(n); err == nil && i >= offset {
			ae.Param = fmt.Sprintf("input[%d]%s", i-offset, tail)
		} else {
			ae.Param = "input"
		}
	case strings.HasPrefix(ae.Param, "messages"):
		ae.Param = "input"
	case strings.HasPrefix(ae.Param, "response_format"):
		ae.Param = "text.format" + strings.TrimPrefix(strings.TrimPrefix(ae.Param, "response_format"), ".json_schema")
	}
	return ae
}

// imagesUnsupported refuses an image part: no model of this server takes
// images.
func imagesUnsupported(param string) *api.Error {
	e := api.Unsupported(param, "image input is not supported: no model of this server takes images")
	e.Code = "image_input_unsupported"
	return e
}
