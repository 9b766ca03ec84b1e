#!/usr/bin/env bash
# Inference throughput of the Go engine and of a plain PyTorch decode loop
# with a K/V cache (tests/python/qwen3_generate.py), side by side in one
# run on the same CPU threads, random weights: prefill and decode tokens/s
# at batch 1 and 16 for a small config and for the Qwen3-0.6B shape.
# Usage: bench/inference.sh [small|0.6b|all]   (default all; 0.6b needs ~6 GB)
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
threads=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/small.json" <<'J'
{"hidden_size":256,"intermediate_size":768,"num_hidden_layers":4,"num_attention_heads":4,"num_key_value_heads":2,
 "head_dim":64,"vocab_size":4096,"max_position_embeddings":4096,"rope_theta":10000,"rms_norm_eps":1e-6}
J
cat > "$tmp/0.6b.json" <<'J'
{"hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,
 "head_dim":128,"vocab_size":151936,"max_position_embeddings":40960,"rope_theta":1000000,"rms_norm_eps":1e-6,
 "tie_word_embeddings":true}
J
echo "machine: $(nproc) threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%F)"
printf '%-6s %5s %6s %6s | %12s %12s %6s | %12s %12s %6s\n' config batch prompt decode "go prefill" "torch prefill" ratio "go decode" "torch decode" ratio
go test -c -o "$tmp/inference.test" ./inference
run() { # config batch prompt decode
  local cfg=$1 b=$2 p=$3 d=$4
  local out
  out=$(cd inference && RLM_BENCH_CONFIG="$tmp/$cfg.json" RLM_BENCH_BATCH=$b RLM_BENCH_PROMPT=$p RLM_BENCH_DECODE=$d \
    GOMAXPROCS=$threads "$tmp/inference.test" -test.run XXX -test.bench BenchmarkGenerate -test.benchtime 1x)
  local gp gd
  gp=$(echo "$out" | grep -o '[0-9.e+]* prefill_tok/s' | cut -d' ' -f1)
  gd=$(echo "$out" | grep -o '[0-9.e+]* decode_tok/s' | cut -d' ' -f1)
  local tj tp td
  # OPENBLAS_CORETYPE/L2_SIZE, set on some machines for old OpenBLAS builds,
  # halve PyTorch's GEMM speed here; the baseline runs without them.
  tj=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tests/python/qwen3_generate.py bench "$tmp/$cfg.json" --batch "$b" --prompt "$p" --decode "$d" --threads "$threads")
  tp=$(echo "$tj" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["prefill_tok_s"])')
  td=$(echo "$tj" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["decode_tok_s"])')
  /usr/bin/python3 -c "print('%-6s %5d %6d %6d | %12.1f %12.1f %5.2fx | %12.1f %12.1f %5.2fx' % ('$cfg', $b, $p, $d, $gp, $tp, $gp/$tp, $gd, $td, $gd/$td))"
}
if [ "$which" = all ] || [ "$which" = small ]; then
  run small 1 256 64
  run small 16 64 32
fi
if [ "$which" = all ] || [ "$which" = 0.6b ]; then
  run 0.6b 1 64 8
  run 0.6b 16 16 4
fi
