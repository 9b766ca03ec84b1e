// Command goclient asks the rlm gateway a question about a long text with
// go-openai, the way any Go program already talking to OpenAI would: only
// the base URL changes.
//
//	go run ./examples/goclient                  # a generated log and a question about it
//	RLM_URL=http://127.0.0.1:8080 RLM_API_KEY=secret go run ./examples/goclient app.log "How many lines are warnings?"
//
// Without arguments it asks "What is the ticket of the disk-full alert?"
// of a generated log: OPS-7719, from the built-in demo model of an rlm
// serve with nothing configured as from a real model. A question of your
// own may need a real model (rlm serve --upstream URL --root-model NAME);
// it says so when the server runs the built-in one.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

func main() {
	var text []byte
	question := "What is the ticket of the disk-full alert?"
	switch len(os.Args) {
	case 1:
		text = []byte(exampleLog())
	case 3:
		var err error
		if text, err = os.ReadFile(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "goclient:", err)
			os.Exit(1)
		}
		question = os.Args[2]
	default:
		fmt.Fprintln(os.Stderr, "usage: goclient [FILE QUESTION]")
		os.Exit(2)
	}
	if err := run(context.Background(), string(text), question, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "goclient:", err)
		os.Exit(1)
	}
}

// exampleLog is the log examples/curl.sh uploads: a web server's, a line
// a second for 2,000 seconds, every 50th a disk warning, and one note with
// a ticket number.
func exampleLog() string {
	var b strings.Builder
	for i := range 2000 {
		ts := fmt.Sprintf("2026-11-28T10:%02d:%02dZ", i/60, i%60)
		if i == 1234 {
			fmt.Fprintf(&b, "%s NOTE the ticket of the disk-full alert is OPS-7719\n", ts)
		}
		if i%50 == 7 {
			fmt.Fprintf(&b, "%s WARN disk /var is 97%% full\n", ts)
		} else {
			fmt.Fprintf(&b, "%s INFO GET /api/items 200 in %dms\n", ts, i%13+2)
		}
	}
	return b.String()
}

func run(ctx context.Context, text, question string, stdout, stderr io.Writer) error {
	base := os.Getenv("RLM_URL")
	if base == "" {
		base = "http://127.0.0.1:8080"
	}
	cfg := openai.DefaultConfig(os.Getenv("RLM_API_KEY"))
	cfg.BaseURL = base + "/v1"
	client := openai.NewClientWithConfig(cfg)
	model := "rlm"
	if builtin, err := servedByBuiltin(ctx, base, os.Getenv("RLM_API_KEY")); err == nil && builtin {
		fmt.Fprintln(stderr, "note: the server answers with its built-in demo model rlm-tiny-demo, which only looks facts up in documents; "+
			"other questions need a real model (rlm serve --upstream URL --root-model NAME)")
	}
	// A long message is offloaded into the REPL by the server; the model
	// reads it through code, never whole. The question, short, stays in
	// view.
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: text},
		{Role: openai.ChatMessageRoleUser, Content: question}}

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

// servedByBuiltin reports whether the gateway's models are answered by its
// built-in model, as /v1/models says in each model's rlm.served_by.
func servedByBuiltin(ctx context.Context, base, key string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/models", nil)
	if err != nil {
		return false, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			RLM struct {
				ServedBy string `json:"served_by"`
			} `json:"rlm"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return false, err
	}
	return len(list.Data) > 0 && list.Data[0].RLM.ServedBy == "builtin", nil
}
