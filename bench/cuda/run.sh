#!/usr/bin/env bash
# Every GPU check and benchmark of the open CUDA issues, in one run of about
# 8 minutes (the sections of the last H200 run took 289 s; memory and
# trainstep are new, estimated at 3 more minutes) on a machine with an
# NVIDIA GPU, PyTorch and transformers (no Go needed): build with
# bench/cuda/build.sh where Go is, carry bin/gpu, then
#
#   bench/cuda/run.sh [OUTDIR]          (default $OUT, else /tmp/cuda-bench)
#
# Sections, each with its own time limit so that a hang costs only itself:
#   1. tests: the CUDA backend's tests (every op against the CPU backend, a
#      model step against the CPU and transformers, paged attention and
#      sampling against their references, activations kept as bf16) and
#      the engine's GPU tests (the built-in model and a random Qwen3-0.6B
#      shape, GPU against CPU, preemption)
#   memory: the peak device memory of training steps (Qwen3-0.6B at B=1
#      and 4, T=4096; the released sizes up to 32B, full and LoRA, with and
#      without checkpointing, where they fit 80 GB) on the GPU against the
#      CUDA emulator's dry run of a device like it, which CI checks for an
#      80 GB card without a GPU (issue 30)
#   trainstep: the 0.6B SFT step's tokens/s and peak memory against
#      PyTorch's eager and amp steps (bench/cuda/torch_step.py), and the
#      attention kernels' TFLOP/s; the step and the attention backward each
#      with the backward as two kernels and as one (fused)
#   2. inference: prefill and decode tokens/s of the engine (GPU bf16, and
#      the CPU backend on the same machine) against transformers' generate
#      with a static cache, Qwen3-0.6B shape, random weights
#   3. RL: one step of examples/tiny-rlm/train.sh's RL setting (4 tasks x 8
#      rollouts) on the GPU (bf16, fp32) and on the CPU
#   4. SFT parity: 50 steps of rlm train sft on the CPU, the GPU in fp32
#      and in bf16, the same data and seed; losses compared step by step
#   5. serving: rlm model serve on the GPU through HTTP (continuous
#      batching, the paged cache), Qwen3-0.6B shape, measured from outside
#      by bench/serveload at 16, 64 and 256 requests in flight (about 2
#      minutes; with it the whole run may pass 9: ONLY picks sections)
# Output files (few: a GPU session brings back at most 8): summary.txt,
# tests.log, memory.txt, trainstep.txt, infer.txt, rl.txt, sft.txt,
# serve.txt.
# ONLY=tests,rl (say) runs some; extra adds RL in fp32 and SFT in bf16.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-${OUT:-/tmp/cuda-bench}}
mkdir -p "$out"
B=$root/bin/gpu
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
for f in rlm rlm-static; do [ -f "$B/$f.gz" ] && gunzip -kf "$B/$f.gz"; done
RLM=$B/rlm
if ! "$RLM" help >/dev/null 2>&1; then
  echo "bin/gpu/rlm does not start here ($("$RLM" help 2>&1 | head -1)); using rlm-static" >&2
  RLM=$B/rlm-static
fi
tmp=$(mktemp -d)
sum=$out/summary.txt
say() { echo "[$(date -u +%T) +${SECONDS}s] $*" | tee -a "$sum"; }
say "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
say "CPU: $(nproc) threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%F)"
only=${ONLY:-tests,memory,trainstep,infer,rl,sft,serve}
export RLM_CUDA_EMU_LIB=$B/libcudaemu.so
# The Qwen3-0.6B shape, for random weights (inference and serving).
cat >"$tmp/0.6b.json" <<'J'
{"hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,
 "head_dim":128,"vocab_size":151936,"max_position_embeddings":40960,"rope_theta":1000000,"rms_norm_eps":1e-6,
 "tie_word_embeddings":true}
J

# ---------------------------------------------------------------- 1. tests
if [[ $only == *tests* ]]; then
  say "1. tests"
  (cd model/backend/cuda && timeout 200 "$B/cuda.test" -test.v -test.run "${RUN:-.}" \
    -test.skip 'TestTrainStepMemory|TestLargestOnOneGPU' -test.timeout 190s) >"$out/tests.log" 2>&1
  (cd inference && timeout 150 "$B/inference.test" -test.v -test.run 'TestGPUMatchesCPU' -test.timeout 140s) >>"$out/tests.log" 2>&1
  grep -E '^(--- |FAIL|ok|panic)' "$out/tests.log" | grep -v '^--- PASS' | tee -a "$sum"
  echo "passed: $(grep -c '^--- PASS\|^    --- PASS' "$out/tests.log"), failed: $(grep -c -- '--- FAIL' "$out/tests.log")" | tee -a "$sum"
  grep -E 'gpu_test.go.*(fp32|bf16)|paged_test.go.*relative error' "$out/tests.log" | sed 's/^ *//' | tee -a "$sum"
