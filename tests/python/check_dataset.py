"""Check a JSONL export against a dataset format's published schema.

Usage: check_dataset.py SCHEMA FILE [--null-reward]

An independent second reader of our exports (the Go side is
internal/datasetschema): it uses only Python's json module, the parser the
Hugging Face `datasets` JSON loader and verifiers build on. Schemas:
trl-conversational, trl-prompt-completion (TRL's dataset formats),
verifiers-rollout, verifiers-processed (verifiers' GenerateOutputs and
ProcessedOutputs rows). Prints the number of records; exits 1 on the first
record that does not fit.
"""
import json
import sys

ROLES = {"system", "user", "assistant", "tool"}


def messages(v, field):
    assert isinstance(v, list) and v, f"{field}: want a non-empty list of messages"
    for i, m in enumerate(v):
        assert isinstance(m, dict), f"{field}[{i}]: not an object"
        assert m.get("role") in ROLES, f"{field}[{i}]: role {m.get('role')!r}"
        assert isinstance(m.get("content"), str), f"{field}[{i}]: content not a string"


def reward(rec, null_ok):
    assert "reward" in rec, "reward missing"
    r = rec["reward"]
    if r is None and null_ok:
        return
    assert isinstance(r, (int, float)) and not isinstance(r, bool), f"reward {r!r}"


def check(rec, schema, null_ok):
    assert isinstance(rec, dict), "not an object"
    if schema == "trl-conversational":
        messages(rec.get("messages"), "messages")
    elif schema == "trl-prompt-completion":
        p, c = rec.get("prompt"), rec.get("completion")
        if isinstance(p, str) or isinstance(c, str):
            assert isinstance(p, str) and isinstance(c, str), "prompt and completion in different forms"
        else:
            messages(p, "prompt")
            messages(c, "completion")
    elif schema == "verifiers-rollout":
        for f in ("prompt", "completion"):
            if not isinstance(rec.get(f), str):
                messages(rec.get(f), f)
        assert isinstance(rec.get("answer"), str), "answer"
        assert isinstance(rec.get("task"), str), "task"
        assert isinstance(rec.get("info"), dict), "info"
        reward(rec, null_ok)
    elif schema == "verifiers-processed":
        n = {}
        for f in ("prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "completion_logprobs"):
            xs = rec.get(f)
            assert isinstance(xs, list), f"{f}: not a list"
            for x in xs:
                if f.endswith("_mask"):
                    assert x in (0, 1) and not isinstance(x, bool), f"{f}: {x!r}"
                elif f == "completion_logprobs":
                    assert isinstance(x, (int, float)) and x <= 0, f"{f}: {x!r}"
                else:
                    assert isinstance(x, int) and not isinstance(x, bool), f"{f}: {x!r}"
            n[f] = len(xs)
        assert n["prompt_ids"] == n["prompt_mask"], n
        assert n["completion_ids"] == n["completion_mask"] == n["completion_logprobs"], n
        reward(rec, null_ok)
    else:
        raise SystemExit(f"unknown schema {schema}")


def main():
    schema, path = sys.argv[1], sys.argv[2]
    null_ok = "--null-reward" in sys.argv[3:]
    n = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            n += 1
            try:
                check(json.loads(line), schema, null_ok)
            except AssertionError as e:
                print(f"line {n}: {e}", file=sys.stderr)
                sys.exit(1)
    print(n)


if __name__ == "__main__":
    main()
