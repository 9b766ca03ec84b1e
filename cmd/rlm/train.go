package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/training/data"
	"github.com/rlm-project/rlm/training/sft"
)

var trainCommand = command{
	summary: "fine-tune a Qwen3 model on trajectories (train sft), with RL on harness rollouts (train rl), make a random one (train init), or learn a BPE vocabulary (train tokenizer)",
	run:     runTrain,
}

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "Usage: rlm train <sft|rl|init|tokenizer> [flags]\n\n  sft        supervised fine-tuning on an SFT JSONL file\n  rl         reinforcement learning on rollouts through the RLM engine and REPL\n  init       write a randomly initialized model for a config.json\n  tokenizer  learn a byte-level BPE vocabulary from SFT samples and text files\n\nRun `rlm train <sub> -h` for the flags.")
	}
	if len(args) == 0 {
		usage(stderr)
		return errUsage
	}
	switch args[0] {
	case "sft":
		return runTrainSFT(ctx, args[1:], stdout, stderr)
	case "rl":
		return runTrainRL(ctx, args[1:], stdout, stderr)
	case "init":
		return runTrainInit(args[1:], stdout, stderr)
	case "tokenizer":
		return runTrainTokenizer(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	}
	fmt.Fprintf(stderr, "rlm train: unknown subcommand %q\n", args[0])
	usage(stderr)
	return errUsage
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

func runTrainSFT(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rlm train sft", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm train sft --model DIR --data FILE --out DIR [flags]

Fine-tunes a Qwen3 checkpoint on SFT samples (rlm traces export) and writes
checkpoints, the final model and loss.svg to --out, with a progress line every
--log-every steps. An interrupted run resumes from its newest checkpoint.
See docs/training.md. Flags:
`)
		printFlags(stderr, fs, nil)
	}
	def := sft.DefaultConfig()
	modelDir := fs.String("model", "", "Hugging Face Qwen3 checkpoint `directory` to start from (config.json, *.safetensors, tokenizer.json); required")
	dataPath := fs.String("data", "", "SFT JSONL `file` (docs/tokenizer.md, \"SFT data format\"); required")
	out := fs.String("out", "", "output `directory`: checkpoints, final model, trainer_state.json, loss.svg; required")
	seqLen := fs.Int("seq-len", 2048, "tokens per packed sequence")
	overflow := fs.String("overflow", "truncate", "samples longer than --seq-len: truncate (from the middle: old REPL outputs first, never the system prompt, the question or a trained turn) or drop")
	minReward := fs.Float64("min-reward", 0, "drop samples whose reward is lower or missing (only when set)")
	stopReasons := fs.String("stop-reasons", "", "comma-separated stop reasons to keep (empty keeps all)")
	valFraction := fs.Float64("val-fraction", -1, "fraction of the samples held out for the validation loss, chosen by --seed (-1: 0.05 when there are at least 20 samples, else none; 0: none)")
	fs.IntVar(&def.ValEvery, "val-every", 0, "steps between validation losses, also computed at the end (0: every tenth of the run)")
	fs.Float64Var(&def.LR, "lr", def.LR, "peak learning rate")
	fs.Float64Var(&def.MinLRRatio, "min-lr-ratio", def.MinLRRatio, "final learning rate of the cosine schedule, as a fraction of --lr")
	fs.IntVar(&def.WarmupSteps, "warmup", def.WarmupSteps, "linear warmup steps")
	fs.IntVar(&def.Epochs, "epochs", def.Epochs, "passes over the data (when --steps is 0)")
	fs.IntVar(&def.Steps, "steps", 0, "optimizer steps (overrides --epochs when > 0)")
	fs.IntVar(&def.ExtendSteps, "extend-steps", 0, "train this many steps past the schedule's last step at its final learning rate (--lr x --min-lr-ratio); continues a finished run in --out from its final step (keep its other flags)")
	fs.IntVar(&def.BatchSize, "batch-size", def.BatchSize, "sequences per micro-batch")
	fs.IntVar(&def.GradAccum, "grad-accum", def.GradAccum, "micro-batches per optimizer step")
	fs.Float64Var(&def.WeightDecay, "weight-decay", def.WeightDecay, "AdamW decoupled weight decay (weight matrices only)")
	fs.Float64Var(&def.Beta1, "beta1", def.Beta1, "AdamW beta1")
	fs.Float64Var(&def.Beta2, "beta2", def.Beta2, "AdamW beta2")
	fs.Float64Var(&def.Eps, "adam-eps", def.Eps, "AdamW epsilon")
	fs.Float64Var(&def.ClipNorm, "clip", def.ClipNorm, "global gradient-norm clipping threshold (0 disables)")
	fs.BoolVar(&def.CheckpointActivations, "checkpoint-activations", false, "keep only each layer's input in the forward pass and recompute the layer in backward: ~8x less activation memory for ~1/3 more compute")
	loraRank := fs.Int("lora-rank", 0, "train LoRA adapters of this rank with the base weights frozen (0: full fine-tune); the adapter is saved in PEFT's layout")
	loraAlpha := fs.Float64("lora-alpha", 0, "LoRA alpha; the update is scaled by alpha/rank (0: twice --lora-rank)")
	loraTargets := fs.String("lora-targets", strings.Join(model.DefaultLoRATargets, ","), "comma-separated linear layers that get adapters: q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj")
	fs.Uint64Var(&def.Seed, "seed", def.Seed, "seed for data order; same seed, data and flags give the same run")
	fs.IntVar(&def.CheckpointEvery, "checkpoint-every", 100, "steps between checkpoints (0: only at the end)")
	fs.IntVar(&def.KeepCheckpoints, "keep-checkpoints", def.KeepCheckpoints, "checkpoint directories to keep")
	fs.IntVar(&def.StopAfter, "stop-after", 0, "end after this step with a checkpoint (to split a run into jobs, or keep an early checkpoint of the schedule)")
	fs.IntVar(&def.LogEvery, "log-every", def.LogEvery, "steps between progress lines")
	dtype := fs.String("dtype", "bf16", "`dtype` of the final model: bf16 or f32 (checkpoints are always f32)")
	resume := fs.Bool("resume", true, "continue from the newest checkpoint in --out when there is one; a different schedule, optimizer or data setting is refused")
	device := fs.String("device", "auto", "where to train: auto (a GPU when there is one), cpu, cuda or cuda:N")
	precision := fs.String("precision", "bf16", "CUDA arithmetic of matrix products and attention: bf16, tf32 or fp32 (weights and optimizer stay float32)")
	if err := parseFlags(fs, args, stderr, fs.Usage); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *modelDir == "" || *dataPath == "" || *out == "" {
		fmt.Fprintln(stderr, "rlm train sft: --model, --data and --out are required")
		fs.Usage()
		return errUsage
	}
	var err error
	if def.SaveDType, err = parseDType(*dtype); err != nil {
		return badFlag("train sft: %w", err)
	}
	def.OutDir, def.Resume, def.TokenizerFrom = *out, *resume, *modelDir
	if *loraRank < 0 || *loraAlpha < 0 {
		return badFlag("train sft: --lora-rank and --lora-alpha must not be negative")
	}
	if *loraRank > 0 {
		lc := &model.LoRAConfig{Rank: *loraRank, Alpha: *loraAlpha, Seed: def.Seed}
		if lc.Alpha == 0 {
			lc.Alpha = 2 * float64(lc.Rank)
		}
		for _, name := range strings.Split(*loraTargets, ",") {
			if name = strings.TrimSpace(name); name != "" {
				lc.Targets = append(lc.Targets, name)
			}
		}
		def.LoRA, def.BaseModel = lc, *modelDir
	}
	if *valFraction >= 1 || (*valFraction < 0 && *valFraction != -1) {
		return badFlag("train sft: --val-fraction %g: want -1 (auto) or a fraction in [0,1)", *valFraction)
	}
	dev, err := parseDevice(*device, *precision)
	if err != nil {
		return badFlag("train sft: %w", err)
	}

	tok, err := tokenizer.Load(*modelDir)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	pad, ok := tok.TokenID("<|endoftext|>")
	if !ok {
		return fmt.Errorf("train sft: tokenizer has no <|endoftext|> token to pad with")
	}
	dc := data.Config{Seed: def.Seed, Pack: data.PackConfig{SeqLen: *seqLen, PadID: pad}, ValFraction: *valFraction}
	switch *overflow {
	case "truncate":
		dc.Pack.Overflow = data.Truncate
	case "drop":
		dc.Pack.Overflow = data.Drop
	default:
		return badFlag("train sft: --overflow %q: want truncate or drop", *overflow)
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "min-reward" {
			dc.Filter.MinReward = minReward
		}
	})
	if *stopReasons != "" {
		dc.Filter.StopReasons = strings.Split(*stopReasons, ",")
	}
	be, err := dev.openLogged(stdout)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	m, err := model.Load(be, *modelDir)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	packed, st, err := data.Build(ctx, *dataPath, tok, dc)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	seqs, err := sft.FromPacked(packed.Train, m.Cfg.VocabSize)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	if def.Validation, err = sft.FromPacked(packed.Val, m.Cfg.VocabSize); err != nil {
		return fmt.Errorf("train sft: validation: %w", err)
	}
	fmt.Fprintf(stdout, "data: %d samples read, %d kept; %d sequences of %d tokens, %d trained tokens, %d truncated, %d dropped (%d too long, %d with nothing to train)\n",
		st.Read.Samples, st.Read.Kept, st.Pack.Sequences, *seqLen, st.Pack.TrainedTokens, st.Pack.Truncated, st.Pack.TooLong+st.Pack.NothingToTrain, st.Pack.TooLong, st.Pack.NothingToTrain)
	if f := st.Pack.FitStats; f.Truncated > 0 {
		fmt.Fprintf(stdout, "cut: %d samples shortened from the middle to fit --seq-len: %d old REPL outputs cut, %d messages elided, %d tokens cut (system prompts, questions and trained turns kept)\n",
			f.Truncated, f.OutputsCut, f.MessagesElided, f.TokensCut)
	}
	if st.ValSamples > 0 {
		fmt.Fprintf(stdout, "validation: %d samples held out (never trained on), %d sequences, %d tokens scored, %d truncated, %d dropped\n",
			st.ValSamples, st.Val.Sequences, st.Val.TrainedTokens, st.Val.Truncated, st.Val.TooLong+st.Val.NothingToTrain)
	} else {
		fmt.Fprintf(stdout, "validation: none (--val-fraction %g, %d samples)\n", *valFraction, st.Read.Kept)
	}
	fmt.Fprintf(stdout, "model: %s, %d parameters, backend %s\n", *modelDir, m.NumParams(), m.Backend().Name())
	tr, err := sft.New(m, seqs, def)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	if tr.Step() > 0 && tr.Step() < tr.TotalSteps() {
		fmt.Fprintf(stdout, "resuming at step %d of %d from %s\n", tr.Step(), tr.TotalSteps(), *out)
	}
	if def.LoRA != nil {
		params, _, _ := m.Trainable()
		fmt.Fprintf(stdout, "lora: rank %d, alpha %g, on %s: %d trained parameters, base weights frozen\n",
			def.LoRA.Rank, def.LoRA.Alpha, strings.Join(def.LoRA.Targets, ","), params.Len())
	}
	res, err := tr.Run(ctx, stdout)
	if err != nil {
		return fmt.Errorf("train sft: %w", err)
	}
	what := "model"
	if def.LoRA != nil {
		what = "LoRA adapter (serve with rlm model serve --lora " + *out + " " + *modelDir + ")"
	}
	val := ""
	if !math.IsNaN(res.FinalValLoss) {
		val = fmt.Sprintf(", validation loss %.4f", res.FinalValLoss)
	}
	fmt.Fprintf(stdout, "done: %d steps, final loss %.4f%s, %s in %s, loss chart %s\n",
		res.Steps, res.FinalLoss, val, what, *out, filepath.Join(*out, "loss.svg"))
	return nil
}

func runTrainInit(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rlm train init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm train init --config config.json --out DIR [flags]

Writes a randomly initialized Qwen3 model with config.json's dimensions to
--out (for tests and smoke runs of rlm train sft). Flags:
`)
		printFlags(stderr, fs, nil)
	}
	cfgPath := fs.String("config", "", "Qwen3 config.json `file` giving the model's dimensions; required")
	out := fs.String("out", "", "`directory` to write the model to; required")
	tokFrom := fs.String("tokenizer", "", "`directory` whose tokenizer files (tokenizer.json, tokenizer_config.json, ...) are copied into --out")
	seed := fs.Uint64("seed", 1, "seed of the random weights")
	std := fs.Float64("std", 0.02, "standard deviation of the weight matrices (norms start at 1)")
	dtype := fs.String("dtype", "f32", "`dtype` of the weights: bf16 or f32")
	if err := parseFlags(fs, args, stderr, fs.Usage); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *cfgPath == "" || *out == "" {
		fmt.Fprintln(stderr, "rlm train init: --config and --out are required")
		fs.Usage()
		return errUsage
	}
	dt, err := parseDType(*dtype)
	if err != nil {
		return badFlag("train init: %w", err)
	}
	cfg, err := model.LoadConfig(*cfgPath)
	if err != nil {
		return fmt.Errorf("train init: %w", err)
	}
	if *tokFrom != "" {
		if st, err := os.Stat(*tokFrom); err != nil {
			return fmt.Errorf("train init: tokenizer directory: %w", err)
		} else if !st.IsDir() {
			return fmt.Errorf("train init: --tokenizer %s is not a directory (give the directory that holds tokenizer.json)", *tokFrom)
		}
	}
	m, err := model.New(backend.CPU{}, cfg)
	if err != nil {
		return fmt.Errorf("train init: %w", err)
	}
	m.InitRandom(*seed, *std)
	if err := m.Save(*out, model.SaveOptions{DType: dt, CopyFrom: *tokFrom}); err != nil {
		return fmt.Errorf("train init: %w", err)
	}
	fmt.Fprintf(stdout, "wrote a random %d-parameter model to %s\n", m.NumParams(), *out)
	return nil
}

