#!/usr/bin/env python3
"""Loss and gradients of one training step with transformers' own Qwen3.

Usage: transformers_step.py CHECKPOINT_DIR BATCH_JSON OUT_JSON

Loads the checkpoint with Qwen3ForCausalLM in float32 (eager attention, no
TF32) on the GPU when there is one, runs the batch of BATCH_JSON (B, T, ids,
pos, targets, weights; one sample per row, so the causal mask is the plain
one) and writes to OUT_JSON:
  loss   - sum(weights * cross_entropy(logits, targets))
  grads  - {tensor name: flattened gradient of loss}
The Go CUDA tests (model/backend/cuda) compare their step with it; it
needs transformers (>= 4.51), which the GPU machines have and CI does not.
"""

import json
import sys

import torch
from transformers import AutoModelForCausalLM


def main():
    ckpt, batch_path, out_path = sys.argv[1:4]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    model = AutoModelForCausalLM.from_pretrained(ckpt, dtype=torch.float32, attn_implementation="eager").to(dev)
    model.train()
    with open(batch_path) as f:
        b = json.load(f)
    B, T = b["B"], b["T"]
    ids = torch.tensor(b["ids"], device=dev).view(B, T)
    pos = torch.tensor(b["pos"], device=dev).view(B, T)
    targets = torch.tensor(b["targets"], device=dev).view(-1)
    weights = torch.tensor(b["weights"], device=dev, dtype=torch.float32).view(-1)
    logits = model(input_ids=ids, position_ids=pos).logits.float()
    ce = torch.nn.functional.cross_entropy(logits.view(B * T, -1), targets, reduction="none")
    loss = (ce * weights).sum()
    loss.backward()
    grads = {n: p.grad.detach().float().cpu().reshape(-1).tolist() for n, p in model.named_parameters() if p.grad is not None}
    with open(out_path, "w") as f:
        json.dump({"loss": loss.item(), "grads": grads, "device": dev}, f)


if __name__ == "__main__":
    main()
