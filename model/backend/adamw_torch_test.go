package backend

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
)

// adamwTorch runs torch.optim.AdamW in float64 over the same gradients and
// learning rates, scaling each step's gradient first the way clipping does.
const adamwTorch = `
import json, sys, torch
out = []
for r in json.load(sys.stdin):
    p = torch.nn.Parameter(torch.tensor(r["p"], dtype=torch.float64))
    opt = torch.optim.AdamW([p], lr=1.0, betas=(r["b1"], r["b2"]), eps=r["eps"], weight_decay=r["wd"])
    for g, lr, scale in zip(r["grads"], r["lrs"], r["scales"]):
        for group in opt.param_groups:
            group["lr"] = lr
        p.grad = torch.tensor(g, dtype=torch.float64) * scale
        opt.step()
    out.append(p.detach().tolist())
json.dump(out, sys.stdout)
`

// TestAdamWMatchesTorch checks bias correction, decoupled weight decay, the
// step counter and the gradient scale over several steps with a changing
// learning rate against torch.optim.AdamW.
func TestAdamWMatchesTorch(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but /usr/bin/python3 cannot import torch: %v", err)
		}
		t.Skipf("no torch: %v", err)
	}
	rng := rand.New(rand.NewPCG(19, 20))
	const n, steps = 9, 6
	wds := []float64{0, 0.1}
	var reqs []map[string]any
	var ours [][]float64
	for _, wd := range wds {
		p := randVec(rng, n, 1)
		req := map[string]any{"p": append([]float64(nil), p...), "b1": 0.9, "b2": 0.95, "eps": 1e-8, "wd": wd}
		var grads [][]float64
		var lrs, scales []float64
		m, v := make([]float64, n), make([]float64, n)
		for s := 1; s <= steps; s++ {
			g := randVec(rng, n, math.Pow(10, float64(s%3-1)))
			g[0] = 0 // a parameter without gradient still decays
			lr, scale := 0.05/float64(s), 1/float64(s%2+1)
			AdamW(p, g, m, v, AdamWParams{LR: lr, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: wd, Step: s, GradScale: scale})
			grads, lrs, scales = append(grads, g), append(lrs, lr), append(scales, scale)
		}
		req["grads"], req["lrs"], req["scales"] = grads, lrs, scales
		reqs, ours = append(reqs, req), append(ours, p)
	}
	in, _ := json.Marshal(reqs)
	cmd := exec.Command("/usr/bin/python3", "-c", adamwTorch)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("torch AdamW: %v", err)
	}
	var want [][]float64
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(wds) {
		t.Fatalf("torch AdamW output %q: %v", out, err)
	}
	for c, p := range ours {
		for i := range p {
			if math.Abs(p[i]-want[c][i]) > 1e-12*(1+math.Abs(want[c][i])) {
				t.Errorf("wd=%g: parameter %d after %d steps = %.15g, torch %.15g", wds[c], i, steps, p[i], want[c][i])
			}
		}
	}
}
