package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/retention"
)

// The Responses API tests run the server on fakeRunner, a test double of
// the engine (helpers_test.go); tests/node/responses_sdk.mjs drives the
// same endpoints with the official openai client and the real engine.

type respView struct {
	ID                 string
	Object             string
	Status             string
	Background         bool
	PreviousResponseID *string `json:"previous_response_id"`
	Error              *api.ResponseError
	IncompleteDetails  *api.IncompleteDetails `json:"incomplete_details"`
	Output             []api.Item
	Usage              *api.ResponseUsage
	Metadata           map[string]string
}

func (v respView) text() string {
	var b strings.Builder
	for _, o := range v.Output {
		for _, c := range o.Content {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

func postResponse(t *testing.T, url, key, body string) (respView, response) {
	t.Helper()
	resp := do(t, "POST", url+"/v1/responses", key, strings.NewReader(body))
	var v respView
	if resp.Status == 200 {
		if err := json.Unmarshal(resp.Body, &v); err != nil {
			t.Fatalf("not a response object (%v): %s", err, resp.Body)
		}
	}
	return v, resp
}

func getResponseView(t *testing.T, url, key, id string) (respView, int) {
	t.Helper()
	resp := do(t, "GET", url+"/v1/responses/"+id, key, nil)
	var v respView
	if resp.Status == 200 {
		if err := json.Unmarshal(resp.Body, &v); err != nil {
			t.Fatal(err)
		}
	}
	return v, resp.Status
}

// waitStatus polls a response until its status is want.
func waitStatus(t *testing.T, url, key, id, want string) respView {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, code := getResponseView(t, url, key, id)
		if code == 200 && v.Status == want {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("response %s: status %q (HTTP %d), want %q", id, v.Status, code, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// respEvent is a server-sent event of a response stream.
type respEvent struct {
	Type     string          `json:"type"`
	Seq      int             `json:"sequence_number"`
	Delta    string          `json:"delta"`
	Response *respView       `json:"response"`
	RLM      json.RawMessage `json:"rlm"`
}

// respEvents parses a Responses event stream; each event's SSE name must
// be its type.
func respEvents(t *testing.T, body []byte) []respEvent {
	t.Helper()
	var evs []respEvent
	for _, block := range strings.Split(string(body), "\n\n") {
		var name, data string
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			case line == "" || strings.HasPrefix(line, ":"):
			default:
				t.Errorf("unexpected SSE line %q", line)
			}
		}
		if data == "" {
			continue
		}
		var ev respEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event is not JSON: %s", data)
		}
		if ev.Type != name {
			t.Errorf("event named %q has type %q", name, ev.Type)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestResponseCreateGetDelete(t *testing.T) {
	fr := &fakeRunner{result: finalResult("The answer is 42.")}
	ts := startServer(t, Config{}, nil, fr)
	v, resp := postResponse(t, ts.URL, "", `{"model":"rlm","input":"What is the answer?","instructions":"Be brief.","metadata":{"run":"a"}}`)
	if resp.Status != 200 {
		t.Fatalf("POST: %d %s", resp.Status, resp.Body)
	}
	if v.Object != "response" || v.Status != "completed" || v.text() != "The answer is 42." || !validID(v.ID, respPrefix) {
		t.Fatalf("response %+v", v)
	}
	if v.Usage == nil || v.Usage.InputTokens != 100 || v.Usage.OutputTokens != 20 || v.Usage.TotalTokens != 120 || v.Metadata["run"] != "a" {
		t.Errorf("usage %+v, metadata %v", v.Usage, v.Metadata)
	}
	req := fr.requests()[0]
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[0].Content != "Be brief." ||
		req.Messages[1].Role != "user" || req.Messages[1].Content != "What is the answer?" {
		t.Errorf("engine got %+v", req.Messages)
	}
	got, code := getResponseView(t, ts.URL, "", v.ID)
	if code != 200 || got.Status != "completed" || got.text() != v.text() {
		t.Errorf("GET: %d %+v", code, got)
	}
	items := do(t, "GET", ts.URL+"/v1/responses/"+v.ID+"/input_items", "", nil)
	var page struct {
		Object string
		Data   []api.Item
	}
	json.Unmarshal(items.Body, &page)
	if items.Status != 200 || page.Object != "list" || len(page.Data) != 1 || page.Data[0].Content[0].Text != "What is the answer?" ||
		page.Data[0].Content[0].Type != "input_text" || !strings.HasPrefix(page.Data[0].ID, "msg_") {
		t.Errorf("input_items: %d %s", items.Status, items.Body)
	}
	if resp, ok := responseOfItem(page.Data[0].ID); !ok || resp != v.ID {
		t.Errorf("input_items: %d %s", items.Status, items.Body)
	}
	if del := do(t, "DELETE", ts.URL+"/v1/responses/"+v.ID, "", nil); del.Status != 200 || !strings.Contains(string(del.Body), `"deleted":true`) {
		t.Errorf("DELETE: %d %s", del.Status, del.Body)
	}
	if _, code := getResponseView(t, ts.URL, "", v.ID); code != 404 {
		t.Errorf("GET after DELETE: %d", code)
	}
	// Not stored: answered, never kept.
	v, _ = postResponse(t, ts.URL, "", `{"model":"rlm","input":"x","store":false}`)
	if _, code := getResponseView(t, ts.URL, "", v.ID); v.Status != "completed" || code != 404 {
		t.Errorf("store:false: status %q, GET %d", v.Status, code)
	}
}

func TestResponseStatuses(t *testing.T) {
	tests := []struct {
		name    string
		result  recursion.Result
		status  string // of the stored response
		code    int    // HTTP status of the foreground answer
		errCode string
		reason  string
	}{
		{"final", finalResult("x"), "completed", 200, "", ""},
		{"max iterations", recursion.Result{Answer: "No answer: the run stopped (max_iterations)", StopReason: recursion.StopMaxIterations}, "incomplete", 200, "", "max_iterations"},
		{"timeout", recursion.Result{Answer: "No answer", StopReason: recursion.StopTimeout}, "incomplete", 200, "", "timeout"},
		{"upstream", recursion.Result{StopReason: recursion.StopUpstreamError, Error: "upstream x failed after 3 attempt(s): HTTP 503"}, "failed", 502, "upstream_error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, Config{}, nil, &fakeRunner{result: tt.result})
			v, resp := postResponse(t, ts.URL, "", `{"model":"rlm","input":"q"}`)
			if resp.Status != tt.code {
				t.Fatalf("HTTP %d, want %d: %s", resp.Status, tt.code, resp.Body)
			}
			if resp.Status != 200 {
				m := resp.json(t)
				e, _ := m["error"].(map[string]any)
				if e == nil || e["code"] != tt.errCode || !strings.Contains(fmt.Sprint(e["message"]), "stored as response resp_") {
					t.Fatalf("error body %s", resp.Body)
				}
				id := strings.TrimSuffix(strings.SplitAfter(fmt.Sprint(e["message"]), "stored as response ")[1], ")")
				v, _ = getResponseView(t, ts.URL, "", id)
			}
			if v.Status != tt.status {
				t.Fatalf("status %q, want %q", v.Status, tt.status)
			}
			if tt.errCode != "" && (v.Error == nil || v.Error.Code != tt.errCode) {
				t.Errorf("error %+v", v.Error)
			}
			if tt.reason != "" && (v.IncompleteDetails == nil || v.IncompleteDetails.Reason != tt.reason || v.text() != tt.result.Answer) {
				t.Errorf("incomplete: %+v, output %q", v.IncompleteDetails, v.text())
			}
		})
	}
}

func TestResponseStream(t *testing.T) {
	answer := strings.Repeat("ünïcode ", 100) // several deltas, cut at rune boundaries
	fr := &fakeRunner{result: finalResult(answer), events: scriptEvents()}
	ts := startServer(t, Config{}, nil, fr)
	resp := do(t, "POST", ts.URL+"/v1/responses", "", strings.NewReader(`{"model":"rlm","input":"q","stream":true,"rlm":{"progress":true}}`))
	if resp.Status != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	evs := respEvents(t, resp.Body)
	var types []string
	var text strings.Builder
	progress := 0
	for i, ev := range evs {
		if ev.Seq != i {
			t.Errorf("event %d has sequence number %d", i, ev.Seq)
		}
		switch ev.Type {
		case "rlm.progress":
			progress++
			continue
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
			continue
		}
		types = append(types, ev.Type)
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("events %v, want %v", types, want)
	}
	if text.String() != answer || progress != len(scriptEvents()) {
		t.Errorf("deltas make %q; %d progress events", text.String(), progress)
	}
	last := evs[len(evs)-1]
	if last.Response == nil || last.Response.Status != "completed" || last.Response.text() != answer {
		t.Errorf("final event %+v", last.Response)
	}
	// Without rlm.progress, only the Responses events: the official SDKs'
	// stream helpers refuse any other type.
	plain := respEvents(t, do(t, "POST", ts.URL+"/v1/responses", "", strings.NewReader(`{"model":"rlm","input":"q","stream":true}`)).Body)
	for _, ev := range plain {
		if !strings.HasPrefix(ev.Type, "response.") {
			t.Errorf("event %s in a stream that did not ask for progress", ev.Type)
		}
	}
	if len(plain) != len(evs)-progress {
		t.Errorf("%d events without progress, want %d", len(plain), len(evs)-progress)
	}
	// A foreground stream cannot be resumed: only background ones are kept.
	if r := do(t, "GET", ts.URL+"/v1/responses/"+last.Response.ID+"?stream=true", "", nil); r.Status != 400 {
		t.Errorf("resume of a foreground stream: %d %s", r.Status, r.Body)
	}
}

func TestResponseBackground(t *testing.T) {
	for name, open := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			stA, stB := open(t)
			cfg := Config{ResponsePoll: 20 * time.Millisecond}
			fr := &fakeRunner{result: finalResult("done in the background"), events: scriptEvents(), block: make(chan struct{}), started: make(chan struct{}, 1)}
			a := startServer(t, cfg, stA, fr)
			b := startServer(t, cfg, stB, nil) // another replica on the same store
			v, resp := postResponse(t, a.URL, "", `{"model":"rlm","input":"q","background":true}`)
			if resp.Status != 200 || !v.Background || v.Status != "queued" {
				t.Fatalf("POST: %d %s", resp.Status, resp.Body)
			}
			<-fr.started
			waitStatus(t, b.URL, "", v.ID, "in_progress")

			// B streams from the second event on while A runs it.
			streamed := make(chan response, 1)
			go func() { streamed <- do(t, "GET", b.URL+"/v1/responses/"+v.ID+"?stream=true&starting_after=0", "", nil) }()
			time.Sleep(50 * time.Millisecond)
			close(fr.block)
			sr := <-streamed
			evs := respEvents(t, sr.Body)
			if len(evs) == 0 || evs[0].Seq != 1 || evs[len(evs)-1].Type != "response.completed" {
				t.Fatalf("resumed stream: %d %s", sr.Status, sr.Body)
			}
			for i := 1; i < len(evs); i++ {
				if evs[i].Seq != evs[i-1].Seq+1 {
					t.Errorf("sequence numbers %d then %d", evs[i-1].Seq, evs[i].Seq)
				}
			}
			done := waitStatus(t, b.URL, "", v.ID, "completed")
			if done.text() != "done in the background" {
				t.Errorf("output %q", done.text())
			}
			// The whole stream again, from the start, once it is over.
			all := respEvents(t, do(t, "GET", b.URL+"/v1/responses/"+v.ID+"?stream=true", "", nil).Body)
			if len(all) != len(evs)+1 || all[0].Type != "response.created" {
				t.Errorf("replay has %d events, want %d", len(all), len(evs)+1)
			}
			// Unregistered once its final record is written, a moment after.
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var left []string
				stB.ScanEntries(context.Background(), collRuns, idxRunning, "", false, func(e store.Entry) bool {
					left = append(left, e.Key)
					return true
				})
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still registered in progress: %v", left)
				}
			}
		})
	}
}

