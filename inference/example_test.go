package inference_test

import (
	"context"
	"fmt"
	"log"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/models/tinydemo"
)

// An engine over the built-in model on the CPU generates a greedy
// completion of a chat prompt; many goroutines may call Generate at once
// and share each forward step. inference.Load takes a checkpoint
// directory (config.json, model.safetensors, tokenizer.json) instead.
func ExampleEngine() {
	e, err := inference.LoadFS(backend.CPU{}, tinydemo.FS(), inference.Config{Name: tinydemo.Name, KVCacheTokens: 4096})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	prompt, err := e.EncodeChat([]tokenizer.Message{{Role: "user", Content: "What is in the context?"}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := e.Generate(context.Background(), inference.Request{Prompt: prompt, MaxTokens: 8, IgnoreEOS: true}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Tokens), "tokens,", res.FinishReason)
	// Output: 8 tokens, length
}
