package main

import (
	"encoding/json"
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
