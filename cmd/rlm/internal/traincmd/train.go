// Package traincmd is `rlm train`: the command line of the trainers
// (sft, rl, init, tokenizer). It reads flags into the configurations of
// training/sft, training/rl and model, runs them with progress on stdout,
// and resumes from the last checkpoint when a run is started again.
package traincmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/training/data"
	"github.com/rlm-project/rlm/training/sft"
)

// Command is `rlm train` in rlm's list of commands.
var Command = cli.Command{
	Summary: "fine-tune a Qwen3 model on trajectories (train sft), with RL on harness rollouts (train rl), make a random one (train init), or learn a BPE vocabulary (train tokenizer)",
	Run:     Run,
	Tables: func(env cli.Env) []*cli.Settings {
		return []*cli.Settings{newSFTFlags(env, io.Discard).settings, newRLFlags(env, io.Discard).settings,
			newInitFlags(env, io.Discard).settings, newTokenizerFlags(env, io.Discard).settings}
	},
}

// Run runs `rlm train` with the arguments after "train".
func Run(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "Usage: rlm train <sft|rl|init|tokenizer> [flags]\n\n  sft        supervised fine-tuning on an SFT JSONL file\n  rl         reinforcement learning on rollouts through the RLM engine and REPL\n  init       write a randomly initialized model for a config.json\n  tokenizer  learn a byte-level BPE vocabulary from SFT samples and text files\n\nRun `rlm train <sub> -h` for the flags.")
	}
	if len(args) == 0 {
		usage(stderr)
		return cli.ErrUsage
	}
	switch args[0] {
	case "sft":
		return runTrainSFT(ctx, env, args[1:], stdout, stderr)
	case "rl":
		return runTrainRL(ctx, env, args[1:], stdout, stderr)
	case "init":
		return runTrainInit(env, args[1:], stdout, stderr)
	case "tokenizer":
		return runTrainTokenizer(ctx, env, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	}
	fmt.Fprintf(stderr, "rlm train: unknown subcommand %q\n", args[0])
	usage(stderr)
	return cli.ErrUsage
}

func parseDType(s string) (safetensors.DType, error) {
	switch strings.ToLower(s) {
	case "bf16", "bfloat16":
		return safetensors.BF16, nil
	case "f32", "float32":
		return safetensors.F32, nil
	}
	return "", fmt.Errorf("dtype %q: want bf16 or f32", s)
}

// sftFlags are rlm train sft's flags, most of them sft.Config's fields.
type sftFlags struct {
	trainFlags
	settings                          *cli.Settings
	dev                               cli.Device
	cfg                               sft.Config
	data, overflow, stopReasons       string
	seqLen, loraRank                  int
	minReward, valFraction, loraAlpha float64
	minRewardSet                      bool
	loraTargets                       string
}

func runTrainSFT(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	f, err := parseSFTFlags(args, env, stderr)
	if f == nil || err != nil {
		return err // nil for -h
	}
	tok, dc, err := f.dataConfig()
	if err != nil {
		return err
	}
	be, err := f.dev.OpenLogged(stdout)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	var m *model.Model
	if f.cfg.LoRA != nil {
		m, err = model.LoadLoRA(be, f.model, *f.cfg.LoRA) // the frozen base as the GPU's products read it
	} else {
		m, err = model.Load(be, f.model)
	}
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	packed, st, err := data.Build(ctx, f.data, tok, dc)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	seqs, err := sft.FromPacked(packed.Train, m.Cfg.VocabSize)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	if f.cfg.Validation, err = sft.FromPacked(packed.Val, m.Cfg.VocabSize); err != nil {
		return fmt.Errorf("train sft: validation: %w", err)
	}
	f.printData(stdout, st)
	fmt.Fprintf(stdout, "model: %s, %d parameters, backend %s\n", f.model, m.NumParams(), m.Backend().Name())
	tr, err := sft.New(m, seqs, f.cfg)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	if tr.Step() > 0 && tr.Step() < tr.TotalSteps() {
		fmt.Fprintf(stdout, "resuming at step %d of %d from %s\n", tr.Step(), tr.TotalSteps(), f.out)
	}
	if f.cfg.LoRA != nil {
		params, _, _ := m.Trainable()
		fmt.Fprintf(stdout, "lora: rank %d, alpha %g, on %s: %d trained parameters, base weights frozen\n",
			f.cfg.LoRA.Rank, f.cfg.LoRA.Alpha, strings.Join(f.cfg.LoRA.Targets, ","), params.Len())
	}
	res, err := tr.Run(ctx, stdout)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	what := "model"
	if f.cfg.LoRA != nil {
		what = "LoRA adapter (serve with rlm model serve --lora " + f.out + " " + f.model + ")"
	}
	val := ""
	if !math.IsNaN(res.FinalValLoss) {
		val = fmt.Sprintf(", validation loss %.4f", res.FinalValLoss)
	}
	fmt.Fprintf(stdout, "done: %d steps, final loss %.4f%s, %s in %s, loss chart %s\n",
		res.Steps, res.FinalLoss, val, what, f.out, filepath.Join(f.out, "loss.svg"))
	if mem := cli.DeviceMemory(m.Backend()); mem != "" {
		fmt.Fprintln(stdout, mem)
	}
	return nil
}

