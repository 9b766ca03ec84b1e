// Package modelcmd is `rlm model serve`: one of our checkpoints (or the
// built-in model) behind the OpenAI-compatible model server of
// inference/modelserver, with the engine's settings as flags.
package modelcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/inference/modelserver"
)

// Command is `rlm model` in rlm's list of commands.
var Command = cli.Command{Summary: "serve a local Qwen3 checkpoint as an OpenAI-compatible model server", Run: Run,
	Tables: func(env cli.Env) []*cli.Settings { return []*cli.Settings{newServeFlags(env, io.Discard).settings} }}

// Run runs `rlm model` with the arguments after "model"; its one
// subcommand is serve.
func Run(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(stderr, "Usage: rlm model serve [flags] CHECKPOINT_DIR\n\nRun `rlm model serve -h` for its flags; see docs/inference.md.")
		if len(args) == 0 {
			return cli.ErrUsage
		}
		return nil
	}
	if args[0] != "serve" {
		fmt.Fprintf(stderr, "rlm model: unknown subcommand %q (want serve)\n", args[0])
		return cli.ErrUsage
	}
	return runModelServe(ctx, env, args[1:], stdout, stderr)
}

// engineFlags registers the settings of an inference engine on fs.
func engineFlags(fs *flag.FlagSet) func() (inference.Config, error) {
	kv := fs.String("kv-cache", "1GiB", "KV cache pool, allocated at start: a `size` like 4GiB, or tokens like 65536tokens")
	blockSize := fs.Int("block-size", 16, "tokens per KV cache block (the unit of allocation and prefix reuse)")
	maxSeqs := fs.Int("max-seqs", 64, "sequences decoded together in one step")
	maxBatch := fs.Int("max-batch-tokens", 512, "tokens in one forward step; longer prompts are prefilled in chunks")
	window := fs.String("model-window", "auto", "longest prompt plus completion in tokens (8192, 32k); auto: the model's max_position_embeddings, at most the KV cache")
	maxQueued := fs.Int("max-queued", 256, "requests waiting to start; one more gets 429 at once")
	queueWait := fs.Duration("queue-wait", 60*time.Second, "how long a request may wait for KV cache memory before 429")
	noPrefix := fs.Bool("no-prefix-cache", false, "do not reuse cached KV blocks across requests")
	lora := fs.String("lora", "", "PEFT LoRA adapter `directory` (from rlm train sft --lora-rank, or PEFT) merged into the weights at load")
	return func() (inference.Config, error) {
		c, err := cli.ParseKVCache(*kv)
		if err != nil {
			return c, cli.BadFlag("--kv-cache: %v", err)
		}
		for _, p := range []struct {
			name string
			v    int
		}{{"block-size", *blockSize}, {"max-seqs", *maxSeqs}, {"max-batch-tokens", *maxBatch}, {"max-queued", *maxQueued}} {
			if p.v <= 0 {
				return c, cli.BadFlag("--%s %d: must be positive", p.name, p.v)
			}
		}
		if *queueWait <= 0 {
			return c, cli.BadFlag("--queue-wait must be positive")
		}
		if *window != "auto" {
			n, err := eval.ParseLength(*window)
			if err != nil {
				return c, cli.BadFlag("--model-window: want auto or a number of tokens like 8192 or 32k: %q", *window)
			}
			c.MaxModelLen = n
		}
		c.BlockSize, c.MaxSeqs, c.MaxBatchTokens = *blockSize, *maxSeqs, *maxBatch
		c.MaxQueued, c.QueueWait, c.NoPrefixCache = *maxQueued, *queueWait, *noPrefix
		c.LoRA = *lora
		return c, nil
	}
}

// serveFlags are the flags of `rlm model serve`, all of them settings.
type serveFlags struct {
	settings              *cli.Settings
	fs                    *flag.FlagSet
	engine                func() (inference.Config, error)
	listen, keys, name    string
	maxBody               string
	retryAfter            time.Duration
	maxMessages, maxParts int
	maxPrompts            int
	device, precision     string
}

