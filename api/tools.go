package api

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ToolChoice is a tool_choice (or the legacy function_call) as either API
// sends it: "none", "auto" or "required", or a function the model must
// call, named as chat names it ({"type": "function", "function": {"name":
// ...}}), as Responses does ({"type": "function", "name": ...}) or as the
// legacy function_call does ({"name": ...}).
type ToolChoice struct {
	Mode     string // none, auto, required; "function" when Function is set
	Function string // the function the model must call
}

// Tool choice modes.
const (
	ToolChoiceNone     = "none"
	ToolChoiceAuto     = "auto"
	ToolChoiceRequired = "required"
	ToolChoiceFunction = "function"
)

func (t *ToolChoice) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &t.Mode)
	}
	var obj struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return errors.New("tool_choice must be \"none\", \"auto\", \"required\" or an object naming a function")
	}
	t.Mode, t.Function = obj.Type, obj.Name
	if obj.Function != nil {
		t.Function = obj.Function.Name
	}
	if t.Mode == "" && t.Function != "" { // legacy function_call: {"name": ...}
		t.Mode = ToolChoiceFunction
	}
	return nil
}

// ChatJSON is t as a chat completion states it.
func (t ToolChoice) ChatJSON() any {
	if t.Mode == ToolChoiceFunction {
		return map[string]any{"type": "function", "function": map[string]string{"name": t.Function}}
	}
	return t.Mode
}

// ResponsesJSON is t as a response object states it.
func (t ToolChoice) ResponsesJSON() any {
	if t.Mode == ToolChoiceFunction {
		return map[string]string{"type": "function", "name": t.Function}
	}
	if t.Mode == "" {
		return ToolChoiceAuto
	}
	return t.Mode
}
