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
