package eval

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Series styles: one colour, line style and marker per mode, the same in
// every panel.
var chartModes = []struct {
	mode, label, color, dash string
	side                     float64 // which way its markers are moved off their length: -1 left, 1 right
}{
	{ModeRLM, "RLM", "#1f77b4", "", -1},
	{ModeDirect, "direct baseline", "#d62728", "6 4", 1},
}

// chartDodge is how far, in px, each mode's markers are moved off their
// length's x position, so that equal scores of two modes sit side by side
// instead of one marker covering the other.
const chartDodge = 5

// Chart geometry, in px: panels of panelW x panelH sit in a grid of up to
// chartCols columns below a header (title and legend); plotLeft..plotBottom
// are a panel's margins around its plot area.
const (
	chartCols                    = 3
	panelW, panelH               = 300, 250
	plotLeft, plotRight, plotTop = 48, 16, 30
	plotBottom                   = 48
	plotW, plotH                 = panelW - plotLeft - plotRight, panelH - plotTop - plotBottom
	chartHeader, chartMargin     = 64, 8
	chartXPad                    = 0.3 // decades of padding either side of a panel's x range
)

// panelRect returns the plot area of panel i (x, y, width, height): where
// its points are drawn.
func panelRect(i int) (x, y, w, h float64) {
	col, row := i%chartCols, i/chartCols
	return float64(chartMargin + col*panelW + plotLeft), float64(chartHeader + row*panelH + plotTop), plotW, plotH
}

// chartSize returns the width and height of a chart of n panels.
func chartSize(n int) (int, int) {
	cols, rows := min(max(n, 1), chartCols), (max(n, 1)+chartCols-1)/chartCols
	// At least two panels wide, so that the legend fits.
	return 2*chartMargin + max(cols, 2)*panelW, chartHeader + rows*panelH + chartMargin
}

// WriteChart draws score against input length (log scale), like figure 1
// of the RLM paper, with one panel per task so that tasks with equal scores
// never hide one another. In each panel RLM runs are a solid line with
// round markers and the direct baseline a dashed line with square markers
// in another colour; the markers of the two modes sit a few pixels apart,
// so both stay visible where their scores are equal. Lengths the baseline
// skipped (beyond its context window) are marked with a cross on the x
// axis. Lengths where every run failed have no point.
func WriteChart(w io.Writer, sums []Summary) error {
	return writeChart(w, sums, chartDodge)
}

