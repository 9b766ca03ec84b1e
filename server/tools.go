package server

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/jsonschema"
	"github.com/rlm-project/rlm/recursion"
)

// Client function tools (issue 37): both APIs' tools become the engine's
// (recursion.Tool), which the RLM's cells call as Go functions; a call
// pauses the run, the answer carries the calls (Responses: function_call
// items; chat: tool_calls and finish_reason "tool_calls"), and the
// client's next request with their outputs resumes the paused run
// (paused.go), or, when it is gone, runs the conversation again with the
// outputs it already has (recursion.Request.ToolOutputs), so that no
// client tool runs twice for one call.

// toolDef is a function tool as either API declares it.
type toolDef struct {
	typ, name, description string
	parameters             json.RawMessage
	strict                 bool
}

// toolNameRE is OpenAI's rule for function names.
var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// engineTools checks a request's tools and turns them into the engine's:
// each function's parameters compiled as its JSON Schema (OpenAI's strict
// subset when strict), so that a call's arguments are checked before the
// call goes to the client. param names the request's tools field.
func engineTools(param string, defs []toolDef) ([]recursion.Tool, error) {
	seen := map[string]bool{}
	var out []recursion.Tool
	for i, d := range defs {
		p := fmt.Sprintf("%s[%d]", param, i)
		switch {
		case d.typ != "function":
			return nil, api.Unsupported(p+".type", "tool type %q is not supported: this server runs client function tools (type function)", d.typ)
		case !toolNameRE.MatchString(d.name):
			return nil, api.BadRequest(p+".name", "a function's name must be 1 to 64 letters, digits, _ or -, not %q", d.name)
		case seen[d.name]:
			return nil, api.BadRequest(p+".name", "two tools are named %q", d.name)
		}
		seen[d.name] = true
		t := recursion.Tool{Name: d.name, Description: d.description, Parameters: d.parameters}
		if len(d.parameters) > 0 && string(d.parameters) != "null" {
			schema, err := jsonschema.Compile(d.parameters, d.strict)
			if err != nil {
				return nil, api.BadRequest(p+".parameters", "the parameters of %s are not a JSON Schema this server can check: %v", d.name, err)
			}
			t.Check = schema.Validate
		}
		out = append(out, t)
	}
	return out, nil
}

// engineToolChoice checks a tool_choice against the tools.
func engineToolChoice(param string, tc *api.ToolChoice, tools []recursion.Tool) (recursion.ToolChoice, error) {
	if tc == nil {
		return recursion.ToolChoice{}, nil
	}
	switch tc.Mode {
	case "", api.ToolChoiceAuto, api.ToolChoiceNone:
		return recursion.ToolChoice{Mode: tc.Mode}, nil
	case api.ToolChoiceRequired:
		if len(tools) == 0 {
			return recursion.ToolChoice{}, api.BadRequest(param, "tool_choice required needs tools")
		}
		return recursion.ToolChoice{Mode: tc.Mode}, nil
	case api.ToolChoiceFunction:
		for _, t := range tools {
			if t.Name == tc.Function {
				return recursion.ToolChoice{Mode: tc.Mode, Name: tc.Function}, nil
			}
		}
		return recursion.ToolChoice{}, api.BadRequest(param, "tool_choice names %q, which is not one of the request's tools", tc.Function)
	}
	return recursion.ToolChoice{}, api.Unsupported(param, "tool_choice %q is not supported: use none, auto, required or a function", tc.Mode)
}

// chatToolDefs are a chat request's tools, or its legacy functions.
func chatToolDefs(cr *api.ChatCompletionRequest) (string, []toolDef) {
	if len(cr.Functions) > 0 {
		var defs []toolDef
		for _, f := range cr.Functions {
			defs = append(defs, toolDef{typ: "function", name: f.Name, description: f.Description, parameters: f.Parameters, strict: f.Strict != nil && *f.Strict})
		}
		return "functions", defs
	}
	var defs []toolDef
	for _, t := range cr.Tools {
		f := t.Function
		defs = append(defs, toolDef{typ: t.Type, name: f.Name, description: f.Description, parameters: f.Parameters, strict: f.Strict != nil && *f.Strict})
	}
	return "tools", defs
}

// responseToolDefs are a Responses request's tools.
func responseToolDefs(tools []api.ResponseTool) []toolDef {
	var defs []toolDef
	for _, t := range tools {
		d := toolDef{typ: t.Type, name: t.Name, parameters: t.Parameters, strict: t.Strict != nil && *t.Strict}
		if t.Description != nil {
			d.description = *t.Description
		}
		defs = append(defs, d)
	}
	return defs
}

// callText is how a conversation's earlier tool call reads to the model
// when the run starts again from the conversation, and outputText how its
// output does.
func callText(name, args, id string) string {
	return fmt.Sprintf("[called the client's tool %s(%s); call %s]", name, args, id)
}

func outputText(id, output string) string {
	return fmt.Sprintf("[the client's tool answered call %s: %s]", id, output)
}

// answerFormat turns a structured-output format (chat's response_format,
// Responses' text.format) into the engine's: the model is told the schema,
// and each FINAL is checked against it; nil for text.
func answerFormat(param, typ, name string, schema json.RawMessage, strict bool) (*recursion.AnswerFormat, error) {
	switch typ {
	case "", "text":
		return nil, nil
	case "json_object":
		return &recursion.AnswerFormat{Describe: "one JSON object.", Check: func(answer string) (string, error) {
			b, err := jsonschema.ExtractJSON(answer)
			if err == nil {
				err = jsonschema.JSONObject(b)
			}
			if err != nil {
				return "", err
			}
			return string(b), nil
		}}, nil
	case "json_schema":
		if len(schema) == 0 || string(schema) == "null" {
			return nil, api.BadRequest(param+".schema", "a json_schema format needs its schema")
		}
		s, err := jsonschema.Compile(schema, strict)
		if err != nil {
			return nil, api.BadRequest(param+".schema", "the schema %q is not one this server can check: %v", name, err)
		}
		return &recursion.AnswerFormat{Describe: fmt.Sprintf("one JSON value matching the schema %q:\n%s", name, s.Describe()),
			Check: func(answer string) (string, error) {
				b, err := jsonschema.ExtractJSON(answer)
				if err == nil {
					err = s.Validate(b)
				}
				if err != nil {
					return "", err
				}
				return string(b), nil
			}}, nil
	}
	return nil, api.Unsupported(param+".type", "response format %q is not supported: use text, json_object or json_schema", typ)
}
