//go:build linux && (amd64 || arm64)

package cuda

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/rlm-project/rlm/model/backend"
)

// Backend runs the model's operations on one NVIDIA GPU. Buffers live in
// device memory; every operation is queued on the device's default stream
// in call order, and Download, SumSquares and CrossEntropy wait for the
// queue (they hand values back to the host). A Backend is safe for use by
// several goroutines, which it serialises.
type Backend struct {
	mu   sync.Mutex
	opts Options
	drv  *driver
	blas *blasLib
	ctx  uintptr
	dev  int32

	name             string
	ccMajor, ccMinor int
	sms, smemOptin   int
	totalMem         uint64
	k                kernels
	plans            map[gemmKey]*gemmPlan
	pool             map[uint64][]uint64 // freed small device blocks by size class, for reuse
	large            *blockPool          // blocks of largeBlock and up (pool.go)
	allocErr         cuResult            // of the last cuMemAlloc that failed
	mem              MemoryStats
	argVals          [32]uint64 // kernel arguments; fixed in memory, see launch
	argPtrs          [32]uintptr
	scalars          [2]uint32 // alpha, beta of cublasLtMatmul
	scratch          map[string]*allocation
	invFreq          map[ropeKey]*allocation
	segCache         segBoundsCache
	paged            *pagedPlan
	host8            [1]float64
	prof             profiler
	conv             convCache
	closed           bool
	// fusedAttnBackward runs the tensor-core attention backward as one
	// kernel (attn_bwd_fused_mma: dQ added atomically) instead of the dq
	// and dk/dv kernels. Off until a GPU run measures it faster; tests and
	// benchmarks set it (export_test.go).
	fusedAttnBackward bool
}

var _ backend.Backend = (*Backend)(nil)

// Open initialises the driver, creates a context on the device and loads
// the kernels. It fails with a clear error where there is no NVIDIA driver,
// no GPU, or a GPU older than compute capability 8.0 (the kernels use bf16
// tensor-core instructions).
func Open(opts Options) (*Backend, error) {
	drv, err := loadDriver(opts.Driver)
	if err != nil {
		return nil, err
	}
	if err := drv.checkErr(drv.cuInit(0), "cuInit"); err != nil {
		return nil, err
	}
	var count int32
	if err := drv.checkErr(drv.cuDeviceGetCount(&count), "cuDeviceGetCount"); err != nil {
		return nil, err
	}
	if opts.Device < 0 || int(opts.Device) >= int(count) {
		return nil, fmt.Errorf("cuda: device %d requested, %d present", opts.Device, count)
	}
	be := &Backend{opts: opts, drv: drv, plans: map[gemmKey]*gemmPlan{}, pool: map[uint64][]uint64{},
		scratch: map[string]*allocation{}, invFreq: map[ropeKey]*allocation{}}
	be.large = newBlockPool(be.driverAlloc, func(ptr uint64) { drv.cuMemFree(ptr) })
	if err := drv.checkErr(drv.cuDeviceGet(&be.dev, int32(opts.Device)), "cuDeviceGet"); err != nil {
		return nil, err
	}
	attr := func(a int32) int {
		var v int32
		drv.cuDeviceGetAttribute(&v, a, be.dev)
		return int(v)
	}
	be.ccMajor, be.ccMinor = attr(attrComputeMajor), attr(attrComputeMinor)
	be.sms, be.smemOptin = attr(attrMultiprocessorCount), attr(attrMaxSharedOptin)
	var nameBuf [256]byte
	drv.cuDeviceGetName(&nameBuf[0], int32(len(nameBuf)), be.dev)
	be.name = cString(&nameBuf[0])
	drv.cuDeviceTotalMem(&be.totalMem, be.dev)
	if be.ccMajor < 8 {
		return nil, fmt.Errorf("cuda: %s has compute capability %d.%d; the CUDA backend needs 8.0 or newer (Ampere, Hopper)",
			be.name, be.ccMajor, be.ccMinor)
	}
	if err := drv.checkErr(drv.cuDevicePrimaryCtxRetain(&be.ctx, be.dev), "cuDevicePrimaryCtxRetain"); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := drv.checkErr(drv.cuCtxSetCurrent(be.ctx), "cuCtxSetCurrent"); err != nil {
		return nil, err
	}
	if be.blas, err = loadBlas(opts.BLAS); err != nil {
		return nil, err
	}
	be.conv.limit = be.totalMem / 6
	be.blas.workspaceSize = 32 << 20
	if err := drv.checkErr(drv.cuMemAlloc(&be.blas.workspace, be.blas.workspaceSize), "allocate the cuBLASLt workspace"); err != nil {
		return nil, err
	}
	be.mem.took(be.blas.workspaceSize, false)
	if err := be.loadKernels(); err != nil {
		return nil, err
	}
	return be, nil
}

