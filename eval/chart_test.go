package eval

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rlm-project/rlm/internal/browsertest"
)

// points returns the centres of the markers of one mode, in drawing order.
func points(svg, mode string) [][2]float64 {
	var out [][2]float64
	circle := regexp.MustCompile(`<circle class="point" data-mode="` + mode + `" cx="([\d.]+)" cy="([\d.]+)"`)
	square := regexp.MustCompile(`<rect class="point" data-mode="` + mode + `" x="([\d.]+)" y="([\d.]+)" width="(\d+)"`)
	for _, m := range circle.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		out = append(out, [2]float64{x, y})
	}
	for _, m := range square.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		s, _ := strconv.ParseFloat(m[3], 64)
		out = append(out, [2]float64{x + s/2, y + s/2})
	}
	return out
}

// panelOf cuts the part of svg that draws task's panel.
func panelOf(t *testing.T, svg, task string) string {
	t.Helper()
	start := strings.Index(svg, `<g class="panel" data-task="`+task+`">`)
	if start < 0 {
		t.Fatalf("no panel for %s:\n%s", task, svg)
	}
	end := strings.Index(svg[start:], "</g>")
	return svg[start : start+end]
}

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
	pts := points(svg, ModeRLM)
	if len(pts) != 3 {
		t.Fatalf("%d RLM points, want 3:\n%s", len(pts), svg)
	}
	// 8K -> 128K is 4 doublings, 128K -> 1M is 3.
	if r := (pts[1][0] - pts[0][0]) / (pts[2][0] - pts[1][0]); math.Abs(r-4.0/3) > 0.01 {
		t.Errorf("x spacing ratio %.3f, want 4/3 (log scale)", r)
	}
	if mid := (pts[0][1] + pts[2][1]) / 2; math.Abs(pts[1][1]-mid) > 0.1 || pts[0][1] >= pts[2][1] {
		t.Errorf("y positions %v: score 0.5 not halfway between 1 and 0", pts)
	}
	if d := points(svg, ModeDirect); len(d) != 1 || strings.Count(svg, `class="skipped"`) != 1 {
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
	if n := strings.Count(b.String(), `class="skipped"`); n != 1 {
		t.Errorf("%d skipped marks, want 1 (failed sizes are not skips):\n%s", n, b.String())
	}
}

// equalScores is the case that hid series: three tasks, each with RLM and
// the baseline, all scoring the same at every length.
func equalScores() []Summary {
	var sums []Summary
	for _, task := range []string{"oolong", "oolong-pairs", "sniah"} {
		for _, l := range []int{1 << 11, 1 << 13, 1 << 15} {
			for _, m := range []string{ModeRLM, ModeDirect} {
				sums = append(sums, Summary{Task: task, Tokens: l, Mode: m, Runs: 4, Score: 1})
			}
		}
	}
	return sums
}

// TestChartSeparatesEqualScores checks the drawing: one panel per task,
// each with both modes' points at every length, the two modes' markers
// apart where their scores are equal.
func TestChartSeparatesEqualScores(t *testing.T) {
	var b strings.Builder
	if err := WriteChart(&b, equalScores()); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, task := range []string{"oolong", "oolong-pairs", "sniah"} {
		panel := panelOf(t, svg, task)
		rlm, direct := points(panel, ModeRLM), points(panel, ModeDirect)
		if len(rlm) != 3 || len(direct) != 3 {
			t.Fatalf("%s: %d RLM and %d direct points, want 3 each", task, len(rlm), len(direct))
		}
		for i := range rlm {
			if dx := direct[i][0] - rlm[i][0]; rlm[i][1] != direct[i][1] || dx < 6 {
				t.Errorf("%s: equal scores drawn %.1f px apart, want at least 6: %v %v", task, dx, rlm[i], direct[i])
			}
		}
		if n := strings.Count(panel, `class="series"`); n != 2 {
			t.Errorf("%s: %d lines, want 2", task, n)
		}
	}
}

