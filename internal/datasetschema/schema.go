// Package datasetschema checks JSONL exports against the published schemas
// of the dataset formats that other trainers read: TRL's dataset formats
// (https://huggingface.co/docs/trl/dataset_formats) and verifiers' rollout
// types (GenerateOutputs and ProcessedOutputs in verifiers'
// docs/source/api_reference.md, which prime-rl consumes). Tests of every
// exporter use it, so the exporters and the schemas cannot drift apart.
package datasetschema

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// Schemas.
const (
	// TRLConversational is TRL's conversational language-modeling type:
	// {"messages": [{"role": ..., "content": ...}, ...]}.
	TRLConversational = "trl-conversational"
	// TRLPromptCompletion is TRL's prompt-completion type, standard
	// ({"prompt": str, "completion": str}) or conversational (both lists
	// of messages); the two fields must be in the same form.
	TRLPromptCompletion = "trl-prompt-completion"
	// VerifiersRollout is one row of verifiers' GenerateOutputs: prompt and
	// completion (messages or text), answer, task, info and a float reward.
	VerifiersRollout = "verifiers-rollout"
	// VerifiersProcessed is one row of verifiers' ProcessedOutputs (what
	// prime-rl trains on): prompt_ids, prompt_mask, completion_ids,
	// completion_mask, completion_logprobs and reward, the id, mask and
	// logprob lists of equal lengths and masks of 0 and 1.
	VerifiersProcessed = "verifiers-processed"
)

// Options loosen a schema where an export documents that it does.
type Options struct {
	NullReward bool // reward may be null (a run nobody scored)
}

// CheckJSONL checks every line of r against schema and returns the number
// of lines.
func CheckJSONL(r io.Reader, schema string, o Options) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	n := 0
	for sc.Scan() {
		n++
		if err := Check(sc.Bytes(), schema, o); err != nil {
			return n, fmt.Errorf("line %d: %w", n, err)
		}
	}
	return n, sc.Err()
}

// Check checks one JSON record against schema.
func Check(line []byte, schema string, o Options) error {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var rec map[string]any
	if err := d.Decode(&rec); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	switch schema {
	case TRLConversational:
		return messages(rec, "messages")
	case TRLPromptCompletion:
		_, ps := rec["prompt"].(string)
		_, cs := rec["completion"].(string)
		if ps && cs {
			return nil
		}
		if ps || cs {
			return fmt.Errorf("prompt and completion in different forms")
		}
		if err := messages(rec, "prompt"); err != nil {
			return err
		}
		return messages(rec, "completion")
	case VerifiersRollout:
		for _, f := range []string{"prompt", "completion"} {
			if _, ok := rec[f].(string); !ok {
				if err := messages(rec, f); err != nil {
					return err
				}
			}
		}
		for _, f := range []string{"answer", "task"} {
			if _, ok := rec[f].(string); !ok {
				return fmt.Errorf("%s: want a string, have %v", f, rec[f])
			}
		}
		if _, ok := rec["info"].(map[string]any); !ok {
			return fmt.Errorf("info: want an object, have %v", rec["info"])
		}
		return number(rec, "reward", o.NullReward)
	case VerifiersProcessed:
		lens := map[string]int{}
		for _, f := range []string{"prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "completion_logprobs"} {
			xs, ok := rec[f].([]any)
			if !ok {
				return fmt.Errorf("%s: want a list, have %v", f, rec[f])
			}
			for i, x := range xs {
				n, ok := x.(json.Number)
				if !ok {
					return fmt.Errorf("%s[%d]: want a number, have %v", f, i, x)
				}
				switch f {
				case "completion_logprobs":
					if v, err := n.Float64(); err != nil || v > 0 {
						return fmt.Errorf("%s[%d] = %s: want a log probability", f, i, n)
					}
				case "prompt_mask", "completion_mask":
					if n != "0" && n != "1" {
						return fmt.Errorf("%s[%d] = %s: want 0 or 1", f, i, n)
					}
				default:
					if _, err := n.Int64(); err != nil {
						return fmt.Errorf("%s[%d] = %s: want a token id", f, i, n)
					}
				}
			}
			lens[f] = len(xs)
		}
		if lens["prompt_ids"] != lens["prompt_mask"] || lens["completion_ids"] != lens["completion_mask"] ||
			lens["completion_ids"] != lens["completion_logprobs"] {
			return fmt.Errorf("list lengths differ: %v", lens)
		}
		return number(rec, "reward", o.NullReward)
	}
	return fmt.Errorf("unknown schema %q", schema)
}

func messages(rec map[string]any, field string) error {
	xs, ok := rec[field].([]any)
	if !ok || len(xs) == 0 {
		return fmt.Errorf("%s: want a non-empty list of messages, have %v", field, rec[field])
	}
	for i, x := range xs {
		m, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("%s[%d]: want a message object", field, i)
		}
		switch m["role"] {
		case "system", "user", "assistant", "tool":
		default:
			return fmt.Errorf("%s[%d]: role %v", field, i, m["role"])
		}
		if _, ok := m["content"].(string); !ok {
			return fmt.Errorf("%s[%d]: content: want a string", field, i)
		}
	}
	return nil
}

func number(rec map[string]any, field string, null bool) error {
	v, ok := rec[field]
	if !ok {
		return fmt.Errorf("%s: missing", field)
	}
	if v == nil && null {
		return nil
	}
	if _, ok := v.(json.Number); !ok {
		return fmt.Errorf("%s: want a number, have %v", field, v)
	}
	return nil
}

// CheckPython checks the JSONL file at path with tests/python/check_dataset.py
// (python3 and its json module only), an independent second reader, and
// returns the number of records it read. script is the checker's path.
func CheckPython(ctx context.Context, script, path, schema string, o Options) (int, error) {
	args := []string{script, schema, path}
	if o.NullReward {
		args = append(args, "--null-reward")
	}
	out, err := exec.CommandContext(ctx, "python3", args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("python3 %s: %w: %s", script, err, out)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("python3 %s: output %q", script, out)
	}
	return n, nil
}