// Close gives the device memory the backend holds back to the driver: its
// pooled blocks, bf16 copies, scratch and the cuBLASLt workspace. Neither
// the backend nor its buffers may be used after it; a buffer still
// referenced gives its block back when it becomes unreachable.
func (be *Backend) Close() {
	defer be.enter()()
	if be.closed {
		return
	}
	be.dropConversions()
	for name, a := range be.scratch {
		be.free(a)
		delete(be.scratch, name)
	}
	for k, a := range be.invFreq {
		be.free(a)
		delete(be.invFreq, k)
	}
	if c := &be.segCache; c.scratch != nil {
		be.free(c.scratch)
		*c = segBoundsCache{}
	}
	be.releasePool()
	be.drv.cuMemFree(be.blas.workspace)
	be.mem.InUse -= be.blas.workspaceSize
	be.closed = true
}

// Name reports "cuda".
func (be *Backend) Name() string { return "cuda" }

// Device describes the GPU, e.g. "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB)".
func (be *Backend) Device() string {
	return fmt.Sprintf("%s (sm_%d%d, %d SMs, %.1f GiB)", be.name, be.ccMajor, be.ccMinor, be.sms,
		float64(be.totalMem)/(1<<30))
}

// Emulated reports whether the "GPU" is package cudaemu's CPU emulator:
// right answers, no meaningful timings.
func (be *Backend) Emulated() bool { return strings.HasPrefix(be.name, "rlm CUDA emulator") }

// Precision reports the precision the backend runs its products in.
func (be *Backend) Precision() Precision { return be.opts.Precision }

// enter makes the context current on this OS thread and holds the backend
// for one operation: the driver keeps the current context per thread, and
// a goroutine may move between threads between two operations.
func (be *Backend) enter() func() {
	be.mu.Lock()
	runtime.LockOSThread()
	be.drv.check(be.drv.cuCtxSetCurrent(be.ctx), "cuCtxSetCurrent")
	return func() {
		runtime.UnlockOSThread()
		be.mu.Unlock()
	}
}

// Synchronize waits until every queued operation has finished (for timing).
func (be *Backend) Synchronize() {
	defer be.enter()()
	be.drv.check(be.drv.cuCtxSynchronize(), "cuCtxSynchronize")
}

// MemoryInfo reports free and total device memory in bytes.
func (be *Backend) MemoryInfo() (free, total uint64) {
	defer be.enter()()
	be.drv.check(be.drv.cuMemGetInfo(&free, &total), "cuMemGetInfo")
	return free, total
}

// ------------------------------------------------------------------ memory

// MemoryStats is the device memory a Backend holds, in bytes. Every block
// it has from the driver is either in use (a buffer someone may still
// reference, a bf16 copy, scratch, the cuBLASLt workspace) or pooled (freed
// and kept for reuse; given back to the driver only when an allocation
// would fail). The device's own use adds the driver's context and loaded
// modules, a few hundred MiB, to Held.
type MemoryStats struct {
	InUse, Pooled uint64
	Conversions   uint64 // of InUse: bf16 copies of float32 operands (see convert.go)
	PeakInUse     uint64 // the most in use at once since Open or ResetPeakMemory
	PeakHeld      uint64 // the most held from the driver (in use + pooled) at once
	// Reclaims counts allocations the driver refused at first, after which
	// the backend gave back its bf16 copies and pool and collected garbage
	// to retry: a step that needs them runs, slower, at the edge of the
	// device's memory.
	Reclaims int
}

