// Package server is the OpenAI-compatible HTTP gateway in front of the RLM
// engine: chat completions, files, models, health and metrics.
package server
