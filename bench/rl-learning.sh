#!/usr/bin/env bash
# Does RL learn? (issue 14, "Learning that works"). From one starting
# checkpoint (a partly SFT'd tiny RLM model, e.g. examples/tiny-rlm's
# OUT/sft/checkpoint-000300), for each seed:
#   - RL:     rlm train rl for STEPS steps on held-in tasks (TASKS, held-in
#             phrasings, seeds 1000+), TPS instances x G rollouts a step;
#   - RS-SFT: the same number of rollouts sampled from the starting
#             checkpoint (rlm eval --temperature TEMP, the same tasks, phrasings
#             and seeds), the ones that scored 1 exported (root transcripts
#             and llm_query answers) and trained on with rlm train sft;
# then every model, the start included, is evaluated on held-out instances
# (seed 1, held-out phrasings) of the same tasks, sampling at EVAL_TEMP.
#
#   bench/rl-learning.sh START_DIR [OUT]
#
# Environment: TASKS (default sniah), STEPS (8), TPS (4), G (8), SEEDS
# ("1000 2000"), LR (2e-4), TEMP (1: the rollouts' sampling temperature, for
# RL and RS-SFT alike), EVAL_N (40), EVAL_TEMP (1: the held-out reward of the
# sampling policy; 0: greedy), RS_STEPS (30), RS_LR (5e-4), LENGTH (8k).
set -euo pipefail
cd "$(dirname "$0")/.."
START=$(cd "${1:?usage: bench/rl-learning.sh START_DIR [OUT]}" && pwd)
OUT=${2:-$(mktemp -d)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TASKS=${TASKS:-sniah} STEPS=${STEPS:-8} TPS=${TPS:-4} G=${G:-8}
SEEDS=${SEEDS:-1000 2000} LR=${LR:-2e-4} TEMP=${TEMP:-1} EVAL_N=${EVAL_N:-40} EVAL_TEMP=${EVAL_TEMP:-1}
RS_STEPS=${RS_STEPS:-30} RS_LR=${RS_LR:-5e-4}
LENGTH=${LENGTH:-8k}
go build -o "$OUT/rlm" ./cmd/rlm
RLM=$OUT/rlm
echo "machine: $(nproc) threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%F)"
echo "start: $START; tasks $TASKS at $LENGTH; $STEPS steps x $TPS instances x $G rollouts per seed at temperature $TEMP, lr $LR"

evaluate() { # model name
	"$RLM" eval --local-model "$1" --kv-cache 65536tokens --task "$TASKS" --phrasings out --lengths "$LENGTH" \
		--n "$EVAL_N" --seed 1 --temperature "$EVAL_TEMP" --max-iterations 5 --max-completion-tokens 384 \
		--out "$OUT/eval-$2" --traces none 2>"$OUT/eval-$2.log" | grep -v '^ *task ' | sed "s/^/$2: /"
}

evaluate "$START" start
# Per task instance, eval runs n instances per task: spread the same number
# of rollouts over instances of every task, G samples each.
ntasks=$(echo "$TASKS" | tr ',' '\n' | wc -l)
per_task=$(( (STEPS * TPS + ntasks - 1) / ntasks ))
for seed in $SEEDS; do
	"$RLM" train rl -model "$START" -out "$OUT/rl-$seed" -task "$TASKS" -phrasings in -lengths "$LENGTH" \
		-group "$G" -tasks-per-step "$TPS" -steps "$STEPS" -lr "$LR" -temperature "$TEMP" -max-iterations 5 -max-completion-tokens 384 \
		-seq-len 4096 -seed "$seed" -checkpoint-every 0 -dtype f32 -log-every 1 -device cpu \
		2>&1 | grep --line-buffered -E '^\[|done' | sed "s/^\[[= ]*\] /rl-$seed: /"
	evaluate "$OUT/rl-$seed" "rl-$seed"

	# RS-SFT: G samples of each of per_task instances per task, from the start.
	rm -rf "$OUT/rs-$seed"
	for g in $(seq 1 "$G"); do
		"$RLM" eval --local-model "$START" --kv-cache 65536tokens --task "$TASKS" --phrasings in \
			--lengths "$LENGTH" --n "$per_task" --seed "$seed" --temperature "$TEMP" --max-iterations 5 \
			--max-completion-tokens 384 --out "$OUT/rs-$seed/eval-$g" --traces "$OUT/rs-$seed/traces" \
			>/dev/null 2>>"$OUT/rs-$seed.log"
	done
	"$RLM" traces export --format sft-transcript --dir "$OUT/rs-$seed/traces" --stop-reason final --min-reward 1 \
		--out "$OUT/rs-$seed/transcripts.jsonl" 2>/dev/null
	"$RLM" traces export --format sft-sub-calls --dir "$OUT/rs-$seed/traces" --stop-reason final --min-reward 1 \
		--out "$OUT/rs-$seed/sub-calls.jsonl" 2>/dev/null
	cat "$OUT/rs-$seed/transcripts.jsonl" "$OUT/rs-$seed/sub-calls.jsonl" >"$OUT/rs-$seed/data.jsonl"
	echo "rs-$seed: $(wc -l <"$OUT/rs-$seed/transcripts.jsonl") successful rollouts of $((per_task * ntasks * G))"
	if [ -s "$OUT/rs-$seed/transcripts.jsonl" ]; then
		"$RLM" train sft -model "$START" -data "$OUT/rs-$seed/data.jsonl" -out "$OUT/rs-$seed/sft" -steps "$RS_STEPS" \
			-lr "$RS_LR" -warmup 3 -batch-size 4 -grad-accum 1 -seq-len 2048 -seed "$seed" -val-fraction 0 \
			-checkpoint-every 0 -dtype f32 -log-every "$RS_STEPS" -device cpu 2>&1 | grep -E '^\[' | sed "s/^\[[= ]*\] /rs-$seed: /"
		evaluate "$OUT/rs-$seed/sft" "rs-$seed"
	fi
done
echo "results: $OUT (eval-*/summary.json)"
