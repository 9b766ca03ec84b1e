package server

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// limits are the decoding caps of cfg.
func (cfg *Config) limits() api.Limits {
	return api.Limits{MaxMessages: cfg.MaxMessages, MaxContentParts: cfg.MaxContentParts}
}

// fileRef is a file content part to resolve to a local document.
type fileRef struct {
	param     string // messages[i].content[j].file
	id        string // an uploaded file, or
	inline    bool   // inline file data:
	data      string // base64, decoded once the request has a run slot
	mediaType string // of a file_data data URL
	filename  string
}

// toRunRequest validates a chat request against the server's configuration
// and turns it into the engine's Request. Files are returned unresolved.
// A parameter that would change the answer and that an RLM cannot honour
// is refused, never dropped.
func toRunRequest(cr *api.ChatCompletionRequest, cfg *Config) (recursion.Request, []fileRef, error) {
	var req recursion.Request
	if cr.Model == "" {
		return req, nil, api.BadRequest("model", "you must provide a model parameter")
	}
	if len(cfg.Models) > 0 && !contains(cfg.Models, cr.Model) {
		return req, nil, &api.Error{Status: http.StatusNotFound, Type: api.TypeInvalidRequest, Param: "model",
			Code: "model_not_found", Kind: "not_found",
			Message: fmt.Sprintf("the model %q does not exist; this server offers %s", cr.Model, strings.Join(cfg.Models, ", "))}
	}
	req.Model = cr.Model
	if len(cr.Messages) == 0 {
		return req, nil, api.BadRequest("messages", "messages must be a non-empty array")
	}
	if err := checkUnsupported(cr); err != nil {
		return req, nil, err
	}
	if err := chatTools(cr, &req); err != nil {
		return req, nil, err
	}
	files, err := chatMessages(cr, cfg, &req)
	if err != nil {
		return req, nil, err
	}
	if err := chatSampling(cr, &req.Sampling); err != nil {
		return req, nil, err
	}
	if req.Limits, err = limits(cr.RLM, cfg); err != nil {
		return req, nil, err
	}
	return req, files, nil
}

// chatTools sets req's client tools, tool choice and answer format from
// a chat request's tools (or legacy functions) and response_format.
func chatTools(cr *api.ChatCompletionRequest, req *recursion.Request) error {
	param, defs := chatToolDefs(cr)
	tools, err := engineTools(param, defs)
	if err != nil {
		return err
	}
	choice := cr.ToolChoice
	if cr.FunctionCall != nil {
		choice = cr.FunctionCall
	}
	if req.ToolChoice, err = engineToolChoice("tool_choice", choice, tools); err != nil {
		return err
	}
	req.Tools = tools
	if f := cr.ResponseFormat; f != nil {
		var name string
		var schema json.RawMessage
		strict := false
		if js := f.JSONSchema; js != nil {
			name, schema, strict = js.Name, js.Schema, js.Strict != nil && *js.Strict
		} else if f.Type == "json_schema" {
			return api.BadRequest("response_format", "a json_schema response_format needs json_schema")
		}
		if req.Answer, err = answerFormat("response_format.json_schema", f.Type, name, schema, strict); err != nil {
			return err
		}
	}
	// Legacy functions are answered one call at a time: function_call holds one.
	req.SerialToolCalls = cr.ParallelToolCalls != nil && !*cr.ParallelToolCalls || len(cr.Functions) > 0
	return nil
}

// chatMessages sets req's messages, images and the outputs of the
// conversation's tool calls from a chat request's messages, and returns
// the files they name.
func chatMessages(cr *api.ChatCompletionRequest, cfg *Config, req *recursion.Request) ([]fileRef, error) {
	var files []fileRef
	calls := map[string]recursion.ToolCall{} // the conversation's calls, by id
	for i, m := range cr.Messages {
		p := fmt.Sprintf("messages[%d]", i)
		role := m.Role
		switch role {
		case "system", "user", "assistant", "tool", "function":
		case "developer":
			role = "system"
		case "":
			return nil, api.BadRequest(p+".role", "%s.role is required", p)
		default:
			return nil, api.BadRequest(p+".role", "unsupported role %q: use system, developer, user, assistant or tool", m.Role)
		}
		text, refs, images, err := contentOf(p, &m.Content, cfg)
		if err != nil {
			return nil, err
		}
		files = append(files, refs...)
		req.Images = append(req.Images, images...)
		switch role {
		case "assistant":
			// The calls an earlier answer made, as the model reads them.
			for _, tc := range m.ToolCalls {
				calls[tc.ID] = recursion.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
				text = joinText(text, callText(tc.Function.Name, tc.Function.Arguments, tc.ID))
			}
			if fc := m.FunctionCall; fc != nil {
				calls[legacyCallID(fc.Name)] = recursion.ToolCall{ID: legacyCallID(fc.Name), Name: fc.Name, Arguments: fc.Arguments}
				text = joinText(text, callText(fc.Name, fc.Arguments, legacyCallID(fc.Name)))
			}
		case "tool", "function":
			id := m.ToolCallID
			if role == "function" {
				id = legacyCallID(m.Name)
			}
			if id == "" {
				return nil, api.BadRequest(p+".tool_call_id", "%s is a tool message without tool_call_id", p)
			}
			if c, ok := calls[id]; ok {
				req.ToolOutputs = append(req.ToolOutputs, recursion.ToolOutput{ToolCall: c, Output: text})
			}
			text, role = outputText(id, text), "user"
		}
		req.Messages = append(req.Messages, llm.Message{Role: role, Content: text})
	}
	return files, nil
}

