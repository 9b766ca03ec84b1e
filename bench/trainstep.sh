#!/usr/bin/env bash
# Forward + cross-entropy + backward tokens/s of the CPU backend against plain
# PyTorch eager (tests/python/qwen3_trainstep_bench.py, float32, the same
# threads), random weights, one row of T tokens, side by side in one run.
# PyTorch's GEMMs are its BLAS: on Debian, install libopenblas0-pthread so it
# is OpenBLAS rather than the reference BLAS.
# Usage: bench/trainstep.sh [small|0.6b|all] [T]   (default all, T=512; 0.6b needs ~12 GB)
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
T="${2:-512}"
threads=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/small.json" <<'J'
{"hidden_size":512,"intermediate_size":1536,"num_hidden_layers":4,"num_attention_heads":8,"num_key_value_heads":4,
 "head_dim":64,"rms_norm_eps":1e-6,"rope_theta":1000000,"vocab_size":8192,"tie_word_embeddings":true}
J
cat > "$tmp/0.6b.json" <<'J'
{"hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,
 "head_dim":128,"vocab_size":151936,"max_position_embeddings":40960,"rope_theta":1000000,"rms_norm_eps":1e-6,
 "tie_word_embeddings":true}
J
blas=$(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/^Value: //p' || true)
echo "machine: $threads threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%F); PyTorch BLAS: ${blas:-unknown}"
printf '%-6s %6s | %10s %10s %7s\n' config tokens "go tok/s" "torch tok/s" ratio
go test -c -o "$tmp/model.test" ./model
run() { # config
  local cfg=$1 out go torch
  out=$(cd model && RLM_BENCH_CONFIG="$tmp/$cfg.json" RLM_BENCH_TOKENS=$T RLM_BENCH_BASELINE=0 \
    GOMAXPROCS=$threads "$tmp/model.test" -test.run XXX -test.bench 'BenchmarkTrainStep/ours' -test.benchtime 2x)
  go=$(echo "$out" | grep -o '[0-9.e+]* tokens/s' | cut -d' ' -f1)
  torch=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tests/python/qwen3_trainstep_bench.py "$tmp/$cfg.json" --tokens "$T" --threads "$threads" |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens_s"])')
  /usr/bin/python3 -c "print('%-6s %6d | %10.1f %10.1f %6.2fx' % ('$cfg', $T, $go, $torch, $go/$torch))"
}
if [ "$which" = all ] || [ "$which" = small ]; then run small; fi
if [ "$which" = all ] || [ "$which" = 0.6b ]; then run 0.6b; fi