// Held is what the backend has from the driver.
func (s MemoryStats) Held() uint64 { return s.InUse + s.Pooled }

// took counts a block handed out, from the pool or (fresh) from the driver.
func (s *MemoryStats) took(bytes uint64, fromPool bool) {
	if fromPool {
		s.Pooled -= bytes
	}
	s.InUse += bytes
	s.PeakInUse = max(s.PeakInUse, s.InUse)
	s.PeakHeld = max(s.PeakHeld, s.Held())
}

// MemoryStats reports the device memory the backend holds now and at its
// peaks.
func (be *Backend) MemoryStats() MemoryStats {
	be.mu.Lock()
	defer be.mu.Unlock()
	s := be.mem
	s.Conversions = be.conv.bytes
	return s
}

// ResetPeakMemory starts the peaks of MemoryStats again from what is held
// now, and its count of reclaims from zero.
func (be *Backend) ResetPeakMemory() {
	be.mu.Lock()
	defer be.mu.Unlock()
	be.mem.PeakInUse, be.mem.PeakHeld = be.mem.InUse, be.mem.Held()
	be.mem.Reclaims = 0
}

// allocation is one block of device memory. Views (buffers) keep it alive;
// when the last view is unreachable the block goes back to the backend's
// pool, to be reused by a later Alloc of the same size class.
type allocation struct {
	ptr, bytes uint64
	version    uint64 // bumped by each upload into it (see segBoundsCache)
	// mirror is the host's copy of an Ints allocation: no kernel writes
	// Ints, so what was uploaded is what the device holds, and inference
	// plans its attention launches from it without a download.
	mirror []int32
	// user is set for memory handed out as a Buffer or Ints: the blocks
	// its cleanup gives back. ptr is 0 while the Buffer is held only as a
	// bf16 copy (see demote.go).
	user *userBlock
}

// userBlock is what the cleanup of a Buffer's or Ints' allocation gives
// back: the float32 block, or, while the Buffer is demoted, the bf16 copy
// kept in its place. It is not the allocation itself, which the cleanup
// must not reference.
type userBlock struct {
	ptr, bytes uint64
	half       *allocation
	n          int // elements the Buffer was allocated with
	be         *Backend
}

// buffer is a float32 view into an allocation.
type buffer struct {
	a      *allocation
	off, n int
}

func (b *buffer) Len() int { return b.n }
func (b *buffer) ptr() uint64 {
	if b.a.ptr == 0 {
		b.a.user.be.restore(b.a, true)
	}
	return b.a.ptr + 4*uint64(b.off)
}

// outPtr is ptr for an operation that overwrites all of b without reading
// it: a demoted buffer gets float32 storage back without widening its bf16
// copy into it, unless b is only part of the block.
func (b *buffer) outPtr() uint64 {
	if b.a.ptr == 0 {
		b.a.user.be.restore(b.a, !b.demoted())
	}
	return b.a.ptr + 4*uint64(b.off)
}
func (b *ints) Len() int          { return b.n }
func (b *ints) ptr() uint64       { return b.a.ptr + 4*uint64(b.off) }
func fb(x backend.Buffer) *buffer { return x.(*buffer) }
func ib(x backend.Ints) *ints     { return x.(*ints) }

// ints is an int32 view into an allocation.
type ints struct {
	a      *allocation
	off, n int
}

// sizeClass rounds a request up so that freed blocks can be reused: powers
// of two up to 1 MiB, then whole 2 MiB units.
func sizeClass(bytes uint64) uint64 {
	if bytes <= 1<<20 {
		c := uint64(512)
		for c < bytes {
			c <<= 1
		}
		return c
	}
	return (bytes + (2<<20 - 1)) &^ (2<<20 - 1)
}

