// Package cuda is a CUDA implementation of model/backend's Backend: the
// same Qwen3 model code trains and runs on an NVIDIA GPU (compute
// capability 8.0 or newer) without changes.
//
// Nothing CUDA is needed to build it: the driver (libcuda.so.1) and
// cuBLASLt are loaded at run time with purego, and the kernels are CUDA C
// (kernels/*.cu) compiled to PTX by Debian's clang (kernels/gen.sh) and
// embedded. Where there is no driver or GPU, Open returns an error and
// callers use the CPU backend.
//
// Storage is float32, as the interface says; Precision chooses how the
// matrix products and attention compute (bf16 tensor cores by default).
// Parameters, gradients and optimizer moments stay float32, so BF16 is
// mixed precision with float32 master weights.
package cuda

import "fmt"

// Precision selects the arithmetic of the matrix products and attention.
type Precision int

const (
	// BF16 rounds the operands of every matrix product and of attention to
	// bf16 and accumulates in float32 on tensor cores: the fast path.
	BF16 Precision = iota
	// TF32 runs the matrix products on tensor cores in TF32, attention in
	// bf16.
	TF32
	// FP32 is float32 arithmetic throughout (no tensor cores): for checking
	// against the CPU backend.
	FP32
)

func (p Precision) String() string {
	switch p {
	case BF16:
		return "bf16"
	case TF32:
		return "tf32"
	case FP32:
		return "fp32"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// ParsePrecision reads "bf16", "tf32" or "fp32".
func ParsePrecision(s string) (Precision, error) {
	for _, p := range []Precision{BF16, TF32, FP32} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown CUDA precision %q (want bf16, tf32 or fp32)", s)
}

// Options configure Open.
type Options struct {
	Device    int // ordinal of the GPU
	Precision Precision
	// Driver and BLAS name the libraries to load in place of libcuda.so.1
	// and cuBLASLt; empty means $RLM_CUDA_DRIVER and $RLM_CUBLASLT, else
	// the system's. Tests use them to open package cudaemu's emulator
	// beside a real GPU.
	Driver, BLAS string
}