// newSFTFlags defines the flags of `rlm train sft`, whose help goes to
// stderr.
func newSFTFlags(env cli.Env, stderr io.Writer) *sftFlags {
	fs := flag.NewFlagSet("rlm train sft", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &sftFlags{cfg: sft.DefaultConfig(), settings: cli.NewSettings("train sft", fs, env)}
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm train sft --model DIR --data FILE --out DIR [flags]

Fine-tunes a Qwen3 checkpoint on SFT samples (rlm traces export) and writes
checkpoints, the final model and loss.svg to --out, with a progress line every
--log-every steps. An interrupted run resumes from its newest checkpoint.
See docs/training.md.
`)
		f.settings.PrintUsage(stderr)
	}
	c := &f.cfg
	c.CheckpointEvery = 100
	f.trainFlags.register(fs, "checkpoints, final model, trainer_state.json, loss.svg",
		"continue from the newest checkpoint in --out when there is one; a different schedule, optimizer or data setting is refused")
	optimizer{&c.LR, &c.MinLRRatio, &c.WeightDecay, &c.Beta1, &c.Beta2, &c.Eps, &c.ClipNorm,
		&c.WarmupSteps, &c.CheckpointEvery, &c.KeepCheckpoints, &c.LogEvery, &c.StopAfter, &c.Seed}.register(fs)
	fs.StringVar(&f.data, "data", "", "SFT JSONL `file` (docs/tokenizer.md, \"SFT data format\"); required")
	fs.IntVar(&f.seqLen, "seq-len", 2048, "tokens per packed sequence")
	fs.StringVar(&f.overflow, "overflow", "truncate", "samples longer than --seq-len: truncate (from the middle: old REPL outputs first, never the system prompt, the question or a trained turn) or drop")
	fs.Float64Var(&f.minReward, "min-reward", 0, "drop samples whose reward is lower or missing (only when set)")
	fs.StringVar(&f.stopReasons, "stop-reasons", "", "comma-separated stop reasons to keep (empty keeps all)")
	fs.Float64Var(&f.valFraction, "val-fraction", -1, "fraction of the samples held out for the validation loss, chosen by --seed (-1: 0.05 when there are at least 20 samples, else none; 0: none)")
	fs.IntVar(&c.ValEvery, "val-every", 0, "steps between validation losses, also computed at the end (0: every tenth of the run)")
	fs.IntVar(&c.Epochs, "epochs", c.Epochs, "passes over the data (when --steps is 0)")
	fs.IntVar(&c.Steps, "steps", 0, "optimizer steps (overrides --epochs when > 0)")
	fs.IntVar(&c.ExtendSteps, "extend-steps", 0, "train this many steps past the schedule's last step at its final learning rate (--lr x --min-lr-ratio); continues a finished run in --out from its final step (keep its other flags)")
	fs.IntVar(&c.BatchSize, "batch-size", c.BatchSize, "sequences per micro-batch")
	fs.IntVar(&c.GradAccum, "grad-accum", c.GradAccum, "micro-batches per optimizer step")
	fs.BoolVar(&c.CheckpointActivations, "checkpoint-activations", false, "keep only each layer's input in the forward pass and recompute the layer in backward: ~8x less activation memory for ~1/3 more compute")
	fs.IntVar(&f.loraRank, "lora-rank", 0, "train LoRA adapters of this rank with the base weights frozen (0: full fine-tune); the adapter is saved in PEFT's layout")
	fs.Float64Var(&f.loraAlpha, "lora-alpha", 0, "LoRA alpha; the update is scaled by alpha/rank (0: twice --lora-rank)")
	fs.StringVar(&f.loraTargets, "lora-targets", strings.Join(model.DefaultLoRATargets, ","), "comma-separated linear layers that get adapters: q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj")
	f.settings.Arguments("model", "data", "out")
	return f
}

// parseSFTFlags returns nil and no error for -h.
func parseSFTFlags(args []string, env cli.Env, stderr io.Writer) (*sftFlags, error) {
	f := newSFTFlags(env, stderr)
	if err := f.settings.Parse(args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil
		}
		return nil, err
	}
	if f.model == "" || f.data == "" || f.out == "" {
		fmt.Fprintln(stderr, "rlm train sft: --model, --data and --out are required; `rlm train sft -h` lists its flags")
		return nil, cli.ErrUsage
	}
	f.minRewardSet = f.settings.Explicit("min-reward")
	return f, f.check()
}

// check validates the flags and fills in the rest of the trainer config.
func (f *sftFlags) check() error {
	var err error
	c := &f.cfg
	if c.SaveDType, f.dev, err = f.trainFlags.check("train sft"); err != nil {
		return err
	}
	c.OutDir, c.Resume, c.TokenizerFrom = f.out, f.resume, f.model
	if f.loraRank < 0 || f.loraAlpha < 0 {
		return cli.BadFlag("train sft: --lora-rank and --lora-alpha must not be negative")
	}
	if f.loraRank > 0 {
		lc := &model.LoRAConfig{Rank: f.loraRank, Alpha: f.loraAlpha, Seed: c.Seed}
		if lc.Alpha == 0 {
			lc.Alpha = 2 * float64(lc.Rank)
		}
		for _, name := range strings.Split(f.loraTargets, ",") {
			if name = strings.TrimSpace(name); name != "" {
				lc.Targets = append(lc.Targets, name)
			}
		}
		c.LoRA, c.BaseModel = lc, f.model
	}
	if f.valFraction >= 1 || (f.valFraction < 0 && f.valFraction != -1) {
		return cli.BadFlag("train sft: --val-fraction %g: want -1 (auto) or a fraction in [0,1)", f.valFraction)
	}
	if f.overflow != "truncate" && f.overflow != "drop" {
		return cli.BadFlag("train sft: --overflow %q: want truncate or drop", f.overflow)
	}
	return nil
}

// dataConfig loads the tokenizer and says how samples become sequences.
func (f *sftFlags) dataConfig() (*tokenizer.Tokenizer, data.Config, error) {
	tok, err := tokenizer.Load(f.model)
	if err != nil {
		return nil, data.Config{}, fmt.Errorf("train sft: %w", err)
	}
	pad, ok := tok.TokenID("<|endoftext|>")
	if !ok {
		return nil, data.Config{}, fmt.Errorf("train sft: tokenizer has no <|endoftext|> token to pad with")
	}
	dc := data.Config{Seed: f.cfg.Seed, Pack: data.PackConfig{SeqLen: f.seqLen, PadID: pad, Overflow: data.Truncate}, ValFraction: f.valFraction}
	if f.overflow == "drop" {
		dc.Pack.Overflow = data.Drop
	}
	if f.minRewardSet {
		dc.Filter.MinReward = &f.minReward
	}
	if f.stopReasons != "" {
		dc.Filter.StopReasons = strings.Split(f.stopReasons, ",")
	}
	return tok, dc, nil
}

func (f *sftFlags) printData(w io.Writer, st data.Stats) {
	fmt.Fprintf(w, "data: %d samples read, %d kept; %d sequences of %d tokens, %d trained tokens, %d truncated, %d dropped (%d too long, %d with nothing to train)\n",
		st.Read.Samples, st.Read.Kept, st.Pack.Sequences, f.seqLen, st.Pack.TrainedTokens, st.Pack.Truncated, st.Pack.TooLong+st.Pack.NothingToTrain, st.Pack.TooLong, st.Pack.NothingToTrain)
	if fs := st.Pack.FitStats; fs.Truncated > 0 {
		fmt.Fprintf(w, "cut: %d samples shortened from the middle to fit --seq-len: %d old REPL outputs cut, %d messages elided, %d tokens cut (system prompts, questions and trained turns kept)\n",
			fs.Truncated, fs.OutputsCut, fs.MessagesElided, fs.TokensCut)
	}
	if st.ValSamples > 0 {
		fmt.Fprintf(w, "validation: %d samples held out (never trained on), %d sequences, %d tokens scored, %d truncated, %d dropped\n",
			st.ValSamples, st.Val.Sequences, st.Val.TrainedTokens, st.Val.Truncated, st.Val.TooLong+st.Val.NothingToTrain)
	} else {
		fmt.Fprintf(w, "validation: none (--val-fraction %g, %d samples)\n", f.valFraction, st.Read.Kept)
	}
}

// initFlags are the flags of `rlm train init`.
type initFlags struct {
	settings                         *cli.Settings
	fs                               *flag.FlagSet
	modelConfig, out, tokFrom, dtype string
	seed                             uint64
	std                              float64
}

// newInitFlags defines the flags of `rlm train init`, whose help goes to
// stderr.
func newInitFlags(env cli.Env, stderr io.Writer) *initFlags {
	fs := flag.NewFlagSet("rlm train init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &initFlags{fs: fs, settings: cli.NewSettings("train init", fs, env)}
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm train init --model-config config.json --out DIR [flags]

Writes a randomly initialized Qwen3 model with config.json's dimensions to
--out (for tests and smoke runs of rlm train sft).
`)
		f.settings.PrintUsage(stderr)
	}
	fs.StringVar(&f.modelConfig, "model-config", "", "Qwen3 config.json `file` giving the model's dimensions; required")
	fs.StringVar(&f.out, "out", "", "`directory` to write the model to; required")
	fs.StringVar(&f.tokFrom, "tokenizer", "", "`directory` whose tokenizer files (tokenizer.json, tokenizer_config.json, ...) are copied into --out")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the random weights")
	fs.Float64Var(&f.std, "std", 0.02, "standard deviation of the weight matrices (norms start at 1)")
	fs.StringVar(&f.dtype, "dtype", "f32", "`dtype` of the weights: bf16 or f32")
	f.settings.Arguments("model-config", "out", "tokenizer")
	return f
}

