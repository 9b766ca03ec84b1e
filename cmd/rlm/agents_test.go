package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// The agent frameworks and client SDKs that call the gateway as their
// model, each as released on npm (tests/node), against `rlm serve` with the
// real engine and REPL and a fake upstream (a scripted test double, not a
// model).

// conversationUpstream answers a conversation about capitals: it reads the
// whole conversation the RLM shows its root (the earlier turns included),
// so the third answer is right only if the earlier turns reached it.
func conversationUpstream(req fakellm.Request) fakellm.Reply {
	view := req.LastUser()
	switch {
	case strings.Contains(view, "first"):
		if strings.Contains(view, "capital of France") && strings.Contains(view, "Paris") && strings.Contains(view, "Rome") {
			return fakellm.Reply{Content: "FINAL(You asked about Paris first.)"}
		}
		return fakellm.Reply{Content: "FINAL(I cannot tell: the earlier turns are missing.)"}
	case strings.Contains(view, "Italy"):
		return fakellm.Reply{Content: "FINAL(Rome)"}
	case strings.Contains(view, "France"):
		return fakellm.Reply{Content: "FINAL(Paris)"}
	}
	return fakellm.Reply{Content: "FINAL(?)"}
}

// TestVercelAISDK runs tests/node/vercel_sdk.mjs: the Vercel AI SDK's
// Responses provider holds a three-turn conversation with store on, its
// default, sending the earlier answers as item_reference items (it failed
// on the second turn with 400 unsupported input item type); the same
// reference from another key is not found.
func TestVercelAISDK(t *testing.T) {
	node := nodeSDK(t)
	up := fakellm.New(conversationUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "key-one,key-two")...)
	stdout := runNodeScript(t, node, "vercel_sdk.mjs", s, "RLM_KEY=key-one", "RLM_OTHER_KEY=key-two")
	var res struct {
		Turns []struct {
			Text, FinishReason, ID string
		}
		References [][]string
		Other      struct {
			Status int
			Param  string
		}
	}
	if err := json.Unmarshal(stdout, &res); err != nil {
		t.Fatalf("node output %q: %v", stdout, err)
	}
	want := []string{"Paris", "Rome", "You asked about Paris first."}
	for i, turn := range res.Turns {
		if turn.Text != want[i] || turn.FinishReason != "stop" {
			t.Errorf("turn %d: %+v, want %q", i+1, turn, want[i])
		}
	}
	if len(res.Turns) != 3 || len(res.References) != 3 || len(res.References[1]) != 1 {
		t.Errorf("turns %+v, references %v", res.Turns, res.References)
	}
	if res.Other.Status != 404 || !strings.HasPrefix(res.Other.Param, "input[0]") {
		t.Errorf("another key's reference: %+v, want 404 on input[0].id", res.Other)
	}
}

// runAgentScript runs script of tests/node against `rlm serve` whose
// upstream is a fresh agentRoot, and decodes the one JSON line it prints
// into res. It returns the root, whose cells the test may count.
func runAgentScript(t *testing.T, script string, res any, env ...string) *agentRoot {
	t.Helper()
	node := nodeSDK(t)
	root := &agentRoot{}
	up := fakellm.New(root.script)
	t.Cleanup(up.Close)
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "agent-key")...)
	stdout := runNodeScript(t, node, script, s, append([]string{"RLM_KEY=agent-key"}, env...)...)
	if err := json.Unmarshal(stdout, res); err != nil {
		t.Fatalf("node %s printed %q: %v", script, stdout, err)
	}
	return root
}

// clientRequest is a request a client script sent, as the script sums it
// up: the tools it offered, the calls and outputs it carried, the response
// it followed, and the trace the server ran it in (X-RLM-Trace-Id).
type clientRequest struct {
	Path, Trace, Previous, Format string
	Tools                         []string
	Calls                         []string
	Outputs                       []struct{ ID, Content string }
}

