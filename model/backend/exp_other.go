//go:build !amd64

package backend

func expSum8(n8 int, x *float32, scale, shift float32) float32 {
	panic("backend: expSum8 needs amd64") // never called: hasFMA is false
}
