package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/internal/proctest"
	"github.com/rlm-project/rlm/store/storetest"
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

// TestHundredParallelToolCalls: a cell that calls a tool for each of 100
// chunks of a document at once gets 100 calls in one response, answered
// in one follow-up.
func TestHundredParallelToolCalls(t *testing.T) {
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if m := regexp.MustCompile(`(?m)^positive: (\d+)$`).FindStringSubmatch(req.LastUser()); m != nil {
			return fakellm.Reply{Content: "FINAL(" + m[1] + " of the lines are positive.)"}
		}
		return fakellm.Reply{Content: fakellm.Code(`var args []any
for _, l := range strings.Split(strings.TrimSpace(context), "\n") { args = append(args, map[string]any{"text": l}) }
n := 0
for _, o := range classify_batched(args) { if o == "positive" { n++ } }
fmt.Println("positive:", n)`)}
	})
	defer up.Close()
	s := startServe(t, upstreamArgs(up.URL)...)
	var doc strings.Builder
	for i := range 100 {
		fmt.Fprintf(&doc, "review %d: it was fine\n", i)
	}
	data := base64.StdEncoding.EncodeToString([]byte(doc.String()))
	tool := `{"type":"function","name":"classify","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`
	first := postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","tools":[`+tool+`],"input":[{"role":"user","content":[`+
		`{"type":"input_text","text":"How many reviews are positive?"},{"type":"input_file","filename":"reviews.txt","file_data":"data:text/plain;base64,`+data+`"}]}]}`)
	out, _ := first["output"].([]any)
	if len(out) != 100 {
		t.Fatalf("%d output items, want 100 function calls", len(out))
	}
	var items []string
	for i, o := range out {
		c := o.(map[string]any)
		label := "negative"
		if i%2 == 0 {
			label = "positive"
		}
		items = append(items, `{"type":"function_call_output","call_id":"`+c["call_id"].(string)+`","output":"`+label+`"}`)
	}
	second := postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","previous_response_id":"`+first["id"].(string)+`","input":[`+strings.Join(items, ",")+`]}`)
	if text := outputText(second); text != "50 of the lines are positive." {
		t.Errorf("answer %q", text)
	}
}

// TestToolPauseAcrossReplicas: two replicas on one Redis store; a run
// pauses on the first, its outputs reach the second, which holds no paused
// run: the conversation runs again there, and the call the outputs answer
// is not sent to the client again.
func TestToolPauseAcrossReplicas(t *testing.T) {
	rs := storetest.StartRedisServer(t)
	var calls atomic.Int32
	up := fakellm.New(weatherUpstream(&calls))
	defer up.Close()
	replica := func() *served {
		return startServe(t, append(upstreamArgs(up.URL), "--store", "redis", "--redis-url", rs.URL, "--redis-cache-dir", t.TempDir())...)
	}
	a, b := replica(), replica()
	first := postJSON(t, a.URL+"/v1/responses", `{"model":"rlm","input":"What is the weather in Paris?","tools":[`+weatherTool+`]}`)
	c := first["output"].([]any)[0].(map[string]any)
	if c["type"] != "function_call" {
		t.Fatalf("first response: %v", first)
	}
	second := postJSON(t, b.URL+"/v1/responses", `{"model":"rlm","previous_response_id":"`+first["id"].(string)+`",`+
		`"input":[{"type":"function_call_output","call_id":"`+c["call_id"].(string)+`","output":"windy"}]}`)
	if text := outputText(second); text != "It is windy in Paris." {
		t.Errorf("on the other replica: %q (%v)", text, second)
	}
	if info, _ := second["rlm"].(map[string]any); !strings.Contains(fmt.Sprint(info["session_note"]), "another replica") {
		t.Errorf("rlm %v", info)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d cells called the tool, want 2: the first run's, and the run again, answered from the output", n)
	}
}

