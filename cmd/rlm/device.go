package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/training/backend"
	"github.com/rlm-project/rlm/training/backend/cuda"
)

// deviceSpec is a parsed -device value: "auto" (the first GPU when an
// NVIDIA driver and a GPU are there, the CPU otherwise), "cpu", "cuda" or
// "cuda:N" (the GPU with that ordinal).
type deviceSpec struct {
	kind      string // auto, cpu or cuda
	ordinal   int
	precision cuda.Precision
}

func parseDevice(device, precision string) (deviceSpec, error) {
	prec, err := cuda.ParsePrecision(precision)
	if err != nil {
		return deviceSpec{}, err
	}
	d := deviceSpec{kind: device, precision: prec}
	switch {
	case device == "auto" || device == "cpu" || device == "cuda":
	case strings.HasPrefix(device, "cuda:"):
		d.kind = "cuda"
		if d.ordinal, err = strconv.Atoi(strings.TrimPrefix(device, "cuda:")); err != nil || d.ordinal < 0 {
			return deviceSpec{}, fmt.Errorf("device %q: want cuda:N with N a GPU ordinal", device)
		}
	default:
		return deviceSpec{}, fmt.Errorf("device %q: want auto, cpu, cuda or cuda:N", device)
	}
	return d, nil
}

// open returns the backend and says on log which one it is and, for auto
// without a GPU, why not the GPU.
func (d deviceSpec) open(log io.Writer) (backend.Backend, error) {
	if d.kind == "cpu" {
		fmt.Fprintln(log, "device: cpu")
		return backend.CPU{}, nil
	}
	be, err := cuda.Open(cuda.Options{Device: d.ordinal, Precision: d.precision})
	if err != nil {
		if d.kind == "auto" {
			fmt.Fprintf(log, "device: cpu (no CUDA device: %v)\n", err)
			return backend.CPU{}, nil
		}
		return nil, fmt.Errorf("device cuda:%d: %w", d.ordinal, err)
	}
	fmt.Fprintf(log, "device: cuda:%d %s, %s\n", d.ordinal, be.Device(), d.precision)
	return be, nil
}
