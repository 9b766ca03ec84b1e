package api

import (
	"encoding/json"
)

// SamplingParams are the request fields chat completions and completions
// share.
type SamplingParams struct {
	Model               string          `json:"model"`
	MaxTokens           *int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	N                   *int            `json:"n,omitempty"`
	Stop                json.RawMessage `json:"stop,omitempty"` // a string or up to 4: see StopSequences
	Seed                *int64          `json:"seed,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *StreamOptions  `json:"stream_options,omitempty"`
	PresencePenalty     *float64        `json:"presence_penalty,omitempty"`
	FrequencyPenalty    *float64        `json:"frequency_penalty,omitempty"`
	LogitBias           map[string]any  `json:"logit_bias,omitempty"`
	User                string          `json:"user,omitempty"`
	// vLLM's extensions, which the model server takes: top_k; ignore_eos;
	// return_token_ids (the answer then carries prompt_token_ids and each
	// choice its token_ids, for training on rollouts without
	// re-tokenizing); best_of (only equal to n).
	TopK           *int `json:"top_k,omitempty"`
	IgnoreEOS      bool `json:"ignore_eos,omitempty"`
	ReturnTokenIDs bool `json:"return_token_ids,omitempty"`
	BestOf         *int `json:"best_of,omitempty"`
}

// StreamOptions are a streaming request's options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// ChatCompletionRequest is the body of POST /v1/chat/completions.
type ChatCompletionRequest struct {
	SamplingParams
	Messages       []Message       `json:"messages"`
	Logprobs       bool            `json:"logprobs,omitempty"`
	TopLogprobs    *int            `json:"top_logprobs,omitempty"`
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
	Metadata       Metadata        `json:"metadata,omitempty"`
	Store          bool            `json:"store,omitempty"`
	// Tools are function tools (type "function"); Functions the legacy
	// form of the same. ToolChoice and FunctionCall say whether and which
	// the model must call.
	Tools             []ChatTool           `json:"tools,omitempty"`
	ToolChoice        *ToolChoice          `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool                `json:"parallel_tool_calls,omitempty"`
	Functions         []FunctionDefinition `json:"functions,omitempty"`
	FunctionCall      *ToolChoice          `json:"function_call,omitempty"`
	// Fields of OpenAI's that change nothing an RLM answers are accepted:
	// reasoning_effort, service_tier, prediction, modalities, audio,
	// web_search_options. Unknown fields are ignored, as OpenAI's
	// clients send new ones first.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	ServiceTier     string `json:"service_tier,omitempty"`
	// RLM is rlm's own: the run's limits.
	RLM *RLMOptions `json:"rlm,omitempty"`
}

// Message is a message of a chat request: system, developer, user,
// assistant (with the tool calls it made) or tool (a call's result).
type Message struct {
	Role         string        `json:"role"`
	Content      Content       `json:"content"`
	Name         string        `json:"name,omitempty"`
	ToolCalls    []ToolCall    `json:"tool_calls,omitempty"`
	ToolCallID   string        `json:"tool_call_id,omitempty"`
	FunctionCall *FunctionCall `json:"function_call,omitempty"` // legacy assistant call
	Refusal      *string       `json:"refusal,omitempty"`
}

// ContentPart is one part of a message's content: text, an image
// (image_url), or a file (file_id, or file_data with a filename).
type ContentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
	File     *FilePart `json:"file,omitempty"`
}

// ImageURL is an image_url part's image: a URL or a data URL.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// FilePart is a file part's file.
type FilePart struct {
	FileID   string `json:"file_id,omitempty"`
	FileData string `json:"file_data,omitempty"` // base64, or a data URL
	Filename string `json:"filename,omitempty"`
}

// ToolCall is a call an assistant message makes; in a stream, Index says
// which call a delta adds to.
type ToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall is a function's name and its arguments as a JSON text.
type FunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// ChatTool is a tool of a chat request: {"type": "function", "function":
// {...}}.
type ChatTool struct {
	Type     string             `json:"type"`
	Function FunctionDefinition `json:"function"`
}

// FunctionDefinition is a function a client offers: its JSON schema
// parameters and, with strict, OpenAI's strict mode.
type FunctionDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// ResponseFormat is a chat request's response_format: text, json_object, or
// json_schema with its schema.
type ResponseFormat struct {
	Type       string            `json:"type"`
	JSONSchema *JSONSchemaFormat `json:"json_schema,omitempty"`
}

// JSONSchemaFormat is a structured output's schema, as chat's
// response_format.json_schema and, flattened, Responses' text.format carry
// it.
type JSONSchemaFormat struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// ChatCompletion is a chat.completion. A stored one carries its status and,
// when it failed, its error (rlm's additions).
type ChatCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"` // "chat.completion"
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []Choice     `json:"choices"`
	Usage             *Usage       `json:"usage,omitempty"`
	SystemFingerprint *string      `json:"system_fingerprint,omitempty"`
	PromptTokenIDs    any          `json:"prompt_token_ids,omitempty"` // return_token_ids: []int32, or one per prompt
	RLM               *RLMInfo     `json:"rlm,omitempty"`
	Status            string       `json:"status,omitempty"` // stored only: in_progress, completed, failed, interrupted, cancelled
	Error             *ErrorObject `json:"error,omitempty"`
}