fi

# ---------------------------------------------------------------- memory
if [[ $only == *memory* ]]; then
  say "memory: training steps' peak device memory, GPU against the emulator's dry run"
  (cd model/backend/cuda && timeout 240 "$B/cuda.test" -test.v -test.run 'TestTrainStepMemory|TestLargestOnOneGPU' \
    -test.timeout 230s) 2>&1 | grep -E 'predicted|on the GPU|GiB|\| model|--- FAIL|^(ok|FAIL|PASS)|panic' >"$out/memory.txt"
  cat "$out/memory.txt" >>"$sum"
fi

# ------------------------------------------------------------- trainstep
# The SFT step of a Qwen3-0.6B shape (BenchmarkTrainStep) next to
# PyTorch's eager and amp steps (bench/cuda/torch_step.py).
if [[ $only == *trainstep* ]]; then
  say "trainstep: SFT step, Qwen3-0.6B shape, T=4096"
  # Each with the attention backward as two kernels and as one (fused).
  (cd model/backend/cuda && timeout 200 "$B/cuda.test" -test.run '^$' -test.bench 'BenchmarkTrainStep|BenchmarkAttention' \
    -test.benchtime 5x) 2>&1 | tee -a "$out/trainstep.txt"
  python3 bench/cuda/torch_step.py --peak | tee -a "$out/trainstep.txt"
  for mode in ${TORCH_MODES-bf16 amp}; do
    for b in 1 4; do
      timeout 120 python3 bench/cuda/torch_step.py --mode "$mode" --batch "$b" 2>/dev/null | tee -a "$out/trainstep.txt"
    done
  done
  grep -E 'tokens/s|GiB|tokens_per_s|peak' "$out/trainstep.txt" >>"$sum"
fi

# ------------------------------------------------------------ 2. inference
if [[ $only == *infer* ]]; then
  say "2. inference, Qwen3-0.6B shape, random weights, prompt 512, decode 128 (CPU: decode 16)"
  go_bench() { # device batch decode
    (cd inference && RLM_BENCH_DEVICE=$1 RLM_BENCH_CONFIG=$tmp/0.6b.json RLM_BENCH_BATCH=$2 RLM_BENCH_PROMPT=512 \
      RLM_BENCH_DECODE=$3 timeout 120 "$B/inference.test" -test.run '^$' -test.bench BenchmarkGenerate -test.benchtime 1x) 2>&1 |
      grep -E 'Benchmark|FAIL|panic|Error' | sed "s/^/go $1 batch=$2 decode=$3: /" | tee -a "$out/infer.txt"
  }
  for b in 1 16 64; do go_bench cuda $b 128; done
  timeout 200 python3 bench/cuda/torch_generate.py --batch 1,16,64 --prompt 512 --decode 128 2>"$tmp/torch.err" | tee -a "$out/infer.txt"
  tail -3 "$tmp/torch.err" >>"$out/infer.txt"
  for b in 1 16; do go_bench cpu $b 16; done
  cat "$out/infer.txt" >>"$sum"
fi