// TestPausedRunsIdleCost measures what 16 paused runs cost while they
// wait: their workers are stopped, so they use no CPU; their memory is
// logged (BENCHMARKS.md).
func TestPausedRunsIdleCost(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 16 REPL workers")
	}
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		// A cell that leaves a goroutine spinning, then calls the tool.
		return fakellm.Reply{Content: fakellm.Code(`go func() { n := 0; for { n++ } }()
fmt.Println(get_weather(map[string]any{"city": "x"}))`)}
	})
	defer up.Close()
	// 256 MiB each: the default of 1 GiB fits 11 sessions in half of a
	// 24 GiB machine's memory, and the oldest paused run would be evicted
	// for the rest (TestPausedRunsYieldMemory).
	s := startServe(t, append(upstreamArgs(up.URL), "--repl-workers", "0", "--repl-memory-bytes", "256MiB")...)
	before, _ := proctest.Children()
	for range 16 {
		r := postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","input":"weather?","tools":[`+weatherTool+`]}`)
		if out := r["output"].([]any); out[0].(map[string]any)["type"] != "function_call" {
			t.Fatalf("not paused: %v", r)
		}
	}
	workers := newChildren(before)
	if len(workers) < 16 {
		t.Fatalf("%d new worker processes, want 16 paused ones", len(workers))
	}
	t0, rss := workerTicks(workers)
	time.Sleep(2 * time.Second)
	t1, _ := workerTicks(workers)
	t.Logf("16 paused runs: %d CPU clock ticks in 2 s (workers stopped), %d MiB resident in their workers (%d KiB each)", t1-t0, rss>>10, rss/int64(len(workers)))
	if t1-t0 > 2 {
		t.Errorf("16 paused runs used %d clock ticks of CPU in 2 s; their workers should be stopped", t1-t0)
	}
}

// TestPausedRunsYieldMemory: a run that needs REPL memory that paused runs
// hold evicts the oldest of them instead of waiting or failing with 503;
// the evicted run's outputs then run its conversation again and say why.
func TestPausedRunsYieldMemory(t *testing.T) {
	var calls atomic.Int32
	up := fakellm.New(weatherUpstream(&calls))
	defer up.Close()
	// Three sessions of 256 MiB + 64 MiB fit in 1 GiB; the request's own
	// budget is the whole.
	s := startServe(t, append(upstreamArgs(up.URL), "--repl-workers", "0", "--repl-memory-bytes", "256MiB",
		"--repl-memory-total", "1GiB", "--request-repl-memory", "1GiB", "--repl-memory-wait", "2s")...)
	ask := `{"model":"rlm","input":"What is the weather in Paris?","tools":[` + weatherTool + `]}`
	var paused []map[string]any
	for range 4 {
		r := postJSON(t, s.URL+"/v1/responses", ask)
		if out := r["output"].([]any); out[0].(map[string]any)["type"] != "function_call" {
			t.Fatalf("not paused: %v", r)
		}
		paused = append(paused, r)
	}
	c := paused[0]["output"].([]any)[0].(map[string]any)
	late := postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","previous_response_id":"`+paused[0]["id"].(string)+`",`+
		`"input":[{"type":"function_call_output","call_id":"`+c["call_id"].(string)+`","output":"hazy"}]}`)
	if text := outputText(late); text != "It is hazy in Paris." {
		t.Errorf("the evicted run's answer: %q (%v)", text, late)
	}
	if info, _ := late["rlm"].(map[string]any); !strings.Contains(fmt.Sprint(info["session_note"]), "--repl-memory-total") {
		t.Errorf("the answer does not say the paused run was evicted for memory: %v", late["rlm"])
	}
}

// newChildren lists this process's child processes that are not in before.
func newChildren(before []string) []string {
	after, _ := proctest.Children()
	var pids []string
	for _, pid := range after {
		if !slices.Contains(before, pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// workerTicks sums the CPU clock ticks (user and system) and resident
// memory of processes, from /proc.
func workerTicks(pids []string) (ticks int64, rssKB int64) {
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		rss, _ := strconv.ParseInt(f[21], 10, 64)
		ticks += ut + st
		rssKB += rss * int64(os.Getpagesize()) / 1024
	}
	return ticks, rssKB
}

// TestKeptSessionIdleCost (the audit's kept sessions that burn CPU): a
// response whose cell left a goroutine spinning ends; its REPL session is
// kept for a follow-up, and while kept it uses no CPU. The follow-up then
// runs in the same session.
func TestKeptSessionIdleCost(t *testing.T) {
	if testing.Short() {
		t.Skip("measures a kept worker's CPU for 2 s")
	}
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.FirstUser(), "again") || strings.Contains(req.LastUser(), "again") {
			return fakellm.Reply{Content: fakellm.Code(`FINAL(fmt.Sprint("spun: ", spins.Load() > 0))`)}
		}
		// The cell waits until the goroutine has spun, so that the
		// follow-up's answer does not depend on how a loaded machine
		// scheduled it before the session was kept.
		return fakellm.Reply{Content: fakellm.Code(`var spins atomic.Int64
go func() { for { spins.Add(1) } }()
for spins.Load() == 0 {
	time.Sleep(time.Millisecond)
}
FINAL("spinning")`)}
	})
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--repl-workers", "0")...)
	before, _ := proctest.Children()
	first := postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","input":"spin"}`)
	if outputText(first) != "spinning" {
		t.Fatalf("first response: %v", first)
	}
	workers := newChildren(before)
	if len(workers) != 1 {
		t.Fatalf("%d new worker processes, want the kept one", len(workers))
	}
	t0, _ := workerTicks(workers)
	time.Sleep(2 * time.Second)
	t1, _ := workerTicks(workers)
	t.Logf("a kept session with a spinning goroutine: %d CPU clock ticks in 2 s", t1-t0)
	if t1-t0 > 2 {
		t.Errorf("a kept session used %d clock ticks of CPU in 2 s; its worker should be stopped", t1-t0)
	}
	next := postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","input":"again","previous_response_id":"`+first["id"].(string)+`"}`)
	if info, _ := next["rlm"].(map[string]any); info["session"] != "continued" || outputText(next) != "spun: true" {
		t.Errorf("the follow-up: %q %v", outputText(next), next["rlm"])
	}
}

