// Command chart draws the held-out scores of several tiny-rlm models side
// by side (issue 15, step 5): one group of bars per task and input length,
// one bar per model, as an SVG.
//
//	go run ./examples/tiny-rlm/chart -out chart.svg "random init=OUT/eval-base" SFT=OUT/eval-sft RL=OUT/eval-rl
//
// Each DIR is an output folder of eval.sh: one subfolder per task variant
// holding rlm eval's summary.json. A (task, length) cell a model was not
// evaluated on has no bar for it.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlm-project/rlm/eval"
)

func main() {
	out := flag.String("out", "", "SVG file to write (default: standard output)")
	title := flag.String("title", "rlm-tiny-demo, held-out score (greedy)", "chart title")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: chart [-out FILE] [-title T] NAME=EVAL_DIR ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var models []model
	for _, arg := range flag.Args() {
		name, dir, ok := strings.Cut(arg, "=")
		if !ok || name == "" || dir == "" {
			fmt.Fprintf(os.Stderr, "chart: %q: want NAME=EVAL_DIR\n", arg)
			os.Exit(2)
		}
		sums, err := loadSummaries(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chart:", err)
			os.Exit(1)
		}
		models = append(models, model{name, sums})
	}
	if err := write(*out, *title, models); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}

// write draws the chart to path, or to standard output when path is empty.
func write(path, title string, models []model) error {
	if path == "" {
		return writeChart(os.Stdout, title, models)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeChart(f, title, models); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// model is one bar colour: a name and the summaries of its evaluation.
type model struct {
	name string
	sums []eval.Summary
}

// loadSummaries reads DIR/*/summary.json, the layout eval.sh writes.
func loadSummaries(dir string) ([]eval.Summary, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", eval.SummaryJSON))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no */summary.json (an eval.sh output folder?)", dir)
	}
	var all []eval.Summary
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read summary: %w", err)
		}
		var doc struct {
			Summaries []eval.Summary `json:"summaries"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("parse %s: %w", f, err)
		}
		all = append(all, doc.Summaries...)
	}
	return all, nil
}

// cell is one group of bars.
type cell struct {
	task   string
	tokens int
	length string
}

// Bar colours, one per model in argument order (Okabe-Ito, readable by
// colour-blind readers).
var colors = []string{"#999999", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00"}

const (
	groupW, barGap  = 54.0, 2.0
	left, right     = 50.0, 20.0
	top, plotH      = 60.0, 220.0
	labelH, legendW = 60.0, 150.0
)

func writeChart(w io.Writer, title string, models []model) error {
	if len(models) > len(colors) {
		return fmt.Errorf("%d models: at most %d fit the palette", len(models), len(colors))
	}
	// score[j] holds model j's scores: by position, so that two models
	// given the same name stay two bars.
	score := make([]map[cell]float64, len(models))
	var cells []cell
	for j, m := range models {
		score[j] = map[cell]float64{}
		for _, s := range m.sums {
			if s.Runs == 0 {
				continue
			}
			c := cell{s.Task, s.Tokens, s.Length}
			score[j][c] = s.Score
			if !slices.Contains(cells, c) {
				cells = append(cells, c)
			}
		}
	}
	if len(cells) == 0 {
		return errors.New("no scored runs in any summary")
	}
	// Tasks in the order they first appear, lengths ascending within a task.
	order := map[string]int{}
	for _, c := range cells {
		if _, ok := order[c.task]; !ok {
			order[c.task] = len(order)
		}
	}
	slices.SortStableFunc(cells, func(a, b cell) int {
		if d := order[a.task] - order[b.task]; d != 0 {
			return d
		}
		return a.tokens - b.tokens
	})

	width := left + float64(len(cells))*groupW + right + legendW
	height := top + plotH + labelH
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`, width, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>`)
	p(`<text x="%.0f" y="24" font-size="15">%s</text>`, left, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		y := top + plotH*(1-v)
		p(`<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, left, left+float64(len(cells))*groupW, y, y)
		p(`<text x="%.0f" y="%.1f" text-anchor="end">%.2f</text>`, left-6, y+4, v)
	}
	barW := (groupW - 10 - barGap*float64(len(models)-1)) / float64(len(models))
	prevTask := ""
	for i, c := range cells {
		x0 := left + float64(i)*groupW + 5
		for j, m := range models {
			v, ok := score[j][c]
			if !ok {
				continue
			}
			// A score of 0 still gets a sliver, so that "evaluated, solved
			// nothing" differs from "not evaluated".
			h := max(plotH*v, 1.5)
			x := x0 + float64(j)*(barW+barGap)
			p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s %s: %.3f</title></rect>`,
				x, top+plotH-h, barW, h, colors[j], html.EscapeString(m.name), html.EscapeString(c.task), c.length, v)
		}
		p(`<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x0+(groupW-10)/2, top+plotH+14, c.length)
		if c.task != prevTask {
			p(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#999"/>`, x0-5, x0-5, top, top+plotH+40)
			p(`<text x="%.1f" y="%.1f">%s</text>`, x0-2, top+plotH+32, html.EscapeString(shortTask(c.task)))
			prevTask = c.task
		}
	}
	lx := left + float64(len(cells))*groupW + 16
	for j, m := range models {
		y := top + 10 + float64(j)*18
		p(`<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/>`, lx, y-10, colors[j])
		p(`<text x="%.1f" y="%.1f">%s</text>`, lx+18, y, html.EscapeString(m.name))
	}
	p(`</svg>`)
	return nil
}

// shortTask drops the "[phrasings=out]" every held-out task name carries
// and keeps its other variant options.
func shortTask(task string) string {
	name, opts, ok := strings.Cut(task, "[")
	if !ok {
		return task
	}
	var keep []string
	for _, o := range strings.Split(strings.TrimSuffix(opts, "]"), ",") {
		if !strings.HasPrefix(o, "phrasings=") {
			keep = append(keep, o)
		}
	}
	if len(keep) == 0 {
		return name
	}
	return name + " " + strings.Join(keep, ",")
}