func runTrainTokenizer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rlm train tokenizer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm train tokenizer --out DIR [--data FILE.jsonl]... [--text FILE]... [flags]

Learns a byte-level BPE vocabulary (Qwen3 pre-tokenizer, NFC) from SFT samples,
each rendered in the chat format the model is trained on, and from plain text
files, and writes tokenizer.json and tokenizer_config.json (with a Qwen3-style
chat template) to --out. Deterministic: the same corpus gives the same files.
See docs/tokenizer.md. Flags:
`)
		printFlags(stderr, fs, nil)
	}
	var dataFiles, textFiles multiFlag
	fs.Var(&dataFiles, "data", "SFT JSONL `file` whose samples, rendered as chats, are corpus (repeatable)")
	fs.Var(&textFiles, "text", "plain text `file` that is corpus (repeatable)")
	out := fs.String("out", "", "output `directory`; required")
	size := fs.Int("vocab-size", 2048, "vocabulary `size`, 256 byte tokens and the 5 chat tokens included")
	minFreq := fs.Int("min-frequency", 2, "fewest occurrences of a pair worth a merge")
	maxLen := fs.Int("model-max-length", 32768, "model_max_length written to tokenizer_config.json")
	if err := parseFlags(fs, args, stderr, fs.Usage); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *out == "" || len(dataFiles)+len(textFiles) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "rlm train tokenizer: --out and at least one --data or --text are required")
		fs.Usage()
		return errUsage
	}
	if *minFreq < 1 {
		return badFlag("train tokenizer: --min-frequency %d: must be at least 1", *minFreq)
	}
	tr := tokenizer.NewTrainer(nil)
	var samples, texts int
	var bytesIn int64
	for _, path := range dataFiles {
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
	for _, path := range textFiles {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("train tokenizer: %w", err)
		}
		tr.Add(string(b))
		bytesIn += int64(len(b))
		texts++
	}
	voc, err := tr.Train(ctx, tokenizer.TrainConfig{VocabSize: *size, MinFrequency: *minFreq})
	if err != nil {
		return fmt.Errorf("train tokenizer: %w", err)
	}
	if err := voc.Save(*out, *maxLen); err != nil {
		return fmt.Errorf("train tokenizer: %w", err)
	}
	fmt.Fprintf(stdout, "corpus: %d samples and %d text files, %d bytes; vocabulary of %d tokens (%d merges) in %s\n",
		samples, texts, bytesIn, voc.VocabSize(), len(voc.Merges), *out)
	if voc.VocabSize() < *size {
		fmt.Fprintf(stdout, "note: the corpus had too few repeated pairs for %d tokens (--min-frequency %d)\n", *size, *minFreq)
	}
	return nil
}
