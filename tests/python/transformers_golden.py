#!/usr/bin/env python3
"""Make the transformers golden fixture for the Go Qwen3 model.

Needs Hugging Face transformers (with Qwen3 support, >= 4.51) and torch; GPU
machines of this project have them, the CPU CI does not. Run from the
repository root:

    python3 tests/python/transformers_golden.py model/testdata/tiny-qwen3

It loads the tiny checkpoint the Go test wrote (config.json +
model.safetensors) with transformers' own Qwen3ForCausalLM, runs the fixed
token ids below in float32 on the CPU with eager attention, and writes
transformers_logits.json next to it. Commit that file: TestTransformersGolden
then compares the Go model's logits with it on every run, no Python needed.
"""

import json
import os
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM

IDS = [[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]]


def main():
    d = sys.argv[1]
    model = AutoModelForCausalLM.from_pretrained(
        d, torch_dtype=torch.float32, attn_implementation="eager")
    model.eval()
    with torch.no_grad():
        logits = model(torch.tensor(IDS)).logits
    out = {
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__,
        "ids": IDS,
        "logits": logits.reshape(-1).tolist(),
    }
    with open(os.path.join(d, "transformers_logits.json"), "w") as f:
        json.dump(out, f)
    print(f"wrote {len(out['logits'])} logits with transformers {transformers.__version__}")


if __name__ == "__main__":
    main()