// chatSampling checks a chat request's sampling parameters into s.
func chatSampling(cr *api.ChatCompletionRequest, s *llm.Sampling) error {
	if cr.Temperature != nil && (*cr.Temperature < 0 || *cr.Temperature > 2) {
		return api.BadRequest("temperature", "temperature must be between 0 and 2")
	}
	if cr.TopP != nil && (*cr.TopP < 0 || *cr.TopP > 1) {
		return api.BadRequest("top_p", "top_p must be between 0 and 1")
	}
	s.Temperature, s.TopP = cr.Temperature, cr.TopP
	if cr.Seed != nil {
		seed := int(*cr.Seed)
		s.Seed = &seed
	}
	s.MaxTokens = cr.MaxTokens
	if cr.MaxCompletionTokens != nil {
		s.MaxTokens = cr.MaxCompletionTokens
	}
	if s.MaxTokens != nil && *s.MaxTokens < 1 {
		return api.BadRequest("max_tokens", "max_tokens must be at least 1")
	}
	stop, ae := api.StopSequences(cr.Stop)
	if ae != nil {
		return ae
	}
	s.Stop = stop
	return nil
}

// checkUnsupported refuses the parameters of a chat request that would
// change what the client gets and that this server does not honour.
func checkUnsupported(cr *api.ChatCompletionRequest) error {
	switch {
	case cr.N != nil && *cr.N != 1:
		return api.BadRequest("n", "only n=1 is supported")
	case cr.StreamOptions != nil && !cr.Stream:
		return api.BadRequest("stream_options", "stream_options is only allowed when stream is true")
	case len(cr.Tools) > 0 && len(cr.Functions) > 0:
		return api.BadRequest("functions", "send tools or the legacy functions, not both")
	case cr.Logprobs || cr.TopLogprobs != nil && *cr.TopLogprobs > 0:
		return api.Unsupported("logprobs", "an RLM's answer is not sampled token by token from one model, so it has no logprobs")
	case cr.PresencePenalty != nil && *cr.PresencePenalty != 0:
		return api.Unsupported("presence_penalty", "presence_penalty is not supported")
	case cr.FrequencyPenalty != nil && *cr.FrequencyPenalty != 0:
		return api.Unsupported("frequency_penalty", "frequency_penalty is not supported")
	case len(cr.LogitBias) > 0:
		return api.Unsupported("logit_bias", "logit_bias is not supported")
	}
	return nil
}

// contentOf is a message's text and the files and images it attaches.
func contentOf(p string, mc *api.Content, cfg *Config) (string, []fileRef, []recursion.Image, error) {
	if err := mc.Err(); err != nil {
		return "", nil, nil, api.BadRequest(p+".content", "%s.content: %v", p, err)
	}
	if mc.Parts == nil {
		return mc.Text, nil, nil, nil
	}
	var texts []string
	var refs []fileRef
	var images []recursion.Image
	for j, part := range mc.Parts {
		pp := fmt.Sprintf("%s.content[%d]", p, j)
		switch part.Type {
		case "text":
			texts = append(texts, part.Text)
		case "file":
			ref, err := fileRefOf(pp, part.File)
			if err != nil {
				return "", nil, nil, err
			}
			refs = append(refs, ref)
		case "image_url":
			im, err := imageOf(pp, part.ImageURL, cfg)
			if err != nil {
				return "", nil, nil, err
			}
			images = append(images, im)
		case "":
			return "", nil, nil, api.BadRequest(pp+".type", "%s.type is required", pp)
		default:
			return "", nil, nil, api.BadRequest(pp+".type", "unsupported content part type %q: use text, file or image_url", part.Type)
		}
	}
	return strings.Join(texts, "\n"), refs, images, nil
}

// imageOf reads an image part: an http(s) URL, which the vision model
// fetches, or a data URL holding the image. Without a model that takes
// images (Config.VisionModel), the request is refused.
func imageOf(pp string, iu *api.ImageURL, cfg *Config) (recursion.Image, error) {
	if cfg.VisionModel == "" {
		return recursion.Image{}, imagesUnsupported(pp + ".type")
	}
	if iu == nil || iu.URL == "" {
		return recursion.Image{}, api.BadRequest(pp+".image_url", "an image part needs image_url.url: an https URL or a data URL")
	}
	u := iu.URL
	switch {
	case strings.HasPrefix(u, "data:image/"):
		mt, _, _ := strings.Cut(strings.TrimPrefix(u, "data:"), ";")
		return recursion.Image{Name: fmt.Sprintf("%s, %d bytes of base64, sent inline", mt, len(u)), URL: u}, nil
	case strings.HasPrefix(u, "https://"), strings.HasPrefix(u, "http://"):
		return recursion.Image{Name: u, URL: u}, nil
	}
	return recursion.Image{}, api.BadRequest(pp+".image_url", "an image URL must be https:// or data:image/...;base64,...")
}

