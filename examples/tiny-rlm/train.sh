#!/bin/sh
# A tiny RLM model trained from scratch by this project (issue 15, steps 1-4
# without RL): expert trajectories, a BPE vocabulary learned on them, a
# random Qwen3-architecture model, SFT, and an evaluation of the result on
# held-out S-NIAH (held-out seed and phrasings) through `rlm eval
# --local-model` (the real engine and REPL, the model run in-process).
#
#   sh examples/tiny-rlm/train.sh [OUT]       (OUT defaults to ./tiny-rlm)
#
# Environment (all optional; defaults sized for a few minutes on 2 CPU cores):
#   N, LENGTHS, SEEDS   data size, passed to data.sh (defaults 6, 8k, 2)
#   VOCAB               vocabulary size (default 1024)
#   LAYERS HIDDEN INTER HEADS   model size (defaults 2, 128, 384, 4)
#   STEPS LR SEQ_LEN BATCH      SFT (defaults 200, 3e-3, 1536, 2)
#   DEVICE              rlm train sft -device (default auto: a GPU if any)
#   EVAL_N EVAL_LENGTHS held-out evaluation (defaults 10, 8k)
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-tiny-rlm}
mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
VOCAB=${VOCAB:-1024}
LAYERS=${LAYERS:-2} HIDDEN=${HIDDEN:-128} INTER=${INTER:-384} HEADS=${HEADS:-4}
STEPS=${STEPS:-200} LR=${LR:-3e-3} SEQ_LEN=${SEQ_LEN:-1536} BATCH=${BATCH:-2}
DEVICE=${DEVICE:-auto}
EVAL_N=${EVAL_N:-10} EVAL_LENGTHS=${EVAL_LENGTHS:-8k}

if [ -z "${RLM:-}" ]; then
	echo "== building rlm"
	(cd "$ROOT" && go build -o "$OUT/bin/rlm" ./cmd/rlm)
	RLM=$OUT/bin/rlm
fi
export RLM

# --- 1 and 2. Tasks and expert trajectories --------------------------------
N=${N:-6} LENGTHS=${LENGTHS:-8k} SEEDS=${SEEDS:-2} sh "$ROOT/examples/tiny-rlm/data.sh" "$OUT"

# --- 3. A BPE vocabulary learned on the samples -----------------------------
echo "== 3. rlm train tokenizer ($VOCAB tokens)"
"$RLM" train tokenizer --data "$OUT/samples.jsonl" --vocab-size "$VOCAB" --out "$OUT/tokenizer"

# --- 4. A random Qwen3-architecture model, then SFT --------------------------
# The chat tokens are the last five ids: <|endoftext|>, <|im_start|>,
# <|im_end|>, <think>, </think>. <|im_end|> ends a turn.
EOT=$((VOCAB - 5)) IM_END=$((VOCAB - 3))
cat >"$OUT/config.json" <<JSON
{"architectures": ["Qwen3ForCausalLM"], "hidden_size": $HIDDEN, "intermediate_size": $INTER,
 "num_hidden_layers": $LAYERS, "num_attention_heads": $HEADS, "num_key_value_heads": 2,
 "head_dim": $((HIDDEN / HEADS)), "rms_norm_eps": 1e-6, "rope_theta": 1000000, "max_position_embeddings": 8192,
 "tie_word_embeddings": true, "vocab_size": $VOCAB, "bos_token_id": $EOT, "eos_token_id": $IM_END}
JSON
rm -rf "$OUT/base" "$OUT/sft"
echo "== 4. rlm train init ($LAYERS layers, hidden $HIDDEN) and rlm train sft ($STEPS steps)"
"$RLM" train init -config "$OUT/config.json" -tokenizer "$OUT/tokenizer" -out "$OUT/base" -seed 1
"$RLM" train sft -model "$OUT/base" -data "$OUT/samples.jsonl" -out "$OUT/sft" -device "$DEVICE" \
	-seq-len "$SEQ_LEN" -batch-size "$BATCH" -grad-accum 1 -steps "$STEPS" -lr "$LR" -warmup 20 \
	-weight-decay 0.01 -log-every 25 -checkpoint-every 0 -dtype f32 -min-reward 1

# --- 5. Held-out evaluation ---------------------------------------------------
# Seed 1 and the held-out phrasings: no instance or wording seen in training.
# Greedy decoding; a few turns at most, since the expert needs three.
echo "== 5. rlm eval --local-model on held-out S-NIAH (seed 1, --phrasings out)"
for m in base sft; do
	rm -rf "$OUT/eval-$m"
	"$RLM" eval --local-model "$OUT/$m" --local-kv-cache 65536tokens --task sniah --phrasings out \
		--lengths "$EVAL_LENGTHS" --n "$EVAL_N" --seed 1 --temperature 0 --max-iterations 5 --max-completion-tokens 256 \
		--out "$OUT/eval-$m" --traces none 2>"$OUT/eval-$m.log" | tee "$OUT/eval-$m.txt" || true
done
echo "== done: random init in $OUT/eval-base, after SFT in $OUT/eval-sft (summary.json, results.jsonl)"
