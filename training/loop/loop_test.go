package loop

import (
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
)

func TestLineChartIsValidSVG(t *testing.T) {
	svg := LineChart("reward <&>", Series{Name: "mean reward", Values: []float64{0.1, 0.4, math.NaN(), 0.8}},
		Series{Name: "pass rate", Values: []float64{0, 0.25, 0.5, 0.75}})
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	lines := 0
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("invalid XML: %v\n%s", err, svg)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			lines++
		}
	}
	if lines != 2 || !strings.Contains(string(svg), "pass rate") {
		t.Errorf("%d lines:\n%s", lines, svg)
	}
}

func TestScheduleAndBar(t *testing.T) {
	s := Schedule{LR: 1, MinLRRatio: 0.1, Warmup: 2}
	for _, c := range []struct {
		step int
		want float64
	}{{1, 0.5}, {2, 1}, {3, 1}, {10, 0.1}} {
		if got := s.At(c.step, 10); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("step %d: lr %g, want %g", c.step, got, c.want)
		}
	}
	if b := Bar(1, 2, 4); b != "[==  ]" {
		t.Errorf("bar %q", b)
	}
}

func TestSparse(t *testing.T) {
	got := Sparse(5, []int{2, 5, 0, 9}, []float64{1.5, 2.5, 7, 8})
	for i, want := range []float64{math.NaN(), 1.5, math.NaN(), math.NaN(), 2.5} {
		if g := got[i]; g != want && !(math.IsNaN(g) && math.IsNaN(want)) {
			t.Errorf("step %d: %g, want %g", i+1, g, want)
		}
	}
}

// TestLoadWeightsFrozenBase: a model whose base LoRA froze (model.LoadLoRA)
// has no one parameter buffer to load whole weights into; the refusal says
// to load its adapters.
func TestLoadWeightsFrozenBase(t *testing.T) {
	const dir = "../../model/testdata/tiny-qwen3"
	m, err := model.LoadLoRA(backend.CPU{}, dir, model.LoRAConfig{Rank: 2, Alpha: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := LoadWeights(m, dir); err == nil || !strings.Contains(err.Error(), "adapters") {
		t.Errorf("LoadWeights into a frozen base: %v", err)
	}
}