// fileRefOf reads a file part's file: an uploaded file's id, or inline
// data (a data URL, or plain base64).
func fileRefOf(pp string, f *api.FilePart) (fileRef, error) {
	if f == nil {
		return fileRef{}, api.BadRequest(pp+".file", "a file part needs a file object")
	}
	ref := fileRef{param: pp + ".file", id: f.FileID, filename: f.Filename}
	switch {
	case f.FileID != "":
	case f.FileData != "":
		data := f.FileData
		if rest, ok := strings.CutPrefix(data, "data:"); ok {
			if i := strings.Index(rest, ","); i >= 0 {
				ref.mediaType, _, _ = strings.Cut(rest[:i], ";base64")
				data = rest[i+1:]
			}
		}
		ref.inline, ref.data = true, data
		if ref.filename == "" {
			ref.filename = "inline"
		}
	default:
		return fileRef{}, api.BadRequest(pp+".file.file_id", "a file part needs file_id or file_data")
	}
	return ref, nil
}

func limits(o *api.RLMOptions, cfg *Config) (recursion.Limits, error) {
	var l recursion.Limits
	if o == nil {
		return l, nil
	}
	max := cfg.MaxLimits
	ints := []struct {
		name string
		v    *int
		max  int
		dst  *int
	}{
		{"rlm.max_depth", o.MaxDepth, max.MaxDepth, &l.MaxDepth},
		{"rlm.max_iterations", o.MaxIterations, max.MaxIterations, &l.MaxIterations},
		{"rlm.max_failed_turns", o.MaxFailedTurns, max.MaxFailedTurns, &l.MaxFailedTurns},
		{"rlm.max_llm_calls", o.MaxLLMCalls, max.MaxLLMCalls, &l.MaxLLMCalls},
		{"rlm.max_total_tokens", o.MaxTotalTokens, max.MaxTotalTokens, &l.MaxTotalTokens},
		{"rlm.offload_threshold", o.OffloadThreshold, 0, &l.OffloadThreshold},
	}
	for _, f := range ints {
		if f.v == nil {
			continue
		}
		if *f.v < 0 {
			return l, api.BadRequest(f.name, "%s must not be negative", f.name)
		}
		*f.dst = *f.v
		if f.max > 0 && *f.dst > f.max {
			*f.dst = f.max
		}
	}
	// The API's max_depth 0 means the root alone; the engine's Limits read 0
	// as "default" and a negative depth as the root alone. A negative
	// server maximum is the root alone too, whatever the request asks.
	if o.MaxDepth != nil && (*o.MaxDepth == 0 || max.MaxDepth < 0) {
		l.MaxDepth = -1
	}
	if len(o.Timeout) > 0 && string(o.Timeout) != "null" {
		d, err := parseTimeout(o.Timeout)
		if err != nil {
			return l, err
		}
		if max.Timeout > 0 && d > max.Timeout {
			d = max.Timeout
		}
		l.Timeout = d
	}
	if o.SubModel != "" {
		if len(cfg.Models) > 0 && !contains(cfg.Models, o.SubModel) {
			return l, api.BadRequest("rlm.sub_model", "unknown sub_model %q; this server offers %s", o.SubModel, strings.Join(cfg.Models, ", "))
		}
		l.SubModel = o.SubModel
	}
	return l, nil
}

// parseTimeout reads rlm.timeout: seconds, as a number or a string, or a
// Go duration ("90s").
func parseTimeout(raw json.RawMessage) (time.Duration, error) {
	bad := api.BadRequest("rlm.timeout", "rlm.timeout must be seconds or a duration like \"90s\"")
	var d time.Duration
	var secs float64
	var str string
	if err := json.Unmarshal(raw, &secs); err == nil {
		d = seconds(secs)
	} else if err := json.Unmarshal(raw, &str); err == nil {
		if d, err = time.ParseDuration(str); err != nil {
			f, ferr := strconv.ParseFloat(str, 64)
			if ferr != nil {
				return 0, bad
			}
			d = seconds(f)
		}
	} else {
		return 0, bad
	}
	if d < 0 {
		return 0, api.BadRequest("rlm.timeout", "rlm.timeout must not be negative")
	}
	return d, nil
}

// seconds converts a client's number of seconds to a Duration. Values too
// large for a Duration saturate (and are then clamped to the server's
// maximum) instead of wrapping around to a negative duration.
func seconds(f float64) time.Duration {
	switch d := f * float64(time.Second); {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt64:
		return math.MaxInt64
	case d <= math.MinInt64:
		return math.MinInt64
	default:
		return time.Duration(d)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// legacyCallID is the id a legacy function call (function_call, and its
// function message, which carry none) goes by.
func legacyCallID(name string) string { return "call_function_" + name }

// joinText joins two texts of a message with a newline.
func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