// Choice is a choice of a chat.completion.
type Choice struct {
	Index        int              `json:"index"`
	Message      AssistantMessage `json:"message"`
	Logprobs     *Logprobs        `json:"logprobs"`
	FinishReason string           `json:"finish_reason"`
	TokenIDs     []int32          `json:"token_ids,omitempty"` // return_token_ids
}

// AssistantMessage is the message of a choice. Content is null when the
// message only calls tools.
type AssistantMessage struct {
	Role         string        `json:"role"`
	Content      *string       `json:"content"`
	Refusal      *string       `json:"refusal"`
	ToolCalls    []ToolCall    `json:"tool_calls,omitempty"`
	FunctionCall *FunctionCall `json:"function_call,omitempty"` // legacy functions
}

// Finish reasons of a choice.
const (
	FinishStop      = "stop"
	FinishLength    = "length"
	FinishToolCalls = "tool_calls"
	// FinishFunctionCall is the legacy functions' tool_calls.
	FinishFunctionCall = "function_call"
)

// ChatCompletionChunk is a chat.completion.chunk. Choices is never omitted:
// progress and usage chunks carry an empty array, as OpenAI's usage chunk
// does.
type ChatCompletionChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"` // "chat.completion.chunk"
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
	// RLM is rlm's progress event, on chunks with no choices, and the
	// run's rlm object on the finish chunk.
	RLM any `json:"rlm,omitempty"`
	// Usage is absent unless the client asked for include_usage; then, as
	// in OpenAI's streams, it is null on every chunk but the last: set it
	// to a nil *Usage for null.
	Usage             any     `json:"usage,omitempty"`
	SystemFingerprint *string `json:"system_fingerprint,omitempty"`
	PromptTokenIDs    any     `json:"prompt_token_ids,omitempty"`
}

// ChunkChoice is a choice's piece in a chunk.
type ChunkChoice struct {
	Index        int       `json:"index"`
	Delta        Delta     `json:"delta"`
	Logprobs     *Logprobs `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
	TokenIDs     []int32   `json:"token_ids,omitempty"`
}

// Delta is what a chunk adds to a choice's message. Reasoning and
// ReasoningContent are what upstreams that think send besides OpenAI's
// fields (vLLM, DeepSeek and llama.cpp: reasoning_content; Ollama and
// OpenRouter: reasoning); the upstream client reads them.
type Delta struct {
	Role             string        `json:"role,omitempty"`
	Content          *string       `json:"content,omitempty"`
	ToolCalls        []ToolCall    `json:"tool_calls,omitempty"`
	FunctionCall     *FunctionCall `json:"function_call,omitempty"`
	Refusal          *string       `json:"refusal,omitempty"`
	ReasoningContent string        `json:"reasoning_content,omitempty"`
	Reasoning        string        `json:"reasoning,omitempty"`
}

// Usage is the token count of a chat completion or completion.
type Usage struct {
	PromptTokens            int                      `json:"prompt_tokens"`
	CompletionTokens        int                      `json:"completion_tokens"`
	TotalTokens             int                      `json:"total_tokens"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
}

// PromptTokensDetails says how many prompt tokens came from a cache.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails says how many completion tokens were reasoning.
type CompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// Logprobs are a chat choice's token log probabilities.
type Logprobs struct {
	Content []TokenLogprob `json:"content"`
	Refusal []TokenLogprob `json:"refusal,omitempty"`
}

// TokenLogprob is one token's log probability, with the most likely
// alternatives when they were asked for (top_logprobs).
type TokenLogprob struct {
	Token       string       `json:"token"`
	Logprob     float64      `json:"logprob"`
	Bytes       []int        `json:"bytes"`
	TopLogprobs []TopLogprob `json:"top_logprobs"`
}

// TopLogprob is an alternative token at a position.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

// CompletionRequest is the body of POST /v1/completions (the legacy text
// completions API), which the model server offers.
type CompletionRequest struct {
	SamplingParams
	// Prompt is a string, an array of strings, an array of token ids or an
	// array of such arrays.
	Prompt   json.RawMessage `json:"prompt"`
	Logprobs *int            `json:"logprobs,omitempty"`
	Echo     bool            `json:"echo,omitempty"`
	Suffix   *string         `json:"suffix,omitempty"`
}

// TextCompletion is a text_completion, whole or as a stream's chunk.
type TextCompletion struct {
	ID             string       `json:"id"`
	Object         string       `json:"object"` // "text_completion"
	Created        int64        `json:"created"`
	Model          string       `json:"model"`
	Choices        []TextChoice `json:"choices"`
	Usage          any          `json:"usage,omitempty"` // *Usage; see ChatCompletionChunk.Usage
	PromptTokenIDs any          `json:"prompt_token_ids,omitempty"`
}

// TextChoice is a choice of a text_completion.
type TextChoice struct {
	Index        int           `json:"index"`
	Text         string        `json:"text"`
	Logprobs     *TextLogprobs `json:"logprobs"`
	FinishReason *string       `json:"finish_reason"`
	TokenIDs     []int32       `json:"token_ids,omitempty"`
}

// TextLogprobs are a text completion's log probabilities, in the legacy
// API's parallel arrays.
type TextLogprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []float64            `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}
