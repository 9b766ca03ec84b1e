package cuda_test

import (
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
)

// bf16 rounds to bf16 (nearest even) and back, as the device converts.
func bf16(f float32) float32 {
	u := math.Float32bits(f)
	u += 0x7fff + (u>>16)&1
	return math.Float32frombits(u &^ 0xffff)
}

// TestKeepForProducts: a demoted buffer gives back its float32 storage, a
// product reads exactly what it read before, and any other use restores
// float32 storage holding the bf16-rounded values.
func TestKeepForProducts(t *testing.T) {
	g := gpu(t, cuda.BF16)
	const m, n, k = 48, 40, 64
	rng := newRng(3)
	ha, hb := randFloats(rng, m*k, 1), randFloats(rng, k*n, 1)
	a, b := g.Alloc(m*k), g.Alloc(k*n)
	g.Upload(a, ha)
	g.Upload(b, hb)
	want, got := g.Alloc(m*n), g.Alloc(m*n)
	g.MatMul(want, a, b, m, n, k, false, false, 0)

	before := g.MemoryStats().InUse
	g.KeepForProducts(a)
	if after := g.MemoryStats().InUse; after >= before {
		t.Errorf("in use %d bytes before demoting, %d after", before, after)
	}
	g.MatMul(got, a, b, m, n, k, false, false, 0)
	hw := down(g, want)
	expectElems(t, g, got, "a product of the demoted buffer", func(i int) float32 { return hw[i] })

	// A download reads the bf16 values, widened, and leaves the buffer
	// demoted.
	demoted := g.MemoryStats().InUse
	rounded := func(i int) float32 { return bf16(ha[i]) }
	expectElems(t, g, a, "demotion", rounded)
	expectElems(t, g, g.Slice(a, 5, 10), "demotion, in a slice from 5", func(i int) float32 { return rounded(5 + i) })
	if after := g.MemoryStats().InUse; after != demoted {
		t.Errorf("a download changed the memory in use from %d to %d", demoted, after)
	}
	// A write gives it float32 storage again: it is read back as written.
	written := func(i int) float32 { return ha[i] }
	g.Upload(a, ha)
	expectElems(t, g, a, "a write", written)
	// An operation that overwrites the whole buffer needs none of the old
	// values; one that writes part of it keeps the rest, rounded.
	g.KeepForProducts(a)
	g.Upload(a, ha)
	expectElems(t, g, a, "a whole write", written)
	g.KeepForProducts(a)
	g.Zero(g.Slice(a, 0, k))
	expectElems(t, g, a, fmt.Sprintf("zeroing the first %d", k), func(i int) float32 {
		if i < k {
			return 0
		}
		return rounded(i)
	})
	// MatMul with beta 1 reads its output: a demoted one is widened first.
	g.Upload(got, hw)
	g.KeepForProducts(got)
	g.MatMul(got, a, b, m, n, k, false, false, 1)
	hg := down(g, got)
	g.MatMul(want, a, b, m, n, k, false, false, 0)
	hw2 := down(g, want)
	for i := range hg {
		sum := float64(bf16(hw[i]) + hw2[i])
		if d := math.Abs(float64(hg[i]) - sum); d > 1e-3*(1+math.Abs(float64(hw2[i]))) {
			t.Fatalf("beta=1 product element %d: %v, want %v + %v", i, hg[i], bf16(hw[i]), hw2[i])
		}
	}

	// A slice is not demoted on its own: its block holds other data.
	part := g.Slice(b, 0, k)
	before = g.MemoryStats().InUse
	g.KeepForProducts(part)
	if after := g.MemoryStats().InUse; after != before {
		t.Errorf("demoting a slice changed the memory in use from %d to %d", before, after)
	}
}

// hideProductOperands is a backend without KeepForProducts.
type hideProductOperands struct{ backend.Backend }