func TestResponseCancel(t *testing.T) {
	for name, open := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			stA, stB := open(t)
			cfg := Config{ResponsePoll: 20 * time.Millisecond}
			fr := &fakeRunner{result: finalResult("never"), block: make(chan struct{}), started: make(chan struct{}, 2), finished: make(chan error, 2)}
			defer close(fr.block)
			a := startServer(t, cfg, stA, fr)
			b := startServer(t, cfg, stB, nil)
			for _, via := range []*testServer{a, b} { // on its own replica, then from another
				v, _ := postResponse(t, a.URL, "", `{"model":"rlm","input":"q","background":true}`)
				<-fr.started
				c := do(t, "POST", via.URL+"/v1/responses/"+v.ID+"/cancel", "", nil)
				var got respView
				json.Unmarshal(c.Body, &got)
				if c.Status != 200 || got.Status != "cancelled" {
					t.Fatalf("cancel via %s: %d %s", via.URL, c.Status, c.Body)
				}
				if err := <-fr.finished; err == nil {
					t.Error("the run's context was not cancelled")
				}
				evs := respEvents(t, do(t, "GET", b.URL+"/v1/responses/"+v.ID+"?stream=true", "", nil).Body)
				if last := evs[len(evs)-1]; last.Type != "response.failed" || last.Response == nil || last.Response.Status != "cancelled" {
					t.Errorf("stream ends with %s", evs[len(evs)-1].Type)
				}
				// Cancelling again answers the response as it is.
				if again := do(t, "POST", b.URL+"/v1/responses/"+v.ID+"/cancel", "", nil); again.Status != 200 {
					t.Errorf("second cancel: %d", again.Status)
				}
			}
		})
	}
	// Only background responses can be cancelled.
	ts := startServer(t, Config{}, nil, nil)
	v, _ := postResponse(t, ts.URL, "", `{"model":"rlm","input":"q"}`)
	if c := do(t, "POST", ts.URL+"/v1/responses/"+v.ID+"/cancel", "", nil); c.Status != 400 {
		t.Errorf("cancel of a foreground response: %d %s", c.Status, c.Body)
	}
}

