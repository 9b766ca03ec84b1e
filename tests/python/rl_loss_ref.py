#!/usr/bin/python3
"""Reference of training/rl's policy loss in PyTorch, for checking the Go trainer.

Usage: rl_loss_ref.py CHECKPOINT_DIR BATCH_JSON

BATCH_JSON holds one packed row (B, T, ids, pos, seg, targets as in
qwen3_ref.py) and the RL fields: loss (1 where the target is a sampled token),
old_logprobs (the sampler's), advantages, norm (the number of sampled tokens
of the step), and the loss settings mode ("dppo" or "ppo"), tv_low, tv_high,
clip_low, clip_high, log_ratio_penalty. Per sampled token, with
r = exp(p - q):
  dppo: -A*r, masked (0) when p_prob - q_prob > tv_high with A > 0 or
        < -tv_low with A < 0 (DPPO Binary-TV, anchored at the sampler)
  ppo:  -min(A*r, A*clip(r, 1-clip_low, 1+clip_high))
plus log_ratio_penalty*(p-q)^2, summed and divided by norm. Prints
{"loss": ..., "grads": {name: [...]}} computed in float64 with autograd.
"""

import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qwen3_ref import forward, read_checkpoint  # noqa: E402


def main():
    ckpt, batch_path = sys.argv[1], sys.argv[2]
    with open(os.path.join(ckpt, "config.json")) as f:
        cfg = json.load(f)
    with open(batch_path) as f:
        b = json.load(f)
    dtype = torch.float64
    params = {n: torch.tensor(a, dtype=dtype, requires_grad=True) for n, a in read_checkpoint(ckpt).items()}
    B, T = b["B"], b["T"]
    shape = lambda k: torch.tensor(b[k], dtype=torch.long).view(B, T)
    logits = forward(cfg, params, shape("ids"), shape("pos"), shape("seg"), dtype)
    # Rollouts sampled at temperature t are scored under softmax(logits/t).
    lp_all = torch.log_softmax(logits.reshape(B * T, -1) / b.get("temperature", 1.0), dim=-1)
    lp = lp_all.gather(1, shape("targets").reshape(-1, 1)).reshape(-1)
    q = torch.tensor(b["old_logprobs"], dtype=dtype)
    adv = torch.tensor(b["advantages"], dtype=dtype)
    is_loss = torch.tensor(b["loss"], dtype=torch.bool)
    r = torch.exp(lp - q)
    if b["mode"] == "ppo":
        term = -torch.minimum(adv * r, adv * torch.clamp(r, 1 - b["clip_low"], 1 + b["clip_high"]))
    else:
        d = (torch.exp(lp) - torch.exp(q)).detach()
        masked = ((adv > 0) & (d > b["tv_high"])) | ((adv < 0) & (d < -b["tv_low"]))
        term = torch.where(masked, torch.zeros_like(r), -adv * r)
    term = term + b["log_ratio_penalty"] * (lp - q) ** 2
    loss = torch.where(is_loss, term, torch.zeros_like(term)).sum() / b["norm"]
    loss.backward()
    out = {"loss": loss.item(),
           "grads": {n: t.grad.reshape(-1).tolist() for n, t in params.items() if t.grad is not None}}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
