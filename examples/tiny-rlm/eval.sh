#!/bin/sh
# Held-out evaluation of a tiny RLM model (issue 15, step 5): `rlm eval
# --local-model` (the real engine and REPL, the model run in-process) on
# instances no training run saw: seed 1 (training uses seeds from 1000 up)
# and the held-out question phrasings (--phrasings out).
#
#   sh examples/tiny-rlm/eval.sh MODEL_DIR [OUT]   (OUT defaults to MODEL_DIR-eval)
#
# Environment (all optional):
#   RLM       the rlm binary (default: built from this checkout)
#   N         instances per variant and length (default 10)
#   LENGTHS   input lengths in tokens (default 8k,128k,1m,10m)
#   VARIANTS  task variants, separated by ';' (default: the S-NIAH variants
#             and the records family)
#   SEED      instance seed (default 1)
#   MAX_TOKENS  max_tokens of each model call (default 1024: the lookup
#             cell is about 870 tokens; served, the model may use what its
#             8,192-token window leaves)
# Greedy decoding; each variant's summary.json and results.jsonl land in
# OUT/<variant>, and one line per variant and length is printed.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MODEL=${1:?usage: eval.sh MODEL_DIR [OUT]}
OUT=${2:-$MODEL-eval}
N=${N:-10}
LENGTHS=${LENGTHS:-8k,128k,1m,10m}
VARIANTS=${VARIANTS:-sniah;sniah --uuid;sniah --keys 4;records}
SEED=${SEED:-1}
MAX_TOKENS=${MAX_TOKENS:-1024}
mkdir -p "$OUT"
if [ -z "${RLM:-}" ]; then
	(cd "$ROOT" && go build -o "$OUT/rlm" ./cmd/rlm)
	RLM=$OUT/rlm
fi

IFS=';'
for variant in $VARIANTS; do
	unset IFS
	set -- $variant
	name=$(echo "$variant" | tr -d ' -')
	rm -rf "$OUT/$name"
	"$RLM" eval --local-model "$MODEL" --kv-cache 65536tokens --task "$@" --phrasings out \
		--lengths "$LENGTHS" --n "$N" --seed "$SEED" --temperature 0 --max-iterations 6 \
		--max-completion-tokens "$MAX_TOKENS" --out "$OUT/$name" --traces none >"$OUT/$name.txt" 2>"$OUT/$name.log" ||
		{ tail -20 "$OUT/$name.log" >&2; exit 1; }
	echo "== $variant"
	cat "$OUT/$name.txt"
	IFS=';'
done
