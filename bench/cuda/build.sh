#!/usr/bin/env bash
# Builds what bench/cuda/run.sh needs on a GPU machine without Go, into
# bin/gpu (ignored by git; carry it to the machine):
#   rlm.gz          rlm, stripped and gzipped (run.sh unpacks it); with cgo
#                   where a C compiler is (its REPL workers confine
#                   themselves), needing glibc 2.34 or newer
#   cuda.test       the CUDA backend's tests and benchmarks
#   inference.test  the engine's GPU tests and BenchmarkGenerate
#   serveload       the serving benchmark's client (bench/serveload)
#   sft-data.jsonl  a small SFT set from the tiny recipe's expert (the
#                   fp32/bf16 parity runs of rlm train sft)
#   builtin/        the built-in model as a checkpoint directory (RL runs)
#   libcudaemu.so   the CUDA emulator, whose dry run the memory tests
#                   compare the GPU with (RLM_CUDA_EMU_LIB; needs clang-19)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=bin/gpu
mkdir -p "$out/builtin"
go build -trimpath -ldflags="-s -w" -o "$out/rlm" ./cmd/rlm
# A pure-Go build too, for a machine whose C library is older (its REPL
# workers confine themselves before the runtime starts threads).
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$out/rlm-static" ./cmd/rlm
CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o "$out/cuda.test" ./model/backend/cuda
CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o "$out/inference.test" ./inference
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$out/serveload" ./bench/serveload
cp "$(go run ./bench/cuda/emulib)" "$out/libcudaemu.so"
cp models/tinydemo/weights/{config.json,model.safetensors,tokenizer.json,tokenizer_config.json} "$out/builtin/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RLM=$PWD/$out/rlm N=3 SEEDS=1 LENGTHS=8k sh examples/tiny-rlm/data.sh "$tmp" >/dev/null
cat "$tmp/transcripts.jsonl" "$tmp/sub-calls.jsonl" >"$out/sft-data.jsonl"
gzip -9f "$out/rlm" "$out/rlm-static"
du -sh "$out"
