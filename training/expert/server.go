package expert

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ModelName is the name the expert answers as in /v1/models and replies.
const ModelName = "rlm-expert"

// maxBody bounds a request body; a root turn carries only the view of the
// input (placeholders), and a sub-call at most a chunk of it.
const maxBody = 64 << 20

// Handler serves the policy as an OpenAI-compatible upstream:
// POST /v1/chat/completions (non-streaming) and GET /v1/models.
func (p Policy) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", p.chat)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": ModelName, "object": "model", "owned_by": "rlm-project (programmatic expert policy, a data generator)"},
		}})
	})
	return mux
}

func (p Policy) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("read request: %v", err))
		return
	}
	var req struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
		Stream   bool      `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("bad JSON body: %v", err))
		return
	}
	if req.Stream {
		writeError(w, http.StatusBadRequest, "the expert policy does not stream")
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "messages must not be empty")
		return
	}
	content := p.Reply(req.Messages)
	prompt := 0
	for _, m := range req.Messages {
		prompt += estimateTokens(m.Content)
	}
	completion := estimateTokens(content)
	model := req.Model
	if model == "" {
		model = ModelName
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":      "expert",
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content},
			"finish_reason": "stop",
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": "expert: " + msg, "type": "invalid_request_error"}})
}
