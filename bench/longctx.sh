#!/usr/bin/env bash
# Reproduces the 10M-token measurements of BENCHMARKS.md: S-NIAH at 128K, 1M
# and 10M tokens and the OOLONG-style task at 128K and 1M, each document
# uploaded through /v1/files and asked about in a chat completion, against a
# fake upstream (eval/fakemodel: a test double for the model, not a model).
#
#   bench/longctx.sh                 # through `rlm serve` if this build has it, else the gateway package
#   MODE=engine bench/longctx.sh     # through the engine in-process (no HTTP)
#   bench/longctx.sh -repeat 5 -cases sniah:10m -json out.json
#
# Extra arguments go to the bench/longctx program (see -h).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "building ..." >&2
go build -o "$tmp/longctx" ./bench/longctx
go build -o "$tmp/rlm" ./cmd/rlm
mode=${MODE:-}
if [ -z "$mode" ]; then
	# (not a pipe: grep -q exiting early would fail the pipeline under pipefail)
	cmds=$("$tmp/rlm" help)
	if grep -q '^  serve ' <<<"$cmds"; then mode=serve; else mode=gateway; fi
fi
echo "mode: $mode" >&2
"$tmp/longctx" -mode "$mode" -rlm "$tmp/rlm" -workdir "$tmp" "$@"
