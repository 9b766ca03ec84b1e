// Package api is the OpenAI wire format as rlm speaks it: the request and
// response types of chat completions, completions, the Responses API, files
// and models; usage and logprobs; the error envelope; and the server-sent
// event writer. The gateway (server), the model server
// (inference/modelserver), the traces API and the upstream client all use
// these definitions, so a conformance fix is made once.
//
// rlm's own additions travel in fields named rlm (RLMOptions on requests,
// RLMInfo on answers), as other servers add theirs; the few vLLM extensions
// the model server takes (top_k, ignore_eos, return_token_ids) are marked
// where they are declared.
//
// The types are plain data. Decoding that bounds what a request may make a
// server hold (messages, content parts, stop sequences) is here too, in
// DecodeChatCompletionRequest and DecodeResponseInput, because both servers
// need it; what each server accepts of a valid request is the server's
// decision.
package api
