package worker

import (
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/rlm-project/rlm/repl/protocol"
)

// A request's client tools (protocol.Message.Tools) are functions cells
// call: tool_call(name, args) and tool_call_batched(name, argsList) for
// every tool, and, for a tool whose name is a Go identifier no other name
// of the session has, NAME(args) and NAME_batched(argsList). Arguments are
// a value json.Marshal encodes to an object (a map, a struct) or a JSON
// text; the answer is the tool's output, a string. The call goes to the
// host, which may hold it as long as the client takes to answer: the
// cell's clock stops meanwhile, as for llm_query.

// declareTools defines the named functions of the session's tools.
func (w *worker) declareTools(tools []string) error {
	w.tools = map[string]bool{}
	var src strings.Builder
	for _, name := range tools {
		w.tools[name] = true
		if !token.IsIdentifier(name) || token.IsKeyword(name) || w.declared(name) || w.declared(name+"_batched") {
			continue
		}
		fmt.Fprintf(&src, "func %s(args any) string { return tool_call(%q, args) }\n", name, name)
		fmt.Fprintf(&src, "func %s_batched(args []any) []string { return tool_call_batched(%q, args) }\n", name, name)
	}
	if src.Len() == 0 {
		return nil
	}
	if _, err := w.in.Eval(src.String()); err != nil {
		return fmt.Errorf("declare the client's tools: %w", err)
	}
	return nil
}

// declared reports whether name is already a name of the session, or one
// of Go's own (len, string, ...).
func (w *worker) declared(name string) bool {
	if types.Universe.Lookup(name) != nil {
		return true
	}
	if _, ok := w.predeclared()[name]; ok {
		return true
	}
	_, ok := w.globals()[name]
	return ok
}

// callTool calls the client's tool name once per element of args.
func (w *worker) callTool(name string, args []any) []string {
	fail := func(why string) []string { return protocol.ErrorStrings(len(args), "tool "+name+": "+why) }
	if len(w.tools) == 0 {
		return fail("this request has no client tools")
	}
	if !w.tools[name] {
		return fail(fmt.Sprintf("no such tool; the client's tools are %s", strings.Join(w.toolNames(), ", ")))
	}
	texts := make([]string, len(args))
	for i, a := range args {
		text, err := toolArguments(a)
		if err != nil {
			return fail(err.Error())
		}
		texts[i] = text
	}
	return w.host(protocol.KindTool, name, texts)
}

func (w *worker) toolNames() []string {
	var names []string
	for n := range w.tools {
		names = append(names, n)
	}
	return names
}

// toolArguments is a call's arguments as a JSON text: a string that is
// JSON as it is, anything else encoded.
func toolArguments(a any) (string, error) {
	if s, ok := a.(string); ok {
		if !json.Valid([]byte(s)) {
			return "", fmt.Errorf("the arguments %.80q are not JSON: pass a map (or a struct), or a JSON text", s)
		}
		return s, nil
	}
	if a == nil {
		return "{}", nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return "", fmt.Errorf("the arguments do not encode as JSON: %v", err)
	}
	return string(b), nil
}

// queryImage is llm_query_image(prompt, images...): one plain call of a
// model that takes images, shown the request's images at these indexes.
func (w *worker) queryImage(prompt string, images ...int) string {
	if len(w.images) == 0 {
		return "error: llm_query_image: this request has no images"
	}
	if len(images) == 0 {
		return "error: llm_query_image: name the images to show, e.g. llm_query_image(prompt, 0) for images[0]"
	}
	for _, i := range images {
		if i < 0 || i >= len(w.images) {
			return fmt.Sprintf("error: llm_query_image: no image %d; images has %d", i, len(w.images))
		}
	}
	return w.hostCall(protocol.KindImage, "", []string{prompt}, images)[0]
}