// parse parses args. Before --model-config, --config named the model's
// config.json: given one, --config is read as --model-config, with a note.
func (f *initFlags) parse(args []string, stderr io.Writer) error {
	if err := cli.ParseFlags(f.fs, args, stderr, f.fs.Usage); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rlm train init: unexpected arguments %q; `rlm train init -h` lists its flags\n", f.fs.Args())
		return cli.ErrUsage
	}
	if path := f.fs.Lookup("config").Value.String(); path != "" && f.modelConfig == "" && isModelConfig(path) {
		fmt.Fprintf(stderr, "rlm train init: %s is a model's config.json: reading it as --model-config (--config now names a YAML file of settings)\n", path)
		f.modelConfig = path
		f.fs.Set("config", "")
	}
	return f.settings.Load()
}

// isModelConfig reports whether the file at path is a Qwen3 config.json.
func isModelConfig(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var c struct {
		HiddenSize int `json:"hidden_size"`
	}
	return json.Unmarshal(b, &c) == nil && c.HiddenSize > 0
}

func runTrainInit(env cli.Env, args []string, stdout, stderr io.Writer) error {
	f := newInitFlags(env, stderr)
	if err := f.parse(args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if f.modelConfig == "" || f.out == "" {
		fmt.Fprintln(stderr, "rlm train init: --model-config and --out are required; `rlm train init -h` lists its flags")
		return cli.ErrUsage
	}
	dt, err := parseDType(f.dtype)
	if err != nil {
		return cli.BadFlag("train init: %w", err)
	}
	cfg, err := model.LoadConfig(f.modelConfig)
	if err != nil {
		return fmt.Errorf("train init: %w", err)
	}
	if f.tokFrom != "" {
		if st, err := os.Stat(f.tokFrom); err != nil {
			return fmt.Errorf("train init: tokenizer directory: %w", err)
		} else if !st.IsDir() {
			return fmt.Errorf("train init: --tokenizer %s is not a directory (give the directory that holds tokenizer.json)", f.tokFrom)
		}
	}
	m, err := model.New(backend.CPU{}, cfg)
	if err != nil {
		return fmt.Errorf("train init: %w", err)
	}
	m.InitRandom(f.seed, f.std)
	if err := m.Save(f.out, model.SaveOptions{DType: dt, CopyFrom: f.tokFrom}); err != nil {
		return fmt.Errorf("train init: %w", err)
	}
	fmt.Fprintf(stdout, "wrote a random %d-parameter model to %s\n", m.NumParams(), f.out)
	return nil
}

// tokenizerFlags are the flags of `rlm train tokenizer`.
type tokenizerFlags struct {
	settings              *cli.Settings
	dataFiles, textFiles  cli.MultiFlag
	out                   string
	size, minFreq, maxLen int
}

// newTokenizerFlags defines the flags of `rlm train tokenizer`, whose help
// goes to stderr.
func newTokenizerFlags(env cli.Env, stderr io.Writer) *tokenizerFlags {
	fs := flag.NewFlagSet("rlm train tokenizer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &tokenizerFlags{settings: cli.NewSettings("train tokenizer", fs, env)}
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm train tokenizer --out DIR [--data FILE.jsonl]... [--text FILE]... [flags]

Learns a byte-level BPE vocabulary (Qwen3 pre-tokenizer, NFC) from SFT samples,
each rendered in the chat format the model is trained on, and from plain text
files, and writes tokenizer.json and tokenizer_config.json (with a Qwen3-style
chat template) to --out. Deterministic: the same corpus gives the same files.
See docs/tokenizer.md.
`)
		f.settings.PrintUsage(stderr)
	}
	fs.Var(&f.dataFiles, "data", "SFT JSONL `file` whose samples, rendered as chats, are corpus (repeatable)")
	fs.Var(&f.textFiles, "text", "plain text `file` that is corpus (repeatable)")
	fs.StringVar(&f.out, "out", "", "output `directory`; required")
	fs.IntVar(&f.size, "vocab-size", 2048, "vocabulary `size`, 256 byte tokens and the 5 chat tokens included")
	fs.IntVar(&f.minFreq, "min-frequency", 2, "fewest occurrences of a pair worth a merge")
	fs.IntVar(&f.maxLen, "model-max-length", 32768, "model_max_length written to tokenizer_config.json")
	f.settings.Arguments("data", "text", "out")
	return f
}

func runTrainTokenizer(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	f := newTokenizerFlags(env, stderr)
	if err := f.settings.Parse(args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if f.out == "" || len(f.dataFiles)+len(f.textFiles) == 0 {
		fmt.Fprintln(stderr, "rlm train tokenizer: --out and at least one --data or --text are required; `rlm train tokenizer -h` lists its flags")
		return cli.ErrUsage
	}
	if f.minFreq < 1 {
		return cli.BadFlag("train tokenizer: --min-frequency %d: must be at least 1", f.minFreq)
	}
	tr := tokenizer.NewTrainer(nil)
	var samples, texts int
	var bytesIn int64
	for _, path := range f.dataFiles {
		ss, _, err := data.ReadFile(ctx, path, data.Filter{})
		if err != nil {
			return fmt.Errorf("train tokenizer: %w", err)
		}
		for _, s := range ss {
			text, err := tokenizer.RenderChat(s.ChatMessages())
			if err != nil {
				return fmt.Errorf("train tokenizer: %s: sample %d: %w", path, samples+1, err)
			}
			tr.Add(text)
			bytesIn += int64(len(text))
			samples++
		}
	}
	for _, path := range f.textFiles {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("train tokenizer: %w", err)
		}
		tr.Add(string(b))
		bytesIn += int64(len(b))
		texts++
	}
	voc, err := tr.Train(ctx, tokenizer.TrainConfig{VocabSize: f.size, MinFrequency: f.minFreq})
	if err != nil {
		return fmt.Errorf("train tokenizer: %w", err)
	}
	if err := voc.Save(f.out, f.maxLen); err != nil {
		return fmt.Errorf("train tokenizer: %w", err)
	}
	fmt.Fprintf(stdout, "corpus: %d samples and %d text files, %d bytes; vocabulary of %d tokens (%d merges) in %s\n",
		samples, texts, bytesIn, voc.VocabSize(), len(voc.Merges), f.out)
	if voc.VocabSize() < f.size {
		fmt.Fprintf(stdout, "note: the corpus had too few repeated pairs for %d tokens (--min-frequency %d)\n", f.size, f.minFreq)
	}
	return nil
}
