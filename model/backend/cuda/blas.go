//go:build linux && (amd64 || arm64)

package cuda

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"unsafe"

	"github.com/ebitengine/purego"
)

// cuBLASLt, loaded at run time like the driver. Only the calls one matrix
// product needs: descriptors, the heuristic, and cublasLtMatmul.

// Values from cublasLt.h, cublas_api.h and library_types.h.
const (
	dataR32F  = 0
	dataR16BF = 14

	compute32F     = 68
	compute32FTF32 = 77

	descComputeType = 0
	descScaleType   = 1
	descTransA      = 3
	descTransB      = 4

	prefMaxWorkspace = 1
	prefMinAlignA    = 5
	prefMinAlignB    = 6
	prefMinAlignC    = 7
	prefMinAlignD    = 8

	opN = 0
	opT = 1
)

// heuristicResult is cublasLtMatmulHeuristicResult_t.
type heuristicResult struct {
	algo          [8]uint64
	workspaceSize uint64
	state         int32
	wavesCount    float32
	reserved      [4]int32
}

type blasLib struct {
	create            func(h *uintptr) int32
	descCreate        func(d *uintptr, compute int32, scale int32) int32
	descDestroy       func(d uintptr) int32
	descSet           func(d uintptr, attr int32, buf unsafe.Pointer, n uint64) int32
	layoutCreate      func(l *uintptr, typ int32, rows, cols uint64, ld int64) int32
	layoutDestroy     func(l uintptr) int32
	prefCreate        func(p *uintptr) int32
	prefDestroy       func(p uintptr) int32
	prefSet           func(p uintptr, attr int32, buf unsafe.Pointer, n uint64) int32
	heuristic         func(h, desc, a, b, c, d, pref uintptr, req int32, res *heuristicResult, n *int32) int32
	statusName        func(s int32) string
	matmul            uintptr
	handle            uintptr
	workspace         uint64
	workspaceSize     uint64
	soname            string
	unsupportedReason string
}

