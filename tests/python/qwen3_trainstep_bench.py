#!/usr/bin/python3
"""PyTorch baseline for BenchmarkTrainStep: one forward, cross-entropy and
backward pass of a Qwen3 with random weights over one row of T tokens, in
plain PyTorch eager (the reference model of qwen3_ref.py), float32, on the
given number of CPU threads.

Usage: qwen3_trainstep_bench.py CONFIG_JSON --tokens T --threads N [--steps S]
Prints {"tokens_s": ..., "step_s": ..., "threads": ..., "torch": ...}.
"""

import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qwen3_generate import random_params  # noqa: E402
from qwen3_ref import forward  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("--tokens", type=int, default=512)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--steps", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    with open(args.config) as f:
        cfg = json.load(f)
    p = random_params(cfg, 1)
    for t in p.values():
        t.requires_grad_(True)
    T, V = args.tokens, cfg["vocab_size"]
    g = torch.Generator().manual_seed(2)
    ids = torch.randint(0, V, (1, T), generator=g)
    targets = torch.randint(0, V, (1, T), generator=g)
    pos = torch.arange(T)[None]
    seg = torch.zeros(1, T, dtype=torch.long)

    def step():
        for t in p.values():
            t.grad = None
        logits = forward(cfg, p, ids, pos, seg, torch.float32)
        loss = torch.nn.functional.cross_entropy(logits.view(T, V), targets.view(T))
        loss.backward()

    step()  # warm-up
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    dt = (time.perf_counter() - t0) / args.steps
    json.dump({"tokens_s": T / dt, "step_s": dt, "threads": torch.get_num_threads(), "torch": torch.__version__}, sys.stdout)


if __name__ == "__main__":
    main()
