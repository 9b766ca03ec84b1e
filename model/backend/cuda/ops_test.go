package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
	"github.com/rlm-project/rlm/model/backend/cuda/cudaemu"
)

// These tests need an NVIDIA GPU and skip without one (CI has none). Each
// operation runs on the CPU backend and on the GPU with the same inputs,
// and every output is compared by relative L2 error ‖gpu − cpu‖/‖cpu‖.
// Tolerances: FP32 1e-4 (the bar; most land near 1e-6), TF32 5e-3,
// BF16 2e-2 (bf16 keeps 8 bits of mantissa: about 4e-3 per rounding).

var (
	openMu   sync.Mutex
	backends = map[cuda.Precision]*cuda.Backend{}
)

func gpu(t testing.TB, p cuda.Precision) *cuda.Backend {
	t.Helper()
	openMu.Lock()
	defer openMu.Unlock()
	if be, ok := backends[p]; ok {
		return be
	}
	be, err := cuda.Open(cuda.Options{Precision: p})
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	t.Logf("GPU: %s, precision %s", be.Device(), p)
	backends[p] = be
	return be
}

var tolerance = map[cuda.Precision]float64{cuda.FP32: 1e-4, cuda.TF32: 5e-3, cuda.BF16: 2e-2}

func randFloats(rng *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * scale)
	}
	return v
}

func up(be backend.Backend, v []float32) backend.Buffer {
	b := be.Alloc(len(v))
	be.Upload(b, v)
	return b
}

func upInts(be backend.Backend, v []int32) backend.Ints {
	b := be.AllocInts(len(v))
	be.UploadInts(b, v)
	return b
}

func down(be backend.Backend, b backend.Buffer) []float32 {
	v := make([]float32, b.Len())
	be.Download(v, b)
	return v
}

