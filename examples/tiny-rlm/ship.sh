#!/bin/sh
# Ships a trained checkpoint as rlm's built-in model, rlm-tiny-demo
# (models/tinydemo): copies its files into models/tinydemo/weights, rewrites
# SHA256SUMS, runs the held-out subset that eval.json names through
# `rlm eval --local-model builtin` and records the score there, then runs
# the checks CI runs on the shipped weights.
#
#   sh examples/tiny-rlm/ship.sh CHECKPOINT_DIR
#
# CHECKPOINT_DIR holds config.json, model.safetensors, tokenizer.json and
# tokenizer_config.json, e.g. OUT/rl of train.sh; f32 weights are
# converted to bf16 (examples/tiny-rlm/tobf16).
# Before running it, edit models/tinydemo/weights/eval.json: "note" (where
# the weights came from) and, to evaluate another subset, "args" (rlm
# eval's flags; keep it under a minute on 2 CPU cores, CI runs it) and
# "subset" (the same in words; the log line quotes it). Then commit
# models/tinydemo/weights.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$(cd "${1:?usage: ship.sh CHECKPOINT_DIR}" && pwd)
DST=$ROOT/models/tinydemo/weights

for f in config.json model.safetensors tokenizer.json tokenizer_config.json; do
	[ -f "$SRC/$f" ] || { echo "ship.sh: $SRC/$f is missing" >&2; exit 1; }
done
cd "$ROOT"
# The header, JSON at the start of the file, names each tensor's dtype.
if head -c 1048576 "$SRC/model.safetensors" | grep -a -q '"dtype":"F32"'; then
	echo "== converting $SRC to bf16"
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	go run ./examples/tiny-rlm/tobf16 "$SRC" "$TMP"
	SRC=$TMP
fi
size=$(wc -c <"$SRC/model.safetensors")
if [ "$size" -gt $((25 * 1024 * 1024)) ]; then
	echo "ship.sh: $SRC/model.safetensors is $size bytes, more than the 25 MiB the binary may carry" >&2
	exit 1
fi
for f in config.json model.safetensors tokenizer.json tokenizer_config.json; do
	cp "$SRC/$f" "$DST/$f"
done

echo "== SHA256SUMS"
go test ./models/tinydemo -run '^TestChecksums$' -count=1 -update
echo "== recording the held-out score in eval.json"
go test ./cmd/rlm -run '^TestBuiltinModelScore$' -count=1 -update
echo "== the checks CI runs on the shipped weights"
go test ./models/tinydemo -count=1
go test ./cmd/rlm -run '^TestBuiltin' -count=1
cat "$DST/eval.json"
echo "== done: commit models/tinydemo/weights"