// largeBlock is the smallest size class the block pool serves (pool.go);
// smaller classes are powers of two, pooled by class.
const largeBlock = 2 << 20

// alloc returns a block of at least bytes; the caller holds be.mu.
func (be *Backend) alloc(bytes uint64) *allocation {
	c := sizeClass(max(bytes, 4))
	ptr, fromPool, ok := be.take(c)
	if !ok {
		// Out of memory: give the cached and pooled blocks back to the
		// driver, then let the garbage collector find buffers nobody
		// references (it knows nothing of device memory, so it may not
		// have looked), and try again before failing.
		be.mem.Reclaims++
		be.dropConversions()
		be.releasePool()
		for try := 0; !ok && try < 3; try++ {
			be.mu.Unlock() // the cleanups that return blocks take the lock
			runtime.GC()
			time.Sleep(time.Duration(10<<try) * time.Millisecond)
			be.mu.Lock()
			be.releasePool()
			ptr, fromPool, ok = be.take(c)
		}
		if !ok {
			var free, total uint64
			be.drv.cuMemGetInfo(&free, &total)
			be.drv.check(be.allocErr, "cuMemAlloc %.1f MiB (%.1f of %.1f GiB free)", float64(c)/(1<<20),
				float64(free)/(1<<30), float64(total)/(1<<30))
		}
	}
	be.mem.took(c, fromPool)
	return &allocation{ptr: ptr, bytes: c}
}

// take hands out a block of size class c, pooled or new from the driver;
// the caller holds be.mu.
func (be *Backend) take(c uint64) (ptr uint64, fromPool, ok bool) {
	if c >= largeBlock {
		return be.large.get(c)
	}
	if free := be.pool[c]; len(free) > 0 {
		be.pool[c] = free[:len(free)-1]
		return free[len(free)-1], true, true
	}
	ptr, ok = be.driverAlloc(c)
	return ptr, false, ok
}

// driverAlloc is cuMemAlloc, remembering a failure's code for the error.
func (be *Backend) driverAlloc(bytes uint64) (uint64, bool) {
	var ptr uint64
	if r := be.drv.cuMemAlloc(&ptr, bytes); r != 0 {
		be.allocErr = r
		return 0, false
	}
	return ptr, true
}

// giveBack returns a block to its pool; on a closed backend, whatever is
// then wholly free goes back to the driver. The caller holds be.mu.
func (be *Backend) giveBack(ptr, bytes uint64) {
	be.mem.InUse -= bytes
	be.mem.Pooled += bytes
	if bytes >= largeBlock {
		be.large.put(ptr)
	} else {
		be.pool[bytes] = append(be.pool[bytes], ptr)
	}
	if be.closed {
		be.releasePool()
	}
}

// allocUser is alloc for memory handed out as a Buffer or Ints: the block
// returns to the pool when the last view of it is unreachable. The
// backend's own blocks (scratch, bf16 copies) are returned explicitly with
// free instead, at once: waiting for the garbage collector, which knows
// nothing of device memory, would let them pile up.
func (be *Backend) allocUser(n int) *allocation {
	a := be.alloc(uint64(n) * 4)
	a.user = &userBlock{ptr: a.ptr, bytes: a.bytes, n: n, be: be}
	runtime.AddCleanup(a, be.release, a.user)
	return a
}

// free returns a backend-owned block to the pool; the caller holds be.mu.
func (be *Backend) free(a *allocation) { be.giveBack(a.ptr, a.bytes) }

// release returns a block to the pool once nothing references it. Work
// already queued on the stream that reads the block runs before any later
// use of it, since everything runs on one stream in order.
func (be *Backend) release(u *userBlock) {
	be.mu.Lock()
	defer be.mu.Unlock()
	if be.closed {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		be.drv.cuCtxSetCurrent(be.ctx)
	}
	if u.ptr != 0 {
		be.giveBack(u.ptr, u.bytes)
	}
	if u.half != nil {
		be.giveBack(u.half.ptr, u.half.bytes)
	}
}

