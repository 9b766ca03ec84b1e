#!/usr/bin/python3
"""Reference Qwen3 dense model in plain PyTorch, for checking the Go trainer.

Builds the model from a checkpoint directory (config.json + model.safetensors
or a sharded index) without transformers or the safetensors package (neither
is in Debian's python3-torch 1.13): the safetensors format is parsed here
with struct/json/numpy.

Usage: qwen3_ref.py CHECKPOINT_DIR BATCH_JSON [--dtype float64|float32]

BATCH_JSON holds B, T, ids, pos, seg and optionally targets and weights
(the fields of model.Batch). The script prints one JSON object to stdout:
  logits  - the B*T x V logits, flattened
  loss    - sum(weights * cross_entropy)        (when targets are given)
  grads   - {tensor name: flattened gradient}  (when targets are given)
"""

import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch


def read_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        lo, hi = info["data_offsets"]
        raw = data[lo:hi]
        dt = info["dtype"]
        if dt == "F32":
            arr = np.frombuffer(raw, dtype="<f4")
        elif dt == "F16":
            arr = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        elif dt == "BF16":
            arr = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise ValueError(f"{name}: unsupported dtype {dt}")
        out[name] = arr.reshape(info["shape"]).copy()
    return out


def read_checkpoint(d):
    idx = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(idx):
        with open(idx) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    tensors = {}
    for fn in files:
        path = os.path.join(d, fn)
        ours = read_safetensors(path)
        check_with_safetensors_package(path, ours)
        tensors.update(ours)
    return tensors


def check_with_safetensors_package(path, ours):
    """Where the safetensors package exists (not in Debian's torch 1.13),
    load the file with it too and require the same tensors."""
    try:
        from safetensors.torch import load_file
    except ImportError:
        return
    theirs = load_file(path)
    if set(theirs) != set(ours):
        raise SystemExit(f"{path}: safetensors package sees {sorted(theirs)}, we see {sorted(ours)}")
    for name, t in theirs.items():
        if not np.array_equal(t.float().numpy(), ours[name]):
            raise SystemExit(f"{path}: tensor {name} differs under the safetensors package")


def rms_norm(x, w, eps):
    var = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(var + eps))


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def forward(cfg, p, ids, pos, seg, dtype):
    B, T = ids.shape
    C = cfg["hidden_size"]
    H = cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads") or H
    D = cfg.get("head_dim") or C // H
    eps = cfg.get("rms_norm_eps", 1e-6)
    theta = cfg.get("rope_theta", 10000.0)

    inv_freq = 1.0 / (theta ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    freqs = pos.to(torch.float64)[..., None] * inv_freq  # B,T,D/2
    emb = torch.cat((freqs, freqs), dim=-1)
    cos = emb.cos().to(dtype)[:, None]  # B,1,T,D
    sin = emb.sin().to(dtype)[:, None]

    t = torch.arange(T)
    causal = t[None, :] <= t[:, None]  # T,T: key s <= query t
    same = seg[:, :, None] == seg[:, None, :]  # B,T,T
    allowed = (causal[None] & same)[:, None]  # B,1,T,T

    x = p["model.embed_tokens.weight"][ids]
    for l in range(cfg["num_hidden_layers"]):
        pre = f"model.layers.{l}."
        h = rms_norm(x, p[pre + "input_layernorm.weight"], eps)
        q = (h @ p[pre + "self_attn.q_proj.weight"].T).view(B, T, H, D)
        k = (h @ p[pre + "self_attn.k_proj.weight"].T).view(B, T, KV, D)
        v = (h @ p[pre + "self_attn.v_proj.weight"].T).view(B, T, KV, D)
        q = rms_norm(q, p[pre + "self_attn.q_norm.weight"], eps).transpose(1, 2)
        k = rms_norm(k, p[pre + "self_attn.k_norm.weight"], eps).transpose(1, 2)
        v = v.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // KV, dim=1)
        v = v.repeat_interleave(H // KV, dim=1)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D)
        s = s.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(s, dim=-1) @ v  # B,H,T,D
        a = a.transpose(1, 2).reshape(B, T, H * D)
        x = x + a @ p[pre + "self_attn.o_proj.weight"].T
        h = rms_norm(x, p[pre + "post_attention_layernorm.weight"], eps)
        g = h @ p[pre + "mlp.gate_proj.weight"].T
        u = h @ p[pre + "mlp.up_proj.weight"].T
        x = x + (torch.nn.functional.silu(g) * u) @ p[pre + "mlp.down_proj.weight"].T
    x = rms_norm(x, p["model.norm.weight"], eps)
    head = p["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else p["lm_head.weight"]
    return x @ head.T


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkpoint")
    ap.add_argument("batch")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)

    with open(os.path.join(args.checkpoint, "config.json")) as f:
        cfg = json.load(f)
    with open(args.batch) as f:
        batch = json.load(f)
    params = {
        n: torch.tensor(a, dtype=dtype, requires_grad=True)
        for n, a in read_checkpoint(args.checkpoint).items()
    }
    B, T = batch["B"], batch["T"]
    shape = lambda k: torch.tensor(batch[k], dtype=torch.long).view(B, T)
    logits = forward(cfg, params, shape("ids"), shape("pos"), shape("seg"), dtype)
    out = {"logits": logits.detach().reshape(-1).tolist()}
    if batch.get("targets") is not None:
        V = logits.shape[-1]
        ce = torch.nn.functional.cross_entropy(
            logits.reshape(-1, V), shape("targets").reshape(-1), reduction="none")
        w = torch.tensor(batch["weights"], dtype=dtype)
        loss = (w * ce).sum()
        loss.backward()
        out["loss"] = loss.item()
        out["grads"] = {n: t.grad.reshape(-1).tolist() for n, t in params.items() if t.grad is not None}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
