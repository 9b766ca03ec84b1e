#!/usr/bin/env python3
"""The PyTorch side of the inference benchmark in bench/cuda/run.sh:
transformers' generate on the GPU with a static KV cache
(cache_implementation="static"), bf16, SDPA attention, greedy, for a
Qwen3-0.6B-shaped model with random weights. The Go side is
inference's BenchmarkGenerate with the same shapes.

For each batch size: B random prompts of P tokens. Prefill is timed as
generate(max_new_tokens=1); decode as generate(G tokens) minus that, over
G-1 tokens per sequence. Every shape runs once untimed first. generate is
kept eager (disable_compile=True) where transformers would otherwise compile
the static-cache decode step by itself; the JSON says which ran.
Prints one JSON line per batch size.
"""
import argparse
import json
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", default="1,16,64")
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--decode", type=int, default=128)
    args = ap.parse_args()
    import transformers
    from transformers import Qwen3Config, Qwen3ForCausalLM

    cfg = Qwen3Config(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
                      num_key_value_heads=8, head_dim=128, rms_norm_eps=1e-6, rope_theta=1000000,
                      vocab_size=151936, max_position_embeddings=40960, tie_word_embeddings=True)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(cfg).to(device="cuda", dtype=torch.bfloat16).eval()
    eos = cfg.vocab_size + 1  # no token ends a sequence early

    compiled = "unknown"

    def gen(ids, n):
        nonlocal compiled
        kw = dict(max_new_tokens=n, min_new_tokens=n, do_sample=False, cache_implementation="static",
                  pad_token_id=0, eos_token_id=eos)
        try:
            out = model.generate(ids, disable_compile=True, **kw)
            compiled = "eager (disable_compile=True)"
        except (TypeError, ValueError):
            out = model.generate(ids, **kw)  # an older transformers: no automatic compile to disable
            compiled = "transformers default"
        torch.cuda.synchronize()
        return out

    def timed(ids, n):
        t = time.perf_counter()
        gen(ids, n)
        return time.perf_counter() - t

    for B in [int(b) for b in args.batch.split(",")]:
        ids = torch.randint(0, cfg.vocab_size, (B, args.prompt), device="cuda")
        with torch.no_grad():
            gen(ids, 2)  # warm-up of this shape
            t1 = timed(ids, 1)
            tg = timed(ids, args.decode)
        print(json.dumps({"impl": "transformers generate, static cache, bf16, sdpa", "transformers": transformers.__version__,
                          "torch": torch.__version__, "mode": compiled, "batch": B, "prompt": args.prompt,
                          "decode": args.decode, "prefill_tok_s": B * args.prompt / t1,
                          "decode_tok_s": B * (args.decode - 1) / (tg - t1)}), flush=True)
        del ids
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