// releasePool gives the driver back every pooled small block and every
// wholly free segment of the large ones.
func (be *Backend) releasePool() {
	be.drv.cuCtxSynchronize()
	for c, ptrs := range be.pool {
		for _, p := range ptrs {
			be.drv.cuMemFree(p)
		}
		be.mem.Pooled -= c * uint64(len(ptrs))
		delete(be.pool, c)
	}
	before := be.large.Free
	be.large.releaseFree()
	be.mem.Pooled -= before - be.large.Free
}

// Alloc returns n zeroed float32s in device memory.
func (be *Backend) Alloc(n int) backend.Buffer {
	defer be.enter()()
	a := be.allocUser(n)
	be.drv.check(be.drv.cuMemsetD32Async(a.ptr, 0, uint64(n), 0), "zero %d floats", n)
	return &buffer{a: a, n: n}
}

// AllocInts returns n zeroed int32s in device memory.
func (be *Backend) AllocInts(n int) backend.Ints {
	defer be.enter()()
	a := be.allocUser(n)
	be.drv.check(be.drv.cuMemsetD32Async(a.ptr, 0, uint64(n), 0), "zero %d ints", n)
	a.mirror = make([]int32, n)
	return &ints{a: a, n: n}
}

func (be *Backend) Slice(b backend.Buffer, off, n int) backend.Buffer {
	x := fb(b)
	if off < 0 || n < 0 || off+n > x.n {
		panic(fmt.Sprintf("cuda: slice [%d:%d] of a buffer of %d", off, off+n, x.n))
	}
	return &buffer{a: x.a, off: x.off + off, n: n}
}

func (be *Backend) SliceInts(b backend.Ints, off, n int) backend.Ints {
	x := ib(b)
	if off < 0 || n < 0 || off+n > x.n {
		panic(fmt.Sprintf("cuda: slice [%d:%d] of ints of %d", off, off+n, x.n))
	}
	return &ints{a: x.a, off: x.off + off, n: n}
}

func (be *Backend) Upload(dst backend.Buffer, src []float32) {
	d := fb(dst)
	if len(src) != d.n {
		panic(fmt.Sprintf("cuda: upload %d floats into %d", len(src), d.n))
	}
	if d.n == 0 {
		return
	}
	defer be.enter()()
	defer be.wrote(fb(dst))
	be.drv.check(be.drv.cuMemcpyHtoD(d.outPtr(), unsafe.Pointer(&src[0]), uint64(4*d.n)), "upload %d floats", d.n)
}

func (be *Backend) UploadInts(dst backend.Ints, src []int32) {
	d := ib(dst)
	if len(src) != d.n {
		panic(fmt.Sprintf("cuda: upload %d ints into %d", len(src), d.n))
	}
	if d.n == 0 {
		return
	}
	defer be.enter()()
	d.a.version++
	copy(d.a.mirror[d.off:d.off+d.n], src)
	be.drv.check(be.drv.cuMemcpyHtoD(d.ptr(), unsafe.Pointer(&src[0]), uint64(4*d.n)), "upload %d ints", d.n)
}

func (be *Backend) Download(dst []float32, src backend.Buffer) {
	s := fb(src)
	if len(dst) < s.n {
		panic(fmt.Sprintf("cuda: download %d floats into %d", s.n, len(dst)))
	}
	if s.n == 0 {
		return
	}
	defer be.enter()()
	if s.a.ptr == 0 {
		// Demoted (demote.go): read the bf16 copy and widen it here, so a
		// read leaves the buffer as it was.
		half := make([]uint16, s.n)
		be.drv.check(be.drv.cuMemcpyDtoH(unsafe.Pointer(&half[0]), s.a.user.half.ptr+2*uint64(s.off), uint64(2*s.n)),
			"download %d bf16s", s.n)
		for i, h := range half {
			dst[i] = math.Float32frombits(uint32(h) << 16)
		}
		return
	}
	be.drv.check(be.drv.cuMemcpyDtoH(unsafe.Pointer(&dst[0]), s.ptr(), uint64(4*s.n)), "download %d floats", s.n)
}

