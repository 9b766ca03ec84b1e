//go:build linux && (amd64 || arm64)

package cuda

import (
	"cmp"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The CUDA driver API, loaded from libcuda.so.1 at run time with purego: no
// cgo and no CUDA headers at build time, so the binary builds everywhere and
// only a machine with an NVIDIA driver can open the backend.

type cuResult int32

// Values from the driver API's cuda.h.
const (
	attrMultiprocessorCount = 16
	attrComputeMajor        = 75
	attrComputeMinor        = 76
	attrMaxSharedOptin      = 97

	funcAttrMaxThreads       = 0
	funcAttrNumRegs          = 4
	funcAttrMaxDynamicShared = 8

	jitErrorLogBuffer     = 5
	jitErrorLogBufferSize = 6
)

type driver struct {
	cuInit                   func(flags uint32) cuResult
	cuDriverGetVersion       func(v *int32) cuResult
	cuDeviceGetCount         func(n *int32) cuResult
	cuDeviceGet              func(dev *int32, ordinal int32) cuResult
	cuDeviceGetName          func(name *byte, n int32, dev int32) cuResult
	cuDeviceGetAttribute     func(v *int32, attr int32, dev int32) cuResult
	cuDeviceTotalMem         func(bytes *uint64, dev int32) cuResult
	cuDevicePrimaryCtxRetain func(ctx *uintptr, dev int32) cuResult
	cuCtxSetCurrent          func(ctx uintptr) cuResult
	cuCtxSynchronize         func() cuResult
	cuMemAlloc               func(p *uint64, bytes uint64) cuResult
	cuMemFree                func(p uint64) cuResult
	cuMemGetInfo             func(free, total *uint64) cuResult
	cuMemcpyHtoD             func(dst uint64, src unsafe.Pointer, bytes uint64) cuResult
	cuMemcpyDtoH             func(dst unsafe.Pointer, src uint64, bytes uint64) cuResult
	cuMemcpyDtoDAsync        func(dst, src uint64, bytes uint64, stream uintptr) cuResult
	cuMemsetD32Async         func(dst uint64, v uint32, n uint64, stream uintptr) cuResult
	cuModuleLoadDataEx       func(mod *uintptr, image unsafe.Pointer, n uint32, opts *int32, vals *uintptr) cuResult
	cuModuleGetFunction      func(f *uintptr, mod uintptr, name string) cuResult
	cuFuncSetAttribute       func(f uintptr, attr int32, v int32) cuResult
	cuFuncGetAttribute       func(v *int32, attr int32, f uintptr) cuResult
	cuGetErrorName           func(r cuResult, s **byte) cuResult
	cuEventCreate            func(ev *uintptr, flags uint32) cuResult
	cuEventRecord            func(ev uintptr, stream uintptr) cuResult
	cuEventSynchronize       func(ev uintptr) cuResult
	cuEventElapsedTime       func(ms *float32, start, end uintptr) cuResult
	cuEventDestroy           func(ev uintptr) cuResult

	// cuLaunchKernel is called through purego.SyscallN: it runs hundreds of
	// times a step, and the raw call skips RegisterFunc's reflection.
	cuLaunchKernel uintptr
}

// localMode loads a library named in Options beside the system's driver
// (the emulator beside a GPU, in the memory tests) without adding its
// symbols, which have the driver's names, to the process's global scope.
const localMode = purego.RTLD_NOW | purego.RTLD_LOCAL

// loadDriver opens libcuda (or the library name) and resolves every entry point the backend uses.
// $RLM_CUDA_DRIVER names another library to load in its place (such as
// the CPU emulator of package cudaemu, which the tests use without a GPU).
func loadDriver(name string) (*driver, error) {
	mode := purego.RTLD_NOW | purego.RTLD_GLOBAL
	if name == "" {
		name = cmp.Or(os.Getenv("RLM_CUDA_DRIVER"), "libcuda.so.1")
	} else {
		mode = localMode
	}
	lib, err := purego.Dlopen(name, mode)
	if err != nil {
		return nil, fmt.Errorf("load the NVIDIA driver: %w", err)
	}
	d := &driver{}
	syms := []struct {
		fn   any
		name string
	}{
		{&d.cuInit, "cuInit"},
		{&d.cuDriverGetVersion, "cuDriverGetVersion"},
		{&d.cuDeviceGetCount, "cuDeviceGetCount"},
		{&d.cuDeviceGet, "cuDeviceGet"},
		{&d.cuDeviceGetName, "cuDeviceGetName"},
		{&d.cuDeviceGetAttribute, "cuDeviceGetAttribute"},
		{&d.cuDeviceTotalMem, "cuDeviceTotalMem_v2"},
		{&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
		{&d.cuCtxSetCurrent, "cuCtxSetCurrent"},
		{&d.cuCtxSynchronize, "cuCtxSynchronize"},
		{&d.cuMemAlloc, "cuMemAlloc_v2"},
		{&d.cuMemFree, "cuMemFree_v2"},
		{&d.cuMemGetInfo, "cuMemGetInfo_v2"},
		{&d.cuMemcpyHtoD, "cuMemcpyHtoD_v2"},
		{&d.cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
		{&d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"},
		{&d.cuMemsetD32Async, "cuMemsetD32Async"},
		{&d.cuModuleLoadDataEx, "cuModuleLoadDataEx"},
		{&d.cuModuleGetFunction, "cuModuleGetFunction"},
		{&d.cuFuncSetAttribute, "cuFuncSetAttribute"},
		{&d.cuFuncGetAttribute, "cuFuncGetAttribute"},
		{&d.cuGetErrorName, "cuGetErrorName"},
		{&d.cuEventCreate, "cuEventCreate"},
		{&d.cuEventRecord, "cuEventRecord"},
		{&d.cuEventSynchronize, "cuEventSynchronize"},
		{&d.cuEventElapsedTime, "cuEventElapsedTime_v2"},
		{&d.cuEventDestroy, "cuEventDestroy_v2"},
	}
	for _, s := range syms {
		if err := register(s.fn, lib, s.name); err != nil {
			return nil, err
		}
	}
	if d.cuLaunchKernel, err = purego.Dlsym(lib, "cuLaunchKernel"); err != nil {
		return nil, fmt.Errorf("libcuda.so.1: %w", err)
	}
	return d, nil
}

// register binds fn to a symbol, turning purego's panic for a missing
// symbol (an old driver) into an error.
func register(fn any, lib uintptr, name string) error {
	sym, err := purego.Dlsym(lib, name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	purego.RegisterFunc(fn, sym)
	return nil
}

// Error is a failed CUDA or cuBLASLt call. The Backend interface has no
// error results, so the backend panics with an *Error; a caller that wants
// to survive one (a server, say) recovers it.
type Error struct {
	Op   string // the call and what it was for
	Code int    // the CUresult or cublasStatus_t
	Name string // e.g. CUDA_ERROR_OUT_OF_MEMORY
}

func (e *Error) Error() string { return fmt.Sprintf("cuda: %s: %s (%d)", e.Op, e.Name, e.Code) }

func (d *driver) errName(r cuResult) string {
	var p *byte
	if d.cuGetErrorName(r, &p) != 0 || p == nil {
		return "unknown CUDA error"
	}
	return cString(p)
}

// check panics with an *Error when a driver call failed.
func (d *driver) check(r cuResult, op string, args ...any) {
	if r != 0 {
		panic(&Error{Op: fmt.Sprintf(op, args...), Code: int(r), Name: d.errName(r)})
	}
}

// checkErr is check for the setup path, where errors are returned.
func (d *driver) checkErr(r cuResult, op string, args ...any) error {
	if r != 0 {
		return &Error{Op: fmt.Sprintf(op, args...), Code: int(r), Name: d.errName(r)}
	}
	return nil
}

func cString(p *byte) string {
	var b strings.Builder
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b.WriteByte(*(*byte)(q))
	}
	return b.String()
}
