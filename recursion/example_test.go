package recursion_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// scripted stands in for a model (any llm.Client: an OpenAI
// upstream, a local model): it always writes the same cell.
type scripted string

func (s scripted) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	return llm.Completion{Content: string(s), FinishReason: "stop"}, nil
}

// An engine over a REPL pool runs one request: the attached document is
// offloaded into the REPL, the model's cell searches it and calls FINAL.
func ExampleEngine() {
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	model := scripted("```go\ni := strings.Index(context, \"KX-\")\nFINAL(context[i : i+7])\n```")
	engine, err := recursion.New(recursion.Config{Root: model, RootModel: "scripted", Sandbox: recursion.PoolSandbox(pool)})
	if err != nil {
		log.Fatal(err)
	}

	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(path, []byte("Servers.\nThe deploy key of staging is KX-4471.\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	res, err := engine.Run(context.Background(), recursion.Request{
		Messages:  []llm.Message{{Role: "user", Content: "What is the deploy key of staging?"}},
		Documents: []recursion.Document{{Name: "notes.txt", Path: path}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Answer, res.StopReason, res.Iterations)
	// Output: KX-4471 final 1
}

// turns stands in for a model that writes one reply per root turn, the
// first for the first turn of the conversation.
type turns []string

func (t turns) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return llm.Completion{Content: t[min(n, len(t)-1)], FinishReason: "stop"}, nil
}

// A run that keeps its REPL session (Keep) is continued by a follow-up
// (Continue): the follow-up's cell reads the variable the first run's
// cell defined.
func ExampleConversation() {
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	model := turns{
		"```go\ntotal := 17 + 25\nFINAL(\"noted\")\n```",      // the first run's turn
		"```go\nFINAL(fmt.Sprint(\"total is \", total))\n```", // the follow-up's
	}
	engine, err := recursion.New(recursion.Config{Root: model, RootModel: "scripted", Sandbox: recursion.PoolSandbox(pool)})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	first, err := engine.Run(ctx, recursion.Request{Messages: []llm.Message{{Role: "user", Content: "Add 17 and 25."}}, Keep: true})
	if err != nil {
		log.Fatal(err)
	}
	defer first.Conversation.Close()
	second, err := engine.Run(ctx, recursion.Request{Messages: []llm.Message{{Role: "user", Content: "What was the total?"}},
		Continue: first.Conversation})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(first.Answer, "/", second.Answer)
	// Output: noted / total is 42
}
