#!/usr/bin/env bash
# The CUDA backend's checks and benchmarks, for a machine with an NVIDIA GPU
# (and, for the PyTorch side, torch and transformers). The machine needs no
# Go: build the test binary where Go is and carry it along:
#
#   CGO_ENABLED=0 go test -c -o bin/cuda.test ./training/backend/cuda
#   bench/cuda/run.sh [OUTDIR]
#
# It runs every GPU test (ops against the CPU backend, a model step against
# the CPU and against transformers), then the training-step benchmark next
# to PyTorch's in the same run, and prints a table.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/cuda-bench}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
(cd training/backend/cuda && ../../../bin/cuda.test -test.v -test.run "${RUN:-.}" -test.timeout 20m) 2>&1 | tee "$out/tests.log" | grep -E '^(=== RUN|--- |PASS|FAIL|ok|panic)|relative error|GPU:' | grep -v '=== RUN' | tail -120
[ -n "${NOBENCH:-}" ] && exit 0
(cd training/backend/cuda && ../../../bin/cuda.test -test.run '^$' -test.bench "${BENCH:-.}" -test.benchtime "${BENCHTIME:-5x}" -test.timeout 20m) 2>&1 | tee "$out/bench_go.txt"
python3 bench/cuda/torch_step.py --peak | tee "$out/bench_torch.jsonl"
for mode in ${TORCH_MODES-bf16 amp bf16-compile}; do
  for b in 1 4; do
    PYTHONUNBUFFERED=1 python3 bench/cuda/torch_step.py --mode "$mode" --batch "$b" 2>"$out/torch_${mode}_${b}.err" | tee -a "$out/bench_torch.jsonl"
  done
done
