// Package tracing records what a run did: OpenTelemetry spans of the
// recursion tree, trajectories good enough to train on, and the web viewer.
package tracing