// checkToolRoundTrip checks the two requests of a client's tool round
// trip: the first offered tool and carried no output; the second carried
// n outputs, one for each call of the first answer (which the client
// sends back with them, unless it names the previous response instead);
// with resumed, the second ran in the first's trace: the paused run went
// on, rather than the conversation running again.
func checkToolRoundTrip(t *testing.T, what string, reqs []clientRequest, tool string, n int, resumed bool) {
	t.Helper()
	if len(reqs) != 2 {
		t.Errorf("%s: %d requests, want 2 (the question, then every output at once): %+v", what, len(reqs), reqs)
		return
	}
	first, second := reqs[0], reqs[1]
	if !slices.Equal(first.Tools, []string{tool}) || len(first.Outputs) != 0 {
		t.Errorf("%s: the first request offered %v and carried %d outputs", what, first.Tools, len(first.Outputs))
	}
	ids := map[string]bool{}
	for _, o := range second.Outputs {
		ids[o.ID] = true
	}
	if len(second.Outputs) != n || len(ids) != n {
		t.Errorf("%s: the second request carried %d outputs for %d calls, want one for each of %d", what, len(second.Outputs), len(ids), n)
	}
	if second.Previous == "" {
		for _, id := range second.Calls {
			if !ids[id] {
				t.Errorf("%s: call %s has no output", what, id)
			}
		}
		if len(second.Calls) != n {
			t.Errorf("%s: the second request sent back %d calls, want %d", what, len(second.Calls), n)
		}
	}
	if resumed && (first.Trace == "" || second.Trace != first.Trace) {
		t.Errorf("%s: the outputs ran in trace %q, the calls in %q: the paused run was not resumed", what, second.Trace, first.Trace)
	}
}

// agentForecast is what the Agents SDK script's tool says of a city.
func agentForecast(city string) string {
	return fmt.Sprintf("%s-%d-drizzle", strings.ToLower(city), len(city))
}

// TestOpenAIAgentsSDK runs tests/node/agents_sdk.mjs: an agent of the
// OpenAI Agents SDK with a function tool (zod parameters) and a custom
// OpenAI client pointed at `rlm serve`, on the SDK's chat completions
// model and its Responses model, both as the SDK runs it by default (the
// whole conversation sent again with the outputs) and chained from an
// earlier response (previous_response_id and the outputs alone). The
// upstream is a fake (agentRoot, a scripted test double standing in for a
// capable model): its root's cell calls the tool for each city the
// question names, at once, and it answers from what the calls returned.
// Asked about one city, then six: the agent's final output is built from
// the tool's outputs, the tool ran once per city, the first response held
// every call (six parallel calls) and the client answered them all in one
// request. The paused run was resumed: the outputs ran in the calls'
// trace, and the root wrote one tool-calling cell per question, not a
// second one for a conversation run again.
func TestOpenAIAgentsSDK(t *testing.T) {
	for _, kind := range []string{"chat", "responses-chained", "responses"} {
		t.Run(kind, func(t *testing.T) {
			var res struct {
				Runs []struct {
					Cities, Executed []string
					FinalOutput      string
					Requests         []clientRequest
				}
			}
			root := runAgentScript(t, "agents_sdk.mjs", &res, "RLM_KIND="+kind)
			if len(res.Runs) != 2 {
				t.Fatalf("%d runs, want 2: %+v", len(res.Runs), res.Runs)
			}
			for _, run := range res.Runs {
				var want []string
				for _, c := range run.Cities {
					want = append(want, c+": "+agentForecast(c))
				}
				if run.FinalOutput != strings.Join(want, "; ") {
					t.Errorf("final output %q, want %q", run.FinalOutput, strings.Join(want, "; "))
				}
				executed := slices.Sorted(slices.Values(run.Executed))
				if !slices.Equal(executed, slices.Sorted(slices.Values(run.Cities))) {
					t.Errorf("the tool ran for %v, want once for each of %v", run.Executed, run.Cities)
				}
				checkToolRoundTrip(t, fmt.Sprint(run.Cities), run.Requests, "get_weather", len(run.Cities), true)
				if kind == "responses-chained" {
					for i, r := range run.Requests {
						if r.Previous == "" {
							t.Errorf("%v: request %d named no previous response", run.Cities, i)
						}
					}
				}
			}
			if n := root.cells.Load(); n != 2 {
				t.Errorf("the root wrote %d tool-calling cells for 2 questions, want 2", n)
			}
		})
	}
}

