package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// weatherUpstream is the fake root (a scripted test double) of the client
// tool tests: it calls the client's get_weather from a cell, then answers
// with what the call returned. calls counts the cells that called it.
func weatherUpstream(calls *atomic.Int32) fakellm.Script {
	return func(req fakellm.Request) fakellm.Reply {
		if m := weatherLine.FindStringSubmatch(req.LastUser()); m != nil {
			return fakellm.Reply{Content: "FINAL(It is " + m[1] + " in Paris.)"}
		}
		calls.Add(1)
		return fakellm.Reply{Content: fakellm.Code(`fmt.Println("weather:", get_weather(map[string]any{"city": "Paris"}))`)}
	}
}

// weatherLine is the line the cell prints with the tool's output.
var weatherLine = regexp.MustCompile(`(?m)^weather: (.+)$`)

func postJSON(t *testing.T, url, body string) map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST %s: %d %s", body, resp.StatusCode, b)
	}
	return m
}

const weatherTool = `{"type":"function","name":"get_weather","description":"The weather in a city.",` +
	`"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true}`

// TestResponsesClientTools: a cell's call of the client's tool ends the
// response with a function_call item; the client's function_call_output
// resumes the paused run, whose cell gets the output as the function's
// value. When the paused run is gone (here evicted by --max-paused-runs 1),
// the output runs the conversation again, and the call it answers is not
// made again. The outputs come without the tools, as the compliance
// suite sends them.
func TestResponsesClientTools(t *testing.T) {
	var calls atomic.Int32
	up := fakellm.New(weatherUpstream(&calls))
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--max-paused-runs", "1")...)
	ask := `{"model":"rlm","input":"What is the weather in Paris?","tools":[` + weatherTool + `]}`
	first := postJSON(t, s.URL+"/v1/responses", ask)
	out, _ := first["output"].([]any)
	if first["status"] != "completed" || len(out) != 1 {
		t.Fatalf("first response: %v", first)
	}
	call := out[0].(map[string]any)
	if call["type"] != "function_call" || call["name"] != "get_weather" || call["arguments"] != `{"city":"Paris"}` {
		t.Fatalf("output item %v", call)
	}
	answer := func(prev map[string]any, output string) map[string]any {
		c := prev["output"].([]any)[0].(map[string]any)
		return postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","previous_response_id":"`+prev["id"].(string)+`",`+
			`"input":[{"type":"function_call_output","call_id":"`+c["call_id"].(string)+`","output":"`+output+`"}]}`)
	}
	second := answer(first, "sunny")
	if text := outputText(second); text != "It is sunny in Paris." {
		t.Errorf("after the output: %q (%v)", text, second)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the root called the tool %d times, want 1", n)
	}

	// Gone: a second paused run evicts the first.
	a := postJSON(t, s.URL+"/v1/responses", ask)
	postJSON(t, s.URL+"/v1/responses", ask)
	before := calls.Load()
	late := answer(a, "rainy")
	if text := outputText(late); text != "It is rainy in Paris." {
		t.Errorf("after the paused run was evicted: %q (%v)", text, late)
	}
	if n := calls.Load() - before; n != 1 {
		t.Errorf("the conversation ran %d cells calling the tool, want 1 (answered from the output, not sent to the client again)", n)
	}
	if o, _ := late["output"].([]any); len(o) != 1 || o[0].(map[string]any)["type"] != "message" {
		t.Errorf("the tool went back to the client: %v", late["output"])
	}
	if info, _ := late["rlm"].(map[string]any); info["session"] != "new" || !strings.Contains(fmt.Sprint(info["session_note"]), "--max-paused-runs") {
		t.Errorf("the late answer does not say what happened: %v", late["rlm"])
	}
}

// outputText is a response's message text.
func outputText(r map[string]any) string {
	var b strings.Builder
	out, _ := r["output"].([]any)
	for _, o := range out {
		item, _ := o.(map[string]any)
		content, _ := item["content"].([]any)
		for _, c := range content {
			part, _ := c.(map[string]any)
			s, _ := part["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// TestChatClientTools: the same round trip on chat completions: the
// answer is finish_reason tool_calls with the calls; the history with the
// assistant's tool_calls message and the tool message resumes the run.
func TestChatClientTools(t *testing.T) {
	var calls atomic.Int32
	up := fakellm.New(weatherUpstream(&calls))
	defer up.Close()
	s := startServe(t, upstreamArgs(up.URL)...)
	tools := `"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`
	first := postJSON(t, s.URL+"/v1/chat/completions", `{"model":"rlm","messages":[{"role":"user","content":"Weather in Paris?"}],`+tools+`}`)
	choice := first["choices"].([]any)[0].(map[string]any)
	msg := choice["message"].(map[string]any)
	tcs, _ := msg["tool_calls"].([]any)
	if choice["finish_reason"] != "tool_calls" || len(tcs) != 1 || msg["content"] != nil {
		t.Fatalf("first answer: %v", first)
	}
	tc, _ := json.Marshal(tcs[0])
	id := tcs[0].(map[string]any)["id"].(string)
	second := postJSON(t, s.URL+"/v1/chat/completions", `{"model":"rlm","messages":[{"role":"user","content":"Weather in Paris?"},`+
		`{"role":"assistant","content":null,"tool_calls":[`+string(tc)+`]},{"role":"tool","tool_call_id":"`+id+`","content":"foggy"}],`+tools+`}`)
	choice = second["choices"].([]any)[0].(map[string]any)
	if got := choice["message"].(map[string]any)["content"]; got != "It is foggy in Paris." || choice["finish_reason"] != "stop" {
		t.Errorf("after the tool message: %v", second)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the root called the tool %d times, want 1", n)
	}
}

// TestImageInput: an image of the request reaches the vision model
// (--vision-model) when a cell shows it with llm_query_image, as an
// image_url part; the root never sees it. Without a vision model the
// request is refused with image_input_unsupported.
func TestImageInput(t *testing.T) {
	const pixel = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	var sawImage atomic.Bool
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Model == "eye-model" {
			sawImage.Store(strings.Contains(string(req.Body), `"image_url":{"url":"`+pixel+`"`))
			return fakellm.Reply{Content: "a single pixel"}
		}
		if m := regexp.MustCompile(`(?m)^seen: (.+)$`).FindStringSubmatch(req.LastUser()); m != nil {
			return fakellm.Reply{Content: "FINAL(The image shows " + m[1] + ".)"}
		}
		if strings.Contains(req.LastUser(), pixel) {
			return fakellm.Reply{Content: "FINAL(the root saw the image's bytes)"}
		}
		return fakellm.Reply{Content: fakellm.Code(`fmt.Println("seen:", llm_query_image("What is in this image?", 0))`)}
	})
	defer up.Close()
	body := `{"model":"rlm","input":[{"role":"user","content":[{"type":"input_text","text":"What do you see?"},{"type":"input_image","image_url":"` + pixel + `"}]}]}`
	s := startServe(t, append(upstreamArgs(up.URL), "--vision-model", "eye-model")...)
	got := postJSON(t, s.URL+"/v1/responses", body)
	if text := outputText(got); text != "The image shows a single pixel." || !sawImage.Load() {
		t.Errorf("answer %q, the vision model saw the image: %v", text, sawImage.Load())
	}
	plain := startServe(t, upstreamArgs(up.URL)...)
	resp, err := http.Post(plain.URL+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "image_input_unsupported") {
		t.Errorf("without a vision model: %d %s", resp.StatusCode, b)
	}
}
