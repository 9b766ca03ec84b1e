//go:build linux && (amd64 || arm64)

package cuda

// SetFusedAttentionBackward switches the tensor-core attention backward
// between the dq and dk/dv kernels (false, the default) and the one fused
// kernel (true), for tests and benchmarks that compare them.
func (be *Backend) SetFusedAttentionBackward(on bool) {
	defer be.enter()()
	be.fusedAttnBackward = on
}
