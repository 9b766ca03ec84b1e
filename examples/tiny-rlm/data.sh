#!/bin/sh
# Training data for a tiny RLM model (issue 15, steps 1 and 2): expert
# trajectories recorded through the real engine and REPL, exported as SFT
# samples that `rlm train sft` reads.
#
#   sh examples/tiny-rlm/data.sh [OUT]        (OUT defaults to ./tiny-rlm)
#
# Environment (all optional):
#   RLM      the rlm binary (default: built from this checkout)
#   N        instances per task and length of records and label-count
#            (default 8)
#   LOOKUP_N instances per task and length of the lookup variants, S-NIAH
#            and docs (default: N); a lookup transcript teaches the model
#            little (one short cell), so fewer of them leave more of the
#            training steps to label-count's sub-calls
#   LOOKUPS  training lookups of examples/tiny-rlm/lookups per seed
#            (default 150): every question shape, questions sent with
#            their document, several files, absent answers
#   LENGTHS  input lengths in tokens (default 8k,16k)
#   SEED     first training seed (default 1000; see "Seeds" below)
#   SEEDS    number of seeds (default 2)
#   VARIANTS task variants, separated by ';' (default: the four S-NIAH
#            variants, records, label-count, and docs on each of its five
#            kinds of real text)
#
# The "model" answering during collection is training/expert, a
# programmatic expert policy: a documented data generator that writes
# varied, correct Go cells for the task families (look first, search, handle
# not-found, llm_query on chunks, FINAL), not a model. Its cells run in the
# real REPL, so every trajectory is a real recording of the harness.
#
# Seeds and phrasings: training data uses the held-in question phrasings
# (--phrasings in) and seeds from 1000 up; evaluation uses the held-out
# phrasings (--phrasings out) and small seeds (rlm eval's default, 1), so
# that no evaluated instance or wording was seen in training.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-tiny-rlm}
N=${N:-8}
LOOKUP_N=${LOOKUP_N:-$N}
LOOKUPS=${LOOKUPS:-150}
LENGTHS=${LENGTHS:-8k,16k}
SEED=${SEED:-1000}
SEEDS=${SEEDS:-2}
VARIANTS=${VARIANTS:-sniah;sniah --uuid;sniah --keys 4;sniah --uuid --keys 4;records;label-count;docs --source go;docs --source prose;docs --source log;docs --source json;docs --source csv}
mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)

if [ -z "${RLM:-}" ]; then
	echo "== building rlm"
	(cd "$ROOT" && go build -o "$OUT/bin/rlm" ./cmd/rlm)
	RLM=$OUT/bin/rlm
fi
(cd "$ROOT" && go build -o "$OUT/bin/expert" ./examples/tiny-rlm/expert)

rm -f "$OUT/expert.url"
"$OUT/bin/expert" -timeout 60m >"$OUT/expert.url" 2>"$OUT/expert.log" &
EXPERT_PID=$!
stop_expert() { kill "$EXPERT_PID" 2>/dev/null && wait "$EXPERT_PID" 2>/dev/null; EXPERT_PID=; }
trap 'stop_expert || true' EXIT
trap 'exit 130' INT TERM
i=0
while [ ! -s "$OUT/expert.url" ]; do
	i=$((i + 1))
	[ "$i" -le 100 ] || { echo "expert did not start" >&2; cat "$OUT/expert.log" >&2; exit 1; }
	sleep 0.1
done
URL=$(cat "$OUT/expert.url")
echo "== collecting expert trajectories through rlm eval against $URL (the expert policy, a data generator)"

# One rlm eval per seed and task variant, each into its own results
# directory, all into one trace store.
s=$SEED
while [ "$s" -lt $((SEED + SEEDS)) ]; do
	IFS=';'
	for variant in $VARIANTS; do
		unset IFS
		set -- $variant
		name=$(echo "$variant" | tr -d ' -')
		n=$N
		case $1 in sniah | docs) n=$LOOKUP_N ;; esac
		echo "-- seed $s: $variant"
		"$RLM" eval --task "$@" --phrasings in --lengths "$LENGTHS" --n "$n" --seed "$s" \
			--upstream "$URL" --upstream-key unused --root-model rlm-expert \
			--out "$OUT/eval/$name-$s" --traces "$OUT/traces" >/dev/null 2>>"$OUT/eval.log" ||
			{ tail -20 "$OUT/eval.log" >&2; exit 1; }
		IFS=';'
	done
	unset IFS
	if [ "$LOOKUPS" -gt 0 ]; then
		echo "-- seed $s: $LOOKUPS lookups of every shape (examples/tiny-rlm/lookups)"
		(cd "$ROOT" && go run ./examples/tiny-rlm/lookups -out "$OUT/lookups-$s" -n "$LOOKUPS" -seed "$s")
		"$RLM" eval --task "custom:$OUT/lookups-$s/lookups.jsonl" --n "$LOOKUPS" --seed "$s" \
			--upstream "$URL" --upstream-key unused --root-model rlm-expert \
			--out "$OUT/eval/lookups-$s" --traces "$OUT/traces" >/dev/null 2>>"$OUT/eval.log" ||
			{ tail -20 "$OUT/eval.log" >&2; exit 1; }
		rm -f "$OUT"/lookups-"$s"/*.txt
	fi
	s=$((s + 1))
done
stop_expert || true

# Only runs that ended with FINAL and a fully correct answer (reward 1, the
# score rlm eval attached) become training samples: one per root turn.
echo "== exporting SFT samples"
"$RLM" traces export --format sft --dir "$OUT/traces" --stop-reason final --min-reward 1 \
	--out "$OUT/samples.jsonl"
"$RLM" traces export --format sft-transcript --dir "$OUT/traces" --stop-reason final --min-reward 1 \
	--out "$OUT/transcripts.jsonl"
# The expert's answers to llm_query (label-count's chunks): the same model
# is trained to be its own sub-model.
"$RLM" traces export --format sft-sub-calls --dir "$OUT/traces" --stop-reason final --min-reward 1 \
	--out "$OUT/sub-calls.jsonl"
echo "samples: $OUT/samples.jsonl (one per root turn, $(wc -l <"$OUT/samples.jsonl") lines), $OUT/transcripts.jsonl (one per run, $(wc -l <"$OUT/transcripts.jsonl")), $OUT/sub-calls.jsonl (one per llm_query call, $(wc -l <"$OUT/sub-calls.jsonl")) from the trajectories in $OUT/traces"
