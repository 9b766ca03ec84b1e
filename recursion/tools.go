package recursion

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// A request's client tools (Request.Tools) are functions the root's cells
// call: a call goes to the client, which runs the tool and sends its
// output back. The run pauses at the call: Run (or Resume) returns a
// Result with StopReason StopToolCalls, the calls waiting (ToolCalls) and
// the run itself (Paused), whose cell stays blocked in the call, its
// worker stopped, its clock not running. PausedRun.Resume hands the
// outputs to the blocked calls, as if the functions had returned them,
// and waits for the run's next pause or its end.
//
// Calls made at once (a batched call, or goroutines calling together) are
// handed out together: the first call waits toolGather for others, so a
// cell that calls a tool for each of 100 chunks gets one response of 100
// calls. Goroutines count against the worker's host calls in flight
// (repl Limits.MaxHostCalls, 64): the calls past it wait for a slot and
// come in the next pause; a batched call is one host call, whatever its
// length. Only the root calls client tools: a child RLM's cells (rlm_query)
// and llm_query sub-calls cannot, because the tools belong to the client's
// conversation with the root, whose pauses the client sees.
//
// A call whose output the client already sent (Request.ToolOutputs: the
// conversation's earlier calls, when a run starts again because its paused
// session is gone) is answered with that output at once, without a pause,
// when its tool and arguments are the same: a client tool never runs
// twice for one call.

// Tool is a function tool the client offers.
type Tool struct {
	Name        string
	Description string
	// Parameters is the tool's JSON Schema; nil takes any object.
	Parameters json.RawMessage
	// Check, when set, validates a call's arguments (a JSON text) against
	// Parameters; an error goes back to the model as the call's result.
	Check func(args []byte) error
}

// ToolChoice says whether and which client tool the root must call, as
// OpenAI's tool_choice does: "auto" (or ""), "none" (the tools are not
// callable), "required" (at least one call before FINAL), or "function"
// with Name (that tool, before FINAL).
type ToolChoice struct {
	Mode string
	Name string
}

// ToolCall is a call of a client tool: its id, the tool, the arguments as
// a JSON text.
type ToolCall struct {
	ID, Name, Arguments string
}

// ToolOutput is a call and the output the client sent for it.
type ToolOutput struct {
	ToolCall
	Output string
}

// toolGather is how long the first call of a pause waits for the calls
// made with it; each new call extends the wait.
const toolGather = 30 * time.Millisecond

// toolDesk holds a run's client tools and the calls waiting for their
// outputs.
type toolDesk struct {
	tools    map[string]Tool
	choice   ToolChoice
	parallel bool
	known    map[string]ToolOutput // by callKey: outputs the client already sent

	mu      sync.Mutex
	waiting []*toolWait          // calls not yet handed to the client
	out     map[string]*toolWait // calls handed out, by id
	made    map[string]int       // calls made, by tool
	signal  chan struct{}        // a call waits (buffered, 1)
}

// toolWait is one call waiting for its output.
type toolWait struct {
	call  ToolCall
	reply chan string
}

func newToolDesk(tools []Tool, choice ToolChoice, parallel bool, known []ToolOutput) *toolDesk {
	if len(tools) == 0 {
		return nil
	}
	d := &toolDesk{tools: map[string]Tool{}, choice: choice, parallel: parallel, known: map[string]ToolOutput{},
		out: map[string]*toolWait{}, made: map[string]int{}, signal: make(chan struct{}, 1)}
	for _, t := range tools {
		d.tools[t.Name] = t
	}
	for _, k := range known {
		d.known[callKey(k.Name, k.Arguments)] = k
	}
	return d
}

// names are the tools' names, sorted. The tools are set once, by
// newToolDesk: reading them needs no lock.
func (d *toolDesk) names() []string {
	if d == nil {
		return nil
	}
	var out []string
	for n := range d.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// callKey identifies a call by its tool and its arguments, compacted.
func callKey(name, args string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(args)) != nil {
		return name + "\x00" + args
	}
	return name + "\x00" + b.String()
}

// newCallID is the id of a call the server hands out.
func newCallID() string {
	var b [12]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// CallTools implements repl.ToolHost for the root: each call is checked,
// answered from the conversation when the client answered it already, or
// handed to the client through a pause of the run, concurrently.
func (n *node) CallTools(ctx context.Context, tool string, args []string) []string {
	out := make([]string, len(args))
	d := n.r.tools
	fail := func(why string) []string {
		for i := range out {
			out[i] = "error: tool " + tool + ": " + why
		}
		return out
	}
	switch {
	case d == nil:
		return fail("this request has no client tools")
	case n.depth > 0:
		return fail("client tools are the root's: a child RLM cannot call them; return what you found and let the root call the tool")
	case d.choice.Mode == "none":
		return fail("the client set tool_choice none: its tools may not be called in this request")
	}
	t, ok := d.tools[tool]
	if !ok {
		return fail("no such tool; the client's tools are " + strings.Join(d.names(), ", "))
	}
	var wg sync.WaitGroup
	for i, a := range args {
		if err := checkArguments(t, a); err != nil {
			out[i] = "error: tool " + tool + ": invalid arguments: " + err.Error()
			continue
		}
		if k, ok := d.known[callKey(tool, a)]; ok {
			d.count(tool)
			n.r.emitTool(n, EventToolCall, k.ToolCall, k.Output, "answered from the conversation")
			out[i] = k.Output
			continue
		}
		w := &toolWait{call: ToolCall{ID: newCallID(), Name: tool, Arguments: a}, reply: make(chan string, 1)}
		d.add(w)
		n.r.emitTool(n, EventToolCall, w.call, "", "")
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case o := <-w.reply:
				out[i] = o
				n.r.emitTool(n, EventToolOutput, w.call, o, "")
			case <-ctx.Done():
				d.forget(w)
				out[i] = "error: tool " + tool + ": cancelled with the cell"
			}
		}()
	}
	wg.Wait()
	return out
}

