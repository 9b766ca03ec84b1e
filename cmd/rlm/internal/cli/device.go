package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
)

// Device is a parsed -device value: "auto" (the first GPU when an
// NVIDIA driver and a GPU are there, the CPU otherwise), "cpu", "cuda" or
// "cuda:N" (the GPU with that ordinal).
type Device struct {
	Kind      string // auto, cpu or cuda
	Ordinal   int
	Precision cuda.Precision
}

// ParseDevice reads a --device value and a --precision for CUDA.
func ParseDevice(device, precision string) (Device, error) {
	prec, err := cuda.ParsePrecision(precision)
	if err != nil {
		return Device{}, err
	}
	d := Device{Kind: device, Precision: prec}
	switch {
	case device == "auto" || device == "cpu" || device == "cuda":
	case strings.HasPrefix(device, "cuda:"):
		d.Kind = "cuda"
		if d.Ordinal, err = strconv.Atoi(strings.TrimPrefix(device, "cuda:")); err != nil || d.Ordinal < 0 {
			return Device{}, fmt.Errorf("device %q: want cuda:N with N a GPU ordinal", device)
		}
	default:
		return Device{}, fmt.Errorf("device %q: want auto, cpu, cuda or cuda:N", device)
	}
	return d, nil
}

// Open returns the backend and a line that says which it is and, for auto
// without a GPU, why not the GPU.
func (d Device) Open() (backend.Backend, string, error) {
	if d.Kind == "cpu" {
		return backend.CPU{}, "cpu", nil
	}
	be, err := cuda.Open(cuda.Options{Device: d.Ordinal, Precision: d.Precision})
	if err != nil {
		if d.Kind == "auto" {
			return backend.CPU{}, fmt.Sprintf("cpu (no CUDA device: %v)", err), nil
		}
		return nil, "", fmt.Errorf("device cuda:%d: %w", d.Ordinal, err)
	}
	return be, fmt.Sprintf("cuda:%d %s, %s", d.Ordinal, be.Device(), d.Precision), nil
}

// OpenLogged is Open for the trainers, which always say where they run.
func (d Device) OpenLogged(log io.Writer) (backend.Backend, error) {
	be, desc, err := d.Open()
	if err == nil {
		fmt.Fprintln(log, "device: "+desc)
	}
	return be, err
}

// DeviceMemory describes the device memory a GPU backend took at its peak,
// for the trainers' last line; "" for the CPU. A step that ran only by
// giving back cached bf16 copies (reclaims) is said to be at the edge.
func DeviceMemory(be backend.Backend) string {
	g, ok := be.(*cuda.Backend)
	if !ok {
		return ""
	}
	s := g.MemoryStats()
	line := fmt.Sprintf("GPU memory: peak %.1f GiB in use, %.1f GiB held", float64(s.PeakInUse)/(1<<30),
		float64(s.PeakHeld)/(1<<30))
	if s.Reclaims > 0 {
		line += fmt.Sprintf("; %d allocations waited for memory given back (the steps are at the edge of the device's memory: --checkpoint-activations or a smaller --batch-size would be faster)", s.Reclaims)
	}
	return line
}
