"""Merges a PEFT LoRA adapter into a base checkpoint's weights with torch,
independently of our Go code: W + (lora_alpha / r) * B @ A for every
lora_A/lora_B pair in adapter_model.safetensors, in float64.

usage: lora_merge.py BASE_DIR ADAPTER_DIR  -> JSON {base weight name: flat list}

Reads safetensors by hand (header JSON + raw little-endian data), so it needs
only torch, which CI installs as python3-torch (not the safetensors or peft
packages)."""
import json
import struct
import sys

import torch

DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    body = data[8 + n :]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        lo, hi = info["data_offsets"]
        t = torch.frombuffer(bytearray(body[lo:hi]), dtype=DTYPES[info["dtype"]])
        out[name] = t.reshape(info["shape"]).to(torch.float64)
    return out


def main():
    base_dir, adapter_dir = sys.argv[1], sys.argv[2]
    base = read_safetensors(base_dir + "/model.safetensors")
    adapter = read_safetensors(adapter_dir + "/adapter_model.safetensors")
    with open(adapter_dir + "/adapter_config.json") as f:
        cfg = json.load(f)
    assert cfg["peft_type"] == "LORA", cfg["peft_type"]
    scale = cfg["lora_alpha"] / cfg["r"]
    merged = {}
    for key, a in adapter.items():
        if ".lora_A." not in key:
            continue
        b = adapter[key.replace(".lora_A.", ".lora_B.")]
        name = key.removeprefix("base_model.model.").replace(".lora_A.weight", ".weight")
        w = base[name] + scale * (b @ a)
        merged[name] = w.flatten().tolist()
    json.dump(merged, sys.stdout)


main()
