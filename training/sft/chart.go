package sft

import "github.com/rlm-project/rlm/training/loop"

// LossChart draws values (one per step) as a standalone SVG line chart with
// labelled axes (see loop.LineChart).
func LossChart(values []float64, title string) []byte { return loop.LossChart(values, title) }
