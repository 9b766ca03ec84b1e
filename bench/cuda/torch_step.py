#!/usr/bin/env python3
"""The PyTorch side of bench/cuda/run.sh: one SFT step of a Qwen3-0.6B-shaped
model (random weights) with transformers' Qwen3ForCausalLM on the GPU.

Modes (--mode):
  bf16       parameters and activations in bf16, fused AdamW: the usual
             "bf16 eager" recipe (no float32 master weights)
  amp        float32 parameters and AdamW, bf16 autocast for the compute:
             the same precision recipe as our CUDA backend's bf16 mode
  bf16-compile, amp-compile  the same under torch.compile
Attention is SDPA (flash attention on the H100). Prints one JSON line with
tokens/s; --peak prints the bf16 matrix-product peak instead.
"""
import argparse
import json
import time

import torch


def peak():
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    reps = 20
    t = time.perf_counter()
    for _ in range(reps):
        a @ b
    torch.cuda.synchronize()
    return 2 * n**3 * reps / (time.perf_counter() - t) / 1e12


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="bf16")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--peak", action="store_true")
    args = ap.parse_args()
    if args.peak:
        print(json.dumps({"peak_bf16_tflops": peak()}))
        return
    from transformers import Qwen3Config, Qwen3ForCausalLM

    cfg = Qwen3Config(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
                      num_key_value_heads=8, head_dim=128, rms_norm_eps=1e-6, rope_theta=1000000,
                      vocab_size=151936, max_position_embeddings=40960, tie_word_embeddings=True)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(cfg).cuda()
    amp = args.mode.startswith("amp")
    if not amp:
        model = model.to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1, fused=True)
    fwd = model
    if args.mode.endswith("compile"):
        fwd = torch.compile(model)
    ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            loss = fwd(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(args.steps):
        step()
    torch.cuda.synchronize()
    el = time.perf_counter() - t
    tokens = args.batch * args.seq * args.steps
    print(json.dumps({"mode": args.mode, "batch": args.batch, "seq": args.seq, "tokens_per_s": tokens / el,
                      "ms_per_step": el / args.steps * 1e3, "max_mem_gib": torch.cuda.max_memory_allocated() / 2**30,
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