// TestDemotedStepUnchanged: the model keeps activations as bf16 alone on a
// BF16 backend; two training steps give the same losses and gradients,
// bit for bit, as on the same backend with demotion hidden from the model
// (on a GPU, to the rounding its atomic embedding gradient leaves).
func TestDemotedStepUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("optimizer steps of a model on the emulator (seconds of CPU each): the full suite runs them")
	}
	g := gpu(t, cuda.BF16)
	cfg := smallConfig(t, true)
	b := trainBatch(cfg, 2, 96, true)
	lossA, gradA, _ := trainSteps(t, g, cfg, b, 2)
	lossB, gradB, _ := trainSteps(t, hideProductOperands{g}, cfg, b, 2)
	if !g.Emulated() {
		// On a GPU the embedding's gradient adds rows atomically, in no
		// fixed order, so two runs of one step agree to rounding only.
		for i := range lossA {
			if e := math.Abs(lossA[i]-lossB[i]) / lossB[i]; e > 1e-5 {
				t.Errorf("step %d: loss %v with demoted activations, %v without", i+1, lossA[i], lossB[i])
			}
		}
		if e := relErr(gradB, gradA); e > 1e-4 {
			t.Errorf("second step's gradients: relative error %.3g with demoted activations", e)
		}
		return
	}
	for i := range lossA {
		if lossA[i] != lossB[i] {
			t.Errorf("step %d: loss %v with demoted activations, %v without", i+1, lossA[i], lossB[i])
		}
	}
	for i := range gradA {
		if gradA[i] != gradB[i] {
			t.Fatalf("second step's gradient %d: %v with demoted activations, %v without", i, gradA[i], gradB[i])
		}
	}
}

// expectElems downloads x and fails at the first element that is not
// want(i), saying after what.
func expectElems(t *testing.T, g *cuda.Backend, x backend.Buffer, after string, want func(i int) float32) {
	t.Helper()
	for i, v := range down(g, x) {
		if w := want(i); v != w {
			t.Fatalf("element %d reads %v after %s, want %v", i, v, after, w)
		}
	}
}

// TestFrozenBaseAsBF16: a LoRA model laid out frozen (model.NewLoRA) keeps
// its base matrices as bf16 alone on a BF16 backend, in less memory, and
// trains its adapters to the same losses and gradients, bit for bit, as a
// model whose float32 base the products convert.
func TestFrozenBaseAsBF16(t *testing.T) {
	if testing.Short() {
		t.Skip("optimizer steps of a model on the emulator (seconds of CPU each): the full suite runs them")
	}
	g := gpu(t, cuda.BF16)
	cfg := smallConfig(t, false)
	b := trainBatch(cfg, 2, 96, true)
	lcfg := model.LoRAConfig{Rank: 4, Alpha: 8, Targets: []string{"q_proj", "v_proj", "o_proj", "down_proj"}, Seed: 2}
	// No collection meanwhile: a buffer it frees would count against the
	// model being measured.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	run := func(frozen bool) (losses []float64, grads []float32, bytes uint64) {
		before := g.MemoryStats().InUse
		var m *model.Model
		var err error
		if frozen {
			if m, err = model.NewLoRA(g, cfg, lcfg); err == nil {
				m.InitRandom(3, 0.1)
			}
		} else if m, err = model.New(g, cfg); err == nil {
			m.InitRandom(3, 0.1)
			err = m.EnableLoRA(lcfg)
		}
		if err != nil {
			t.Fatal(err)
		}
		bytes = g.MemoryStats().InUse - before
		losses, grads = optimize(t, m, b, 2)
		return losses, grads, bytes
	}
	lossP, gradP, bytesP := run(false)
	lossF, gradF, bytesF := run(true)
	if !slices.Equal(lossP, lossF) || !slices.Equal(gradP, gradF) {
		t.Errorf("losses %v with the base as bf16 alone, %v with a float32 base; or their adapter gradients differ", lossF, lossP)
	}
	if bytesF >= bytesP {
		t.Errorf("the model took %d bytes with the base as bf16, %d with a float32 base", bytesF, bytesP)
	}
	t.Logf("model memory: %d bytes with the base as bf16 alone, %d with a float32 base", bytesF, bytesP)
}