// checkArguments checks a call's arguments: a JSON object, valid against
// the tool's schema when it has a check.
func checkArguments(t Tool, args string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &obj); err != nil {
		return errors.New("want a JSON object of the tool's parameters")
	}
	if t.Check != nil {
		return t.Check([]byte(args))
	}
	return nil
}

func (d *toolDesk) count(tool string) {
	d.mu.Lock()
	d.made[tool]++
	d.mu.Unlock()
}

// add puts a call among those waiting and signals it.
func (d *toolDesk) add(w *toolWait) {
	d.mu.Lock()
	d.waiting = append(d.waiting, w)
	d.made[w.call.Name]++
	d.mu.Unlock()
	select {
	case d.signal <- struct{}{}:
	default:
	}
}

// forget drops a call whose cell ended.
func (d *toolDesk) forget(w *toolWait) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.out, w.call.ID)
	for i, x := range d.waiting {
		if x == w {
			d.waiting = append(d.waiting[:i], d.waiting[i+1:]...)
			break
		}
	}
}

// handOut moves the waiting calls (only the first, when parallel calls are
// off) to those handed out, and returns them.
func (d *toolDesk) handOut() []ToolCall {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(d.waiting)
	if !d.parallel && n > 1 {
		n = 1
	}
	var calls []ToolCall
	for _, w := range d.waiting[:n] {
		d.out[w.call.ID] = w
		calls = append(calls, w.call)
	}
	d.waiting = d.waiting[n:]
	if len(d.waiting) > 0 { // the rest go out at the next pause
		select {
		case d.signal <- struct{}{}:
		default:
		}
	}
	return calls
}

// MissingOutputsError is a Resume without an output for every call handed
// out.
type MissingOutputsError struct{ IDs []string }

func (e *MissingOutputsError) Error() string {
	return "no output for the tool call(s) " + strings.Join(e.IDs, ", ") + ": send one for every call of the paused response"
}

// deliver gives the calls handed out their outputs.
func (d *toolDesk) deliver(outputs map[string]string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var missing []string
	for id := range d.out {
		if _, ok := outputs[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return &MissingOutputsError{IDs: missing}
	}
	for id, w := range d.out {
		w.reply <- outputs[id]
		delete(d.out, id)
	}
	return nil
}

// requirement is what tool_choice still asks of a FINAL: "" when nothing.
func (d *toolDesk) requirement() string {
	if d == nil {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.choice.Mode {
	case "required":
		total := 0
		for _, n := range d.made {
			total += n
		}
		if total == 0 {
			return "FINAL refused: the client requires a call of one of its tools (tool_choice required) before the answer; call one of " +
				strings.Join(d.names(), ", ") + " in a cell first."
		}
	case "function":
		if d.made[d.choice.Name] == 0 {
			return fmt.Sprintf("FINAL refused: the client requires a call of its tool %s (tool_choice) before the answer; call %s(...) in a cell first.",
				d.choice.Name, d.choice.Name)
		}
	}
	return ""
}

// toolsMessage tells the root's model about the client's tools: appended
// to its first input.
func (d *toolDesk) toolsMessage() string {
	if d == nil || d.choice.Mode == "none" {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nThe client offers these tools. Call each from a cell as a Go function that takes its arguments " +
		"(a map[string]any, or a struct, encoded to JSON) and returns its output as a string: NAME(args), or NAME_batched([]any{...}) " +
		"to call it for many arguments at once; tool_call(\"NAME\", args) works for any name. A call waits for the client to run the tool. " +
		"Calls made at once (batched, or from goroutines) are sent together.\n")
	for _, name := range d.names() {
		t := d.tools[name]
		fmt.Fprintf(&b, "- %s", name)
		if t.Description != "" {
			fmt.Fprintf(&b, ": %s", t.Description)
		}
		if len(t.Parameters) > 0 {
			var compact bytes.Buffer
			if json.Compact(&compact, t.Parameters) == nil {
				fmt.Fprintf(&b, " Parameters (JSON Schema): %s", compact.String())
			}
		}
		b.WriteString("\n")
	}
	switch d.choice.Mode {
	case "required":
		b.WriteString("You must call at least one of these tools before FINAL.\n")
	case "function":
		fmt.Fprintf(&b, "You must call %s before FINAL.\n", d.choice.Name)
	}
	return b.String()
}

// emitTool records a tool call event of node n.
func (r *runState) emitTool(n *node, kind EventKind, call ToolCall, output, note string) {
	r.emit(Event{Kind: kind, NodeID: n.id, ParentID: n.parent, Depth: n.depth, Turn: int(n.turn.Load()), Cell: int(n.cell.Load()),
		Tool: &ToolEvent{Calls: []ToolCall{call}, Output: output, Note: note}})
}

// freezeRoot stops (or continues) the root's worker while the run waits
// for client tools, when its session can: its cell waits in a host call,
// and its other goroutines would run on.
func (r *runState) freezeRoot(freeze bool) {
	r.mu.Lock()
	s := r.rootSess
	r.mu.Unlock()
	f, ok := s.(interface {
		Freeze() error
		Thaw() error
	})
	if !ok {
		return
	}
	if freeze {
		f.Freeze()
	} else {
		f.Thaw()
	}
}