// TestResponseOrphaned: a replica that dies mid-run leaves its background
// response failed (server_stopped) within the lease, with a terminal event
// for the streams that follow it.
func TestResponseOrphaned(t *testing.T) {
	for name, open := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			stA, stB := open(t)
			cfg := Config{RunLease: 600 * time.Millisecond, ResponsePoll: 20 * time.Millisecond}
			fr := &fakeRunner{result: finalResult("never"), block: make(chan struct{}), started: make(chan struct{}, 1)}
			defer close(fr.block)
			a := startServer(t, cfg, stA, fr)
			v, _ := postResponse(t, a.URL, "", `{"model":"rlm","input":"q","background":true}`)
			<-fr.started
			b := startServer(t, cfg, stB, nil)
			streamed := make(chan response, 1)
			go func() { streamed <- do(t, "GET", b.URL+"/v1/responses/"+v.ID+"?stream=true", "", nil) }()
			var drop func(string)
			if name == "disk" {
				drop = func(inst string) { stA.ReleaseLease(context.Background(), inst) }
			}
			a.crash(drop)
			got := waitStatus(t, b.URL, "", v.ID, "failed")
			if got.Error == nil || got.Error.Code != "server_stopped" {
				t.Errorf("error %+v", got.Error)
			}
			evs := respEvents(t, (<-streamed).Body)
			if last := evs[len(evs)-1]; last.Type != "response.failed" || last.Response == nil || last.Response.Status != "failed" {
				t.Errorf("stream ends with %+v", last)
			}
		})
	}
}