func (be *Backend) Copy(dst, src backend.Buffer) {
	d, s := fb(dst), fb(src)
	if d.n != s.n {
		panic(fmt.Sprintf("cuda: copy %d floats into %d", s.n, d.n))
	}
	if d.n == 0 {
		return
	}
	defer be.enter()()
	defer be.wrote(fb(dst))
	be.drv.check(be.drv.cuMemcpyDtoDAsync(d.outPtr(), s.ptr(), uint64(4*d.n), 0), "copy %d floats", d.n)
}

func (be *Backend) Zero(b backend.Buffer) {
	x := fb(b)
	if x.n == 0 {
		return
	}
	defer be.enter()()
	defer be.wrote(fb(b))
	be.drv.check(be.drv.cuMemsetD32Async(x.outPtr(), 0, uint64(x.n), 0), "zero %d floats", x.n)
}

// scratchBuf returns a backend-owned device block of at least bytes, kept
// for reuse under name; the caller holds be.mu. Reuse is safe because the
// stream runs in order.
func (be *Backend) scratchBuf(name string, bytes uint64) uint64 {
	if a := be.scratch[name]; a != nil && a.bytes >= bytes {
		return a.ptr
	}
	if old := be.scratch[name]; old != nil {
		be.free(old)
	}
	a := be.alloc(bytes)
	be.scratch[name] = a
	return a.ptr
}

// -------------------------------------------------------------- operations

// maxGrid bounds grid-stride launches: enough blocks to fill every SM.
func (be *Backend) maxGrid() int { return be.sms * 32 }

func (be *Backend) elementwise(k kernel, n int, args ...uint64) {
	grid, block := launch1D(n, 256, be.maxGrid())
	be.launch(k, grid, block, 0, args...)
}

// MatMul computes c = a·b + beta·c, row-major (see ops.go). cuBLASLt is
// column-major, where a row-major m×n matrix is an n×m one, so the product
// is run as cᵀ = op(b)ᵀ·op(a)ᵀ with the operands' roles swapped.
func (be *Backend) MatMul(c, a, b backend.Buffer, m, n, k int, transA, transB bool, beta float32) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		panic("cuda: MatMul with k=0")
	}
	defer be.enter()()
	defer be.wrote(fb(c))
	lda, ldb := k, n
	if transA {
		lda = m
	}
	if transB {
		ldb = k
	}
	// Column-major operands: X = op(b)ᵀ (n×k), Y = op(a)ᵀ (k×m).
	opX, opY := int32(opN), int32(opN)
	if transB {
		opX = opT
	}
	if transA {
		opY = opT
	}
	// Operands are read through bf16Of in BF16 mode, which reads a
	// demoted buffer's copy without restoring it (demote.go).
	abType, compute := int32(dataR32F), int32(compute32F)
	var ap, bp uint64
	switch be.opts.Precision {
	case TF32:
		compute = compute32FTF32
		ap, bp = fb(a).ptr(), fb(b).ptr()
	case BF16:
		abType = dataR16BF
		ap, bp = be.bf16Of(fb(a)), be.bf16Of(fb(b))
	default:
		ap, bp = fb(a).ptr(), fb(b).ptr()
	}
	var cp uint64
	if beta == 0 {
		cp = fb(c).outPtr()
	} else {
		cp = fb(c).ptr() // c is read
	}
	be.gemm(n, m, k, opX, opY, bp, ldb, ap, lda, cp, n, beta, abType, compute)
}

func (be *Backend) Embedding(out, table backend.Buffer, ids backend.Ints, C int) {
	defer be.enter()()
	defer be.wrote(fb(out))
	N := ib(ids).n
	be.elementwise(be.k.embFwd, N*C, ptrArg(fb(out).outPtr()), ptrArg(fb(table).ptr()), ptrArg(ib(ids).ptr()), i64Arg(N), i32Arg(C))
}

