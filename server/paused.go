package server

import (
	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
)

// A run that called client tools is paused (recursion.Paused): its REPL
// session is kept, its cell blocked in the calls, its worker stopped. The
// server keeps it for ToolWait, at most MaxPaused at once (the oldest of
// the API key that holds the most goes first), in the cache the kept
// sessions use, keyed OWNER/ID by its first call's id, for both APIs: the
// outputs name their calls whether the client sends previous_response_id
// or, as the agent SDKs do, the whole conversation again. The client's
// outputs resume it; when it is gone (expired, evicted, another replica,
// a restart), the outputs run the conversation again, and the calls they
// answer are not made again (recursion.Request.ToolOutputs).

// pausedRun is a paused run as the server keeps it.
type pausedRun struct {
	p       recursion.Paused
	calls   []recursion.ToolCall
	traceID string
	models  []string // who answered its calls so far
}

func (p *pausedRun) Close() error {
	p.p.Close()
	return nil
}

// pausedWords are the paused runs' reasons.
var pausedWords = cacheWords{ttl: "--tool-wait", max: "--max-paused-runs", perOwner: "--max-paused-runs-per-key",
	taken: "another request resumed it with its outputs",
	none:  "this server holds no paused run of it: it ran on another replica, or before this server restarted"}

// callIDs are the ids of a pause's calls.
func (p *pausedRun) callIDs() []string {
	ids := make([]string, len(p.calls))
	for i, c := range p.calls {
		ids[i] = c.ID
	}
	return ids
}

// trailingOutputs reads the outputs a chat request's messages end with:
// the tool (or legacy function) messages after its last assistant message
// that made calls, by call id, when they answer every one of its calls.
// first is that message's first call, which names the paused run.
func trailingOutputs(msgs []api.Message) (first string, outputs map[string]string) {
	outputs = map[string]string{}
	i := len(msgs) - 1
	for ; i >= 0 && (msgs[i].Role == "tool" || msgs[i].Role == "function"); i-- {
		m := msgs[i]
		id := m.ToolCallID
		if m.Role == "function" {
			id = legacyCallID(m.Name)
		}
		text := m.Content.Text
		for _, p := range m.Content.Parts {
			text += p.Text
		}
		outputs[id] = text
	}
	if i < 0 || msgs[i].Role != "assistant" || len(outputs) == 0 {
		return "", nil
	}
	var ids []string
	for _, tc := range msgs[i].ToolCalls {
		ids = append(ids, tc.ID)
	}
	if fc := msgs[i].FunctionCall; fc != nil {
		ids = append(ids, legacyCallID(fc.Name))
	}
	for _, id := range ids {
		if _, ok := outputs[id]; !ok {
			return "", nil
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], outputs
}

// rerunNote says why tool outputs ran the conversation again.
func rerunNote(gone string) string {
	return "the paused run these outputs answer is gone: " + gone + ": the conversation ran again, and calls your outputs answer were not sent to you again"
}

// resumable is the paused run a request's outputs answer, taken from the
// cache; why says why there is none (a run then starts again from the
// conversation).
func (s *Server) resumable(own, key string) (*pausedRun, string) {
	if key == "" {
		return nil, ""
	}
	return s.paused.take(own + "/" + key)
}

// pausedFor is the paused run that outputs answer, taken from the cache:
// it is kept under its first call's id, one of theirs. Without one (none
// of the outputs, or a run then starts again from the conversation), why
// says what became of it.
func (s *Server) pausedFor(own string, outputs map[string]string) (p *pausedRun, why string) {
	for id := range outputs {
		found, gone := s.resumable(own, id)
		if found != nil {
			return found, ""
		}
		if why == "" || gone != pausedWords.none {
			why = gone // what became of the run says more than "never here"
		}
	}
	return nil, why
}
