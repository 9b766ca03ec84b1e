// Package server is the OpenAI-compatible HTTP gateway in front of the RLM
// engine, on echo: chat completions (plain and streamed, stored
// completions with their list, update and messages endpoints), the
// Responses API (background runs, streams that resume from any replica,
// cancel, input items, follow-ups in the same REPL session), files,
// models, health, readiness and metrics.
//
// The wire types, error envelope and SSE writer are package api's; this
// package decides what a request means and runs it. Its files, by job:
//   - server.go, config.go, conn.go, errors.go: the routes, settings and
//     defaults, connection limits, and errors in OpenAI's envelope;
//   - request.go, responses_request.go, documents.go, largejson.go: what
//     a request asks for and is refused for, files and inputs read as
//     documents, records too large to hold twice in memory;
//   - run.go: the lifecycle both APIs share (a run slot, files, the run's
//     context, launch, and what each way of ending means to the client);
//   - chat.go, stream.go, completions.go: chat completions, their stream
//     and stored completions;
//   - responses.go, responses_run.go, responses_events.go, feeds.go: the
//     Responses API's handlers, its runs, their events and the feeds that
//     stream them;
//   - sessions.go, paused.go, tools.go: REPL sessions kept for
//     follow-ups, runs paused at client tool calls, and client tools,
//     tool_choice and structured outputs;
//   - quota.go, runs.go, metrics.go, observer.go: per-key storage quotas,
//     stored runs a killed server left behind, Prometheus series and the
//     engine's progress.
//
// Every owner (API key) sees only its own records; docs/server.md
// describes the API and its limits.
package server
