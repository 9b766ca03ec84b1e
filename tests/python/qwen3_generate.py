#!/usr/bin/python3
"""Reference Qwen3 decoding in plain PyTorch, the way Hugging Face's
generate() runs it: one prefill of the prompt filling a per-layer K/V
cache, then one token per step attending over the cache. For checking the
Go inference engine (greedy continuations must be identical) and for
benchmarking it side by side on the same CPU threads.

Usage:
  qwen3_generate.py greedy CHECKPOINT_DIR IDS_JSON N [--dtype float32|float64]
      prints {"tokens": [...]}: N greedy tokens after the prompt IDS_JSON
      (a JSON list of token ids).
  qwen3_generate.py bench CONFIG_JSON --batch B --prompt P --decode D --threads T
      random weights of the config; prints {"prefill_tok_s", "decode_tok_s"}
      for B sequences of P prompt tokens, then D decode steps.
"""

import argparse
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qwen3_ref import read_checkpoint, rms_norm, rotate_half  # noqa: E402


class Qwen3:
    def __init__(self, cfg, params, dtype):
        self.cfg = cfg
        self.p = {n: torch.as_tensor(a).to(dtype) for n, a in params.items()}
        self.C = cfg["hidden_size"]
        self.H = cfg["num_attention_heads"]
        self.KV = cfg.get("num_key_value_heads") or self.H
        self.D = cfg.get("head_dim") or self.C // self.H
        self.eps = cfg.get("rms_norm_eps", 1e-6)
        theta = cfg.get("rope_theta", 10000.0)
        self.inv_freq = 1.0 / (theta ** (torch.arange(0, self.D, 2, dtype=torch.float64) / self.D))
        self.dtype = dtype
        self.head = self.p["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else self.p["lm_head.weight"]

    def rope(self, pos):
        freqs = pos.to(torch.float64)[..., None] * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(self.dtype)[:, None], emb.sin().to(self.dtype)[:, None]  # B,1,T,D

    @torch.no_grad()
    def forward(self, ids, start, cache):
        """ids: B×T new tokens at positions start..start+T-1; cache: per
        layer (K, V) of B×KV×start×D, extended in place. Returns the logits
        of the last position, B×V."""
        B, T = ids.shape
        H, KV, D, eps = self.H, self.KV, self.D, self.eps
        pos = torch.arange(start, start + T)[None].expand(B, T)
        cos, sin = self.rope(pos)
        mask = None
        if T > 1:
            q_pos = torch.arange(start, start + T)[:, None]
            k_pos = torch.arange(start + T)[None, :]
            mask = k_pos <= q_pos  # T × (start+T)
        x = self.p["model.embed_tokens.weight"][ids]
        for l in range(self.cfg["num_hidden_layers"]):
            pre = f"model.layers.{l}."
            p = lambda n: self.p[pre + n]
            h = rms_norm(x, p("input_layernorm.weight"), eps)
            q = (h @ p("self_attn.q_proj.weight").T).view(B, T, H, D)
            k = (h @ p("self_attn.k_proj.weight").T).view(B, T, KV, D)
            v = (h @ p("self_attn.v_proj.weight").T).view(B, T, KV, D)
            q = rms_norm(q, p("self_attn.q_norm.weight"), eps).transpose(1, 2)
            k = rms_norm(k, p("self_attn.k_norm.weight"), eps).transpose(1, 2)
            v = v.transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            if cache[l] is None:
                cache[l] = (k, v)
            else:
                cache[l] = (torch.cat((cache[l][0], k), dim=2), torch.cat((cache[l][1], v), dim=2))
            K, V = cache[l]
            K = K.repeat_interleave(H // KV, dim=1)
            V = V.repeat_interleave(H // KV, dim=1)
            s = (q @ K.transpose(-1, -2)) / math.sqrt(D)
            if mask is not None:
                s = s.masked_fill(~mask, float("-inf"))
            a = (torch.softmax(s, dim=-1) @ V).transpose(1, 2).reshape(B, T, H * D)
            x = x + a @ p("self_attn.o_proj.weight").T
            h = rms_norm(x, p("post_attention_layernorm.weight"), eps)
            g = h @ p("mlp.gate_proj.weight").T
            u = h @ p("mlp.up_proj.weight").T
            x = x + (torch.nn.functional.silu(g) * u) @ p("mlp.down_proj.weight").T
        x = rms_norm(x[:, -1], self.p["model.norm.weight"], eps)
        return x @ self.head.T


def greedy(args):
    with open(os.path.join(args.checkpoint, "config.json")) as f:
        cfg = json.load(f)
    with open(args.ids) as f:
        ids = json.load(f)
    m = Qwen3(cfg, read_checkpoint(args.checkpoint), getattr(torch, args.dtype))
    cache = [None] * cfg["num_hidden_layers"]
    logits = m.forward(torch.tensor([ids]), 0, cache)
    out, gaps = [], []
    for i in range(args.n):
        top = torch.topk(logits[0], 2)
        gaps.append((top.values[0] - top.values[1]).item())
        tok = int(torch.argmax(logits[0]))
        out.append(tok)
        logits = m.forward(torch.tensor([[tok]]), len(ids) + i, cache)
    json.dump({"tokens": out, "min_gap": min(gaps)}, sys.stdout)


def random_params(cfg, seed):
    g = torch.Generator().manual_seed(seed)
    C, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H = cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads") or H
    D = cfg.get("head_dim") or C // H
    p = {"model.embed_tokens.weight": torch.randn(V, C, generator=g) * 0.02, "model.norm.weight": torch.ones(C)}
    for l in range(cfg["num_hidden_layers"]):
        pre = f"model.layers.{l}."
        for n, shape in [("self_attn.q_proj.weight", (H * D, C)), ("self_attn.k_proj.weight", (KV * D, C)),
                         ("self_attn.v_proj.weight", (KV * D, C)), ("self_attn.o_proj.weight", (C, H * D)),
                         ("mlp.gate_proj.weight", (F, C)), ("mlp.up_proj.weight", (F, C)), ("mlp.down_proj.weight", (C, F))]:
            p[pre + n] = torch.randn(*shape, generator=g) * 0.02
        for n, size in [("input_layernorm.weight", C), ("post_attention_layernorm.weight", C),
                        ("self_attn.q_norm.weight", D), ("self_attn.k_norm.weight", D)]:
            p[pre + n] = torch.ones(size)
    if not cfg.get("tie_word_embeddings"):
        p["lm_head.weight"] = torch.randn(V, C, generator=g) * 0.02
    return p


def bench(args):
    torch.set_num_threads(args.threads)
    with open(args.config) as f:
        cfg = json.load(f)
    m = Qwen3(cfg, random_params(cfg, 1), torch.float32)
    V = cfg["vocab_size"]
    g = torch.Generator().manual_seed(2)
    ids = torch.randint(0, V, (args.batch, args.prompt), generator=g)
    # Warm up the kernels on a short sequence.
    m.forward(ids[:, :8], 0, [None] * cfg["num_hidden_layers"])
    cache = [None] * cfg["num_hidden_layers"]
    t0 = time.perf_counter()
    logits = m.forward(ids, 0, cache)
    t1 = time.perf_counter()
    tok = torch.argmax(logits, dim=-1, keepdim=True)
    for i in range(args.decode):
        logits = m.forward(tok, args.prompt + i, cache)
        tok = torch.argmax(logits, dim=-1, keepdim=True)
    t2 = time.perf_counter()
    json.dump({"prefill_tok_s": args.batch * args.prompt / (t1 - t0),
               "decode_tok_s": args.batch * args.decode / (t2 - t1), "threads": torch.get_num_threads(),
               "torch": torch.__version__}, sys.stdout)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("greedy")
    g.add_argument("checkpoint")
    g.add_argument("ids")
    g.add_argument("n", type=int)
    g.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    b = sub.add_parser("bench")
    b.add_argument("config")
    b.add_argument("--batch", type=int, default=1)
    b.add_argument("--prompt", type=int, default=128)
    b.add_argument("--decode", type=int, default=32)
    b.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    greedy(args) if args.cmd == "greedy" else bench(args)


if __name__ == "__main__":
    main()