func relErr(want, got []float32) float64 {
	var num, den float64
	for i := range want {
		d := float64(got[i]) - float64(want[i])
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		num += d * d
		den += float64(want[i]) * float64(want[i])
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// both runs f on the CPU and on the GPU; f seeds its own random inputs the
// same way on each and returns the outputs to compare.
func both(t *testing.T, g *cuda.Backend, tol float64, f func(be backend.Backend) map[string][]float32) {
	t.Helper()
	expectClose(t, f(backend.CPU{}), f(g), tol)
}

// expectClose checks each of got's outputs against want's.
func expectClose(t *testing.T, want, got map[string][]float32, tol float64) {
	t.Helper()
	for name, w := range want {
		e := relErr(w, got[name])
		if e > tol || math.IsNaN(e) {
			t.Errorf("%s: relative error %.3g > %.3g", name, e, tol)
		} else {
			t.Logf("%s: relative error %.2g", name, e)
		}
	}
}

func TestMatMul(t *testing.T) {
	for _, p := range []cuda.Precision{cuda.FP32, cuda.TF32, cuda.BF16} {
		g := gpu(t, p)
		for _, sh := range [][3]int{{1, 1, 1}, {3, 5, 7}, {64, 96, 128}, {257, 129, 65}, {1, 4096, 1024}, {17, 1000, 33}} {
			for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
				for _, beta := range []float32{0, 1} {
					m, n, k := sh[0], sh[1], sh[2]
					t.Run(fmt.Sprintf("%s/%dx%dx%d/tA=%v,tB=%v,beta=%g", p, m, n, k, tr[0], tr[1], beta), func(t *testing.T) {
						both(t, g, tolerance[p], func(be backend.Backend) map[string][]float32 {
							rng := rand.New(rand.NewPCG(uint64(m*n*k), 1))
							a, b, c := up(be, randFloats(rng, m*k, 1)), up(be, randFloats(rng, k*n, 1)), up(be, randFloats(rng, m*n, 1))
							be.MatMul(c, a, b, m, n, k, tr[0], tr[1], beta)
							return map[string][]float32{"c": down(be, c)}
						})
					})
				}
			}
		}
	}
}

// TestMatMulSlices multiplies views at odd offsets, as the model's LM head
// and Logits do: the products must honour pointer alignment.
func TestMatMulSlices(t *testing.T) {
	for _, p := range []cuda.Precision{cuda.FP32, cuda.BF16} {
		g := gpu(t, p)
		both(t, g, tolerance[p], func(be backend.Backend) map[string][]float32 {
			rng := rand.New(rand.NewPCG(5, 5))
			const m, n, k = 3, 50, 40
			a := up(be, randFloats(rng, m*k+7, 1))
			b := up(be, randFloats(rng, k*n+3, 1))
			c := up(be, randFloats(rng, m*n+1, 1))
			be.MatMul(be.Slice(c, 1, m*n), be.Slice(a, 7, m*k), be.Slice(b, 3, k*n), m, n, k, false, true, 1)
			return map[string][]float32{"c": down(be, c)}
		})
	}
}

func TestEmbedding(t *testing.T) {
	g := gpu(t, cuda.FP32)
	both(t, g, 1e-6, func(be backend.Backend) map[string][]float32 {
		rng := rand.New(rand.NewPCG(1, 2))
		const V, C = 50, 96
		ids := []int32{3, 7, 3, 0, 49, 7, 7, 12}
		table := up(be, randFloats(rng, V*C, 1))
		out := be.Alloc(len(ids) * C)
		idb := upInts(be, ids)
		be.Embedding(out, table, idb, C)
		dtable := up(be, randFloats(rng, V*C, 1))
		be.EmbeddingBackward(dtable, up(be, randFloats(rng, len(ids)*C, 1)), idb, C)
		return map[string][]float32{"out": down(be, out), "dtable": down(be, dtable)}
	})
}

func TestRMSNorm(t *testing.T) {
	g := gpu(t, cuda.FP32)
	for _, sh := range [][2]int{{1, 6}, {5, 128}, {1000, 1024}, {4099, 64}} {
		rows, C := sh[0], sh[1]
		t.Run(fmt.Sprintf("%dx%d", rows, C), func(t *testing.T) {
			both(t, g, 1e-5, func(be backend.Backend) map[string][]float32 {
				rng := rand.New(rand.NewPCG(uint64(rows), uint64(C)))
				in, w := up(be, randFloats(rng, rows*C, 2)), up(be, randFloats(rng, C, 1))
				out, rstd := be.Alloc(rows*C), be.Alloc(rows)
				be.RMSNorm(out, rstd, in, w, rows, C, 1e-6)
				din, dw := up(be, randFloats(rng, rows*C, 1)), up(be, randFloats(rng, C, 1))
				be.RMSNormBackward(din, dw, up(be, randFloats(rng, rows*C, 1)), in, w, rstd, rows, C)
				return map[string][]float32{"out": down(be, out), "rstd": down(be, rstd), "din": down(be, din), "dw": down(be, dw)}
			})
		})
	}
}

func TestRoPE(t *testing.T) {
	g := gpu(t, cuda.FP32)
	for _, inverse := range []bool{false, true} {
		both(t, g, 1e-5, func(be backend.Backend) map[string][]float32 {
			rng := rand.New(rand.NewPCG(3, 4))
			const H, D = 3, 128
			pos := []int32{0, 1, 2, 17, 4095, 40000, 131071, 1000000}
			x := up(be, randFloats(rng, len(pos)*H*D, 1))
			be.RoPE(x, upInts(be, pos), H, D, 1e6, inverse)
			return map[string][]float32{"x": down(be, x)}
		})
	}
}

func TestSwiGLUAndAdd(t *testing.T) {
	g := gpu(t, cuda.FP32)
	both(t, g, 1e-5, func(be backend.Backend) map[string][]float32 {
		rng := rand.New(rand.NewPCG(7, 8))
		const n = 100003
		gate, upv := up(be, randFloats(rng, n, 3)), up(be, randFloats(rng, n, 1))
		out := be.Alloc(n)
		be.SwiGLU(out, gate, upv)
		dg, du := up(be, randFloats(rng, n, 1)), up(be, randFloats(rng, n, 1))
		be.SwiGLUBackward(dg, du, up(be, randFloats(rng, n, 1)), gate, upv)
		be.Add(dg, out)
		return map[string][]float32{"out": down(be, out), "dgate+out": down(be, dg), "dup": down(be, du)}
	})
}

func TestCrossEntropy(t *testing.T) {
	g := gpu(t, cuda.FP32)
	for _, V := range []int{19, 151936} {
		for _, scale := range []float32{1, 1 / 0.6} {
			t.Run(fmt.Sprint(V, scale), func(t *testing.T) {
				both(t, g, 1e-5, func(be backend.Backend) map[string][]float32 {
					rng := rand.New(rand.NewPCG(uint64(V), 9))
					targets := []int32{0, int32(V - 1), 5, 3}
					weights := []float32{0.25, 0.5, 0, 0.125}
					logits := up(be, randFloats(rng, len(targets)*V, 4))
					losses := be.Alloc(len(targets))
					total := be.CrossEntropy(losses, logits, upInts(be, targets), up(be, weights), V, scale)
					return map[string][]float32{"losses": down(be, losses), "dlogits": down(be, logits), "total": {float32(total)}}
				})
			})
		}
	}
}

func TestSumSquaresAndAdamW(t *testing.T) {
	g := gpu(t, cuda.FP32)
	both(t, g, 1e-6, func(be backend.Backend) map[string][]float32 {
		rng := rand.New(rand.NewPCG(11, 12))
		const n = 1<<20 + 17
		params, m, v := up(be, randFloats(rng, n, 1)), be.Alloc(n), be.Alloc(n)
		var norms []float32
		for step := 1; step <= 3; step++ {
			grads := up(be, randFloats(rng, n, 0.1))
			norms = append(norms, float32(be.SumSquares(grads)))
			be.AdamW(params, grads, m, v, backend.AdamWParams{LR: 1e-3, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8,
				WeightDecay: 0.1, Step: step, GradScale: 0.5})
		}
		return map[string][]float32{"params": down(be, params), "m": down(be, m), "v": down(be, v), "sumsq": norms}
	})
}

// attnCase is one attention shape with its segment ids.
type attnCase struct {
	name string
	sh   backend.AttnShape
	seg  func(b, t int) int32
	// shortT, when set, is T for the float32 kernels under -short. They
	// do a warp reduction for every query and key, which the emulator
	// runs as fiber switches: the long cases cost it tens of seconds of
	// CPU at full length, and prove nothing more about a kernel that has
	// no tiles than a length past the same segment boundaries does.
	shortT int
}

// forPrecision is c as TestAttention runs it at precision p.
func (c attnCase) forPrecision(p cuda.Precision) attnCase {
	if p == cuda.FP32 && testing.Short() && c.shortT > 0 {
		c.sh.T = c.shortT
	}
	return c
}

var attnCases = []attnCase{
	// Packed rows: row 0 holds two samples, row 1 one; T is not a multiple
	// of the 64-row tiles.
	{"packed-d64", backend.AttnShape{B: 2, T: 100, H: 4, KV: 2, D: 64}, func(b, t int) int32 {
		if b == 0 && t >= 37 {
			return 1
		}
		return 0
	}, 0},
	{"long-d128", backend.AttnShape{B: 1, T: 300, H: 8, KV: 8, D: 128}, func(b, t int) int32 { return int32(t / 130) }, 140},
	{"gqa4-d128", backend.AttnShape{B: 1, T: 129, H: 16, KV: 4, D: 128}, func(int, int) int32 { return 0 }, 65},
	// Interleaved segments: not a packing the trainer makes, but the
	// contract allows it.
	{"interleaved-d64", backend.AttnShape{B: 1, T: 90, H: 2, KV: 1, D: 64}, func(b, t int) int32 { return int32(t % 3) }, 0},
	// Head size 32 has no tensor-core kernel: the float32 path runs.
	{"d32", backend.AttnShape{B: 2, T: 77, H: 6, KV: 3, D: 32}, func(b, t int) int32 { return int32(t / 40) }, 0},
}

func TestAttention(t *testing.T) {
	for _, p := range []cuda.Precision{cuda.FP32, cuda.BF16} {
		g := gpu(t, p)
		for _, c := range attnCases {
			c := c.forPrecision(p)
			t.Run(p.String()+"/"+c.name, func(t *testing.T) {
				both(t, g, tolerance[p], func(be backend.Backend) map[string][]float32 {
					return runAttention(be, c)
				})
			})
		}
	}
}

// TestFusedAttentionBackward: the one-kernel backward (dQ added
// atomically) gives what the dq and dk/dv kernels give, to float32
// rounding (the atomic adds sum in another order), and the CPU's within
// bf16's tolerance.
func TestFusedAttentionBackward(t *testing.T) {
	if testing.Short() {
		t.Skip("the fused backward is off by default (Backend.fusedAttnBackward): the full suite checks it")
	}
	g := gpu(t, cuda.BF16)
	defer g.SetFusedAttentionBackward(false)
	for _, c := range attnCases {
		if c.sh.D != 64 && c.sh.D != 128 {
			continue // no tensor-core kernel
		}
		t.Run(c.name, func(t *testing.T) {
			g.SetFusedAttentionBackward(false)
			split := runAttention(g, c)
			g.SetFusedAttentionBackward(true)
			fused := runAttention(g, c)
			expectClose(t, runAttention(backend.CPU{}, c), fused, tolerance[cuda.BF16])
			for _, name := range []string{"dq", "dk", "dv"} {
				if e := relErr(split[name], fused[name]); e > 1e-5 {
					t.Errorf("%s: fused kernel %.3g from the two kernels'", name, e)
				}
			}
		})
	}
}

func runAttention(be backend.Backend, c attnCase) map[string][]float32 {
	sh := c.sh
	rng := rand.New(rand.NewPCG(uint64(sh.T), uint64(sh.D)))
	N := sh.B * sh.T
	seg := make([]int32, N)
	for b := range sh.B {
		for t := range sh.T {
			seg[b*sh.T+t] = c.seg(b, t)
		}
	}
	q := up(be, randFloats(rng, N*sh.H*sh.D, 1))
	k := up(be, randFloats(rng, N*sh.KV*sh.D, 1))
	v := up(be, randFloats(rng, N*sh.KV*sh.D, 1))
	segs := upInts(be, seg)
	out, lse := be.Alloc(N*sh.H*sh.D), be.Alloc(sh.B*sh.H*sh.T)
	be.Attention(out, lse, q, k, v, segs, sh)
	dout := up(be, randFloats(rng, N*sh.H*sh.D, 1))
	// The backward adds into its outputs: start them non-zero.
	dq := up(be, randFloats(rng, N*sh.H*sh.D, 0.1))
	dk := up(be, randFloats(rng, N*sh.KV*sh.D, 0.1))
	dv := up(be, randFloats(rng, N*sh.KV*sh.D, 0.1))
	be.AttentionBackward(dq, dk, dv, dout, out, lse, q, k, v, segs, sh)
	return map[string][]float32{"out": down(be, out), "lse": down(be, lse), "dq": down(be, dq), "dk": down(be, dk), "dv": down(be, dv)}
}

// TestOpenWithoutDriver documents the failure a machine without a GPU sees:
// a clear error, never a crash. The driver is made missing by naming one
// that does not exist, so the test runs on every machine.
func TestOpenWithoutDriver(t *testing.T) {
	t.Setenv(cudaemu.DriverEnv, filepath.Join(t.TempDir(), "libcuda.so.1"))
	_, err := cuda.Open(cuda.Options{})
	if err == nil {
		t.Fatal("Open succeeded without a driver")
	}
	if !strings.Contains(err.Error(), "load the NVIDIA driver") {
		t.Fatalf("error %q does not say what is missing", err)
	}
	t.Logf("without a GPU: %v", err)
}

func newRng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }
