package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
)

// The Responses API's objects and events checked against the Open
// Responses specification (openresponses.org; its published schema of the
// response resource, items, content parts and streaming events), written
// out here as what each must hold. The public compliance suite checks the
// same with the specification's own generated schemas, outside the
// project (see docs/server.md, "Conformance"); this test runs in CI and
// covers what that suite does not reach: background create, GET, cancel,
// resumed streams, input items, failed and incomplete responses.

// shape is what a JSON value must be: one of its kinds ("string", "int",
// "number", "bool", "null", "object", "array", "any"), an enum of strings,
// or an object with its required and optional members.
type shape struct {
	kinds    []string
	enum     []string
	fields   map[string]*shape // required members
	optional map[string]*shape
	elem     *shape             // array elements
	oneOf    func(v any) *shape // picks the shape of a union by the value (by its type field)
}

func kinds(k ...string) *shape { return &shape{kinds: k} }
func enum(v ...string) *shape  { return &shape{kinds: []string{"string"}, enum: v} }
func object(fields map[string]*shape) *shape {
	return &shape{kinds: []string{"object"}, fields: fields}
}
func arrayOf(e *shape) *shape { return &shape{kinds: []string{"array"}, elem: e} }
func nullable(s *shape) *shape {
	c := *s
	c.kinds = append(append([]string{}, s.kinds...), "null")
	return &c
}

var (
	str  = kinds("string")
	num  = kinds("number")
	intg = kinds("int")
	boo  = kinds("bool")
	anyv = kinds("any")
)

// The specification's shapes.
var (
	logProb = object(map[string]*shape{"token": str, "logprob": num, "bytes": arrayOf(intg), "top_logprobs": arrayOf(object(map[string]*shape{
		"token": str, "logprob": num, "bytes": arrayOf(intg)}))})
	contentPart = &shape{oneOf: func(v any) *shape {
		switch typeOf(v) {
		case "input_text":
			return object(map[string]*shape{"type": str, "text": str})
		case "output_text":
			return object(map[string]*shape{"type": str, "text": str, "annotations": arrayOf(anyv), "logprobs": arrayOf(logProb)})
		case "input_image":
			return object(map[string]*shape{"type": str, "image_url": nullable(str), "file_id": nullable(str), "detail": enum("low", "high", "auto")})
		case "input_file":
			s := object(map[string]*shape{"type": str, "file_id": nullable(str)})
			s.optional = map[string]*shape{"filename": str, "file_url": str}
			return s
		case "refusal":
			return object(map[string]*shape{"type": str, "refusal": str})
		}
		return nil
	}}
	itemStatus = enum("in_progress", "completed", "incomplete")
	item       = &shape{oneOf: func(v any) *shape {
		switch typeOf(v) {
		case "message":
			return object(map[string]*shape{"type": str, "id": str, "status": itemStatus,
				"role": enum("user", "assistant", "system", "developer"), "content": arrayOf(contentPart)})
		case "function_call":
			return object(map[string]*shape{"type": str, "id": str, "call_id": str, "name": str, "arguments": str, "status": itemStatus})
		case "function_call_output":
			return object(map[string]*shape{"type": str, "id": str, "call_id": str, "output": kinds("string", "array"), "status": itemStatus})
		}
		return nil
	}}
	usage = object(map[string]*shape{"input_tokens": intg, "output_tokens": intg, "total_tokens": intg,
		"input_tokens_details":  object(map[string]*shape{"cached_tokens": intg}),
		"output_tokens_details": object(map[string]*shape{"reasoning_tokens": intg})})
	textFormat = &shape{oneOf: func(v any) *shape {
		switch typeOf(v) {
		case "text", "json_object":
			return object(map[string]*shape{"type": str})
		case "json_schema":
			return object(map[string]*shape{"type": str, "name": str, "description": nullable(str), "schema": nullable(kinds("object")), "strict": boo})
		}
		return nil
	}}
	responseResource = object(map[string]*shape{
		"id": str, "object": enum("response"), "created_at": intg, "completed_at": nullable(intg), "status": str,
		"incomplete_details": nullable(object(map[string]*shape{"reason": str})), "model": str,
		"previous_response_id": nullable(str), "instructions": nullable(str), "output": arrayOf(item),
		"error": nullable(object(map[string]*shape{"code": str, "message": str})), "tools": arrayOf(kinds("object")),
		"tool_choice": kinds("string", "object"), "truncation": enum("auto", "disabled"), "parallel_tool_calls": boo,
		"text": object(map[string]*shape{"format": textFormat}), "top_p": num, "presence_penalty": num, "frequency_penalty": num,
		"top_logprobs": intg, "temperature": num, "reasoning": nullable(kinds("object")), "usage": nullable(usage),
		"max_output_tokens": nullable(intg), "max_tool_calls": nullable(intg), "store": boo, "background": boo,
		"service_tier": str, "metadata": anyv, "safety_identifier": nullable(str), "prompt_cache_key": nullable(str),
	})
	streamingEvent = &shape{oneOf: func(v any) *shape {
		base := map[string]*shape{"type": str, "sequence_number": intg}
		with := func(more map[string]*shape) *shape {
			for k, s := range base {
				more[k] = s
			}
			return object(more)
		}
		switch t := typeOf(v); t {
		case "response.created", "response.queued", "response.in_progress", "response.completed", "response.failed", "response.incomplete":
			return with(map[string]*shape{"response": responseResource})
		case "response.output_item.added", "response.output_item.done":
			return with(map[string]*shape{"output_index": intg, "item": nullable(item)})
		case "response.content_part.added", "response.content_part.done":
			return with(map[string]*shape{"item_id": str, "output_index": intg, "content_index": intg, "part": contentPart})
		case "response.output_text.delta":
			return with(map[string]*shape{"item_id": str, "output_index": intg, "content_index": intg, "delta": str, "logprobs": arrayOf(logProb)})
		case "response.output_text.done":
			return with(map[string]*shape{"item_id": str, "output_index": intg, "content_index": intg, "text": str, "logprobs": arrayOf(logProb)})
		case "response.function_call_arguments.delta":
			return with(map[string]*shape{"item_id": str, "output_index": intg, "delta": str})
		case "response.function_call_arguments.done":
			return with(map[string]*shape{"item_id": str, "output_index": intg, "arguments": str})
		case "error":
			return with(map[string]*shape{"error": object(map[string]*shape{"type": str, "code": nullable(str), "message": str, "param": nullable(str)})})
		}
		return nil
	}}
	inputItemList = object(map[string]*shape{"object": enum("list"), "data": arrayOf(item), "first_id": nullable(str), "last_id": nullable(str), "has_more": boo})
)

func typeOf(v any) string {
	m, _ := v.(map[string]any)
	t, _ := m["type"].(string)
	return t
}

// check reports where v departs from s.
func (s *shape) check(path string, v any) []string {
	if s.oneOf != nil {
		sub := s.oneOf(v)
		if sub == nil {
			return []string{fmt.Sprintf("%s: no shape of the specification has type %q", path, typeOf(v))}
		}
		return sub.check(path, v)
	}
	kind := kindOf(v)
	ok := false
	for _, k := range s.kinds {
		ok = ok || k == kind || k == "any" || k == "number" && kind == "int"
	}
	if !ok {
		return []string{fmt.Sprintf("%s: %s, want %s", path, kind, strings.Join(s.kinds, " or "))}
	}
	var errs []string
	if len(s.enum) > 0 && kind == "string" && !contains(s.enum, v.(string)) {
		errs = append(errs, fmt.Sprintf("%s: %q is not one of %v", path, v, s.enum))
	}
	if m, isObj := v.(map[string]any); isObj {
		for name, fs := range s.fields {
			fv, present := m[name]
			if !present {
				errs = append(errs, path+"."+name+": missing")
				continue
			}
			errs = append(errs, fs.check(path+"."+name, fv)...)
		}
		for name, fs := range s.optional {
			if fv, present := m[name]; present {
				errs = append(errs, fs.check(path+"."+name, fv)...)
			}
		}
	}
	if a, isArr := v.([]any); isArr && s.elem != nil {
		for i, e := range a {
			errs = append(errs, s.elem.check(fmt.Sprintf("%s[%d]", path, i), e)...)
		}
	}
	return errs
}

func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "int"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "unknown"
}

func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON (%v): %.300s", err, b)
	}
	return v
}

// conform checks one JSON value against s.
func conform(t *testing.T, what string, s *shape, b []byte) {
	t.Helper()
	for _, e := range s.check(what, decodeNumbers(t, b)) {
		t.Error(e)
	}
}

// conformStream checks every event of a Responses stream, and that the
// event's SSE name is its type; it returns the types.
func conformStream(t *testing.T, what string, body []byte) []string {
	t.Helper()
	var types []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data := []byte(strings.TrimPrefix(line, "data: "))
			typ := typeOf(decodeNumbers(t, data))
			if typ != name {
				t.Errorf("%s: event named %q has type %q", what, name, typ)
			}
			conform(t, fmt.Sprintf("%s event %d (%s)", what, len(types), typ), streamingEvent, data)
			types = append(types, typ)
		}
	}
	return types
}

// TestResponsesConformance runs every kind of request of the Responses API
// and checks everything the server answers against the specification.
func TestResponsesConformance(t *testing.T) {
	t.Parallel()
	// The checker itself: the audit's object (temperature null, no
	// presence_penalty, an output_text without logprobs) is refused.
	old := decodeNumbers(t, []byte(`{"id":"r","object":"response","created_at":1,"completed_at":null,"status":"completed","incomplete_details":null,`+
		`"model":"m","previous_response_id":null,"instructions":null,"output":[{"type":"message","id":"m","status":"completed","role":"assistant",`+
		`"content":[{"type":"output_text","text":"x","annotations":[]}]}],"error":null,"tools":[],"tool_choice":"auto","truncation":"disabled",`+
		`"parallel_tool_calls":true,"text":{"format":{"type":"text"}},"top_p":null,"temperature":null,"reasoning":null,"usage":null,`+
		`"max_output_tokens":null,"store":true,"background":false,"metadata":{}}`))
	if errs := responseResource.check("old", old); len(errs) < 8 {
		t.Fatalf("the checker passes the old response object: %v", errs)
	}
	runner := &fakeRunner{result: finalResult("The answer is 42.")}
	ts := startServer(t, Config{ResponsePoll: 20 * time.Millisecond}, nil, runner)
	post := func(body string) response {
		t.Helper()
		r := do(t, "POST", ts.URL+"/v1/responses", "", strings.NewReader(body))
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", body, r.Status, r.Body)
		}
		return r
	}
	idOf := func(r response) string { return r.json(t)["id"].(string) }

	sync := post(`{"model":"rlm","input":"What is the answer?","instructions":"Be brief.","metadata":{"k":"v"}}`)
	conform(t, "sync", responseResource, sync.Body)
	id := idOf(sync)
	conform(t, "GET", responseResource, do(t, "GET", ts.URL+"/v1/responses/"+id, "", nil).Body)
	conform(t, "input_items", inputItemList, do(t, "GET", ts.URL+"/v1/responses/"+id+"/input_items", "", nil).Body)

	follow := post(`{"model":"rlm","previous_response_id":"` + id + `","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"And why?"}]},` +
		`{"type":"item_reference","id":"` + sync.json(t)["output"].([]any)[0].(map[string]any)["id"].(string) + `"}]}`)
	conform(t, "follow-up", responseResource, follow.Body)
	conform(t, "follow-up input_items", inputItemList, do(t, "GET", ts.URL+"/v1/responses/"+idOf(follow)+"/input_items?order=asc", "", nil).Body)

	stream := post(`{"model":"rlm","input":"Count to 5.","stream":true}`)
	types := conformStream(t, "stream", stream.Body)
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("stream events %v, want %v", types, want)
	}

	bg := post(`{"model":"rlm","input":"q","background":true}`)
	conform(t, "background create", responseResource, bg.Body)
	bgID := idOf(bg)
	waitStatus(t, ts.URL, "", bgID, "completed")
	conform(t, "background GET", responseResource, do(t, "GET", ts.URL+"/v1/responses/"+bgID, "", nil).Body)
	resumed := do(t, "GET", ts.URL+"/v1/responses/"+bgID+"?stream=true&starting_after=1", "", nil)
	if rt := conformStream(t, "resumed", resumed.Body); len(rt) == 0 || rt[len(rt)-1] != "response.completed" {
		t.Errorf("resumed stream: %v", rt)
	}
	conform(t, "cancel of a finished response", responseResource, do(t, "POST", ts.URL+"/v1/responses/"+bgID+"/cancel", "", nil).Body)

	// A response cancelled while it runs, one that failed, one that stopped
	// at a limit.
	block := make(chan struct{})
	defer close(block)
	ts2 := startServer(t, Config{ResponsePoll: 20 * time.Millisecond, CancelWait: 5 * time.Second}, nil, &fakeRunner{block: block, result: finalResult("x")})
	running := do(t, "POST", ts2.URL+"/v1/responses", "", strings.NewReader(`{"model":"rlm","input":"q","background":true}`))
	runID := idOf(running)
	cancelled := do(t, "POST", ts2.URL+"/v1/responses/"+runID+"/cancel", "", nil)
	conform(t, "cancel", responseResource, cancelled.Body)
	if st := cancelled.json(t)["status"]; st != "cancelled" {
		t.Errorf("cancelled response's status %v", st)
	}
	conformStream(t, "cancelled stream", do(t, "GET", ts2.URL+"/v1/responses/"+runID+"?stream=true", "", nil).Body)
	for _, tt := range []struct {
		name   string
		result recursion.Result
		status string
	}{
		{"failed", recursion.Result{StopReason: recursion.StopUpstreamError, Error: "the upstream model failed"}, "failed"},
		{"incomplete", recursion.Result{StopReason: recursion.StopMaxIterations, Answer: "No answer"}, "incomplete"},
	} {
		r := &fakeRunner{result: tt.result}
		ts3 := startServer(t, Config{ResponsePoll: 20 * time.Millisecond}, nil, r)
		bg := do(t, "POST", ts3.URL+"/v1/responses", "", strings.NewReader(`{"model":"rlm","input":"q","background":true}`))
		id := idOf(bg)
		waitStatus(t, ts3.URL, "", id, tt.status)
		conform(t, tt.name, responseResource, do(t, "GET", ts3.URL+"/v1/responses/"+id, "", nil).Body)
		conformStream(t, tt.name+" stream", do(t, "GET", ts3.URL+"/v1/responses/"+id+"?stream=true", "", nil).Body)
		fg := do(t, "POST", ts3.URL+"/v1/responses", "", strings.NewReader(`{"model":"rlm","input":"q","stream":true}`))
		conformStream(t, tt.name+" foreground stream", fg.Body)
	}
}
