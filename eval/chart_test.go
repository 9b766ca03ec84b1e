package eval

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestChartLogScale checks that points sit at log-spaced x positions and
// at heights proportional to their scores.
func TestChartLogScale(t *testing.T) {
	sums := []Summary{
		{Task: "sniah", Tokens: 1 << 13, Mode: ModeRLM, Runs: 1, Score: 1},
		{Task: "sniah", Tokens: 1 << 17, Mode: ModeRLM, Runs: 1, Score: 0.5},
		{Task: "sniah", Tokens: 1 << 20, Mode: ModeRLM, Runs: 1, Score: 0},
		{Task: "sniah", Tokens: 1 << 13, Mode: ModeDirect, Runs: 1, Score: 0.25},
		{Task: "sniah", Tokens: 1 << 20, Mode: ModeDirect, Skipped: 1},
	}
	var b strings.Builder
	if err := WriteChart(&b, sums); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	var xs, ys []float64
	for _, m := range regexp.MustCompile(`<circle cx="([\d.]+)" cy="([\d.]+)"`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		xs, ys = append(xs, x), append(ys, y)
	}
	if len(xs) != 3 {
		t.Fatalf("%d RLM points, want 3:\n%s", len(xs), svg)
	}
	// 8K -> 128K is 4 doublings, 128K -> 1M is 3.
	if r := (xs[1] - xs[0]) / (xs[2] - xs[1]); math.Abs(r-4.0/3) > 0.01 {
		t.Errorf("x spacing ratio %.3f, want 4/3 (log scale)", r)
	}
	if mid := (ys[0] + ys[2]) / 2; math.Abs(ys[1]-mid) > 0.1 || ys[0] >= ys[2] {
		t.Errorf("y positions %v: score 0.5 not halfway between 1 and 0", ys)
	}
	if strings.Count(svg, `transform="translate(-5 -5)"`) != 1 || !strings.Contains(svg, "<path d=") {
		t.Errorf("want one baseline point and one skipped mark:\n%s", svg)
	}
	if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Error("NaN or Inf in the chart")
	}
}

// TestChartMarksOnlySkips: a size where every run failed is not drawn as
// "not run: beyond context window".
func TestChartMarksOnlySkips(t *testing.T) {
	sums := []Summary{
		{Task: "sniah", Tokens: 1 << 13, Mode: ModeRLM, Runs: 1, Score: 1},
		{Task: "sniah", Tokens: 1 << 20, Mode: ModeRLM, Failed: 2},
		{Task: "sniah", Tokens: 1 << 13, Mode: ModeDirect, Failed: 1},
		{Task: "sniah", Tokens: 1 << 20, Mode: ModeDirect, Skipped: 1},
	}
	var b strings.Builder
	if err := WriteChart(&b, sums); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "<path d="); n != 1 {
		t.Errorf("%d skipped marks, want 1 (failed sizes are not skips):\n%s", n, b.String())
	}
}
