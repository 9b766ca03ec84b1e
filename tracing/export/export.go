// Package export turns recorded runs into training data: JSONL samples in
// the formats trainers read (this project's SFT trainer, TRL, verifiers),
// from one trajectory or from a store's runs.
package export

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/tracing"
)

// Export formats (docs/tracing.md describes them; the SFT shape is the one
// docs/tokenizer.md defines for the trainer).
const (
	// FormatSFT is one sample per root turn: the messages exactly as sent
	// for that turn, earlier assistant turns marked "train": false, then the
	// turn's response as the trained target (the RLM paper's recipe).
	FormatSFT = "sft"
	// FormatSFTTranscript is one sample per run: the whole root transcript
	// with every assistant turn trained.
	FormatSFTTranscript = "sft-transcript"
	// FormatSFTSubCalls is one sample per answered llm_query call of the
	// run, at any depth: the prompt as the user message (exactly what the
	// sub-model was sent) and its answer as the trained target. Training
	// on it, next to a root export, teaches one model both roles.
	FormatSFTSubCalls = "sft-sub-calls"
	// FormatChat is one plain {"messages": [...]} line per run, the chat
	// format TRL, verifiers/prime-rl and OpenPipe ART read.
	FormatChat = "chat"
	// FormatTRLMessages is TRL's conversational language-modeling dataset,
	// one {"messages": [...]} line per run, with the run's reward and trace
	// id as extra columns (TRL ignores columns it does not use).
	FormatTRLMessages = "trl-messages"
	// FormatTRLPromptCompletion is TRL's conversational prompt-completion
	// dataset, one line per root turn: "prompt" is the messages as sent,
	// "completion" the turn's assistant message.
	FormatTRLPromptCompletion = "trl-prompt-completion"
	// FormatVerifiers is one verifiers (prime-rl) rollout per run: "prompt"
	// is the messages before the first model turn, "completion" the rest of
	// the root transcript, with "answer", "task", "reward" and "info".
	FormatVerifiers = "verifiers"
)

// Formats lists the export formats.
var Formats = []string{FormatSFT, FormatSFTTranscript, FormatSFTSubCalls, FormatChat, FormatTRLMessages, FormatTRLPromptCompletion, FormatVerifiers}

// TRLMessagesSample is one line of a trl-messages export.
type TRLMessagesSample struct {
	Messages []SFTMessage `json:"messages"`
	Reward   *float64     `json:"reward"`
	TraceID  string       `json:"trace_id"`
}

// TRLPromptCompletionSample is one line of a trl-prompt-completion export.
type TRLPromptCompletionSample struct {
	Prompt     []SFTMessage `json:"prompt"`
	Completion []SFTMessage `json:"completion"`
	Reward     *float64     `json:"reward"`
	ID         string       `json:"id"`
	TraceID    string       `json:"trace_id"`
}

// VerifiersSample is one line of a verifiers export: the fields of a
// verifiers rollout (GenerateOutputs, one row). Reward is null for a run
// without one (filter with --min-reward).
type VerifiersSample struct {
	Prompt     []SFTMessage      `json:"prompt"`
	Completion []SFTMessage      `json:"completion"`
	Answer     string            `json:"answer"`
	Task       string            `json:"task"`
	Reward     *float64          `json:"reward"`
	Info       map[string]string `json:"info"`
}

// SFTMessage is one message of an exported sample. Train is set to false
// on assistant messages that are context only.
type SFTMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Train   *bool  `json:"train,omitempty"`
}

// SFTSample is one line of an SFT export.
type SFTSample struct {
	ID         string       `json:"id"`
	TraceID    string       `json:"trace_id"`
	Reward     *float64     `json:"reward"`
	StopReason string       `json:"stop_reason"`
	Messages   []SFTMessage `json:"messages"`
}

// ChatSample is one line of a chat export.
type ChatSample struct {
	Messages []SFTMessage `json:"messages"`
}

// ErrFormat is returned for an unknown export format.
var ErrFormat = errors.New("unknown export format")

