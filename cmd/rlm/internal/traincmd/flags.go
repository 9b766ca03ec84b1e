package traincmd

import (
	"flag"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/model/safetensors"
)

// trainFlags are the flags of every trainer: the model it starts from,
// where it writes, how the final model is saved, and what it runs on.
type trainFlags struct {
	model, out, dtype, device, precision string
	resume                               bool
}

func (t *trainFlags) register(fs *flag.FlagSet, outHelp, resumeHelp string) {
	fs.StringVar(&t.model, "model", "", "Qwen3 checkpoint `directory` to start from (config.json, *.safetensors, tokenizer.json); required")
	fs.StringVar(&t.out, "out", "", "output `directory`: "+outHelp+"; required")
	fs.StringVar(&t.dtype, "dtype", "bf16", "`dtype` of the final model: bf16 or f32 (checkpoints are always f32)")
	fs.BoolVar(&t.resume, "resume", true, resumeHelp)
	fs.StringVar(&t.device, "device", "auto", "where to train: auto (a GPU when there is one), cpu, cuda or cuda:N")
	fs.StringVar(&t.precision, "precision", "bf16", "CUDA arithmetic of matrix products and attention: bf16, tf32 or fp32 (weights and optimizer stay float32)")
}

// check reads the flags that need parsing; cmd names the command in errors.
func (t *trainFlags) check(cmd string) (safetensors.DType, cli.Device, error) {
	dt, err := parseDType(t.dtype)
	if err != nil {
		return "", cli.Device{}, cli.BadFlag("%s: %w", cmd, err)
	}
	dev, err := cli.ParseDevice(t.device, t.precision)
	if err != nil {
		return "", cli.Device{}, cli.BadFlag("%s: %w", cmd, err)
	}
	return dt, dev, nil
}

// optimizer points at the optimizer, schedule and checkpoint fields of a
// trainer's config, which sft.Config and rl.Config share by name; register
// gives them the same flags in both commands, with the config's values as
// defaults.
type optimizer struct {
	lr, minLRRatio, weightDecay, beta1, beta2, eps, clipNorm      *float64
	warmup, checkpointEvery, keepCheckpoints, logEvery, stopAfter *int
	seed                                                          *uint64
}

func (o optimizer) register(fs *flag.FlagSet) {
	fs.Float64Var(o.lr, "lr", *o.lr, "peak learning rate")
	fs.Float64Var(o.minLRRatio, "min-lr-ratio", *o.minLRRatio, "final learning rate of the cosine schedule, as a fraction of --lr (1: constant)")
	fs.IntVar(o.warmup, "warmup", *o.warmup, "linear warmup steps")
	fs.Float64Var(o.weightDecay, "weight-decay", *o.weightDecay, "AdamW decoupled weight decay (weight matrices only)")
	fs.Float64Var(o.beta1, "beta1", *o.beta1, "AdamW beta1")
	fs.Float64Var(o.beta2, "beta2", *o.beta2, "AdamW beta2")
	fs.Float64Var(o.eps, "adam-eps", *o.eps, "AdamW epsilon")
	fs.Float64Var(o.clipNorm, "clip", *o.clipNorm, "global gradient-norm clipping threshold (0 disables)")
	fs.Uint64Var(o.seed, "seed", *o.seed, "seed of the run (data order, task instances, sampling); same seed, data and flags give the same run")
	fs.IntVar(o.checkpointEvery, "checkpoint-every", *o.checkpointEvery, "steps between checkpoints (0: only at the end)")
	fs.IntVar(o.keepCheckpoints, "keep-checkpoints", *o.keepCheckpoints, "checkpoint directories to keep")
	fs.IntVar(o.logEvery, "log-every", *o.logEvery, "steps between progress lines")
	fs.IntVar(o.stopAfter, "stop-after", *o.stopAfter, "end after this step with a checkpoint (to split a run into jobs, or keep an early checkpoint of the schedule)")
}
