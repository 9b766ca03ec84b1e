package backend

import "math"

// expChunk is how many exponentials the vector kernel sums in float32
// lanes before the sum moves to float64, so a 152K-logit row loses no more
// precision than a 1K one.
const expChunk = 1024

// expScaled sets x[i] = exp(scale·x[i] − shift) and returns Σ x[i] (the
// lanes of each chunk add in float32: fine for softmax's terms, at most 1,
// but a sum past ~3e38 overflows). It is
// the exponential of softmax, cross-entropy and SiLU on the CPU: eight
// lanes at a time with AVX2+FMA (within 2 ulp of math.Exp over the range
// a softmax uses; results below ~1e-38 come out as ~1e-38 rather than a
// denormal), math.Exp one at a time elsewhere.
func expScaled(x []float32, scale, shift float32) float64 {
	var sum float64
	if hasFMA {
		for len(x) >= 8 {
			n := min(len(x), expChunk) / 8
			sum += float64(expSum8(n, &x[0], scale, shift))
			x = x[8*n:]
		}
	}
	for i, v := range x {
		e := float32(math.Exp(float64(scale*v - shift)))
		x[i] = e
		sum += float64(e)
	}
	return sum
}