# ------------------------------------------------------------------- 3. RL
if [[ $only == *rl* ]]; then
  say "3. RL: rlm train rl, 1 step of 4 tasks x 8 rollouts (label-count, held-in, 2K), seed 1000, from the built-in model"
  rl() { # name device precision
    local o=$tmp/rl-$1
    timeout 200 "$RLM" train rl -model "$B/builtin" -out "$o" -device "$2" -precision "$3" -task label-count \
      -phrasings in -lengths 2k -group 8 -tasks-per-step 4 -steps 1 -lr 3e-5 -temperature 0.7 -max-iterations 5 \
      -max-completion-tokens 768 -seq-len 4096 -seed 1000 -dtype f32 -log-every 1 >"$o.log" 2>&1
    echo "rc=$?" >>"$o.log"
    sed "s/^/[$1] /" "$o.log" | tr '\r' '\n' | grep -E 'device|step 1/1|done|rc=|rror' | tail -5 >>"$out/rl.txt"
    python3 - "$1" "$o/trainer_state.json" "$o/traces" >>"$out/rl.txt" <<'P'
import json, os, sys
name, path, traces = sys.argv[1:4]
try:
    h = json.load(open(path))["history"][-1]
except Exception as e:
    print(f"[{name}] no trainer state: {e}"); sys.exit()
cancelled = 0
for d, _, fs in os.walk(traces):
    for f in fs:
        try:
            cancelled += open(os.path.join(d, f), errors="replace").read().count("time limit of")
        except OSError:
            pass
print(f"[{name}] reward {h['reward_mean']:.3f} pass {h['pass_rate']:.2f} generated {h['generated_tokens']} tokens, "
      f"rollout {h['rollout_s']:.1f} s ({h['generated_tokens']/h['rollout_s']:.0f} tok/s), train {h['train_s']:.1f} s, "
      f"cells cut by the time limit: {cancelled}")
P
  }
  rl gpu-bf16 cuda bf16
  rl cpu cpu bf16
  [[ $only == *extra* ]] && rl gpu-fp32 cuda fp32
  grep -E '\] reward|rc=[1-9]|rror' "$out/rl.txt" | tee -a "$sum"
fi

# ---------------------------------------------------------- 4. SFT parity
if [[ $only == *sft* ]]; then
  say "4. SFT parity: 50 steps, seq 2048, batch 4, lr 2e-3, seed 1, from the built-in model"
  sft() { # name device precision
    timeout 150 "$RLM" train sft -model "$B/builtin" -data "$B/sft-data.jsonl" -out "$tmp/sft-$1" -device "$2" \
      -precision "$3" -seq-len 2048 -batch-size 4 -grad-accum 1 -steps 50 -lr 2e-3 -warmup 5 -weight-decay 0.01 \
      -log-every 10 -dtype f32 -seed 1 2>&1 | tr '\r' '\n' | grep -E 'device|step 50/50|done|rror' | sed "s/^/[$1] /" >>"$out/sft.txt"
  }
  sft cpu cpu bf16
  sft gpu-fp32 cuda fp32
  [[ $only == *extra* ]] && sft gpu-bf16 cuda bf16
  python3 - "$tmp" >>"$out/sft.txt" <<'P'
import json, sys
t = sys.argv[1]
def losses(n):
    try:
        return json.load(open(f"{t}/sft-{n}/trainer_state.json"))["losses"]
    except Exception as e:
        return None
ref = losses("cpu")
for n in ("gpu-fp32", "gpu-bf16"):
    got = losses(n)
    if not ref or not got:
        print(f"{n}: missing losses"); continue
    rel = [abs(a - b) / abs(b) for a, b in zip(got, ref)]
    print(f"{n} vs cpu over {len(rel)} steps: max rel diff {max(rel):.3g} (first 10 steps {max(rel[:10]):.3g}), "
          f"final loss {got[-1]:.5f} vs {ref[-1]:.5f}")
P
  cat "$out/sft.txt" >>"$sum"
fi
# ----------------------------------------------------------- 5. serving
if [[ $only == *serve* ]]; then
  say "5. serving: rlm model serve on the GPU (bf16), Qwen3-0.6B shape, random weights; prompts of 512 random tokens, 128 new tokens (ignore_eos), 16, 64 and 256 in flight"
  "$RLM" train init -model-config "$tmp/0.6b.json" -tokenizer "$B/builtin" -out "$tmp/serve-0.6b" >"$tmp/serve.log" 2>&1
  "$RLM" model serve --device cuda --listen 127.0.0.1:8099 --kv-cache 40GiB --max-seqs 256 --max-queued 2048 \
    --max-batch-tokens 8192 "$tmp/serve-0.6b" >>"$tmp/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 120); do grep -q 'listening on' "$tmp/serve.log" && break; sleep 1; done
  timeout 240 "$B/serveload" -url http://127.0.0.1:8099/v1 -concurrency 16,64,256 -prompt-tokens 512 -max-tokens 128 \
    -vocab 2000 >"$out/serve.txt" 2>&1
  echo "rc=$?" >>"$out/serve.txt"
  kill "$pid"; wait "$pid" 2>/dev/null
  grep -E 'level=(WARN|ERROR)|rror' "$tmp/serve.log" | tail -5 >>"$out/serve.txt"
  echo "against: vLLM's published figure for Qwen3-0.6B, about 95 requests/s on one H100 (issue 39); no vLLM here" >>"$out/serve.txt"
  cat "$out/serve.txt" >>"$sum"
fi
say "done"
rm -rf "$tmp"
