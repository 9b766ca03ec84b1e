package tokenizer

import (
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message. Train marks an assistant message whose tokens
// the loss is computed on; it is ignored for other roles.
type Message struct {
	Role    string
	Content string
	Train   bool
}

// segment is a piece of rendered chat text and whether its tokens are trained.
type segment struct {
	text  string
	train bool
}

// RenderChat renders messages as the Qwen3 chat template in
// tokenizer_config.json does with add_generation_prompt false and no tools:
// ChatML turns `<|im_start|>role\ncontent<|im_end|>\n`; an assistant turn
// after the last user query is rendered with its reasoning in a
// `<think>\n...\n</think>\n\n` block (an empty block for the final turn when
// it has none), and earlier assistant turns lose their <think> blocks.
func RenderChat(msgs []Message) (string, error) {
	segs, err := renderSegments(msgs, false)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.text)
	}
	return b.String(), nil
}

// EncodeChat renders msgs (see RenderChat) and tokenizes the result. mask[i]
// is true for exactly the tokens the model generates in a trained assistant
// message: its content, the think block the template puts there, and the
// closing <|im_end|>; never the `<|im_start|>assistant\n` header nor the line
// break after <|im_end|>. A token that straddles the header and the content
// (only possible when content starts with a line break) counts as generated.
// The ids equal those of the Hugging Face tokenizer on the rendered text.
func (t *Tokenizer) EncodeChat(msgs []Message) (ids []int, mask []bool, err error) {
	segs, err := renderSegments(msgs, false)
	if err != nil {
		return nil, nil, err
	}
	ids, mask = t.encodeSegments(segs)
	return ids, mask, nil
}

// EncodePrompt renders msgs followed by the generation prompt
// `<|im_start|>assistant\n` (add_generation_prompt true) and tokenizes it:
// the input from which a model writes the next assistant turn.
func (t *Tokenizer) EncodePrompt(msgs []Message) ([]int, error) {
	segs, err := renderSegments(msgs, true)
	if err != nil {
		return nil, err
	}
	ids, _ := t.encodeSegments(segs)
	return ids, nil
}

// renderSegments is the chat template (Qwen3, no tools) in Go, split where
// the loss mask changes. Each trained span starts right after
// "<|im_start|>assistant\n" and ends after "<|im_end|>", so it is bounded by
// a line break or an added token on both sides; that keeps NFC from
// composing across span boundaries.
func renderSegments(msgs []Message, generationPrompt bool) ([]segment, error) {
	if len(msgs) == 0 {
		return nil, fmt.Errorf("render chat: no messages")
	}
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		default:
			return nil, fmt.Errorf("render chat: message %d has role %q, want system, user, assistant or tool", i, m.Role)
		}
	}
	var segs []segment
	plain := func(s string) { segs = append(segs, segment{text: s}) }
	if msgs[0].Role == RoleSystem {
		plain("<|im_start|>system\n" + msgs[0].Content + "<|im_end|>\n")
	}
	// The last user message that is not a wrapped tool response: reasoning
	// is kept only for assistant turns after it.
	lastQuery := len(msgs) - 1
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == RoleUser && !(strings.HasPrefix(m.Content, "<tool_response>") && strings.HasSuffix(m.Content, "</tool_response>")) {
			lastQuery = i
			break
		}
	}
	for i, m := range msgs {
		switch {
		case m.Role == RoleUser || m.Role == RoleSystem && i > 0:
			plain("<|im_start|>" + m.Role + "\n" + m.Content + "<|im_end|>\n")
		case m.Role == RoleAssistant:
			content, reasoning := splitThink(m.Content)
			var body string
			if i > lastQuery && (i == len(msgs)-1 || reasoning != "") {
				body = "<think>\n" + strings.Trim(reasoning, "\n") + "\n</think>\n\n" + strings.TrimLeft(content, "\n")
			} else {
				body = content
			}
			plain("<|im_start|>assistant\n")
			segs = append(segs, segment{text: body + "<|im_end|>", train: m.Train})
			plain("\n")
		case m.Role == RoleTool:
			var b strings.Builder
			if i == 0 || msgs[i-1].Role != RoleTool {
				b.WriteString("<|im_start|>user")
			}
			b.WriteString("\n<tool_response>\n" + m.Content + "\n</tool_response>")
			if i == len(msgs)-1 || msgs[i+1].Role != RoleTool {
				b.WriteString("<|im_end|>\n")
			}
			plain(b.String())
		}
	}
	if generationPrompt {
		plain("<|im_start|>assistant\n")
	}
	return segs, nil
}

// splitThink separates an assistant message into its answer and its
// reasoning the way the template does: the answer is what follows the last
// </think>, the reasoning what lies between the last <think> before the first
// </think> and that </think>.
func splitThink(s string) (content, reasoning string) {
	if !strings.Contains(s, "</think>") {
		return s, ""
	}
	content = strings.TrimLeft(s[strings.LastIndex(s, "</think>")+len("</think>"):], "\n")
	before := strings.TrimRight(s[:strings.Index(s, "</think>")], "\n")
	if k := strings.LastIndex(before, "<think>"); k >= 0 {
		before = before[k+len("<think>"):]
	}
	return content, strings.TrimLeft(before, "\n")
}

// encodeSegments tokenizes the concatenation of segs as Encode would, and
// marks each token that holds a byte of a trained segment.
func (t *Tokenizer) encodeSegments(segs []segment) ([]int, []bool) {
	var text strings.Builder
	var trainedRaw []bool // per byte of text
	for _, s := range segs {
		text.WriteString(s.text)
		for range len(s.text) {
			trainedRaw = append(trainedRaw, s.train)
		}
	}
	s := text.String()
	e := t.getEncoder()
	defer t.pool.Put(e)
	var ids []int
	var mask []bool
	// piece encodes s[p:q], which holds no added token. It normalizes each
	// run of equal mask separately so that the boundaries survive NFC.
	piece := func(p, q int) {
		var nb strings.Builder
		var trained []bool
		for p < q {
			r := p
			for r < q && trainedRaw[r] == trainedRaw[p] {
				r++
			}
			n := norm.NFC.String(s[p:r])
			nb.WriteString(n)
			for range len(n) {
				trained = append(trained, trainedRaw[p])
			}
			p = r
		}
		start := len(ids)
		ids = e.normalized(ids, nb.String())
		off := 0
		for _, id := range ids[start:] {
			end := off + len(t.tokenBytes[id])
			m := false
			for _, tr := range trained[off:end] {
				m = m || tr
			}
			mask = append(mask, m)
			off = end
		}
	}
	for start := 0; start < len(s); {
		i, a := t.nextAdded(s, start, true)
		if i < 0 {
			piece(start, len(s))
			break
		}
		if start < i {
			piece(start, i)
		}
		ids = append(ids, a.ID)
		mask = append(mask, trainedRaw[i])
		start = i + len(a.Content)
	}
	return ids, mask
}
