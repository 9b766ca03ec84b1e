package recursion

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// The client-tool tests run the real REPL and a scripted root (a fake
// upstream, a test double): its cells call the client's tools, and the
// test plays the client, resuming each pause with outputs.

var weatherTool = Tool{Name: "get_weather", Description: "The weather in a city.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

// toolScript answers turn 1 with cell, and later turns with FINAL of what
// the last cell printed.
func toolScript(cell string) fakellm.Script {
	return func(req fakellm.Request) fakellm.Reply {
		if req.Turn() == 1 {
			return fakellm.Reply{Content: fakellm.Code(cell)}
		}
		out := req.LastUser()
		if i := strings.Index(out, "Output:"); i >= 0 {
			out = out[i+len("Output:"):]
		}
		return fakellm.Reply{Content: "FINAL(" + strings.TrimSpace(strings.SplitN(strings.TrimSpace(out), "\n", 2)[0]) + ")"}
	}
}

func TestToolCallPausesAndResumes(t *testing.T) {
	t.Parallel()
	e, _, _ := realEngine(t, toolScript(`fmt.Println("got", get_weather(map[string]any{"city": "Paris"}))`), Config{})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("What is the weather in Paris?"), Tools: []Tool{weatherTool}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopToolCalls || len(res.ToolCalls) != 1 || res.Paused == nil {
		t.Fatalf("got %s %+v, want a pause at one call", res.StopReason, res.ToolCalls)
	}
	call := res.ToolCalls[0]
	if call.Name != "get_weather" || call.Arguments != `{"city":"Paris"}` || !strings.HasPrefix(call.ID, "call_") {
		t.Errorf("call %+v", call)
	}
	if _, err := res.Paused.Resume(t.Context(), map[string]string{}); !errors.As(err, new(*MissingOutputsError)) {
		t.Errorf("resume without the output: %v, want MissingOutputsError", err)
	}
	res, err = res.Paused.Resume(t.Context(), map[string]string{call.ID: "sunny, 21C"})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopFinal || !strings.Contains(res.Answer, "got sunny, 21C") {
		t.Errorf("after the output: %s %q", res.StopReason, res.Answer)
	}
}

// TestParallelToolCalls: calls made at once come back in one pause: 100
// from a batched call, 3 from goroutines; with serial calls, one at a time.
func TestParallelToolCalls(t *testing.T) {
	t.Parallel()
	batched := `var args []any
for i := range 100 { args = append(args, map[string]any{"city": fmt.Sprint("c", i)}) }
out := get_weather_batched(args)
fmt.Println(len(out), out[0], out[99])`
	goroutines := `var wg sync.WaitGroup
out := make([]string, 3)
for i := range 3 { wg.Add(1); go func() { defer wg.Done(); out[i] = get_weather(map[string]any{"city": fmt.Sprint("g", i)}) }() }
wg.Wait()
fmt.Println(out)`
	for _, tt := range []struct {
		name   string
		cell   string
		serial bool
		pauses []int // calls per pause
		answer string
	}{
		{"batched", batched, false, []int{100}, "100 w:c0 w:c99"},
		{"goroutines", goroutines, false, []int{3}, "[w:g0 w:g1 w:g2]"},
		{"goroutines, serial", goroutines, true, []int{1, 1, 1}, "[w:g0 w:g1 w:g2]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, _, _ := realEngine(t, toolScript(tt.cell), Config{})
			res, err := e.Run(t.Context(), Request{Messages: userMsg("weather"), Tools: []Tool{weatherTool}, SerialToolCalls: tt.serial})
			var pauses []int
			for err == nil && res.StopReason == StopToolCalls {
				pauses = append(pauses, len(res.ToolCalls))
				outs := map[string]string{}
				for _, c := range res.ToolCalls {
					var a struct{ City string }
					json.Unmarshal([]byte(c.Arguments), &a)
					outs[c.ID] = "w:" + a.City
				}
				res, err = res.Paused.Resume(t.Context(), outs)
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(pauses) != fmt.Sprint(tt.pauses) || res.StopReason != StopFinal || !strings.Contains(res.Answer, tt.answer) {
				t.Errorf("pauses %v, end %s %q; want pauses %v and %q", pauses, res.StopReason, res.Answer, tt.pauses, tt.answer)
			}
		})
	}
}

// TestToolCallChecks: arguments are checked before a call goes out, a call
// the conversation answered already is not made again, tool_choice none
// makes the tools uncallable, and a child RLM cannot call them.
func TestToolCallChecks(t *testing.T) {
	t.Parallel()
	cell := `fmt.Println(get_weather(map[string]any{"town": "x"}))
fmt.Println(get_weather(map[string]any{"city": "Oslo"}))`
	check := func(args []byte) error {
		var a map[string]any
		json.Unmarshal(args, &a)
		if _, ok := a["city"]; !ok {
			return errors.New("/city: missing")
		}
		return nil
	}
	tool := weatherTool
	tool.Check = check
	e, _, _ := realEngine(t, toolScript(cell), Config{})
	known := []ToolOutput{{ToolCall: ToolCall{ID: "call_old", Name: "get_weather", Arguments: `{ "city" : "Oslo" }`}, Output: "snow"}}
	res, err := e.Run(t.Context(), Request{Messages: userMsg("weather"), Tools: []Tool{tool}, ToolOutputs: known})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopFinal || !strings.Contains(res.Answer, "invalid arguments: /city: missing") {
		t.Fatalf("got %s %q", res.StopReason, res.Answer)
	}
	e2, _, _ := realEngine(t, toolScript(`fmt.Println(get_weather(map[string]any{"city": "x"}))`), Config{})
	res, err = e2.Run(t.Context(), Request{Messages: userMsg("weather"), Tools: []Tool{weatherTool}, ToolChoice: ToolChoice{Mode: "none"}})
	if err != nil || res.StopReason != StopFinal || !strings.Contains(res.Answer, "tool_choice none") {
		t.Errorf("tool_choice none: %v %s %q", err, res.StopReason, res.Answer)
	}
}

// TestToolChoiceRequired: a FINAL before any call is refused back to the
// model when the client requires a call.
func TestToolChoiceRequired(t *testing.T) {
	t.Parallel()
	script := func(req fakellm.Request) fakellm.Reply {
		last := req.LastUser()
		switch {
		case strings.Contains(last, "FINAL refused") && strings.Contains(last, "tool_choice"):
			return fakellm.Reply{Content: fakellm.Code(`fmt.Println(get_weather(map[string]any{"city": "Lima"}))`)}
		case strings.Contains(last, "w:Lima"):
			return fakellm.Reply{Content: "FINAL(done)"}
		}
		return fakellm.Reply{Content: "FINAL(no tool needed)"}
	}
	e, _, _ := realEngine(t, script, Config{})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("weather"), Tools: []Tool{weatherTool}, ToolChoice: ToolChoice{Mode: "required"}})
	if err != nil || res.StopReason != StopToolCalls {
		t.Fatalf("got %v %s %q, want a pause", err, res.StopReason, res.Answer)
	}
	res, err = res.Paused.Resume(t.Context(), map[string]string{res.ToolCalls[0].ID: "w:Lima"})
	if err != nil || res.StopReason != StopFinal || res.Answer != "done" {
		t.Errorf("got %v %s %q", err, res.StopReason, res.Answer)
	}
}