// TestVercelAISDKTools runs tests/node/vercel_tools.mjs: the Vercel AI
// SDK's generateText with a tool and several steps (stopWhen:
// stepCountIs), through its Responses provider and its chat provider, and
// generateObject with a zod schema through both, against `rlm serve` with
// a fake upstream (agentRoot, a scripted test double standing in for a
// capable model: its root's cell calls the tool for both cities the
// question names, at once, and answers from the outputs; told a JSON
// answer format, it builds the object). generateText takes two steps, the
// first with both calls, and answers with the tool's outputs; the tool ran
// once per call; the SDK answered both calls in one request, which
// resumed the paused run. generateObject gets the object the root
// built, in one request that asked for a json_schema format.
func TestVercelAISDKTools(t *testing.T) {
	type textResult struct {
		Text      string
		Steps     int
		ToolCalls []int
		Executed  []string
		Requests  []clientRequest
	}
	type objectResult struct {
		Object       map[string]string
		FinishReason string
		Requests     []clientRequest
	}
	var res struct {
		Responses, Chat             textResult
		ObjectResponses, ObjectChat objectResult
	}
	runAgentScript(t, "vercel_tools.mjs", &res)
	for api, r := range map[string]textResult{"responses": res.Responses, "chat": res.Chat} {
		if r.Text != "Paris: sunny; Tokyo: typhoon" || r.Steps != 2 || !slices.Equal(r.ToolCalls, []int{2, 0}) {
			t.Errorf("%s: generateText gave %q in %d steps, tool calls per step %v", api, r.Text, r.Steps, r.ToolCalls)
		}
		if !slices.Equal(slices.Sorted(slices.Values(r.Executed)), []string{"Paris", "Tokyo"}) {
			t.Errorf("%s: the tool ran for %v", api, r.Executed)
		}
		checkToolRoundTrip(t, api, r.Requests, "get_weather", 2, true)
	}
	for api, r := range map[string]objectResult{"responses": res.ObjectResponses, "chat": res.ObjectChat} {
		if r.Object["city"] != "Lima" || r.Object["forecast"] != "foggy" || len(r.Object) != 2 || r.FinishReason != "stop" {
			t.Errorf("%s: generateObject gave %v (finish %q)", api, r.Object, r.FinishReason)
		}
		if len(r.Requests) != 1 || r.Requests[0].Format != "json_schema" {
			t.Errorf("%s: generateObject sent %+v, want one request with a json_schema format", api, r.Requests)
		}
	}
}

// TestLangChainAgent runs tests/node/langchain_agent.mjs: a LangChain JS
// tool-calling agent (langchain's createAgent) whose model is ChatOpenAI
// pointed at `rlm serve`, on chat completions and with useResponsesApi,
// against a fake upstream (agentRoot, a scripted test double standing in
// for a capable model: its root's cell calls the tool for both cities the
// question names, at once, and answers from the outputs). The agent's
// model asked for both calls in its first turn, the tool ran once for
// each, and the agent's last message is the answer built from their
// outputs; the two model requests were the question and both outputs at
// once, which resumed the paused run.
func TestLangChainAgent(t *testing.T) {
	type agentResult struct {
		Text         string
		Executed     []string
		ToolMessages []string
		AICalls      []int
		Requests     []clientRequest
	}
	var res struct{ Chat, Responses agentResult }
	runAgentScript(t, "langchain_agent.mjs", &res)
	for api, r := range map[string]agentResult{"chat": res.Chat, "responses": res.Responses} {
		if r.Text != "Oslo: snow; Cairo: heat" || !slices.Equal(r.AICalls, []int{2, 0}) {
			t.Errorf("%s: the agent answered %q, tool calls per model turn %v", api, r.Text, r.AICalls)
		}
		if !slices.Equal(slices.Sorted(slices.Values(r.Executed)), []string{"Cairo", "Oslo"}) {
			t.Errorf("%s: the tool ran for %v", api, r.Executed)
		}
		path := map[string]string{"chat": "/v1/chat/completions", "responses": "/v1/responses"}[api]
		for _, req := range r.Requests {
			if req.Path != path {
				t.Errorf("%s: a request to %s, want %s", api, req.Path, path)
			}
		}
		checkToolRoundTrip(t, api, r.Requests, "get_weather", 2, true)
	}
}