func (be *Backend) EmbeddingBackward(dtable, dout backend.Buffer, ids backend.Ints, C int) {
	defer be.enter()()
	defer be.wrote(fb(dtable))
	N := ib(ids).n
	be.elementwise(be.k.embBwd, N*C, ptrArg(fb(dtable).ptr()), ptrArg(fb(dout).ptr()), ptrArg(ib(ids).ptr()), i64Arg(N), i32Arg(C))
}

// rowsLaunch is one warp per row, eight rows per block.
func rowsLaunch(rows int) (dim3, dim3) {
	return dim3{uint32((rows + 7) / 8), 1, 1}, dim3{256, 1, 1}
}

func (be *Backend) RMSNorm(out, rstd, in, w backend.Buffer, rows, C int, eps float64) {
	defer be.enter()()
	defer be.wrote(fb(out), fb(rstd))
	grid, block := rowsLaunch(rows)
	be.launch(be.k.rmsFwd, grid, block, 0, ptrArg(fb(out).outPtr()), ptrArg(fb(rstd).outPtr()), ptrArg(fb(in).ptr()),
		ptrArg(fb(w).ptr()), i64Arg(rows), i32Arg(C), f64Arg(eps))
}

func (be *Backend) RMSNormBackward(din, dw, dout, in, w, rstd backend.Buffer, rows, C int) {
	defer be.enter()()
	defer be.wrote(fb(din), fb(dw))
	grid, block := rowsLaunch(rows)
	be.launch(be.k.rmsBwdDx, grid, block, 0, ptrArg(fb(din).ptr()), ptrArg(fb(dout).ptr()), ptrArg(fb(in).ptr()),
		ptrArg(fb(w).ptr()), ptrArg(fb(rstd).ptr()), i64Arg(rows), i32Arg(C))
	// Partial column sums over chunks of rows, then their ordered sum.
	chunks := min(1024, max(1, (rows+63)/64))
	perChunk := (rows + chunks - 1) / chunks
	chunks = (rows + perChunk - 1) / perChunk
	partial := be.scratchBuf("rms.partial", uint64(4*chunks*C))
	bx := min(256, (C+31)/32*32)
	be.launch(be.k.rmsBwdDwPartial, dim3{uint32((C + bx - 1) / bx), uint32(chunks), 1}, dim3{uint32(bx), 1, 1}, 0,
		ptrArg(partial), ptrArg(fb(dout).ptr()), ptrArg(fb(in).ptr()), ptrArg(fb(rstd).ptr()), i64Arg(rows), i32Arg(C), i64Arg(perChunk))
	be.elementwise(be.k.sumRowsAdd, C, ptrArg(fb(dw).ptr()), ptrArg(partial), i32Arg(chunks), i32Arg(C))
}

type ropeKey struct {
	D     int
	theta float64
}

func (be *Backend) RoPE(x backend.Buffer, pos backend.Ints, H, D int, theta float64, inverse bool) {
	defer be.enter()()
	defer be.wrote(fb(x))
	key := ropeKey{D, theta}
	inv := be.invFreq[key]
	if inv == nil {
		host := make([]float64, D/2)
		for i := range host {
			host[i] = 1 / math.Pow(theta, float64(2*i)/float64(D))
		}
		inv = be.alloc(uint64(8 * len(host)))
		be.drv.check(be.drv.cuMemcpyHtoD(inv.ptr, unsafe.Pointer(&host[0]), uint64(8*len(host))), "upload RoPE frequencies")
		be.invFreq[key] = inv
	}
	N := ib(pos).n
	be.elementwise(be.k.rope, N*H*(D/2), ptrArg(fb(x).ptr()), ptrArg(ib(pos).ptr()), ptrArg(inv.ptr), i64Arg(N),
		i32Arg(H), i32Arg(D), boolArg(inverse))
}

func (be *Backend) SwiGLU(out, gate, up backend.Buffer) {
	defer be.enter()()
	defer be.wrote(fb(out))
	n := fb(out).n
	be.elementwise(be.k.swigluFwd, n, ptrArg(fb(out).outPtr()), ptrArg(fb(gate).ptr()), ptrArg(fb(up).ptr()), i64Arg(n))
}

