package sft

import "github.com/rlm-project/rlm/training/loop"

// LossChart draws values (one per step) as a standalone SVG line chart with
// labelled axes (see loop.LineChart).
func LossChart(values []float64, title string) []byte { return loop.LossChart(values, title) }

// lossChart draws the run's training loss and, when there is one, its
// validation loss as a second series.
func (t *Trainer) lossChart() []byte {
	if len(t.valLosses) == 0 {
		return LossChart(t.losses, "training loss")
	}
	steps := make([]int, len(t.valLosses))
	values := make([]float64, len(t.valLosses))
	for i, p := range t.valLosses {
		steps[i], values[i] = p.Step, p.Loss
	}
	return loop.LineChart("loss", loop.Series{Name: "training", Values: t.losses},
		loop.Series{Name: "validation", Values: loop.Sparse(len(t.losses), steps, values)})
}
