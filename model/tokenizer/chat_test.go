package tokenizer

import (
	"slices"
	"testing"
)

func TestRenderChat(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{"single turn gets an empty think block",
			[]Message{{Role: RoleSystem, Content: "S"}, {Role: RoleUser, Content: "U"}, {Role: RoleAssistant, Content: "A"}},
			"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nA<|im_end|>\n"},
		{"earlier reasoning is dropped, the last kept",
			[]Message{
				{Role: RoleUser, Content: "U1"},
				{Role: RoleAssistant, Content: "<think>\nR1\n</think>\n\nA1"},
				{Role: RoleUser, Content: "U2"},
				{Role: RoleAssistant, Content: "<think>R2</think>A2"},
			},
			"<|im_start|>user\nU1<|im_end|>\n<|im_start|>assistant\nA1<|im_end|>\n<|im_start|>user\nU2<|im_end|>\n<|im_start|>assistant\n<think>\nR2\n</think>\n\nA2<|im_end|>\n"},
		{"ends with a user turn",
			[]Message{{Role: RoleUser, Content: "U"}, {Role: RoleAssistant, Content: "A"}, {Role: RoleUser, Content: "V"}},
			"<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n<|im_start|>user\nV<|im_end|>\n"},
		{"tool responses share one user turn",
			[]Message{{Role: RoleUser, Content: "U"}, {Role: RoleAssistant, Content: "A"}, {Role: RoleTool, Content: "T1"}, {Role: RoleTool, Content: "T2"}},
			"<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n<|im_start|>user\n<tool_response>\nT1\n</tool_response>\n<tool_response>\nT2\n</tool_response><|im_end|>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderChat(tt.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("RenderChat\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestRenderChatErrors(t *testing.T) {
	for _, msgs := range [][]Message{nil, {{Role: "developer", Content: "x"}}} {
		if _, err := RenderChat(msgs); err == nil {
			t.Errorf("RenderChat(%v) succeeded", msgs)
		}
	}
}

func TestEncodeChatMaskTiny(t *testing.T) {
	tok := loadTiny(t)
	msgs := []Message{
		{Role: RoleUser, Content: "hello"},
		{Role: RoleAssistant, Content: "the", Train: true},
	}
	ids, mask, err := tok.EncodeChat(msgs)
	if err != nil {
		t.Fatal(err)
	}
	// <|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n
	// <think>\n\n</think>\n\nthe<|im_end|>\n
	want := []int{267}
	want = append(want, tok.Encode("user\nhello")...)
	want = append(want, 268, '\n', 267)
	want = append(want, tok.Encode("assistant\n")...)
	header := len(want)
	want = append(want, 269, 265, 270, 265, 263, 268, '\n')
	if !slices.Equal(ids, want) {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	for i, m := range mask {
		if wantM := i >= header && i < len(want)-1; m != wantM {
			t.Errorf("mask[%d] (token %d) = %v, want %v", i, ids[i], m, wantM)
		}
	}
	for _, c := range chatCases {
		t.Run(c.name, func(t *testing.T) { checkMask(t, tok, c.msgs) })
	}
	prompt, err := tok.EncodePrompt(msgs[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(prompt, want[:header]) {
		t.Errorf("EncodePrompt = %v, want %v", prompt, want[:header])
	}
}