// TestToolCallsRecorded: a run that paused at a client tool call and was
// resumed is one trace, whose root cell records the call with its
// arguments and output and whose pauses say how long it waited; the
// exported transcript holds the tools offered, the cell's call and what
// it returned, so that training can teach tool use.
func TestToolCallsRecorded(t *testing.T) {
	var calls atomic.Int32
	up := fakellm.New(weatherUpstream(&calls))
	defer up.Close()
	s := startServe(t, upstreamArgs(up.URL)...)
	first := postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","input":"What is the weather in Paris?","tools":[`+weatherTool+`]}`)
	c := first["output"].([]any)[0].(map[string]any)
	second := postJSON(t, s.URL+"/v1/responses", `{"model":"rlm","previous_response_id":"`+first["id"].(string)+`",`+
		`"input":[{"type":"function_call_output","call_id":"`+c["call_id"].(string)+`","output":"drizzly"}]}`)
	if outputText(second) != "It is drizzly in Paris." {
		t.Fatalf("the answer: %v", second)
	}
	tid := second["rlm"].(map[string]any)["trace_id"].(string)
	if first["rlm"].(map[string]any)["trace_id"] != tid {
		t.Errorf("the resumed run is trace %v, the paused one %v", tid, first["rlm"].(map[string]any)["trace_id"])
	}
	var tr struct {
		Status string `json:"status"`
		Pauses []struct {
			Calls   []string `json:"calls"`
			Resumed string   `json:"resumed"`
		} `json:"pauses"`
		Nodes []struct {
			Turns []struct {
				Cells []struct {
					ToolCalls []struct {
						ID, Name, Arguments string
						Output              *string
					} `json:"tool_calls"`
				} `json:"cells"`
			} `json:"turns"`
		} `json:"nodes"`
	}
	waitFor(t, func() bool {
		code, body := get(t, s.URL+"/v1/traces/"+tid)
		return code == 200 && json.Unmarshal([]byte(body), &tr) == nil && tr.Status == "completed"
	}, "the trace saved")
	if len(tr.Pauses) != 1 || len(tr.Pauses[0].Calls) != 1 || tr.Pauses[0].Calls[0] != c["call_id"] || tr.Pauses[0].Resumed == "" {
		t.Errorf("pauses %+v", tr.Pauses)
	}
	var recorded []string
	for _, n := range tr.Nodes {
		for _, tu := range n.Turns {
			for _, cell := range tu.Cells {
				for _, tc := range cell.ToolCalls {
					if tc.Output != nil {
						recorded = append(recorded, tc.ID+" "+tc.Name+tc.Arguments+" -> "+*tc.Output)
					}
				}
			}
		}
	}
	if want := c["call_id"].(string) + ` get_weather{"city":"Paris"} -> drizzly`; !slices.Equal(recorded, []string{want}) {
		t.Errorf("recorded tool calls %q, want %q", recorded, want)
	}
	var code int
	var body string
	waitFor(t, func() bool { // saved in the background
		code, body = get(t, s.URL+"/v1/traces/export?format=sft-transcript")
		return code != 200 || body != ""
	}, "the trace exported")
	for _, want := range []string{"get_weather", `get_weather(map[string]any{\"city\": \"Paris\"})`, "weather: drizzly"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("the exported transcript (%d) lacks %q:\n%.3000q", code, want, body)
		}
	}
}
