package sft

import (
	"math"

	"github.com/rlm-project/rlm/training/loop"
)

// LossChart draws values (one per step) as a standalone SVG line chart with
// labelled axes (see loop.LineChart).
func LossChart(values []float64, title string) []byte { return loop.LossChart(values, title) }

// lossChart draws the run's training loss and, when there is one, its
// validation loss as a second series.
func (t *Trainer) lossChart() []byte {
	if len(t.valLosses) == 0 {
		return LossChart(t.losses, "training loss")
	}
	return loop.LineChart("loss", loop.Series{Name: "training", Values: t.losses},
		loop.Series{Name: "validation", Values: ValSeries(t.valLosses, len(t.losses))})
}

// ValSeries spreads validation points over steps 1..n for a chart: NaN
// (left out, the line joins the points) where there was no validation.
func ValSeries(points []ValPoint, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	for _, p := range points {
		if p.Step >= 1 && p.Step <= n {
			out[p.Step-1] = p.Loss
		}
	}
	return out
}
