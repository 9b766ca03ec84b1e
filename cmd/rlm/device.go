package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
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

// open returns the backend and a line that says which it is and, for auto
// without a GPU, why not the GPU.
func (d deviceSpec) open() (backend.Backend, string, error) {
	if d.kind == "cpu" {
		return backend.CPU{}, "cpu", nil
	}
	be, err := cuda.Open(cuda.Options{Device: d.ordinal, Precision: d.precision})
	if err != nil {
		if d.kind == "auto" {
			return backend.CPU{}, fmt.Sprintf("cpu (no CUDA device: %v)", err), nil
		}
		return nil, "", fmt.Errorf("device cuda:%d: %w", d.ordinal, err)
	}
	return be, fmt.Sprintf("cuda:%d %s, %s", d.ordinal, be.Device(), d.precision), nil
}

// openLogged is open for the trainers, which always say where they run.
func (d deviceSpec) openLogged(log io.Writer) (backend.Backend, error) {
	be, desc, err := d.open()
	if err == nil {
		fmt.Fprintln(log, "device: "+desc)
	}
	return be, err
}
