// Package data reads supervised fine-tuning samples (chat transcripts in
// JSONL), tokenizes them with a loss mask and packs them into fixed-length
// sequences for the trainer. The format is documented in docs/tokenizer.md,
// section "SFT data format"; the tracing export writes exactly this.
package data

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/rlm-project/rlm/model/tokenizer"
)

// Message is one chat message of a sample. An assistant message is trained
// on unless Train is false; other roles never are.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Train   *bool  `json:"train,omitempty"`
}

// Trained reports whether the loss covers this message.
func (m Message) Trained() bool {
	return m.Role == tokenizer.RoleAssistant && (m.Train == nil || *m.Train)
}

// Sample is one line of an SFT JSONL file. Only Messages is required, so a
// plain {"messages": [...]} line (the TRL chat format) is a valid sample.
type Sample struct {
	ID         string    `json:"id,omitempty"`
	TraceID    string    `json:"trace_id,omitempty"`
	Reward     *float64  `json:"reward,omitempty"`
	StopReason string    `json:"stop_reason,omitempty"`
	Messages   []Message `json:"messages"`
}

// ChatMessages converts the sample's messages for the chat renderer.
func (s Sample) ChatMessages() []tokenizer.Message {
	out := make([]tokenizer.Message, len(s.Messages))
	for i, m := range s.Messages {
		out[i] = tokenizer.Message{Role: m.Role, Content: m.Content, Train: m.Trained()}
	}
	return out
}

// Validate reports the first problem that makes the sample unusable.
func (s Sample) Validate() error {
	if len(s.Messages) == 0 {
		return errors.New("no messages")
	}
	for i, m := range s.Messages {
		switch m.Role {
		case tokenizer.RoleSystem, tokenizer.RoleUser, tokenizer.RoleAssistant, tokenizer.RoleTool:
		default:
			return fmt.Errorf("message %d: role %q, want system, user, assistant or tool", i, m.Role)
		}
	}
	return nil
}

// Filter selects samples. The zero Filter keeps every sample that has a
// trained assistant message.
type Filter struct {
	// MinReward, when set, drops samples whose reward is lower or missing.
	MinReward *float64
	// StopReasons, when not empty, keeps only samples with one of these stop
	// reasons (a sample without stop_reason has the reason "").
	StopReasons []string
}

// ReadStats counts what Read did with the lines of its input.
type ReadStats struct {
	Samples        int // non-empty lines read
	Kept           int
	LowReward      int // dropped by MinReward
	StopReason     int // dropped by StopReasons
	NothingToTrain int // dropped: no trained assistant message
}

// Read parses JSONL samples from r and keeps those that pass f. A malformed
// line is an error naming its line number: silently skipping it would lose
// training data unnoticed. Blank lines are skipped.
func Read(ctx context.Context, r io.Reader, f Filter) ([]Sample, ReadStats, error) {
	var st ReadStats
	var out []Sample
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			return nil, st, fmt.Errorf("read samples: %w", err)
		}
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			s, perr := parseLine(b)
			if perr != nil {
				return nil, st, fmt.Errorf("line %d: %w", line, perr)
			}
			st.Samples++
			if keep(s, f, &st) {
				st.Kept++
				out = append(out, s)
			}
		}
		if err == io.EOF {
			return out, st, nil
		}
		if err != nil {
			return nil, st, fmt.Errorf("line %d: %w", line, err)
		}
	}
}

// ReadFile is Read on a file; errors name the file and line.
func ReadFile(ctx context.Context, path string, f Filter) ([]Sample, ReadStats, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, ReadStats{}, fmt.Errorf("read samples: %w", err)
	}
	defer fh.Close()
	s, st, err := Read(ctx, fh, f)
	if err != nil {
		return nil, st, fmt.Errorf("read samples %s: %w", path, err)
	}
	return s, st, nil
}

func parseLine(b []byte) (Sample, error) {
	var s Sample
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("parse sample: %w", err)
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("sample %q: %w", s.ID, err)
	}
	return s, nil
}

func keep(s Sample, f Filter, st *ReadStats) bool {
	if f.MinReward != nil && (s.Reward == nil || *s.Reward < *f.MinReward) {
		st.LowReward++
		return false
	}
	if len(f.StopReasons) > 0 && !slices.Contains(f.StopReasons, s.StopReason) {
		st.StopReason++
		return false
	}
	if !slices.ContainsFunc(s.Messages, Message.Trained) {
		st.NothingToTrain++
		return false
	}
	return true
}
