package recursion

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion/llm"
)

// DefaultContextWindow is Config.DefaultContextWindow's default, in tokens.
const DefaultContextWindow = 131_072

// messageOverheadTokens approximates what a chat template adds around each
// message (role markers, separators).
const messageOverheadTokens = 8

// elideKeep is how many characters of an elided output stay, so that the
// model still sees what the cell printed first (often its headline).
const elideKeep = 300

// elidedMark and elidedNote make the note that replaces the rest of an
// elided output.
const (
	elidedMark = "\n[... "
	elidedNote = "characters of this output were elided to fit the context window; rerun the cell if you need them"
)

// contextWindow returns the window of an upstream model, or 0 for none.
func (e *Engine) contextWindow(model string) int {
	if w, ok := e.cfg.ContextWindows[model]; ok {
		return w
	}
	return max(e.cfg.DefaultContextWindow, 0)
}

// viewLimit is the most characters a node's view of its input (what the
// offload rule leaves in its first prompt) may take: half of the model's
// window after the completion, at 4 characters a token, leaving the rest
// for the system prompt and the turns. 0 when the model has no window.
func (e *Engine) viewLimit(model string, s llm.Sampling) int {
	window := e.contextWindow(model)
	if window <= 0 {
		return 0
	}
	reserve := e.cfg.CompletionReserve
	if s.MaxTokens != nil && *s.MaxTokens > 0 {
		reserve = *s.MaxTokens
	}
	return max(4*(window-reserve)/2, minViewLimit)
}

// minViewLimit keeps a view for the question when a window is smaller
// than its completion.
const minViewLimit = 4096

// transcriptTokens estimates the prompt tokens of msgs.
func transcriptTokens(msgs []llm.Message) (tokens, chars int) {
	for _, m := range msgs {
		chars += len(m.Content)
	}
	return llm.EstimateTokens(chars) + messageOverheadTokens*len(msgs), chars
}

// compact returns msgs shrunk to fit the model's context window with room
// for the completion, and what it did (nil when nothing had to change).
// The outputs of cells (the user messages after the input) are elided
// oldest first; the newest one only when eliding all the others was not
// enough. The system prompt, the input and the assistant messages (the
// code) are never touched, so a transcript whose code alone overflows the
// window is sent as compacted as it gets and the upstream decides.
func (e *Engine) compact(model string, msgs []llm.Message, s llm.Sampling) ([]llm.Message, *Compaction) {
	window := e.contextWindow(model)
	if window <= 0 {
		return msgs, nil
	}
	budget := window - e.cfg.CompletionReserve
	if s.MaxTokens != nil && *s.MaxTokens > 0 {
		budget = window - *s.MaxTokens
	}
	tokens, before := transcriptTokens(msgs)
	if tokens <= budget {
		return msgs, nil
	}
	out := slices.Clone(msgs)
	c := &Compaction{WindowTokens: window, CharsBefore: before}
	last := len(out) - 1
	for pass := 0; pass < 2 && tokens > budget; pass++ {
		for i := 2; i < len(out) && tokens > budget; i++ {
			if out[i].Role != "user" || (pass == 0 && i == last) {
				continue
			}
			elided, ok := elide(out[i].Content)
			if !ok {
				continue
			}
			out[i].Content = elided
			c.ElidedMessages++
			tokens, _ = transcriptTokens(out)
		}
	}
	_, c.CharsAfter = transcriptTokens(out)
	if c.ElidedMessages == 0 {
		return msgs, nil
	}
	return out, c
}

// elide shortens one feedback message, keeping its head; ok is false when
// it is already short or elided.
func elide(content string) (string, bool) {
	if len(content) <= elideKeep+200 || strings.Contains(content, elidedNote) {
		return content, false
	}
	head := clip.Head(content, elideKeep)
	return head + fmt.Sprintf("%s%d %s]", elidedMark, len(content)-len(head), elidedNote), true
}
