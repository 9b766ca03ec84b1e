// Command goclient asks the rlm gateway a question about a long text with
// go-openai, the way any Go program already talking to OpenAI would: only
// the base URL changes.
//
//	RLM_URL=http://127.0.0.1:8080 RLM_KEY=secret go run ./examples/goclient app.log "How many lines say FAIL?"
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	openai "github.com/sashabaranov/go-openai"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goclient FILE QUESTION")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1], os.Args[2], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "goclient:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, file, question string, stdout, stderr io.Writer) error {
	text, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	base := os.Getenv("RLM_URL")
	if base == "" {
		base = "http://127.0.0.1:8080"
	}
	cfg := openai.DefaultConfig(os.Getenv("RLM_KEY"))
	cfg.BaseURL = base + "/v1"
	client := openai.NewClientWithConfig(cfg)
	model := os.Getenv("RLM_MODEL")
	if model == "" {
		model = "rlm"
	}
	// A long message is offloaded into the REPL by the server; the model
	// reads it through code, never whole.
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: question + "\n\n" + string(text)}}

	resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: model, Messages: msgs})
	if err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	fmt.Fprintf(stderr, "trace %s, %d tokens, finish_reason %s\n",
		resp.Header().Get("X-RLM-Trace-Id"), resp.Usage.TotalTokens, resp.Choices[0].FinishReason)
	fmt.Fprintln(stdout, resp.Choices[0].Message.Content)

	// The same question, streamed.
	stream, err := client.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{Model: model, Messages: msgs, Stream: true})
	if err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("stream: %w", err)
		}
		for _, c := range chunk.Choices {
			fmt.Fprint(stdout, c.Delta.Content)
		}
	}
	fmt.Fprintln(stdout)
	return nil
}
