// Package tinydemo holds the weights of rlm-tiny-demo, embedded, verified:
// the small Qwen3-architecture model this project trains from scratch
// (examples/tiny-rlm) and ships as the built-in model that `rlm serve` and
// `rlm query` run in-process when no upstream is configured (issue 15).
//
// The checkpoint lives in weights/: config.json, model.safetensors (bf16),
// tokenizer.json and tokenizer_config.json, with SHA256SUMS (the
// checksums of those four, in sha256sum's format) and eval.json (the score
// the model got on a small held-out subset, which a test reproduces).
// Replacing the model is replacing those files and re-recording both:
// examples/tiny-rlm/ship.sh does it (see docs/inference.md).
package tinydemo

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// Name is the model's name: what /v1/models, responses and logs call it.
const Name = "rlm-tiny-demo"

// About says what the model is, for the log line and /v1/models.
const About = "trained by this project to look facts up in documents of common text formats (code, man pages, logs, tables, records, configuration, mail) with the REPL's lookup helper, saying No answer when a document does not hold one, and for record and comment-labelling tasks; not a general assistant"

// Files are the checkpoint's files, every one of which SHA256SUMS must list.
var Files = []string{"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"}

// The names of the checksum and recorded-evaluation files in weights/.
const (
	SumsFile = "SHA256SUMS"
	EvalFile = "eval.json"
)

//go:embed weights
var embedded embed.FS

// FS is the embedded checkpoint: the files of weights/ at its root, ready
// for inference.LoadFS.
func FS() fs.FS {
	sub, err := fs.Sub(embedded, "weights")
	if err != nil {
		panic(err) // a constant, valid path
	}
	return sub
}

// Verify checks the embedded files against SHA256SUMS.
func Verify() error { return VerifyFS(FS()) }

// VerifyFS checks a checkpoint's files against its SHA256SUMS: each of
// Files must be listed, and every listed file must exist with that
// SHA-256.
func VerifyFS(fsys fs.FS) error {
	sums, err := ReadSums(fsys)
	if err != nil {
		return err
	}
	for _, f := range Files {
		if _, ok := sums[f]; !ok {
			return fmt.Errorf("%s: %s does not list %s", Name, SumsFile, f)
		}
	}
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		got, err := FileSum(fsys, n)
		if err != nil {
			return fmt.Errorf("%s: %w", Name, err)
		}
		if got != sums[n] {
			return fmt.Errorf("%s: %s has SHA-256 %s, %s says %s: the file is corrupt or was replaced without re-recording (examples/tiny-rlm/ship.sh)",
				Name, n, got, SumsFile, sums[n])
		}
	}
	return nil
}

// ReadSums reads SHA256SUMS: "<hex sha256>  <file name>" lines, as
// sha256sum writes and `sha256sum -c` checks them.
func ReadSums(fsys fs.FS) (map[string]string, error) {
	raw, err := fs.ReadFile(fsys, SumsFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		sum, name, ok := strings.Cut(text, " ")
		name = strings.TrimPrefix(strings.TrimSpace(name), "*") // sha256sum's binary-mode marker
		if b, err := hex.DecodeString(sum); !ok || err != nil || len(b) != sha256.Size || name == "" || !fs.ValidPath(name) {
			return nil, fmt.Errorf("%s: %s line %d: want \"<sha256 hex>  <file>\", got %q", Name, SumsFile, line, text)
		}
		if _, dup := sums[name]; dup {
			return nil, fmt.Errorf("%s: %s lists %s twice", Name, SumsFile, name)
		}
		sums[name] = strings.ToLower(sum)
	}
	return sums, nil
}

// FileSum is the hex SHA-256 of one file of fsys.
func FileSum(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FormatSums writes the SHA256SUMS of Files in fsys.
func FormatSums(fsys fs.FS) ([]byte, error) {
	var b bytes.Buffer
	for _, f := range Files {
		sum, err := FileSum(fsys, f)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, f)
	}
	return b.Bytes(), nil
}

// Eval is eval.json: the model's score on a small held-out subset, run as
// `rlm eval --local-model builtin` with Args, recorded by
// `go test ./cmd/rlm -run TestBuiltinModelScore -update`.
type Eval struct {
	Model string `json:"model"`
	// Subset says in words what Args evaluate.
	Subset string `json:"subset"`
	// Args are rlm eval's arguments (task, lengths, n, seed, sampling,
	// limits); the test adds the model, --out and --traces.
	Args []string `json:"args"`
	// Score is the mean score over the Instances (greedy decoding, so it
	// is reproduced exactly); Solved counts instances scored 1.
	Score     float64 `json:"score"`
	Instances int     `json:"instances"`
	Solved    int     `json:"solved"`
	// WeightsSHA256 is model.safetensors' checksum when the score was
	// recorded: a score recorded for other weights is refused.
	WeightsSHA256 string `json:"weights_sha256"`
	// Note is free text: where the weights came from.
	Note string `json:"note,omitempty"`
}

// RecordedEval reads the embedded eval.json.
func RecordedEval() (Eval, error) { return ReadEval(FS()) }

// ReadEval reads eval.json from fsys.
func ReadEval(fsys fs.FS) (Eval, error) {
	var e Eval
	raw, err := fs.ReadFile(fsys, EvalFile)
	if err != nil {
		return e, fmt.Errorf("%s: %w", Name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, fmt.Errorf("%s: %s: %w", Name, EvalFile, err)
	}
	if len(e.Args) == 0 || e.Instances <= 0 {
		return e, errors.New(Name + ": " + EvalFile + " has no args or no instances")
	}
	return e, nil
}
