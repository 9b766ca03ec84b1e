package cli

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
	"github.com/rlm-project/rlm/model/backend/cuda/cudaemu"
)

func TestDeviceMemory(t *testing.T) {
	if got := DeviceMemory(backend.CPU{}); got != "" {
		t.Errorf("the CPU backend: %q, want nothing", got)
	}
	lib, err := cudaemu.Build()
	if err != nil {
		t.Skipf("no CUDA emulator: %v", err)
	}
	// The emulator's dry-run device, of 4 GiB with 1 GiB kept back for the
	// driver: a 2 GiB buffer, dropped, then a 2.5 GiB one, which the pooled
	// block cannot hold and which fits only once that block goes back to
	// the driver.
	if err := cudaemu.SetDryMemory(lib, 4<<30, 1<<30); err != nil {
		t.Fatal(err)
	}
	defer cudaemu.SetDryMemory(lib, 0, 0)
	be, err := cuda.Open(cuda.Options{Device: cudaemu.DryRunDevice, Driver: lib, BLAS: lib})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	be.Alloc(512 << 20)
	if got := DeviceMemory(be); !strings.HasPrefix(got, "GPU memory: peak 2.0 GiB in use, 2.0 GiB held") ||
		strings.Contains(got, "waited") {
		t.Errorf("after a 2 GiB buffer: %q", got)
	}
	for deadline := time.Now().Add(5 * time.Second); be.MemoryStats().Pooled == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the dropped buffer's block never went back to the pool")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	be.Alloc(640 << 20)
	if got := DeviceMemory(be); !strings.Contains(got, "; 1 allocations waited for memory given back") {
		t.Errorf("after an allocation that needed the pooled block back: %q", got)
	}
}