func (be *Backend) SwiGLUBackward(dgate, dup, dout, gate, up backend.Buffer) {
	defer be.enter()()
	defer be.wrote(fb(dgate), fb(dup))
	n := fb(dout).n
	be.elementwise(be.k.swigluBwd, n, ptrArg(fb(dgate).ptr()), ptrArg(fb(dup).ptr()), ptrArg(fb(dout).ptr()),
		ptrArg(fb(gate).ptr()), ptrArg(fb(up).ptr()), i64Arg(n))
}

func (be *Backend) Add(dst, src backend.Buffer) {
	defer be.enter()()
	defer be.wrote(fb(dst))
	n := fb(dst).n
	be.elementwise(be.k.addF32, n, ptrArg(fb(dst).ptr()), ptrArg(fb(src).ptr()), i64Arg(n))
}

// CrossEntropy runs one block per row, then sums w·loss on the device and
// downloads the total (which waits for the queue).
func (be *Backend) CrossEntropy(losses, logits backend.Buffer, targets backend.Ints, weights backend.Buffer, V int, scale float32) float64 {
	defer be.enter()()
	defer be.wrote(fb(losses), fb(logits))
	N := ib(targets).n
	if N == 0 {
		return 0
	}
	be.launch(be.k.crossEntropy, dim3{uint32(N), 1, 1}, dim3{1024, 1, 1}, 0, ptrArg(fb(losses).ptr()),
		ptrArg(fb(logits).ptr()), ptrArg(ib(targets).ptr()), ptrArg(fb(weights).ptr()), i32Arg(V), f32Arg(scale))
	out := be.scratchBuf("ce.total", 8)
	be.launch(be.k.weightedSum, dim3{1, 1, 1}, dim3{1024, 1, 1}, 0, ptrArg(out), ptrArg(fb(losses).ptr()),
		ptrArg(fb(weights).ptr()), i64Arg(N))
	return be.downloadF64(out)
}

func (be *Backend) downloadF64(p uint64) float64 {
	be.drv.check(be.drv.cuMemcpyDtoH(unsafe.Pointer(&be.host8[0]), p, 8), "download a result")
	return be.host8[0]
}

// sumsqBlocks is fixed so that the partial sums, and so the result, do not
// depend on the GPU.
const sumsqBlocks = 1024

func (be *Backend) SumSquares(x backend.Buffer) float64 {
	defer be.enter()()
	n := fb(x).n
	partial := be.scratchBuf("sumsq.partial", 8*sumsqBlocks)
	be.launch(be.k.sumsqPartial, dim3{sumsqBlocks, 1, 1}, dim3{256, 1, 1}, 0, ptrArg(partial), ptrArg(fb(x).ptr()), i64Arg(n))
	out := be.scratchBuf("sumsq.total", 8)
	be.launch(be.k.sumPartials, dim3{1, 1, 1}, dim3{1024, 1, 1}, 0, ptrArg(out), ptrArg(partial), i32Arg(sumsqBlocks))
	return be.downloadF64(out)
}

func (be *Backend) AdamW(params, grads, m, v backend.Buffer, p backend.AdamWParams) {
	defer be.enter()()
	defer be.wrote(fb(params), fb(m), fb(v))
	n := fb(params).n
	bc1 := 1 - math.Pow(p.Beta1, float64(p.Step))
	bc2 := 1 - math.Pow(p.Beta2, float64(p.Step))
	be.elementwise(be.k.adamw, n, ptrArg(fb(params).ptr()), ptrArg(fb(grads).ptr()), ptrArg(fb(m).ptr()),
		ptrArg(fb(v).ptr()), i64Arg(n), f64Arg(p.LR), f64Arg(p.Beta1), f64Arg(p.Beta2), f64Arg(p.Eps),
		f64Arg(p.WeightDecay), f64Arg(bc1), f64Arg(bc2), f64Arg(p.GradScale))
}
