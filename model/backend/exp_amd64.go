package backend

// expSum8 sets x[i] = exp(scale·x[i] − shift) for i < 8·n8 and returns
// their sum (AVX2+FMA; see exp_amd64.s).
//
//go:noescape
func expSum8(n8 int, x *float32, scale, shift float32) float32