func TestResponseFollowUp(t *testing.T) {
	fr := &fakeRunner{result: finalResult("first answer")}
	ts := startServer(t, Config{Keys: []string{"k-alice", "k-bob"}}, nil, fr)
	first, _ := postResponse(t, ts.URL, "k-alice", `{"model":"rlm","input":[{"role":"user","content":[{"type":"input_text","text":"first question"}]}]}`)
	second, resp := postResponse(t, ts.URL, "k-alice", `{"model":"rlm","input":"second question","instructions":"new rules","previous_response_id":"`+first.ID+`"}`)
	if resp.Status != 200 || second.PreviousResponseID == nil || *second.PreviousResponseID != first.ID {
		t.Fatalf("follow-up: %d %s", resp.Status, resp.Body)
	}
	third, _ := postResponse(t, ts.URL, "k-alice", `{"model":"rlm","input":"third","previous_response_id":"`+second.ID+`"}`)
	reqs := fr.requests()
	var got []string
	for _, m := range reqs[2].Messages {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"user: first question", "assistant: first answer", "user: second question", "assistant: first answer", "user: third"}
	if strings.Join(got, "|") != strings.Join(want, "|") || third.Status != "completed" {
		t.Errorf("third turn's messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The fake runner keeps no REPL session: each follow-up ran in a new
	// one and says why; one that requires the session is refused.
	var third2 struct{ RLM api.RLMInfo }
	json.Unmarshal(do(t, "GET", ts.URL+"/v1/responses/"+third.ID, "k-alice", nil).Body, &third2)
	if third2.RLM.Session != "new" || !strings.Contains(third2.RLM.SessionNote, "keeps no REPL session") {
		t.Errorf("rlm %+v", third2.RLM)
	}
	strict := do(t, "POST", ts.URL+"/v1/responses", "k-alice", strings.NewReader(`{"model":"rlm","input":"x","previous_response_id":"`+third.ID+`","rlm":{"require_session":true}}`))
	if e, _ := strict.json(t)["error"].(map[string]any); strict.Status != 409 || e["code"] != "session_gone" || e["param"] != "previous_response_id" {
		t.Errorf("require_session without a session: %d %s", strict.Status, strict.Body)
	}
	if m := reqs[1].Messages; m[0].Content != "new rules" {
		t.Errorf("second turn's first message %+v: instructions first", m[0])
	}
	// Another key cannot see, continue or cancel alice's responses.
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/responses/" + first.ID, ""},
		{"GET", "/v1/responses/" + first.ID + "/input_items", ""},
		{"DELETE", "/v1/responses/" + first.ID, ""},
		{"POST", "/v1/responses/" + first.ID + "/cancel", ""},
		{"POST", "/v1/responses", `{"model":"rlm","input":"x","previous_response_id":"` + first.ID + `"}`},
	} {
		var body *strings.Reader
		if r.body != "" {
			body = strings.NewReader(r.body)
		}
		var resp response
		if body != nil {
			resp = do(t, r.method, ts.URL+r.path, "k-bob", body)
		} else {
			resp = do(t, r.method, ts.URL+r.path, "k-bob", nil)
		}
		if resp.Status != 404 {
			t.Errorf("bob %s %s: %d %s", r.method, r.path, resp.Status, resp.Body)
		}
	}
	if v, code := getResponseView(t, ts.URL, "k-alice", first.ID); code != 200 || v.Status != "completed" {
		t.Errorf("alice's response after bob's attempts: %d %+v", code, v)
	}
}

func TestResponseBadRequests(t *testing.T) {
	ts := startServer(t, Config{MaxMessages: 3}, nil, nil)
	tests := []struct {
		body  string
		param string
	}{
		{`{"input":"x"}`, "model"},
		{`{"model":"rlm"}`, "input"},
		{`{"model":"rlm","input":[]}`, "input"},
		{`{"model":"rlm","input":5}`, "input"},
		{`{"model":"rlm","input":"x","background":true,"store":false}`, "background"},
		{`{"model":"rlm","input":"x","text":{"format":{"type":"json_schema"}}}`, "text.format.schema"},
		{`{"model":"rlm","input":"x","text":{"format":{"type":"xml"}}}`, "text.format.type"},
		{`{"model":"rlm","input":"x","conversation":"conv_1"}`, "conversation"},
		{`{"model":"rlm","input":[{"type":"function_call_output","output":"o"}]}`, "input[0].call_id"},
		{`{"model":"rlm","input":"x","tools":[{"type":"web_search"}]}`, "tools[0].type"},
		{`{"model":"rlm","input":"x","tools":[{"type":"function","name":"has space"}]}`, "tools[0].name"},
		{`{"model":"rlm","input":"x","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}}},"strict":true}]}`, "tools[0].parameters"},
		{`{"model":"rlm","input":"x","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"g"}}`, "tool_choice"},
		{`{"model":"rlm","input":"x","tool_choice":"required"}`, "tool_choice"},
		{`{"model":"rlm","input":[{"role":"tool","content":"x"}]}`, "input[0].role"},
		{`{"model":"rlm","input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]}`, "input[0].content[0].type"},
		{`{"model":"rlm","input":[{"role":"user","content":[{"type":"input_file","file_url":"http://x"}]}]}`, "input[0].content[0].file_url"},
		{`{"model":"rlm","input":[{"role":"user","content":[{"type":"input_file"}]}]}`, "input[0].content[0].file_id"},
		{`{"model":"rlm","input":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"},{"role":"user","content":"d"}]}`, "input"},
		{`{"model":"rlm","input":"x","max_output_tokens":0}`, "max_output_tokens"},
		{`{"model":"rlm","input":"x","rlm":{"max_iteration":3}}`, "rlm.max_iteration"},
		{`{"model":"rlm","input":"x","temperature":3}`, "temperature"},
		{`{"model":"rlm","input":"x","metadata":{"k":5}}`, "metadata.k"},
		{`{"model":"rlm","input":"x"`, ""},
	}
	for _, tt := range tests {
		resp := do(t, "POST", ts.URL+"/v1/responses", "", strings.NewReader(tt.body))
		m := resp.json(t)
		e, _ := m["error"].(map[string]any)
		if resp.Status != 400 || e == nil || e["message"] == "" {
			t.Errorf("%s: %d %s", tt.body, resp.Status, resp.Body)
			continue
		}
		if tt.param != "" && fmt.Sprint(e["param"]) != tt.param {
			t.Errorf("%s: param %v, want %s", tt.body, e["param"], tt.param)
		}
	}
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/responses/resp_nope", 404},
		{"GET", "/v1/responses/resp_0123456789abcdef01234567", 404},
		{"POST", "/v1/responses/resp_0123456789abcdef01234567/cancel", 404},
		{"DELETE", "/v1/responses/../files", 404},
		{"GET", "/v1/responses/resp_0123456789abcdef01234567/input_items?limit=0", 400},
	} {
		if resp := do(t, tt.method, ts.URL+tt.path, "", nil); resp.Status != tt.status {
			t.Errorf("%s %s: %d, want %d: %s", tt.method, tt.path, resp.Status, tt.status, resp.Body)
		}
	}
	v, _ := postResponse(t, ts.URL, "", `{"model":"rlm","input":"x"}`)
	if r := do(t, "POST", ts.URL+"/v1/responses", "", strings.NewReader(`{"model":"rlm","input":"y","previous_response_id":"resp_0123456789abcdef01234567"}`)); r.Status != 404 {
		t.Errorf("unknown previous_response_id: %d %s", r.Status, r.Body)
	}
	if r := do(t, "GET", ts.URL+"/v1/responses/"+v.ID+"?stream=true&starting_after=x", "", nil); r.Status != 400 {
		t.Errorf("bad starting_after: %d", r.Status)
	}
}