// blasSonames are tried in order: CUDA 13, 12 and 11 builds of cuBLASLt.
var blasSonames = []string{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", "libcublasLt.so"}

// name (else $RLM_CUBLASLT) names the one library to load instead.
func loadBlas(name string) (*blasLib, error) {
	var lib uintptr
	var errs []string
	var soname string
	names, mode := blasSonames, purego.RTLD_NOW|purego.RTLD_GLOBAL
	if name != "" {
		mode = localMode
	}
	if p := cmp.Or(name, os.Getenv("RLM_CUBLASLT")); p != "" {
		names = []string{p}
	}
	for _, name := range names {
		h, err := purego.Dlopen(name, mode)
		if err == nil {
			lib, soname = h, name
			break
		}
		errs = append(errs, err.Error())
	}
	if lib == 0 {
		return nil, fmt.Errorf("load cuBLASLt (install the CUDA toolkit's libcublasLt or put it on LD_LIBRARY_PATH): %v", errs)
	}
	b := &blasLib{soname: soname}
	syms := []struct {
		fn   any
		name string
	}{
		{&b.create, "cublasLtCreate"},
		{&b.descCreate, "cublasLtMatmulDescCreate"},
		{&b.descDestroy, "cublasLtMatmulDescDestroy"},
		{&b.descSet, "cublasLtMatmulDescSetAttribute"},
		{&b.layoutCreate, "cublasLtMatrixLayoutCreate"},
		{&b.layoutDestroy, "cublasLtMatrixLayoutDestroy"},
		{&b.prefCreate, "cublasLtMatmulPreferenceCreate"},
		{&b.prefDestroy, "cublasLtMatmulPreferenceDestroy"},
		{&b.prefSet, "cublasLtMatmulPreferenceSetAttribute"},
		{&b.heuristic, "cublasLtMatmulAlgoGetHeuristic"},
		{&b.statusName, "cublasLtGetStatusName"},
	}
	for _, s := range syms {
		if err := register(s.fn, lib, s.name); err != nil {
			return nil, fmt.Errorf("%s: %w", soname, err)
		}
	}
	var err error
	if b.matmul, err = purego.Dlsym(lib, "cublasLtMatmul"); err != nil {
		return nil, fmt.Errorf("%s: %w", soname, err)
	}
	if st := b.create(&b.handle); st != 0 {
		return nil, fmt.Errorf("cublasLtCreate: %s", b.statusName(st))
	}
	return b, nil
}

func (b *blasLib) check(st int32, op string, args ...any) {
	if st != 0 {
		panic(&Error{Op: fmt.Sprintf(op, args...), Code: int(st), Name: b.statusName(st)})
	}
}

// gemmKey identifies one matrix-product configuration in column-major terms
// (see matmul): shapes, transposes, leading dimensions, types and the
// alignment of the pointers, which the heuristic must know.
type gemmKey struct {
	m, n, k         int
	opA, opB        int32
	lda, ldb, ldc   int
	abType, compute int32
	alignA, alignB  uint32
	alignC          uint32
}

// gemmPlan is what cuBLASLt needs to run one configuration, made once.
type gemmPlan struct {
	desc, la, lb, lc uintptr
	algo             heuristicResult
}

// plan returns (and caches) the descriptors and the algorithm of a product.
func (be *Backend) plan(key gemmKey) *gemmPlan {
	if p, ok := be.plans[key]; ok {
		return p
	}
	if len(be.plans) >= maxPlans {
		for k, p := range be.plans {
			be.freePlan(p)
			delete(be.plans, k)
		}
	}
	b := be.blas
	p := &gemmPlan{}
	b.check(b.descCreate(&p.desc, key.compute, dataR32F), "cublasLtMatmulDescCreate")
	opA, opB := key.opA, key.opB
	b.check(b.descSet(p.desc, descTransA, unsafe.Pointer(&opA), 4), "set transa")
	b.check(b.descSet(p.desc, descTransB, unsafe.Pointer(&opB), 4), "set transb")
	rowsA, colsA := key.m, key.k
	if key.opA == opT {
		rowsA, colsA = key.k, key.m
	}
	rowsB, colsB := key.k, key.n
	if key.opB == opT {
		rowsB, colsB = key.n, key.k
	}
	b.check(b.layoutCreate(&p.la, key.abType, uint64(rowsA), uint64(colsA), int64(key.lda)), "layout A")
	b.check(b.layoutCreate(&p.lb, key.abType, uint64(rowsB), uint64(colsB), int64(key.ldb)), "layout B")
	b.check(b.layoutCreate(&p.lc, dataR32F, uint64(key.m), uint64(key.n), int64(key.ldc)), "layout C")
	var pref uintptr
	b.check(b.prefCreate(&pref), "cublasLtMatmulPreferenceCreate")
	defer b.prefDestroy(pref)
	ws := b.workspaceSize
	b.check(b.prefSet(pref, prefMaxWorkspace, unsafe.Pointer(&ws), 8), "set workspace")
	for attr, v := range map[int32]uint32{prefMinAlignA: key.alignA, prefMinAlignB: key.alignB, prefMinAlignC: key.alignC, prefMinAlignD: key.alignC} {
		b.check(b.prefSet(pref, attr, unsafe.Pointer(&v), 4), "set alignment")
	}
	var n int32
	b.check(b.heuristic(b.handle, p.desc, p.la, p.lb, p.lc, p.lc, pref, 1, &p.algo, &n),
		"cublasLtMatmulAlgoGetHeuristic m=%d n=%d k=%d", key.m, key.n, key.k)
	if n == 0 {
		panic(&Error{Op: fmt.Sprintf("cublasLtMatmulAlgoGetHeuristic m=%d n=%d k=%d", key.m, key.n, key.k), Name: "no algorithm"})
	}
	be.plans[key] = p
	return p
}

func (be *Backend) freePlan(p *gemmPlan) {
	b := be.blas
	b.layoutDestroy(p.la)
	b.layoutDestroy(p.lb)
	b.layoutDestroy(p.lc)
	b.descDestroy(p.desc)
}

// maxPlans bounds the plan cache; inference with many batch sizes would
// otherwise grow it without end.
const maxPlans = 512

// alignment is the largest power of two (up to 256) that divides a device
// address.
func alignment(p uint64) uint32 {
	a := uint32(256)
	for a > 1 && p%uint64(a) != 0 {
		a >>= 1
	}
	return a
}

// gemm runs D = op(A)·op(B) + beta·D in column-major terms (cuBLAS's): D is
// m×n with leading dimension ldc; A and B hold abType elements.
func (be *Backend) gemm(m, n, k int, opA, opB int32, a uint64, lda int, b uint64, ldb int, c uint64, ldc int,
	beta float32, abType, compute int32) {
	key := gemmKey{m: m, n: n, k: k, opA: opA, opB: opB, lda: lda, ldb: ldb, ldc: ldc, abType: abType,
		compute: compute, alignA: alignment(a), alignB: alignment(b), alignC: alignment(c)}
	p := be.plan(key)
	if be.prof.on {
		defer be.timed(fmt.Sprintf("gemm %dx%dx%d", m, n, k))()
	}
	alpha := float32(1)
	bl := be.blas
	be.scalars[0], be.scalars[1] = math.Float32bits(alpha), math.Float32bits(beta)
	st, _, _ := purego.SyscallN(bl.matmul, bl.handle, p.desc,
		uintptr(unsafe.Pointer(&be.scalars[0])), uintptr(a), p.la, uintptr(b), p.lb,
		uintptr(unsafe.Pointer(&be.scalars[1])), uintptr(c), p.lc, uintptr(c), p.lc,
		uintptr(unsafe.Pointer(&p.algo.algo)), uintptr(bl.workspace), uintptr(bl.workspaceSize), 0)
	bl.check(int32(st), "cublasLtMatmul m=%d n=%d k=%d", m, n, k)
}
