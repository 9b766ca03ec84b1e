package eval

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Summary aggregates the results of one task, length and mode.
type Summary struct {
	Task        string         `json:"task"`
	Tokens      int            `json:"tokens"`
	Length      string         `json:"length"`
	Mode        string         `json:"mode"`
	Runs        int            `json:"runs"`    // scored runs
	Skipped     int            `json:"skipped"` // not run: input beyond the context window
	Failed      int            `json:"failed"`  // not scored: an upstream or harness failure; retried on resume
	Score       float64        `json:"score"`   // mean over scored runs
	TokensMean  float64        `json:"tokens_mean"`
	TokensP50   int            `json:"tokens_p50"`
	TokensP90   int            `json:"tokens_p90"`
	CallsMean   float64        `json:"llm_calls_mean"`
	DepthMean   float64        `json:"depth_mean"`
	DepthMax    int            `json:"depth_max"`
	WallMean    float64        `json:"wall_s_mean"`
	WallP90     float64        `json:"wall_s_p90"`
	StopReasons map[string]int `json:"stop_reasons"` // of the scored runs
}

// Summarize groups results by task, length and mode, sorted in that order.
func Summarize(results []Result) []Summary {
	type key struct {
		task   string
		tokens int
		mode   string
	}
	groups := map[key][]Result{}
	for _, r := range results {
		k := key{r.Task, r.Tokens, r.Mode}
		groups[k] = append(groups[k], r)
	}
	var out []Summary
	for k, rs := range groups {
		s := Summary{Task: k.task, Tokens: k.tokens, Length: FormatLength(k.tokens), Mode: k.mode, StopReasons: map[string]int{}}
		var toks []int
		var walls []float64
		for _, r := range rs {
			switch {
			case r.Skipped != "":
				s.Skipped++
				continue
			case r.Error != "":
				s.Failed++
				continue
			}
			s.Runs++
			s.Score += r.Score
			s.TokensMean += float64(r.Usage.TotalTokens)
			s.CallsMean += float64(r.LLMCalls)
			s.DepthMean += float64(r.Depth)
			s.DepthMax = max(s.DepthMax, r.Depth)
			s.WallMean += r.WallSec
			toks = append(toks, r.Usage.TotalTokens)
			walls = append(walls, r.WallSec)
			s.StopReasons[r.StopReason]++
		}
		if s.Runs > 0 {
			n := float64(s.Runs)
			s.Score /= n
			s.TokensMean /= n
			s.CallsMean /= n
			s.DepthMean /= n
			s.WallMean /= n
			sort.Ints(toks)
			sort.Float64s(walls)
			s.TokensP50, s.TokensP90 = toks[rank(len(toks), 0.5)], toks[rank(len(toks), 0.9)]
			s.WallP90 = walls[rank(len(walls), 0.9)]
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		if a.Tokens != b.Tokens {
			return a.Tokens < b.Tokens
		}
		return a.Mode > b.Mode // rlm before direct
	})
	return out
}

// rank is the nearest-rank index of percentile p in n sorted values.
func rank(n int, p float64) int {
	return max(0, min(n-1, int(math.Ceil(p*float64(n)))-1))
}

func stopString(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// WriteTable writes the summaries as an aligned table. Failed runs (an
// upstream or harness failure, not a wrong answer) have a column of their
// own and are not in the score; a row with no scored run shows no score.
func WriteTable(w io.Writer, sums []Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "task\tlength\tmode\truns\tfailed\tscore\ttokens mean\tp50\tp90\tcalls\tdepth\twall s\tstop reasons\t")
	for _, s := range sums {
		switch {
		case s.Runs == 0 && s.Failed == 0:
			fmt.Fprintf(tw, "%s\t%s\t%s\t0\t0\tskipped\t-\t-\t-\t-\t-\t-\t(%d beyond context window)\t\n", s.Task, s.Length, s.Mode, s.Skipped)
		case s.Runs == 0:
			fmt.Fprintf(tw, "%s\t%s\t%s\t0\t%d\t-\t-\t-\t-\t-\t-\t-\t-\t\n", s.Task, s.Length, s.Mode, s.Failed)
		default:
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.3f\t%.0f\t%d\t%d\t%.1f\t%d\t%.2f\t%s\t\n",
				s.Task, s.Length, s.Mode, s.Runs, s.Failed, s.Score, s.TokensMean, s.TokensP50, s.TokensP90,
				s.CallsMean, s.DepthMax, s.WallMean, stopString(s.StopReasons))
		}
	}
	return tw.Flush()
}

// Report file names in the output directory.
const (
	SummaryJSON = "summary.json"
	SummaryCSV  = "summary.csv"
	ResultsCSV  = "results.csv"
	ChartSVG    = "chart.svg"
)

// WriteReports writes summary.json, summary.csv, results.csv and chart.svg
// into dir.
func WriteReports(dir string, results []Result) error {
	sums := Summarize(results)
	b, err := json.MarshalIndent(struct {
		Summaries []Summary `json:"summaries"`
	}{sums}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryJSON), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	var rows [][]string
	rows = append(rows, []string{"task", "tokens", "length", "mode", "runs", "skipped", "failed", "score",
		"tokens_mean", "tokens_p50", "tokens_p90", "llm_calls_mean", "depth_mean", "depth_max", "wall_s_mean", "wall_s_p90", "stop_reasons"})
	for _, s := range sums {
		rows = append(rows, []string{s.Task, strconv.Itoa(s.Tokens), s.Length, s.Mode, strconv.Itoa(s.Runs),
			strconv.Itoa(s.Skipped), strconv.Itoa(s.Failed), ff(s.Score), ff(s.TokensMean), strconv.Itoa(s.TokensP50),
			strconv.Itoa(s.TokensP90), ff(s.CallsMean), ff(s.DepthMean), strconv.Itoa(s.DepthMax), ff(s.WallMean),
			ff(s.WallP90), stopString(s.StopReasons)})
	}
	if err := writeCSV(filepath.Join(dir, SummaryCSV), rows); err != nil {
		return err
	}
	sorted := append([]Result(nil), results...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Key() < sorted[j].Key() })
	rows = [][]string{{"task", "tokens", "index", "seed", "mode", "score", "skipped", "error", "stop_reason", "trace_id",
		"prompt_tokens", "completion_tokens", "total_tokens", "llm_calls", "depth", "iterations", "wall_s", "context_bytes", "gold", "answer"}}
	for _, r := range sorted {
		rows = append(rows, []string{r.Task, strconv.Itoa(r.Tokens), strconv.Itoa(r.Index), strconv.FormatInt(r.Seed, 10),
			r.Mode, ff(r.Score), r.Skipped, r.Error, r.StopReason, r.TraceID, strconv.Itoa(r.Usage.PromptTokens),
			strconv.Itoa(r.Usage.CompletionTokens), strconv.Itoa(r.Usage.TotalTokens), strconv.Itoa(r.LLMCalls),
			strconv.Itoa(r.Depth), strconv.Itoa(r.Iterations), ff(r.WallSec), strconv.FormatInt(r.Bytes, 10), r.Gold, r.Answer})
	}
	if err := writeCSV(filepath.Join(dir, ResultsCSV), rows); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, ChartSVG))
	if err != nil {
		return fmt.Errorf("write chart: %w", err)
	}
	if err := WriteChart(f, sums); err != nil {
		f.Close()
		return fmt.Errorf("write chart: %w", err)
	}
	return f.Close()
}

func ff(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

func writeCSV(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	w := csv.NewWriter(f)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return f.Close()
}
