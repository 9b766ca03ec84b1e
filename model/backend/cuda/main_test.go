package cuda_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/rlm-project/rlm/model/backend/cuda/cudaemu"
)

// TestMain runs the GPU tests on the CPU emulator (package cudaemu) where
// the machine has no NVIDIA driver and clang++ is there to build it, so
// they check the kernels on every machine, not only on a GPU.
func TestMain(m *testing.M) {
	if msg, err := cudaemu.Use(); err != nil {
		fmt.Fprintln(os.Stderr, "GPU tests will skip:", err)
	} else if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	os.Exit(m.Run())
}
