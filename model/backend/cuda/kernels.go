//go:build linux && (amd64 || arm64)

package cuda

import (
	_ "embed"
	"fmt"
	"math"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The kernels of kernels/kernels.cu, compiled to PTX by kernels/gen.sh and
// committed; the driver compiles the PTX for the GPU at load time (and
// caches the result in ~/.nv/ComputeCache).
var (
	//go:embed kernels_sm_80.ptx
	ptxSM80 []byte
	//go:embed kernels_sm_90.ptx
	ptxSM90 []byte
)

type kernel struct {
	name       string
	fn         uintptr
	maxThreads int // the most threads per block it can be launched with
}

// threads rounds want down to what k can be launched with, in whole warps.
func (k kernel) threads(want int) int { return max(32, min(want, k.maxThreads)/32*32) }

// kernels holds every function of the module.
type kernels struct {
	addF32, toBF16, toBF16x4, swigluFwd, swigluBwd, embFwd, embBwd  kernel
	rmsFwd, rmsBwdDx, rmsBwdDwPartial, sumRowsAdd, rope             kernel
	crossEntropy, weightedSum, sumsqPartial, sumPartials, adamw     kernel
	segBounds, attnFwdF32, attnBwdDi, attnBwdDqF32, attnBwdDkdvF32  kernel
	attnFwd64, attnBwdDq64, attnBwdDkdv64, attnFwd128, attnBwdDq128 kernel
	attnBwdDkdv128, attnBwdFused64, attnBwdFused128                 kernel
	scatterRows, gatherPagedRows, pagedAttn                         kernel
	pagedAttnCombine, sampleRows, fromBF16                          kernel
}

func (be *Backend) loadKernels() error {
	d := be.drv
	ptx := ptxSM80
	if be.ccMajor >= 9 {
		ptx = ptxSM90
	}
	image := append(append([]byte(nil), ptx...), 0)
	logBuf := make([]byte, 8192)
	opts := []int32{jitErrorLogBuffer, jitErrorLogBufferSize}
	vals := []uintptr{uintptr(unsafe.Pointer(&logBuf[0])), uintptr(len(logBuf))}
	var mod uintptr
	if r := d.cuModuleLoadDataEx(&mod, unsafe.Pointer(&image[0]), uint32(len(opts)), &opts[0], &vals[0]); r != 0 {
		return fmt.Errorf("load the kernels' PTX: %s: %s", d.errName(r), cString(&logBuf[0]))
	}
	k := &be.k
	for _, f := range []struct {
		k    *kernel
		name string
	}{
		{&k.addF32, "add_f32"}, {&k.toBF16, "to_bf16_n"}, {&k.fromBF16, "from_bf16_n"}, {&k.toBF16x4, "to_bf16_x4"}, {&k.swigluFwd, "swiglu_fwd"},
		{&k.swigluBwd, "swiglu_bwd"}, {&k.embFwd, "embedding_fwd"}, {&k.embBwd, "embedding_bwd"},
		{&k.rmsFwd, "rmsnorm_fwd"}, {&k.rmsBwdDx, "rmsnorm_bwd_dx"},
		{&k.rmsBwdDwPartial, "rmsnorm_bwd_dw_partial"}, {&k.sumRowsAdd, "sum_rows_add"}, {&k.rope, "rope"},
		{&k.crossEntropy, "cross_entropy"}, {&k.weightedSum, "weighted_sum"},
		{&k.sumsqPartial, "sumsq_partial"}, {&k.sumPartials, "sum_partials"}, {&k.adamw, "adamw"},
		{&k.segBounds, "seg_bounds"}, {&k.attnFwdF32, "attn_fwd_f32"}, {&k.attnBwdDi, "attn_bwd_di"},
		{&k.attnBwdDqF32, "attn_bwd_dq_f32"}, {&k.attnBwdDkdvF32, "attn_bwd_dkdv_f32"},
		{&k.attnFwd64, "attn_fwd_mma_d64"}, {&k.attnBwdDq64, "attn_bwd_dq_mma_d64"},
		{&k.attnBwdDkdv64, "attn_bwd_dkdv_mma_d64"}, {&k.attnFwd128, "attn_fwd_mma_d128"},
		{&k.attnBwdDq128, "attn_bwd_dq_mma_d128"}, {&k.attnBwdDkdv128, "attn_bwd_dkdv_mma_d128"}, {&k.attnBwdFused64, "attn_bwd_fused_mma_d64"}, {&k.attnBwdFused128, "attn_bwd_fused_mma_d128"},
		{&k.scatterRows, "scatter_rows"}, {&k.gatherPagedRows, "gather_paged_rows"}, {&k.pagedAttn, "paged_attn"},
		{&k.pagedAttnCombine, "paged_attn_combine"}, {&k.sampleRows, "sample_rows"},
	} {
		if err := d.checkErr(d.cuModuleGetFunction(&f.k.fn, mod, f.name), "cuModuleGetFunction %s", f.name); err != nil {
			return err
		}
		f.k.name = f.name
		var n int32
		if err := d.checkErr(d.cuFuncGetAttribute(&n, funcAttrMaxThreads, f.k.fn), "cuFuncGetAttribute %s", f.name); err != nil {
			return err
		}
		f.k.maxThreads = int(n)
	}
	// The tensor-core attention kernels take more than the default 48 KiB of
	// shared memory.
	for _, D := range []int{64, 128} {
		ak := be.attnKernels(D)
		for _, kk := range []struct {
			k     kernel
			bytes int
		}{{ak.fwd, attnFwdSmem(D)}, {ak.dq, attnDqSmem(D)}, {ak.dkdv, attnDkdvSmem(D)}, {ak.fused, attnFusedSmem(D)}} {
			if kk.bytes > be.smemOptin {
				return fmt.Errorf("%s needs %d bytes of shared memory, the GPU allows %d", kk.k.name, kk.bytes, be.smemOptin)
			}
			if err := d.checkErr(d.cuFuncSetAttribute(kk.k.fn, funcAttrMaxDynamicShared, int32(kk.bytes)),
				"cuFuncSetAttribute %s", kk.k.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// Shared-memory sizes of the tensor-core attention kernels; the formulas
// mirror the layouts at the top of each kernel in attention.cuh.
func attnFwdSmem(D int) int  { return (128+4*64)*(D+8)*2 + 2*64*4 }
func attnDqSmem(D int) int   { return (2*64+4*64)*(D+8)*2 + 2*64*4 }
func attnDkdvSmem(D int) int { return (2*64+4*32)*(D+8)*2 + 2*3*32*4 }

// attnFusedSmem adds the dSᵀ tile (BC rows of BQ+8 bf16) to the dk/dv
// kernel's layout.
func attnFusedSmem(D int) int { return attnDkdvSmem(D) + 64*(32+8)*2 }

// attnKernels are the tensor-core attention kernels of one head size.
type attnKernels struct{ fwd, dq, dkdv, fused kernel }

func (be *Backend) attnKernels(D int) attnKernels {
	if D == 64 {
		return attnKernels{be.k.attnFwd64, be.k.attnBwdDq64, be.k.attnBwdDkdv64, be.k.attnBwdFused64}
	}
	return attnKernels{be.k.attnFwd128, be.k.attnBwdDq128, be.k.attnBwdDkdv128, be.k.attnBwdFused128}
}

type dim3 struct{ x, y, z uint32 }

// Kernel arguments are passed to cuLaunchKernel as an array of pointers to
// their values; each value sits in an 8-byte slot (little-endian, so a
// 4-byte argument reads its low half).
func ptrArg(p uint64) uint64  { return p }
func i32Arg(v int) uint64     { return uint64(uint32(int32(v))) }
func i64Arg(v int) uint64     { return uint64(int64(v)) }
func f32Arg(v float32) uint64 { return uint64(math.Float32bits(v)) }
func f64Arg(v float64) uint64 { return math.Float64bits(v) }
func boolArg(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}
func launch1D(n, block, maxBlocks int) (dim3, dim3) {
	blocks := (n + block - 1) / block
	blocks = max(1, min(blocks, maxBlocks))
	return dim3{uint32(blocks), 1, 1}, dim3{uint32(block), 1, 1}
}

// launch queues a kernel on the default stream. The caller holds be.mu.
func (be *Backend) launch(k kernel, grid, block dim3, smem int, args ...uint64) {
	if len(args) > len(be.argVals) {
		panic(fmt.Sprintf("cuda: %s: %d arguments", k.name, len(args)))
	}
	for i, a := range args {
		be.argVals[i] = a
		be.argPtrs[i] = uintptr(unsafe.Pointer(&be.argVals[i]))
	}
	defer be.timed(k.name)()
	r, _, _ := purego.SyscallN(be.drv.cuLaunchKernel, k.fn,
		uintptr(grid.x), uintptr(grid.y), uintptr(grid.z), uintptr(block.x), uintptr(block.y), uintptr(block.z),
		uintptr(smem), 0, uintptr(unsafe.Pointer(&be.argPtrs[0])), 0)
	be.drv.check(cuResult(r), "launch %s grid %v block %v", k.name, grid, block)
}
