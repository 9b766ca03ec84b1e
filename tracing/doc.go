// Package tracing records what a run did: a Recorder turns the engine's
// events into a Trajectory, and a Service keeps the runs in progress,
// saves finished ones to a store (Archive) and hands them on, to a Stream
// for trainers and to Spans for a tracing system. What is done with the
// records lives beside it: tracing/spans (OpenTelemetry), tracing/traceapi
// (the HTTP API, its client and the web viewer), tracing/export (training
// data).
package tracing
