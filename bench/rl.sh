#!/usr/bin/env bash
# rlm train rl on a tiny random Qwen3 (training/sft/testdata's 269-id
# tokenizer) through the real engine and REPL: the per-step breakdown
# (rollout, train) and how much rollout time the asynchronous mode
# (-max-staleness 1: rollouts of the next step generated while a step
# trains) hides, against the synchronous mode (-max-staleness 0), in one
# run on this machine. The two modes sample different rollouts after the
# first step, so compare the hidden share, not the wall times.
# The task (answer with text containing "4") is trivially learnable; the
# reward column shows it being learned.
# Usage: bench/rl.sh [steps]   (default 6)
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-6}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rlm" ./cmd/rlm
cat > "$tmp/tiny.json" <<'J'
{"hidden_size":48,"intermediate_size":96,"num_hidden_layers":2,"num_attention_heads":2,"num_key_value_heads":1,
 "head_dim":16,"rms_norm_eps":1e-6,"rope_theta":10000,"max_position_embeddings":8192,"tie_word_embeddings":true,"vocab_size":269}
J
cat > "$tmp/four.jsonl" <<'J'
{"context": "The answer is 4.", "question": "What is the answer?", "answer": "4", "scorer": "contains"}
{"context": "Two plus two is four, written 4.", "question": "Write the digit.", "answer": "4", "scorer": "contains"}
J
"$tmp/rlm" train init -config "$tmp/tiny.json" -out "$tmp/base" -tokenizer training/sft/testdata -seed 7 >/dev/null
echo "machine: $(nproc) threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%F)"
for s in 0 1; do
  start=$(date +%s.%N)
  "$tmp/rlm" train rl -model "$tmp/base" -out "$tmp/out$s" -task "custom:$tmp/four.jsonl" -tasks-per-step 2 -group 8 \
    -steps "$steps" -lr 2e-2 -beta2 0.95 -clip 0 -max-completion-tokens 64 -seq-len 4096 -max-iterations 1 -max-depth 0 \
    -checkpoint-every 0 -dtype f32 -traces none -device cpu -max-staleness "$s" | grep 'step ' | sed 's/^\[[= ]*\] //' | tee "$tmp/steps$s"
  end=$(date +%s.%N)
  # Synchronous, wall time is the sum of rollout and train time; with
  # rollouts of the next step generated during training, it approaches the
  # train time plus the first step's rollouts.
  python3 - "$tmp/steps$s" "$s" "$steps" "$start" "$end" <<'P'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
roll = sum(float(re.search(r"rollout ([0-9.]+)s", l).group(1)) for l in lines)
train = sum(float(re.search(r"train ([0-9.]+)s", l).group(1)) for l in lines)
wall = float(sys.argv[5]) - float(sys.argv[4])
print("max-staleness %s: %s steps, wall %.1fs = rollouts %.1fs + train %.1fs + %.1fs (%.0f%% of rollout time hidden)"
      % (sys.argv[2], sys.argv[3], wall, roll, train, wall - roll - train, 100 * max(0, roll + train - wall) / roll))
P
done
