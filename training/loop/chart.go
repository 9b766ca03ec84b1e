package loop

import (
	"bytes"
	"fmt"
	"html"
	"math"
)

// Series is one line of a chart: a value per step.
type Series struct {
	Name   string
	Values []float64
}

var colors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"}

// Sparse spreads values measured at some 1-based steps over steps 1..n, for
// a series of a chart: NaN (left out; the line joins the points) at the
// other steps, and values outside 1..n dropped.
func Sparse(n int, steps []int, values []float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	for i, s := range steps {
		if s >= 1 && s <= n {
			out[s-1] = values[i]
		}
	}
	return out
}

// LossChart draws values (one per step) as a standalone SVG line chart.
func LossChart(values []float64, title string) []byte {
	return LineChart(title, Series{Values: values})
}

// LineChart draws series (one value per step each) as a standalone SVG
// line chart with labelled axes and, for named series, a legend. It needs
// no fonts or libraries, so any browser shows it. NaN and infinite values
// are left out.
func LineChart(title string, series ...Series) []byte {
	const (
		W, H                     = 640.0, 360.0
		left, right, top, bottom = 60.0, 20.0, 36.0, 44.0
	)
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%g" y="22" text-anchor="middle" font-size="15">%s</text>`+"\n", W/2, html.EscapeString(title))
	var finite []float64
	steps := 0
	for _, s := range series {
		steps = max(steps, len(s.Values))
		for _, v := range s.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				finite = append(finite, v)
			}
		}
	}
	if len(finite) == 0 {
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">no data</text></svg>`+"\n", W/2, H/2)
		return b.Bytes()
	}
	lo, hi := finite[0], finite[0]
	for _, v := range finite {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	lo = math.Min(lo, 0)
	if hi == lo {
		hi = lo + 1
	}
	pw, ph := W-left-right, H-top-bottom
	x := func(i int) float64 {
		if steps == 1 {
			return left + pw/2
		}
		return left + pw*float64(i)/float64(steps-1)
	}
	y := func(v float64) float64 { return top + ph*(1-(v-lo)/(hi-lo)) }
	// Axes, with five gridlines on the value axis.
	fmt.Fprintf(&b, `<g stroke="#ccc">`)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f"/>`, left, y(v), W-right, y(v))
	}
	fmt.Fprintf(&b, "</g>\n")
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end">%.3g</text>`+"\n", left-6, y(v)+4, v)
	}
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/>`+"\n", left, top, left, top+ph)
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/>`+"\n", left, top+ph, W-right, top+ph)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="start">1</text>`+"\n", left, top+ph+16)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="end">%d</text>`+"\n", W-right, top+ph+16, steps)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">step</text>`+"\n", left+pw/2, H-8)
	for k, s := range series {
		color := colors[k%len(colors)]
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, color)
		for i, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			fmt.Fprintf(&b, "%.1f,%.1f ", x(i), y(v))
		}
		fmt.Fprintf(&b, `"/>`+"\n")
		if s.Name != "" {
			ly := top + 14*float64(k) + 8
			fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/>`, left+10, ly, left+28, ly, color)
			fmt.Fprintf(&b, `<text x="%g" y="%g">%s</text>`+"\n", left+32, ly+4, html.EscapeString(s.Name))
		}
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}