// newServeFlags defines the flags of `rlm model serve`, whose help goes
// to stderr.
func newServeFlags(env cli.Env, stderr io.Writer) *serveFlags {
	fs := flag.NewFlagSet("model serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &serveFlags{fs: fs, settings: cli.NewSettings("model serve", fs, env)}
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: rlm model serve [flags] CHECKPOINT_DIR\n\nServes a Qwen3 checkpoint (ours from `rlm train`, or Hugging Face's; builtin: the model built into rlm)\nat /v1/chat/completions, /v1/completions and /v1/models. See docs/inference.md.")
		f.settings.PrintUsage(stderr)
	}
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8000", "address to listen on")
	fs.StringVar(&f.keys, "api-key", "", "API `key` clients must send as a Bearer token, or several separated by commas; empty: open server (a warning at start says so)")
	fs.StringVar(&f.name, "name", "", "model name clients use; empty: the checkpoint directory's name")
	fs.StringVar(&f.maxBody, "max-request-bytes", cli.FormatSize(modelserver.DefaultMaxRequestBytes), "largest request `size`")
	fs.DurationVar(&f.retryAfter, "retry-after", time.Second, "Retry-After sent with 429")
	fs.IntVar(&f.maxMessages, "max-messages", api.DefaultMaxMessages, "messages in one chat request; counted while the body is decoded, one more is refused with 400")
	fs.IntVar(&f.maxParts, "max-content-parts", api.DefaultMaxContentParts, "content parts of all messages of one chat request together; counted while the body is decoded")
	fs.IntVar(&f.maxPrompts, "max-prompts", modelserver.DefaultMaxPrompts, "prompts in one /v1/completions request; counted while the body is decoded")
	f.engine = engineFlags(fs)
	fs.StringVar(&f.device, "device", "auto", "where the model runs: auto (a GPU when there is one, and the log says so; else the CPU), cpu, cuda or cuda:N")
	fs.StringVar(&f.precision, "precision", "bf16", "arithmetic of matrix products and attention on a GPU: bf16, tf32 or fp32")
	return f
}

func runModelServe(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	f := newServeFlags(env, stderr)
	pos, err := f.settings.ParseInterspersed(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "rlm model serve: want one checkpoint directory (or builtin): rlm model serve [flags] CHECKPOINT_DIR; `rlm model serve -h` lists its flags")
		return cli.ErrUsage
	}
	cfg, err := f.engine()
	if err != nil {
		return err
	}
	cfg.Name = f.name
	dev, err := cli.ParseDevice(f.device, f.precision)
	if err != nil {
		return cli.BadFlag("model serve: %v", err)
	}
	limit, err := cli.ParseSize(f.maxBody)
	if err != nil {
		return cli.BadFlag("--max-request-bytes: %v", err)
	}
	if f.maxMessages <= 0 || f.maxParts <= 0 || f.maxPrompts <= 0 {
		return cli.BadFlag("--max-messages, --max-content-parts and --max-prompts must be positive")
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	e, err := cli.LoadModel(pos[0], cfg, dev, stderr)
	if err != nil {
		return err
	}
	defer e.Close()
	var keyList []string
	for _, k := range strings.Split(f.keys, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keyList = append(keyList, k)
		}
	}
	h := modelserver.New(e, modelserver.Config{Keys: keyList, MaxRequestBytes: limit, RetryAfter: f.retryAfter, Logger: log,
		MaxMessages: f.maxMessages, MaxContentParts: f.maxParts, MaxPrompts: f.maxPrompts})
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("model serve: %w", err)
	}
	st := e.Stats()
	log.Info("rlm model serve listening", "addr", "http://"+ln.Addr().String(), "model", e.Name(),
		"kv_cache_tokens", st.KVBlocks*st.KVBlockSize, "kv_bytes_per_token", st.KVBytesPerToken, "max_model_len", e.MaxModelLen())
	if len(keyList) == 0 {
		warnOpen(log, ln.Addr())
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	return serveUntilDone(ctx, &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln)
}

// warnOpen says that a server without API keys answers anyone who can
// reach addr: loudly when addr is not a loopback address.
func warnOpen(log *slog.Logger, addr net.Addr) {
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		log.Info("no API key: the server is open to anyone on this machine; set --api-key or RLM_API_KEY to require one")
		return
	}
	log.Warn("NO API KEY: the server is open to anyone who can reach " + addr.String() + "; set --api-key or RLM_API_KEY")
}

// serveUntilDone serves on ln until the server fails or ctx ends, then
// shuts it down, giving requests in flight 10 seconds.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
