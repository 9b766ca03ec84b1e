// Command serveload measures the serving throughput of an OpenAI-compatible
// completions endpoint (rlm model serve, vLLM, any server that takes token
// ids as a prompt and vLLM's ignore_eos), the way vLLM's own serving
// benchmark does with random prompts: at each concurrency level it keeps
// that many requests in flight until -requests have been answered, every
// request a prompt of -prompt-tokens random token ids (a different one
// each, so that no prefix cache helps) and exactly -max-tokens new tokens
// (ignore_eos). It prints, per level, requests/s, output tokens/s and the
// request latency's p50 and p90:
//
//	rlm model serve --listen 127.0.0.1:8081 CHECKPOINT &
//	go run ./bench/serveload -url http://127.0.0.1:8081/v1 -concurrency 16,64,256
//
// A request that fails fails the run: a throughput with errors in it would
// look better than the server is.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlm-project/rlm/api"
)

type config struct {
	url, model, key      string
	promptTokens, maxNew int
	vocab                int
	requests             int
	levels               []int
	timeout              time.Duration
	seed                 uint64
}

func main() {
	var c config
	var levels string
	flag.StringVar(&c.url, "url", "http://127.0.0.1:8081/v1", "the server's base `URL` (…/v1)")
	flag.StringVar(&c.model, "model", "", "model name sent with each request (default: the first of /v1/models)")
	flag.StringVar(&c.key, "key", os.Getenv("SERVELOAD_API_KEY"), "API key (default $SERVELOAD_API_KEY)")
	flag.IntVar(&c.promptTokens, "prompt-tokens", 512, "tokens in each prompt")
	flag.IntVar(&c.maxNew, "max-tokens", 128, "new tokens each request generates (ignore_eos)")
	flag.IntVar(&c.vocab, "vocab", 2000, "prompt token ids are drawn from [10, `N`): at most the model's vocabulary")
	flag.IntVar(&c.requests, "requests", 0, "requests per level (default: 4 times the level, at least 32)")
	flag.StringVar(&levels, "concurrency", "16,64,256", "comma-separated numbers of requests in flight")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Minute, "limit for each request")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the random prompts")
	flag.Parse()
	for _, f := range strings.Split(levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "serveload: -concurrency: %q is not a positive number\n", f)
			os.Exit(2)
		}
		c.levels = append(c.levels, n)
	}
	if c.promptTokens < 1 || c.maxNew < 1 || c.vocab <= 10 {
		fmt.Fprintln(os.Stderr, "serveload: -prompt-tokens and -max-tokens must be at least 1, -vocab more than 10")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

// result is one level's measurement.
type result struct {
	requests, outputTokens int
	elapsed                time.Duration
	latencies              []time.Duration
}

func run(ctx context.Context, c config, out io.Writer) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: slices.Max(c.levels)}}
	if c.model == "" {
		m, err := firstModel(ctx, client, c)
		if err != nil {
			return err
		}
		c.model = m
	}
	fmt.Fprintf(out, "serveload: %s model %s, prompts of %d tokens, %d new tokens each (ignore_eos), %s\n",
		c.url, c.model, c.promptTokens, c.maxNew, time.Now().UTC().Format("2006-01-02 15:04"))
	fmt.Fprintf(out, "%11s %8s %10s %14s %10s %10s\n", "concurrency", "requests", "requests/s", "output tok/s", "p50 s", "p90 s")
	rng := rand.New(rand.NewPCG(c.seed, 0))
	for _, level := range c.levels {
		n := c.requests
		if n == 0 {
			n = max(4*level, 32)
		}
		res, err := measure(ctx, client, c, level, n, rng)
		if err != nil {
			return fmt.Errorf("concurrency %d: %w", level, err)
		}
		secs := res.elapsed.Seconds()
		fmt.Fprintf(out, "%11d %8d %10.2f %14.1f %10.3f %10.3f\n", level, res.requests,
			float64(res.requests)/secs, float64(res.outputTokens)/secs, pct(res.latencies, 0.5), pct(res.latencies, 0.9))
	}
	return nil
}

// measure sends n requests, level of them in flight at a time.
func measure(ctx context.Context, client *http.Client, c config, level, n int, rng *rand.Rand) (result, error) {
	bodies := make(chan []byte, n)
	for range n {
		b, err := requestBody(c, rng)
		if err != nil {
			return result{}, err
		}
		bodies <- b
	}
	close(bodies)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	res := result{requests: n}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for range min(level, n) {
		wg.Go(func() {
			for body := range bodies {
				t := time.Now()
				tokens, err := complete(ctx, client, c, body)
				if err != nil {
					cancel(err)
					return
				}
				mu.Lock()
				res.outputTokens += tokens
				res.latencies = append(res.latencies, time.Since(t))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	if err := context.Cause(ctx); err != nil {
		return res, err
	}
	return res, nil
}

// requestBody is one request: a prompt of random token ids, exactly
// c.maxNew new tokens, greedy.
func requestBody(c config, rng *rand.Rand) ([]byte, error) {
	ids := make([]int, c.promptTokens)
	for i := range ids {
		ids[i] = 10 + rng.IntN(c.vocab-10)
	}
	prompt, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	temp := 0.0
	req := api.CompletionRequest{Prompt: prompt}
	req.Model, req.MaxTokens, req.Temperature, req.IgnoreEOS = c.model, &c.maxNew, &temp, true
	return json.Marshal(req)
}

// complete sends one request and returns the tokens it generated, which
// must be all it was asked for.
func complete(ctx context.Context, client *http.Client, c config, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/completions", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d: %s", resp.StatusCode, clip(raw))
	}
	var tc struct {
		Usage api.Usage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &tc); err != nil {
		return 0, fmt.Errorf("decoding the answer: %w: %s", err, clip(raw))
	}
	if tc.Usage.CompletionTokens != c.maxNew {
		return 0, fmt.Errorf("%d tokens generated, %d asked for with ignore_eos: %s", tc.Usage.CompletionTokens, c.maxNew, clip(raw))
	}
	return tc.Usage.CompletionTokens, nil
}

// firstModel is the id of the first model /v1/models lists.
func firstModel(ctx context.Context, client *http.Client, c config) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"/models", nil)
	if err != nil {
		return "", err
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("listing models: %w", err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []api.Model `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return "", fmt.Errorf("listing models: %w", err)
	}
	if len(list.Data) == 0 {
		return "", errors.New("the server lists no model: give -model")
	}
	return list.Data[0].ID, nil
}

// pct is the q-quantile of ds in seconds (nearest rank).
func pct(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(int(q*float64(len(s))), len(s)-1)
	return s[i].Seconds()
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
