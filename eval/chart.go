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

var chartColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}

// WriteChart draws score against input length (log scale), one line per
// task and mode, like figure 1 of the RLM paper: RLM runs solid, the direct
// baseline dashed in the same colour. Sizes the baseline skipped (beyond its
// context window) are marked with a cross on the x axis.
func WriteChart(w io.Writer, sums []Summary) error {
	const (
		W, H                     = 760, 440
		left, right, top, bottom = 64, 210, 44, 56
		pw, ph                   = W - left - right, H - top - bottom
	)
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}

	lengths := map[int]bool{}
	var tasks []string
	seenTask := map[string]bool{}
	for _, s := range sums {
		lengths[s.Tokens] = true
		if !seenTask[s.Task] {
			seenTask[s.Task] = true
			tasks = append(tasks, s.Task)
		}
	}
	var xs []int
	for l := range lengths {
		xs = append(xs, l)
	}
	sort.Ints(xs)
	lo, hi := 3.0, 4.0
	if len(xs) > 0 {
		lo, hi = math.Log10(float64(xs[0])), math.Log10(float64(xs[len(xs)-1]))
	}
	lo, hi = lo-0.25, hi+0.25
	X := func(tokens int) float64 { return left + (math.Log10(float64(tokens))-lo)/(hi-lo)*pw }
	Y := func(score float64) float64 { return top + (1-score)*ph }

	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	p(`<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	p(`<text x="%d" y="24" font-size="15" font-weight="bold">Score vs input length</text>`+"\n", left)
	for i := 0; i <= 4; i++ {
		s := float64(i) / 4
		p(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", left, Y(s), left+pw, Y(s))
		p(`<text x="%d" y="%.1f" text-anchor="end">%d%%</text>`+"\n", left-6, Y(s)+4, i*25)
	}
	for _, l := range xs {
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>`+"\n", X(l), top, X(l), top+ph)
		p(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", X(l), top+ph+18, esc(FormatLength(l)))
	}
	p(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>`+"\n", left, top, pw, ph)
	p(`<text x="%d" y="%d" text-anchor="middle">input length (tokens, log scale)</text>`+"\n", left+pw/2, H-14)
	p(`<text transform="translate(16 %d) rotate(-90)" text-anchor="middle">score</text>`+"\n", top+ph/2)

	ly := top + 8
	for ti, task := range tasks {
		color := chartColors[ti%len(chartColors)]
		for _, mode := range []string{ModeRLM, ModeDirect} {
			var pts []string
			var skipped []int
			any := false
			for _, s := range sums {
				if s.Task != task || s.Mode != mode {
					continue
				}
				any = true
				if s.Runs == 0 {
					// A size whose runs all failed has no score to draw,
					// but it was run: only skips get the cross.
					if s.Skipped > 0 {
						skipped = append(skipped, s.Tokens)
					}
					continue
				}
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", X(s.Tokens), Y(s.Score)))
			}
			if !any {
				continue
			}
			dash := ""
			if mode == ModeDirect {
				dash = ` stroke-dasharray="6 4"`
			}
			if len(pts) > 1 {
				p(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), color, dash)
			}
			for _, pt := range pts {
				xy := strings.Split(pt, ",")
				if mode == ModeDirect {
					// Hollow squares keep baseline points visible on top of RLM ones.
					p(`<rect x="%s" y="%s" width="10" height="10" transform="translate(-5 -5)" fill="white" stroke="%s" stroke-width="2"/>`+"\n", xy[0], xy[1], color)
				} else {
					p(`<circle cx="%s" cy="%s" r="4" fill="%s"/>`+"\n", xy[0], xy[1], color)
				}
			}
			for _, t := range skipped {
				x, y := X(t), Y(0)
				p(`<path d="M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f" stroke="%s" stroke-width="2"/>`+"\n",
					x-5, y-5, x+5, y+5, x-5, y+5, x+5, y-5, color)
			}
			p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", left+pw+12, ly, left+pw+40, ly, color, dash)
			label := task + " (" + mode + ")"
			p(`<text x="%d" y="%d">%s</text>`+"\n", left+pw+46, ly+4, esc(label))
			ly += 20
		}
	}
	p(`<text x="%d" y="%d" fill="#666" font-size="10">× = not run: beyond context window</text>`+"\n", left+pw+12, ly+6)
	p("</svg>\n")
	return bw.Flush()
}
