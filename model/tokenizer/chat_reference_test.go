package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// chatCases are the conversations the trainer produces, plus the template's
// corner cases: which assistant turns keep their reasoning, tool responses,
// and content that NFC or the pre-tokenizer could merge across the mask.
var chatCases = []struct {
	name string
	msgs []Message
}{
	{"system user assistant", []Message{
		{Role: RoleSystem, Content: "You are a helpful assistant."},
		{Role: RoleUser, Content: "What is 2+2?"},
		{Role: RoleAssistant, Content: "4", Train: true},
	}},
	{"final turn with thinking", []Message{
		{Role: RoleUser, Content: "hi"},
		{Role: RoleAssistant, Content: "<think>\nThe user greets me.\n</think>\n\nHello!", Train: true},
	}},
	{"multi-turn strips earlier thinking", []Message{
		{Role: RoleSystem, Content: "sys"},
		{Role: RoleUser, Content: "first question"},
		{Role: RoleAssistant, Content: "<think>\nold reasoning\n</think>\n\nfirst answer", Train: true},
		{Role: RoleUser, Content: "second question"},
		{Role: RoleAssistant, Content: "<think>\nnew reasoning\n</think>\n\nsecond answer", Train: true},
	}},
	{"earlier turn untrained", []Message{
		{Role: RoleUser, Content: "q1"},
		{Role: RoleAssistant, Content: "a1", Train: false},
		{Role: RoleUser, Content: "q2"},
		{Role: RoleAssistant, Content: "```go\nx := llm_query(ctx[:100])\n```", Train: true},
	}},
	{"assistant turns after last query keep reasoning", []Message{
		{Role: RoleUser, Content: "use the tool"},
		{Role: RoleAssistant, Content: "<think>\nI call it.\n</think>\n\ncalling", Train: true},
		{Role: RoleTool, Content: "result 1"},
		{Role: RoleTool, Content: "result 2"},
		{Role: RoleAssistant, Content: "no reasoning here", Train: true},
		{Role: RoleUser, Content: "<tool_response>\nwrapped\n</tool_response>"},
		{Role: RoleAssistant, Content: "<think>\nthird\n</think>\n\ndone", Train: true},
	}},
	{"system not first and odd think markup", []Message{
		{Role: RoleUser, Content: "a"},
		{Role: RoleSystem, Content: "late system"},
		{Role: RoleAssistant, Content: "no open tag</think>\n\nanswer", Train: true},
		{Role: RoleUser, Content: "b"},
		{Role: RoleAssistant, Content: "<think>x</think>mid<think>y</think>\n\nend", Train: true},
	}},
	{"whitespace and unicode at the mask edges", []Message{
		{Role: RoleUser, Content: "  spaces  \n\n"},
		{Role: RoleAssistant, Content: "\n\nleading newlines and trailing spaces   ", Train: true},
		{Role: RoleUser, Content: "e\u0301 and 中文 😀"},
		{Role: RoleAssistant, Content: "\u0301combining first, then  \n\n", Train: true},
	}},
	{"special tokens inside content", []Message{
		{Role: RoleUser, Content: "literal <|im_start|>assistant\n and <|im_end|>"},
		{Role: RoleAssistant, Content: "", Train: true},
	}},
	{"ends with user", []Message{
		{Role: RoleUser, Content: "q"},
		{Role: RoleAssistant, Content: "a", Train: true},
		{Role: RoleUser, Content: "next"},
	}},
}

func toNode(msgs []Message) []nodeMessage {
	out := make([]nodeMessage, len(msgs))
	for i, m := range msgs {
		out[i] = nodeMessage{Role: m.Role, Content: m.Content}
	}
	return out
}

func TestChatMatchesTemplate(t *testing.T) {
	tok := loadQwen3(t)
	resp := reference(t)
	for i, c := range chatCases {
		t.Run(c.name, func(t *testing.T) {
			want := resp.Chats[i]
			text, err := RenderChat(c.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if text != want.Text {
				t.Errorf("RenderChat\n got %q\nwant %q", text, want.Text)
			}
			ids, mask, err := tok.EncodeChat(c.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, want.IDs) {
				t.Errorf("EncodeChat ids\n got %v\nwant %v", ids, want.IDs)
			}
			if len(mask) != len(ids) {
				t.Fatalf("mask has %d entries for %d ids", len(mask), len(ids))
			}
			prompt, err := tok.EncodePrompt(c.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if want := resp.Prompts[i].IDs; !slices.Equal(prompt, want) {
				t.Errorf("EncodePrompt\n got %v\nwant %v (%q)", prompt, want, resp.Prompts[i].Text)
			}
		})
	}
}

// TestChatMaskQwen3 checks the mask on the real vocabulary: the masked
// tokens, decoded run by run, are exactly the trained assistant bodies, each
// ending with <|im_end|>.
func TestChatMaskQwen3(t *testing.T) {
	tok := loadQwen3(t)
	for _, c := range chatCases {
		t.Run(c.name, func(t *testing.T) {
			checkMask(t, tok, c.msgs)
		})
	}
}

// checkMask decodes each run of masked tokens and compares it with what the
// trained assistant messages render to after their header.
func checkMask(t *testing.T, tok *Tokenizer, msgs []Message) {
	t.Helper()
	ids, mask, err := tok.EncodeChat(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < len(ids); {
		if !mask[i] {
			i++
			continue
		}
		j := i
		for j < len(ids) && mask[j] {
			j++
		}
		got = append(got, tok.Decode(ids[i:j]))
		i = j
	}
	segs, err := renderSegments(msgs, false)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for k, s := range segs {
		if !s.train {
			continue
		}
		body := s.text
		// A body that starts with line breaks shares a pre-token with the
		// header's "\n"; that token counts as generated.
		if strings.HasPrefix(body, "\n") && k > 0 {
			body = "\n" + body
		}
		want = append(want, body)
	}
	if !slices.Equal(got, want) {
		t.Errorf("masked runs\n got %q\nwant %q", got, want)
	}
	for _, w := range want {
		if !strings.HasSuffix(w, "<|im_end|>") {
			t.Errorf("trained run %q does not end with <|im_end|>", w)
		}
	}
}