// TestChartRendersEverySeries renders the chart in headless chromium and
// looks at the pixels: in each task's plot area both modes' colours show,
// and every marker of every series has pixels of its own colour where it
// is drawn. As a control, the same chart drawn without moving the modes'
// markers apart must fail that check: there the baseline's squares cover
// the RLM circles of equal scores, as one plot for all tasks used to draw
// every series on the same pixels. The PNGs are kept in $RLM_ARTIFACTS.
func TestChartRendersEverySeries(t *testing.T) {
	sums := equalScores()
	// A lower RLM score and a skipped baseline length, so that the picture
	// has every kind of mark.
	sums = append(sums, Summary{Task: "sniah", Tokens: 1 << 17, Mode: ModeRLM, Runs: 4, Score: 0.5},
		Summary{Task: "sniah", Tokens: 1 << 17, Mode: ModeDirect, Skipped: 4})
	w, h := chartSize(3)
	ctx := browsertest.Start(t, w, h)
	dir := browsertest.ArtifactDir(t)
	hidden := map[float64]int{} // dodge -> markers without their colour
	for _, dodge := range []float64{chartDodge, 0} {
		var b bytes.Buffer
		if err := writeChart(&b, sums, dodge); err != nil {
			t.Fatal(err)
		}
		name := "eval-chart.png"
		if dodge == 0 {
			name = "eval-chart-undodged.png"
		}
		img := render(t, ctx, b.Bytes(), filepath.Join(dir, name), w, h)
		svg := b.String()
		for i, task := range []string{"oolong", "oolong-pairs", "sniah"} {
			x, y, pw, ph := panelRect(i)
			area := image.Rect(int(x), int(y), int(x+pw), int(y+ph))
			panel := panelOf(t, svg, task)
			for _, m := range chartModes {
				if n := countColor(img, area, m.color); n < 40 && dodge != 0 {
					t.Errorf("%s: %d pixels of the %s colour in its plot area, want it visible; see %s", task, n, m.mode, name)
				}
				for _, pt := range points(panel, m.mode) {
					box := image.Rect(int(pt[0]-4), int(pt[1]-4), int(pt[0]+5), int(pt[1]+5))
					if countColor(img, box, m.color) < 8 {
						hidden[dodge]++
						if dodge != 0 {
							t.Errorf("%s: the %s marker at (%.0f, %.0f) is hidden; see %s", task, m.mode, pt[0], pt[1], name)
						}
					}
				}
			}
		}
	}
	if hidden[0] == 0 {
		t.Error("the control chart, whose equal-score markers overlap, passed the visibility check: the check cannot fail")
	}
}

// render draws svg in the browser and returns the screenshot, also saved
// as file.
func render(t *testing.T, ctx context.Context, svg []byte, file string, w, h int) image.Image {
	t.Helper()
	src := filepath.Join(t.TempDir(), "chart.svg")
	if err := os.WriteFile(src, svg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(w), int64(h)), chromedp.Navigate("file://"+src)); err != nil {
		t.Fatal(err)
	}
	// Wait for the SVG document to be laid out.
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.querySelectorAll("g.panel").length === 3`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if got := img.Bounds().Size(); got.X < w || got.Y < h {
		t.Fatalf("screenshot is %v, want at least %dx%d", got, w, h)
	}
	return img
}

// countColor counts the pixels of r within a small distance of the colour
// hex ("#rrggbb"); the tolerance absorbs antialiasing at line edges.
func countColor(img image.Image, r image.Rectangle, hex string) int {
	v, _ := strconv.ParseUint(hex[1:], 16, 32)
	want := [3]int{int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff)}
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c0, c1, c2, _ := img.At(x, y).RGBA()
			got := [3]int{int(c0 >> 8), int(c1 >> 8), int(c2 >> 8)}
			d := 0
			for k := range got {
				d = max(d, abs(got[k]-want[k]))
			}
			if d <= 24 {
				n++
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