// TestResponseRetention: retention deletes an old stored response with its
// events, and keeps a new one.
func TestResponseRetention(t *testing.T) {
	st, err := store.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, Config{}, st, &fakeRunner{result: finalResult("x")})
	old, _ := postResponse(t, ts.URL, "", `{"model":"rlm","input":"q","background":true}`)
	waitStatus(t, ts.URL, "", old.ID, "completed")
	if n := countEntries(t, st, eventsIndex(openOwner, old.ID)); n < 5 {
		t.Fatalf("the background response has %d stored events", n)
	}
	// The old one is a second older than the fresh one; the maximum age
	// falls between them whatever the machine's load.
	time.Sleep(time.Second)
	start := time.Now()
	fresh, _ := postResponse(t, ts.URL, "", `{"model":"rlm","input":"q"}`)
	maxAge := time.Since(start) + 200*time.Millisecond
	if maxAge >= time.Second {
		t.Skipf("creating a response took %v: too slow to tell old from new", maxAge)
	}
	sw := retention.Sweeper{Store: st, Policies: []retention.Policy{{Kind: ResponseKind(st), Rules: retention.Rules{MaxAge: maxAge}}}}
	if _, err := sw.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, code := getResponseView(t, ts.URL, "", old.ID); code != 404 {
		t.Errorf("old response: %d after the sweep", code)
	}
	idx := eventsIndex(openOwner, old.ID)
	if n := countEntries(t, st, idx); n != 0 {
		t.Errorf("%d events of a deleted response are left", n)
	}
	if v, code := getResponseView(t, ts.URL, "", fresh.ID); code != 200 || v.Status != "completed" {
		t.Errorf("new response: %d %+v", code, v)
	}
}

func countEntries(t *testing.T, st store.Store, idx string) int {
	n := 0
	if err := st.ScanEntries(t.Context(), collResponses, idx, "", false, func(store.Entry) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	return n
}
