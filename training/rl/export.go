package rl

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/rlm-project/rlm/model/tokenizer"
)

// Rollout export formats (Config.Export; docs/training.md), for trainers
// that run on more machines than this one.
const (
	// ExportVerifiers writes one line per training sample in the shape of
	// a row of verifiers' ProcessedOutputs, what prime-rl trains on:
	// prompt_ids and prompt_mask (the tokens before the first sampled
	// one), completion_ids, completion_mask (1 on sampled tokens, 0 on
	// REPL output and other context inside the completion) and
	// completion_logprobs (the sampler's; 0 on context), with reward and
	// advantage.
	ExportVerifiers = "verifiers"
	// ExportTRLPromptCompletion writes one line per model call in TRL's
	// standard prompt-completion form: prompt is the decoded text the
	// policy was given (chat template included), completion the decoded
	// text it sampled, so the whole completion carries loss and no mask
	// is needed. Token ids, sampler logprobs, reward and advantage ride
	// along as extra columns.
	ExportTRLPromptCompletion = "trl-prompt-completion"
)

// ExportFormats lists the rollout export formats.
var ExportFormats = []string{ExportVerifiers, ExportTRLPromptCompletion}

// ExportFile is the file in OutDir that Config.Export appends to.
const ExportFile = "rollouts.jsonl"

// exportLine is what every line holds besides its format's fields: where
// the sample came from and its training signal. Advantage is 0 in groups
// whose rewards were all equal (they are dropped from training).
type exportLine struct {
	Step      int     `json:"step"`
	Version   int     `json:"policy_version"`
	Task      string  `json:"task"`
	Index     int     `json:"index"`
	Group     int     `json:"group"`
	Rollout   int     `json:"rollout"` // place in its group
	TraceID   string  `json:"trace_id,omitempty"`
	Reward    float64 `json:"reward"`
	Advantage float64 `json:"advantage"`
}

// VerifiersLine is one line of a verifiers export.
type VerifiersLine struct {
	PromptIDs          []int32   `json:"prompt_ids"`
	PromptMask         []int     `json:"prompt_mask"`
	CompletionIDs      []int32   `json:"completion_ids"`
	CompletionMask     []int     `json:"completion_mask"`
	CompletionLogprobs []float64 `json:"completion_logprobs"`
	exportLine
}

// TRLPromptCompletionLine is one line of a trl-prompt-completion export.
type TRLPromptCompletionLine struct {
	Prompt             string    `json:"prompt"`
	Completion         string    `json:"completion"`
	PromptIDs          []int32   `json:"prompt_ids"`
	CompletionIDs      []int32   `json:"completion_ids"`
	CompletionLogprobs []float64 `json:"completion_logprobs"`
	exportLine
}

// exporter appends the samples of every rollout to OutDir/rollouts.jsonl.
type exporter struct {
	mu     sync.Mutex
	format string
	tok    *tokenizer.Tokenizer
	f      *os.File
	w      *bufio.Writer
	enc    *json.Encoder
}

// openExporter opens OUT/rollouts.jsonl for appending, first dropping the
// lines of steps after keepThrough: those a resumed run samples again (it
// keeps the steps it trained and the rollouts its checkpoint holds).
func openExporter(dir, format string, tok *tokenizer.Tokenizer, keepThrough int) (*exporter, error) {
	if !slices.Contains(ExportFormats, format) {
		return nil, fmt.Errorf("rl: unknown export format %q (want one of %v)", format, ExportFormats)
	}
	path := filepath.Join(dir, ExportFile)
	if err := keepSteps(path, keepThrough); err != nil {
		return nil, fmt.Errorf("rl: export: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rl: export: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &exporter{format: format, tok: tok, f: f, w: w, enc: enc}, nil
}

// write appends the samples of one rollout; a step's lines reach the file
// whole, when flush is called at the end of its generation.
func (e *exporter) write(h exportLine, samples []Sample) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range samples {
		var lines []any
		switch e.format {
		case ExportVerifiers:
			p := slices.Index(s.Sampled, true)
			if p < 0 {
				continue
			}
			l := VerifiersLine{PromptIDs: s.Tokens[:p], PromptMask: ones(p), CompletionIDs: s.Tokens[p:],
				CompletionMask: make([]int, len(s.Tokens)-p), CompletionLogprobs: s.Logprobs[p:], exportLine: h}
			for i, on := range s.Sampled[p:] {
				if on {
					l.CompletionMask[i] = 1
				}
			}
			lines = append(lines, l)
		case ExportTRLPromptCompletion:
			// One line per run of sampled tokens: one model call.
			for i := 0; i < len(s.Tokens); {
				if !s.Sampled[i] {
					i++
					continue
				}
				j := i
				for j < len(s.Tokens) && s.Sampled[j] {
					j++
				}
				lines = append(lines, TRLPromptCompletionLine{Prompt: e.decode(s.Tokens[:i]), Completion: e.decode(s.Tokens[i:j]),
					PromptIDs: s.Tokens[:i], CompletionIDs: s.Tokens[i:j], CompletionLogprobs: s.Logprobs[i:j], exportLine: h})
				i = j
			}
		}
		for _, l := range lines {
			if err := e.enc.Encode(l); err != nil {
				return fmt.Errorf("rl: export: %w", err)
			}
		}
	}
	return nil
}

func (e *exporter) flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("rl: export: %w", err)
	}
	return nil
}

func (e *exporter) close() error {
	err := e.flush()
	if cerr := e.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("rl: export: %w", cerr)
	}
	return err
}

func (e *exporter) decode(ids []int32) string {
	xs := make([]int, len(ids))
	for i, id := range ids {
		xs[i] = int(id)
	}
	return e.tok.Decode(xs)
}

// keepSteps rewrites the export at path without the lines of steps after
// last, through a temporary file renamed over it.
func keepSteps(path string, last int) error {
	in, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".rollouts-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	dropped := 0
	for sc.Scan() {
		var l struct {
			Step *int `json:"step"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.Step == nil {
			tmp.Close()
			return fmt.Errorf("%s: a line without a step (not an export of rlm train rl?)", path)
		}
		if *l.Step > last {
			dropped++
			continue
		}
		w.Write(sc.Bytes())
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		tmp.Close()
		return fmt.Errorf("read %s: %w", path, err)
	}
	err = w.Flush()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil || dropped == 0 {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func ones(n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = 1
	}
	return xs
}