func writeChart(w io.Writer, sums []Summary, dodge float64) error {
	var tasks []string
	byTask := map[string][]Summary{}
	for _, s := range sums {
		if _, ok := byTask[s.Task]; !ok {
			tasks = append(tasks, s.Task)
		}
		byTask[s.Task] = append(byTask[s.Task], s)
	}
	sort.Strings(tasks)
	W, H := chartSize(len(tasks))

	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	p(`<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	p(`<text x="%d" y="22" font-size="15" font-weight="bold">Score vs input length</text>`+"\n", chartMargin+plotLeft)
	p(`<text x="%d" y="38" font-size="11" fill="#666">one panel per task; where two modes score the same, their markers sit side by side</text>`+"\n", chartMargin+plotLeft)

	// Legend: the modes present, then the skip mark.
	present := map[string]bool{}
	for _, s := range sums {
		present[s.Mode] = true
	}
	lx, ly := chartMargin+plotLeft, 56
	for _, m := range chartModes {
		if !present[m.mode] {
			continue
		}
		p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly-4, lx+28, ly-4, m.color, dashAttr(m.dash))
		marker(p, "legend", m.mode, float64(lx+14), float64(ly-4), m.color)
		p(`<text x="%d" y="%d">%s</text>`+"\n", lx+34, ly, esc(m.label))
		lx += 34 + 7*len(m.label) + 20 // about 7 px a character at 12 px
	}
	p(`<text x="%d" y="%d" fill="#666" font-size="11">× = not run: beyond the baseline's context window</text>`+"\n", lx, ly)

	for i, task := range tasks {
		writePanel(p, i, task, byTask[task], dodge)
	}
	p("</svg>\n")
	return bw.Flush()
}

func writePanel(p func(string, ...any), i int, task string, sums []Summary, dodge float64) {
	x0, y0, pw, ph := panelRect(i)
	lengths := map[int]bool{}
	for _, s := range sums {
		lengths[s.Tokens] = true
	}
	var xs []int
	for l := range lengths {
		xs = append(xs, l)
	}
	sort.Ints(xs)
	lo, hi := math.Log10(float64(xs[0]))-chartXPad, math.Log10(float64(xs[len(xs)-1]))+chartXPad
	X := func(tokens int) float64 { return x0 + (math.Log10(float64(tokens))-lo)/(hi-lo)*pw }
	// Scores 0 and 1 sit a little inside the frame, not on it.
	const pad = 8
	Y := func(score float64) float64 { return y0 + pad + (1-score)*(ph-2*pad) }

	p(`<g class="panel" data-task="%s">`+"\n", esc(task))
	p(`<text x="%.1f" y="%.1f" font-size="13" font-weight="bold">%s</text>`+"\n", x0, y0-10, esc(task))
	for k := 0; k <= 4; k++ {
		s := float64(k) / 4
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", x0, Y(s), x0+pw, Y(s))
		p(`<text x="%.1f" y="%.1f" text-anchor="end" font-size="11">%d%%</text>`+"\n", x0-5, Y(s)+4, k*25)
	}
	for _, l := range xs {
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", X(l), y0, X(l), y0+ph)
		p(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">%s</text>`+"\n", X(l), y0+ph+16, esc(FormatLength(l)))
	}
	p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", x0, y0, pw, ph)
	p(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">input length (tokens, log scale)</text>`+"\n", x0+pw/2, y0+ph+34)

	for _, m := range chartModes {
		var pts [][2]float64
		var skipped []int
		for _, s := range sums {
			if s.Mode != m.mode {
				continue
			}
			if s.Runs == 0 {
				// A length whose runs all failed has no score to draw,
				// but it was run: only skips get the cross.
				if s.Skipped > 0 {
					skipped = append(skipped, s.Tokens)
				}
				continue
			}
			pts = append(pts, [2]float64{X(s.Tokens) + m.side*dodge, Y(s.Score)})
		}
		if len(pts) > 1 {
			var b strings.Builder
			for _, pt := range pts {
				fmt.Fprintf(&b, "%.1f,%.1f ", pt[0], pt[1])
			}
			p(`<polyline class="series" data-mode="%s" points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n",
				m.mode, strings.TrimSpace(b.String()), m.color, dashAttr(m.dash))
		}
		for _, pt := range pts {
			marker(p, "point", m.mode, pt[0], pt[1], m.color)
		}
		for _, t := range skipped {
			x, y := X(t)+m.side*dodge, y0+ph // on the x axis, below a score of 0
			const h = 5
			p(`<path class="skipped" d="M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f" stroke="%s" stroke-width="2"/>`+"\n",
				x-h, y-h, x+h, y+h, x-h, y+h, x+h, y-h, m.color)
		}
	}
	p("</g>\n")
}

// marker draws one point (or the legend's sample of one) centred on x, y:
// a filled circle for RLM, a hollow square for the baseline.
func marker(p func(string, ...any), class, mode string, x, y float64, color string) {
	if mode == ModeDirect {
		p(`<rect class="%s" data-mode="%s" x="%.1f" y="%.1f" width="9" height="9" fill="white" stroke="%s" stroke-width="2"/>`+"\n",
			class, mode, x-4.5, y-4.5, color)
		return
	}
	p(`<circle class="%s" data-mode="%s" cx="%.1f" cy="%.1f" r="4" fill="%s"/>`+"\n", class, mode, x, y, color)
}

func dashAttr(dash string) string {
	if dash == "" {
		return ""
	}
	return ` stroke-dasharray="` + dash + `"`
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