// TestOpenAIParse runs tests/node/parse_sdk.mjs: the official npm
// client's client.responses.parse (zodTextFormat) and
// client.chat.completions.parse (zodResponseFormat), each with the facts
// in the question, and each with a function tool (zodResponsesFunction,
// zodFunction) whose output the answer is built from, against a fake
// upstream (agentRoot, a scripted test double standing in for a capable
// model: told the JSON format, its root builds the object in a cell, from
// the question's words or the tool's output). Each gives the parsed
// object; with the tool, the first answer is the call with its parsed
// arguments, and the output resumes the paused run (the root wrote one
// tool-calling cell for each of the two).
func TestOpenAIParse(t *testing.T) {
	type parsed struct {
		Parsed    map[string]string
		Arguments map[string]string
	}
	var res struct{ Responses, Chat, ResponsesTool, ChatTool parsed }
	root := runAgentScript(t, "parse_sdk.mjs", &res)
	for _, c := range []struct {
		what                  string
		got                   parsed
		city, forecast, calls string
	}{
		{"responses.parse", res.Responses, "Lima", "foggy", ""},
		{"chat.completions.parse", res.Chat, "Quito", "windy", ""},
		{"responses.parse with a tool", res.ResponsesTool, "Bern", "hail", "Bern"},
		{"chat.completions.parse with a tool", res.ChatTool, "Graz", "sleet", "Graz"},
	} {
		if c.got.Parsed["city"] != c.city || c.got.Parsed["forecast"] != c.forecast || len(c.got.Parsed) != 2 {
			t.Errorf("%s: parsed %v, want city %s, forecast %s", c.what, c.got.Parsed, c.city, c.forecast)
		}
		if c.got.Arguments["city"] != c.calls {
			t.Errorf("%s: the call's parsed arguments %v, want city %q", c.what, c.got.Arguments, c.calls)
		}
	}
	if n := root.cells.Load(); n != 2 {
		t.Errorf("the root wrote %d tool-calling cells, want 2 (one for each question with a tool; a resumed run writes no other)", n)
	}
}

// TestParallelToolCalls runs tests/node/parallel_sdk.mjs: the official npm
// client sends a document of 100 records (offloaded into the REPL) with a
// function tool, on chat completions and on Responses, against a fake
// upstream (agentRoot, a scripted test double standing in for a capable
// model: its root's cell calls the tool for each record's customer in one
// batched call and answers with the total). The first answer holds all
// 100 calls; the client runs each once and sends the 100 outputs in one
// request, which resumes the paused run (the same trace) and gets the
// total of the outputs.
func TestParallelToolCalls(t *testing.T) {
	type parallel struct {
		Calls  int
		Answer string
		Traces []string
	}
	var res struct{ Chat, Responses parallel }
	root := runAgentScript(t, "parallel_sdk.mjs", &res, "RLM_RECORDS=100")
	for api, r := range map[string]parallel{"chat": res.Chat, "responses": res.Responses} {
		if r.Calls != 100 || !strings.HasPrefix(r.Answer, "The 100 customers hold ") {
			t.Errorf("%s: %d calls in the first answer, then %q", api, r.Calls, r.Answer)
		}
		if len(r.Traces) != 2 || r.Traces[0] == "" || r.Traces[1] != r.Traces[0] {
			t.Errorf("%s: traces %v: the outputs did not resume the paused run", api, r.Traces)
		}
	}
	if n := root.cells.Load(); n != 2 {
		t.Errorf("the root wrote %d tool-calling cells, want 2", n)
	}
}