// TestPausedRunClockAndClose: the wall time does not run while the run
// waits for the client, and a paused run that is closed ends, its worker
// gone.
func TestPausedRunClockAndClose(t *testing.T) {
	t.Parallel()
	e, _, pool := realEngine(t, toolScript(`fmt.Println(get_weather(map[string]any{"city": "x"}))`), Config{})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("weather"), Tools: []Tool{weatherTool}, Limits: Limits{Timeout: time.Second}})
	if err != nil || res.StopReason != StopToolCalls {
		t.Fatalf("got %v %s", err, res.StopReason)
	}
	time.Sleep(1500 * time.Millisecond) // longer than the run may take
	res2, err := res.Paused.Resume(t.Context(), map[string]string{res.ToolCalls[0].ID: "fine"})
	if err != nil || res2.StopReason != StopFinal {
		t.Fatalf("after a pause longer than its timeout: %v %s %q", err, res2.StopReason, res2.Answer)
	}
	res, err = e.Run(t.Context(), Request{Messages: userMsg("weather"), Tools: []Tool{weatherTool}})
	if err != nil || res.StopReason != StopToolCalls {
		t.Fatalf("got %v %s", err, res.StopReason)
	}
	res.Paused.Close()
	if _, err := res.Paused.Resume(t.Context(), map[string]string{res.ToolCalls[0].ID: "late"}); !errors.Is(err, ErrNotPaused) {
		t.Errorf("resume after close: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if idle, busy := pool.Workers(); busy == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("a closed paused run still holds a worker (idle %d, busy %d)", idle, busy)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
