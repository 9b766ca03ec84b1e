package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rlm-project/rlm/gateway"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/upstream"
)

// ExampleNew embeds the gateway in a program: a disk store, one model
// alias, an OpenAI-compatible upstream; then any OpenAI client can talk to
// it. The binary must call repl.MaybeRunWorker first thing in main (this
// test binary's TestMain does), as it is also the REPL worker.
func ExampleNew() {
	// A scripted fake upstream stands in for a real one (vLLM, OpenAI):
	// it is a test double, not a model, and answers every question at once.
	up := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "FINAL(Paris)"} })
	defer up.Close()
	dir, err := os.MkdirTemp("", "gateway-example-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	g, err := gateway.New(context.Background(), gateway.Config{
		Logger: slog.New(slog.DiscardHandler),
		Store:  gateway.StoreConfig{Kind: gateway.StoreDisk, Dir: dir},
		Models: []gateway.Model{{Alias: "rlm", Upstream: "some-model"}},
		Engine: gateway.EngineConfig{Upstream: upstream.Config{BaseURL: up.URL}},
		Probe:  gateway.ProbeConfig{Timeout: 5 * time.Second},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go g.Serve(ln)

	resp, err := http.Post("http://"+ln.Addr().String()+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"What is the capital of France?"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	var answer struct {
		Choices []struct{ Message struct{ Content string } }
	}
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil || len(answer.Choices) == 0 {
		log.Fatalf("%s: %v", resp.Status, err)
	}
	fmt.Println(answer.Choices[0].Message.Content)

	// Requests in flight get ten seconds to finish; then Close (deferred)
	// releases the rest.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.Shutdown(ctx); err != nil {
		log.Fatal(err)
	}
	// Output: Paris
}