// Samples turns one trajectory into export lines of the given format. Turns
// whose model call failed yield nothing; a run without a successful root
// turn yields no samples.
func Samples(t *tracing.Trajectory, format string) ([]any, error) {
	root := t.Node("0")
	if root == nil && len(t.Nodes) > 0 {
		root = t.Nodes[0]
	}
	var reward *float64
	if t.Reward != nil {
		reward = &t.Reward.Score
	}
	sample := func(id string, msgs []SFTMessage) SFTSample {
		return SFTSample{ID: id, TraceID: t.ID, Reward: reward, StopReason: string(t.StopReason), Messages: msgs}
	}
	var out []any
	if root == nil {
		if slices.Contains(Formats, format) {
			return nil, nil
		}
		return nil, fmt.Errorf("%w %q (want one of %v)", ErrFormat, format, Formats)
	}
	// The root's successful calls, in order.
	var calls []*tracing.ModelCall
	var turns []int
	for _, tu := range root.Turns {
		for _, c := range tu.Calls {
			if c.Error == "" {
				calls = append(calls, c)
				turns = append(turns, tu.N)
			}
		}
	}
	switch format {
	case FormatSFT:
		no := false
		for i, c := range calls {
			msgs := toSFT(root.Messages(c), &no)
			msgs = append(msgs, SFTMessage{Role: "assistant", Content: c.Response})
			out = append(out, sample(t.ID+"/turn-"+strconv.Itoa(turns[i]), msgs))
		}
	case FormatSFTSubCalls:
		for _, n := range t.Nodes {
			for _, tu := range n.Turns {
				for _, cell := range tu.Cells {
					for _, sc := range cell.SubCalls {
						if sc.Kind != "llm" || sc.Error != "" || sc.Status != tracing.StatusCompleted {
							continue
						}
						out = append(out, sample(t.ID+"/"+sc.ID, []SFTMessage{
							{Role: "user", Content: sc.Prompt}, {Role: "assistant", Content: sc.Response}}))
					}
				}
			}
		}
	case FormatTRLPromptCompletion:
		for i, c := range calls {
			out = append(out, TRLPromptCompletionSample{
				Prompt:     toSFT(root.Messages(c), nil),
				Completion: []SFTMessage{{Role: "assistant", Content: c.Response}},
				Reward:     reward, ID: t.ID + "/turn-" + strconv.Itoa(turns[i]), TraceID: t.ID,
			})
		}
	case FormatSFTTranscript, FormatChat, FormatTRLMessages, FormatVerifiers:
		if len(calls) == 0 {
			return nil, nil
		}
		last := calls[len(calls)-1]
		msgs := toSFT(root.Messages(last), nil)
		msgs = append(msgs, SFTMessage{Role: "assistant", Content: last.Response})
		switch format {
		case FormatChat:
			out = append(out, ChatSample{Messages: msgs})
		case FormatTRLMessages:
			out = append(out, TRLMessagesSample{Messages: msgs, Reward: reward, TraceID: t.ID})
		case FormatVerifiers:
			first := len(msgs) - 1
			for i, m := range msgs {
				if m.Role == "assistant" {
					first = i
					break
				}
			}
			task := t.Metadata["eval.task"]
			if task == "" {
				task = "rlm"
			}
			out = append(out, VerifiersSample{
				Prompt: msgs[:first], Completion: msgs[first:], Answer: t.Metadata["eval.gold"], Task: task,
				Reward: reward, Info: map[string]string{"trace_id": t.ID, "stop_reason": string(t.StopReason)},
			})
		default:
			out = append(out, sample(t.ID+"/transcript", msgs))
		}
	default:
		return nil, fmt.Errorf("%w %q (want one of %v)", ErrFormat, format, Formats)
	}
	return out, nil
}

func toSFT(ms []llm.Message, train *bool) []SFTMessage {
	out := make([]SFTMessage, len(ms))
	for i, m := range ms {
		out[i] = SFTMessage{Role: m.Role, Content: m.Content}
		if m.Role == "assistant" {
			out[i].Train = train
		}
	}
	return out
}

// Stats counts what an export wrote.
type Stats struct {
	Runs    int `json:"runs"`
	Samples int `json:"samples"`
}

// Source is where Write reads runs: *tracing.Archive, a Service's store of
// finished runs.
type Source interface {
	Summaries(ctx context.Context, owner string, f tracing.Filter) ([]tracing.Summary, error)
	Load(ctx context.Context, owner, id string) (*tracing.Trajectory, error)
}

// Write writes the samples of owner's runs in src that match f (newest
// first; f's paging is ignored) to w as JSONL.
func Write(ctx context.Context, src Source, owner string, f tracing.Filter, format string, w io.Writer) (Stats, error) {
	var st Stats
	if _, err := Samples(&tracing.Trajectory{}, format); err != nil {
		return st, err
	}
	sums, err := src.Summaries(ctx, owner, f)
	if err != nil {
		return st, err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, sum := range sums {
		t, err := src.Load(ctx, owner, sum.ID)
		if errors.Is(err, tracing.ErrNotFound) {
			continue // deleted while exporting
		}
		if err != nil {
			return st, err
		}
		samples, err := Samples(t, format)
		if err != nil {
			return st, err
		}
		st.Runs++
		for _, x := range samples {
			if err := enc.Encode(x); err != nil {
				return st, fmt.Errorf("write sample: %w", err)
			}
			st.Samples++
		}
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write samples: %w", err)
	}
	return st, nil
}
