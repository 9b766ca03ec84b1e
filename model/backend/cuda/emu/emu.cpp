// A CUDA device emulated on the CPU: the subset of the driver API
// (libcuda.so.1) and of cuBLASLt that the CUDA backend loads, over host
// memory, running the backend's own kernels compiled for the host
// (kernels_emu.cpp). It exists so that kernels and the Go code around them
// are tested on machines without a GPU (CI, most development sessions):
// a kernel with a wrong index, a missing barrier (when the emulator
// deadlocks or reads poisoned shared memory) or a bad launch shape fails
// here, before it costs time on a GPU. It says nothing about speed, and it
// does not replace running on a GPU.
//
// Model of execution: a launch runs its blocks on a pool of host threads,
// one block per thread at a time; the CUDA threads of a block are fibers
// that switch only at rendezvous points (__syncthreads, warp shuffles,
// mma.sync, ldmatrix), so every thread of a warp or block meets the others
// there exactly as on the device. Launches and copies are synchronous, which
// is one valid schedule of a single in-order stream. A launch in which no
// fiber can run but some have not finished is a deadlock: the emulator
// prints which kernel and aborts.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu.h"

thread_local emu_dim3 threadIdx, blockIdx, blockDim, gridDim;
thread_local char* emu_dyn_smem_ptr;

// The kernels, by name (kernels_emu.cpp).
struct EmuKernel {
  const char* name;
  void (*call)(void** args);
};
extern "C" const EmuKernel emu_kernels[];
extern "C" const int emu_num_kernels;

namespace {

[[noreturn]] void fail(const char* fmt, const char* arg) {
  fprintf(stderr, "cuda emulator: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  abort();
}

// ------------------------------------------------------------------ fibers

#if defined(__x86_64__)
// emu_switch saves the callee-saved registers and the stack pointer of the
// running context in *save and resumes the context whose stack pointer is
// to. A new fiber's stack is laid out as if it had switched away just
// before calling fiber_main.
extern "C" void emu_switch(void** save, void* to);
asm(R"(
.text
.globl emu_switch
.type emu_switch,@function
emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size emu_switch, .-emu_switch
)");
#else
#error "the CUDA emulator's fibers are written for x86-64"
#endif

constexpr size_t kStackBytes = 64 << 10;
constexpr size_t kGuardBytes = 4 << 10;
constexpr int kMaxThreads = 1024;
constexpr size_t kSmemBytes = 256 << 10;

enum FiberState { kRunnable, kBlockWait, kWarpWait, kDone };

struct Fiber {
  void* sp;
  emu_dim3 tid;
  int state;
};

// Block is one host thread's scheduler: the fibers of the block it runs.
struct Block {
  char* stacks = nullptr;  // kMaxThreads stacks, each under a guard page
  alignas(16) char smem[kSmemBytes];
  Fiber fibers[kMaxThreads];
  void* schedSp = nullptr;
  int n = 0, cur = 0, live = 0;
  int arrived = 0;
  int warpLive[kMaxThreads / 32], warpArrived[kMaxThreads / 32];
  // Exchange slots of the warp-wide operations, two generations deep: a
  // lane writes generation k+2's slot only after the rendezvous of k+1,
  // which every lane reaches after reading generation k. So one
  // rendezvous per exchange suffices.
  uint64_t xchg[2][kMaxThreads / 32][32];
  const void* xptr[2][kMaxThreads / 32][32];
  unsigned char gen[kMaxThreads];  // exchanges each thread has made, mod 2
  unsigned mmaA[2][kMaxThreads / 32][32][4], mmaB[2][kMaxThreads / 32][32][2];
  void (*fn)(void**) = nullptr;
  void** args = nullptr;
  const char* name = nullptr;
};

thread_local Block* tlsBlock;

int linearTid(const emu_dim3& t) { return t.x + t.y * blockDim.x + t.z * blockDim.x * blockDim.y; }

void yieldToScheduler(Block* b) {
  Fiber& f = b->fibers[b->cur];
  emu_switch(&f.sp, b->schedSp);
}

void releaseBlock(Block* b) {
  b->arrived = 0;
  for (int i = 0; i < b->n; i++)
    if (b->fibers[i].state == kBlockWait) b->fibers[i].state = kRunnable;
}

void releaseWarp(Block* b, int w) {
  b->warpArrived[w] = 0;
  int end = (w + 1) * 32 < b->n ? (w + 1) * 32 : b->n;
  for (int i = w * 32; i < end; i++)
    if (b->fibers[i].state == kWarpWait) b->fibers[i].state = kRunnable;
}

// warpSync is a rendezvous of the warp's live threads.
void warpSync(Block* b) {
  int w = b->cur / 32;
  if (++b->warpArrived[w] == b->warpLive[w]) {
    releaseWarp(b, w);
    return;
  }
  b->fibers[b->cur].state = kWarpWait;
  yieldToScheduler(b);
}

[[noreturn]] void fiberMain() {
  Block* b = tlsBlock;
  b->fn(b->args);
  Fiber& f = b->fibers[b->cur];
  f.state = kDone;
  b->live--;
  int w = b->cur / 32;
  b->warpLive[w]--;
  // A thread that returns no longer takes part in barriers; it may be the
  // one the others were waiting for.
  if (b->arrived > 0 && b->arrived == b->live) releaseBlock(b);
  if (b->warpArrived[w] > 0 && b->warpArrived[w] == b->warpLive[w]) releaseWarp(b, w);
  emu_switch(&f.sp, b->schedSp);
  abort();
}

void runBlock(Block* b) {
  int n = b->n;
  b->live = n;
  b->arrived = 0;
  for (int w = 0; w < (n + 31) / 32; w++) {
    b->warpLive[w] = (w + 1) * 32 <= n ? 32 : n - w * 32;
    b->warpArrived[w] = 0;
  }
  for (int i = 0; i < n; i++) {
    Fiber& f = b->fibers[i];
    f.tid = {(unsigned)(i % blockDim.x), (unsigned)(i / blockDim.x % blockDim.y),
             (unsigned)(i / (blockDim.x * blockDim.y))};
    f.state = kRunnable;
    b->gen[i] = 0;
    char* top = b->stacks + (size_t)(i + 1) * (kStackBytes + kGuardBytes);
    void** sp = (void**)(((uintptr_t)top & ~(uintptr_t)15) - 64);
    for (int r = 0; r < 6; r++) sp[r] = nullptr;  // r15 r14 r13 r12 rbx rbp
    sp[6] = (void*)&fiberMain;                     // the return address
    f.sp = sp;
  }
  int done = 0;
  while (done < n) {
    bool progress = false;
    done = 0;
    for (int i = 0; i < n; i++) {
      Fiber& f = b->fibers[i];
      if (f.state == kRunnable) {
        b->cur = i;
        threadIdx = f.tid;
        emu_switch(&b->schedSp, f.sp);
        progress = true;
      }
      if (f.state == kDone) done++;
    }
    if (!progress && done < n) fail("deadlock in kernel %s: threads wait at a barrier that the others never reach", b->name);
  }
}

// ------------------------------------------------------------ thread pool

struct Launch {
  void (*fn)(void**);
  void** args;
  const char* name;
  emu_dim3 grid, block;
  unsigned smem;
  std::atomic<long> next{0};
  long total = 0;
};

class Pool {
 public:
  static Pool& get() {
    static Pool* p = new Pool();
    return *p;
  }

  void run(Launch* l) {
    std::unique_lock<std::mutex> lk(mu_);
    job_ = l;
    pending_ = (int)workers_.size();
    gen_++;
    cv_.notify_all();
    done_.wait(lk, [&] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  Pool() {
    int n = (int)std::thread::hardware_concurrency();
    if (const char* s = getenv("RLM_CUDA_EMU_THREADS")) n = atoi(s);
    if (n < 1) n = 1;
    for (int i = 0; i < n; i++) workers_.emplace_back([this] { loop(); });
    for (auto& w : workers_) w.detach();
  }

  void loop() {
    Block* b = new Block();
    size_t bytes = (size_t)kMaxThreads * (kStackBytes + kGuardBytes);
    b->stacks = (char*)mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (b->stacks == MAP_FAILED) fail("%s", "cannot map fiber stacks");
    for (int i = 0; i < kMaxThreads; i++)
      mprotect(b->stacks + (size_t)i * (kStackBytes + kGuardBytes), kGuardBytes, PROT_NONE);
    tlsBlock = b;
    emu_dyn_smem_ptr = b->smem;
    unsigned seen = 0;
    for (;;) {
      Launch* l;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return gen_ != seen; });
        seen = gen_;
        l = job_;
      }
      blockDim = l->block;
      gridDim = l->grid;
      b->fn = l->fn;
      b->args = l->args;
      b->name = l->name;
      b->n = (int)(l->block.x * l->block.y * l->block.z);
      for (long i; (i = l->next.fetch_add(1)) < l->total;) {
        blockIdx = {(unsigned)(i % l->grid.x), (unsigned)(i / l->grid.x % l->grid.y),
                    (unsigned)(i / ((long)l->grid.x * l->grid.y))};
        // Shared memory starts out as NaNs: a kernel that reads what it
        // never wrote shows it in its results.
        memset(b->smem, 0xff, l->smem);
        runBlock(b);
      }
      std::lock_guard<std::mutex> lk(mu_);
      if (--pending_ == 0) done_.notify_all();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_, done_;
  Launch* job_ = nullptr;
  int pending_ = 0;
  unsigned gen_ = 0;
};

// One launch at a time: the backend serialises its calls anyway, and the
// pool's workers hold per-block state.
std::mutex launchMu;

}  // namespace

// ------------------------------------------------------- device builtins

extern "C" void emu_syncthreads(void) {
  Block* b = tlsBlock;
  if (++b->arrived == b->live) {
    releaseBlock(b);
    return;
  }
  b->fibers[b->cur].state = kBlockWait;
  yieldToScheduler(b);
}

static int srcLane(int lane, int mode, int arg) {
  switch (mode) {
    case EMU_BFLY:
      return lane ^ arg;
    case EMU_IDX:
      return arg & 31;
    case EMU_DOWN:
      return lane + arg < 32 ? lane + arg : lane;
    default:
      return lane - arg >= 0 ? lane - arg : lane;
  }
}

template <typename T>
static T shfl(T v, int mode, int arg) {
  Block* b = tlsBlock;
  int w = b->cur / 32, lane = b->cur % 32, g = b->gen[b->cur] ^= 1;
  memcpy(&b->xchg[g][w][lane], &v, sizeof v);
  warpSync(b);
  T r;
  memcpy(&r, &b->xchg[g][w][srcLane(lane, mode, arg) & 31], sizeof r);
  return r;
}

extern "C" float emu_shfl_f32(float v, int mode, int arg) { return shfl(v, mode, arg); }
extern "C" int emu_shfl_i32(int v, int mode, int arg) { return shfl(v, mode, arg); }

extern "C" void emu_atomic_add_f32(float* p, float v) {
  uint32_t* u = (uint32_t*)p;
  uint32_t old = __atomic_load_n(u, __ATOMIC_RELAXED);
  for (;;) {
    float f;
    memcpy(&f, &old, 4);
    f += v;
    uint32_t nu;
    memcpy(&nu, &f, 4);
    if (__atomic_compare_exchange_n(u, &old, nu, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  }
}

static float bf16(unsigned short h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static unsigned short half(unsigned v, int hi) { return (unsigned short)(hi ? v >> 16 : v & 0xffff); }

// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 with the fragment
// layouts of the PTX ISA (see common.cuh): every lane publishes its
// fragments, then computes its own four results from the warp's.
extern "C" void emu_mma_bf16(float* d, const unsigned* a, unsigned b0, unsigned b1) {
  Block* b = tlsBlock;
  int w = b->cur / 32, lane = b->cur % 32, gn = b->gen[b->cur] ^= 1;
  for (int i = 0; i < 4; i++) b->mmaA[gn][w][lane][i] = a[i];
  b->mmaB[gn][w][lane][0] = b0;
  b->mmaB[gn][w][lane][1] = b1;
  warpSync(b);
  auto A = [&](int r, int k) {
    int l = (r % 8) * 4 + (k % 8) / 2, reg = (k / 8) * 2 + r / 8;
    return bf16(half(b->mmaA[gn][w][l][reg], k % 2));
  };
  auto B = [&](int k, int n) {
    int l = n * 4 + (k % 8) / 2;
    return bf16(half(b->mmaB[gn][w][l][k / 8], k % 2));
  };
  int g = lane / 4, c = lane % 4;
  float out[4];
  for (int j = 0; j < 4; j++) {
    int row = g + (j / 2) * 8, col = 2 * c + j % 2;
    float acc = d[j];
    for (int k = 0; k < 16; k++) acc += A(row, k) * B(k, col);
    out[j] = acc;
  }
  for (int j = 0; j < 4; j++) d[j] = out[j];
}

// ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16: lanes 8i..8i+7 give the
// row addresses of matrix i; lane l receives two elements of each matrix.
extern "C" void emu_ldmatrix_x4(unsigned* r, const unsigned short* p, int trans) {
  Block* b = tlsBlock;
  int w = b->cur / 32, lane = b->cur % 32, g = b->gen[b->cur] ^= 1;
  b->xptr[g][w][lane] = p;
  warpSync(b);
  unsigned out[4];
  for (int i = 0; i < 4; i++) {
    unsigned short lo, hi;
    if (!trans) {
      const unsigned short* row = (const unsigned short*)b->xptr[g][w][i * 8 + lane / 4];
      lo = row[2 * (lane % 4)];
      hi = row[2 * (lane % 4) + 1];
    } else {
      lo = ((const unsigned short*)b->xptr[g][w][i * 8 + 2 * (lane % 4)])[lane / 4];
      hi = ((const unsigned short*)b->xptr[g][w][i * 8 + 2 * (lane % 4) + 1])[lane / 4];
    }
    out[i] = (unsigned)lo | ((unsigned)hi << 16);
  }
  for (int i = 0; i < 4; i++) r[i] = out[i];
}


// ------------------------------------------------------------- driver API
// Only these are exported from the library (it is built with hidden
// visibility): the names the backend looks up.
#pragma GCC visibility push(default)

namespace {
constexpr uint64_t kTotalMem = 16ull << 30;
std::atomic<uint64_t> allocated{0};
std::mutex allocMu;
std::vector<std::pair<void*, uint64_t>>* allocs = new std::vector<std::pair<void*, uint64_t>>();

// Device 1 is a dry run: the backend's own code runs exactly as on a GPU
// (the same allocations, in the same order, freed at the same moments),
// but no memory stands behind its allocations and no kernel, product, copy
// or fill runs; downloads read zeros. It answers "how much device memory
// does this step take" for a model far larger than the host could hold,
// in the time it takes the Go side to issue the calls. Its pointers lie
// at and above kDryBase, which no host allocation reaches, so every call
// that takes a pointer knows which kind it has.
constexpr uint64_t kDryBase = 1ull << 62;
constexpr int kDryDevice = 1;
// What a dry device reports as its memory unless rlm_emu_set_dry_memory
// says otherwise: an H100 80GB HBM3's total (79.2 GiB).
constexpr uint64_t kDryTotalMem = 85032091648ull;
// What the driver's context, the loaded modules and cuBLASLt take of a
// real device before the first allocation; the dry device keeps as much
// back, so that "fits" means fits on the card.
constexpr uint64_t kDryReserve = 1ull << 30;
uint64_t dryTotalMem = kDryTotalMem, dryReserve = kDryReserve;
uint64_t dryNext = kDryBase, dryAllocated = 0;
std::vector<std::pair<uint64_t, uint64_t>>* dryAllocs = new std::vector<std::pair<uint64_t, uint64_t>>();
thread_local int currentDevice = 0;  // of the context current on this thread

bool dry(uint64_t p) { return p >= kDryBase; }
bool dry(const void* p) { return dry((uint64_t)p); }

struct Event {
  double ms;
};
double nowMS() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

extern "C" {

int cuInit(unsigned) { return 0; }
int cuDriverGetVersion(int* v) {
  *v = 13000;
  return 0;
}
int cuDeviceGetCount(int* n) {
  *n = 2;  // 0 runs everything, 1 is a dry run (see kDryBase)
  return 0;
}
int cuDeviceGet(int* dev, int ordinal) {
  if (ordinal != 0 && ordinal != kDryDevice) return 101;  // CUDA_ERROR_INVALID_DEVICE
  *dev = ordinal;
  return 0;
}
int cuDeviceGetName(char* name, int n, int dev) {
  snprintf(name, n, dev == kDryDevice ? "rlm CUDA emulator (dry run)" : "rlm CUDA emulator (CPU)");
  return 0;
}
int cuDeviceGetAttribute(int* v, int attr, int dev) {
  switch (attr) {
    case 16:  // multiprocessors: few, so grid-stride loops stride; an H100's on a dry run
      *v = dev == kDryDevice ? 132 : 4;
      return 0;
    case 75:
      *v = 9;
      return 0;
    case 76:
      *v = 0;
      return 0;
    case 97:  // shared memory per block, opt-in
      *v = 232448;
      return 0;
  }
  *v = 0;
  return 0;
}
int cuDeviceTotalMem_v2(uint64_t* b, int dev) {
  *b = dev == kDryDevice ? dryTotalMem : kTotalMem;
  return 0;
}
// A context is its device's ordinal plus one.
int cuDevicePrimaryCtxRetain(uintptr_t* ctx, int dev) {
  *ctx = (uintptr_t)dev + 1;
  return 0;
}
int cuCtxSetCurrent(uintptr_t ctx) {
  currentDevice = (int)ctx - 1;
  return 0;
}
int cuCtxSynchronize() { return 0; }
int cuMemAlloc_v2(uint64_t* p, uint64_t bytes) {
  if (currentDevice == kDryDevice) {
    std::lock_guard<std::mutex> lk(allocMu);
    if (dryReserve + dryAllocated + bytes > dryTotalMem) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
    *p = dryNext;
    dryNext += (bytes + 511) & ~(uint64_t)511;
    dryAllocated += bytes;
    dryAllocs->push_back({*p, bytes});
    return 0;
  }
  if (allocated.load() + bytes > kTotalMem) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  void* m = aligned_alloc(256, (bytes + 255) & ~(uint64_t)255);
  if (!m) return 2;
  memset(m, 0xff, bytes);  // device memory is not zeroed
  std::lock_guard<std::mutex> lk(allocMu);
  allocs->push_back({m, bytes});
  allocated += bytes;
  *p = (uint64_t)m;
  return 0;
}
int cuMemFree_v2(uint64_t p) {
  std::lock_guard<std::mutex> lk(allocMu);
  if (dry(p)) {
    for (auto& a : *dryAllocs)
      if (a.first == p) {
        dryAllocated -= a.second;
        a = dryAllocs->back();
        dryAllocs->pop_back();
        return 0;
      }
    return 1;
  }
  for (auto& a : *allocs)
    if (a.first == (void*)p) {
      allocated -= a.second;
      a = allocs->back();
      allocs->pop_back();
      free((void*)p);
      return 0;
    }
  return 1;  // CUDA_ERROR_INVALID_VALUE
}
int cuMemGetInfo_v2(uint64_t* free_, uint64_t* total) {
  if (currentDevice == kDryDevice) {
    std::lock_guard<std::mutex> lk(allocMu);
    *total = dryTotalMem;
    *free_ = dryTotalMem - dryReserve - dryAllocated;
    return 0;
  }
  *total = kTotalMem;
  *free_ = kTotalMem - allocated.load();
  return 0;
}
int cuMemcpyHtoD_v2(uint64_t dst, const void* src, uint64_t n) {
  if (!dry(dst)) memcpy((void*)dst, src, n);
  return 0;
}
int cuMemcpyHtoDAsync_v2(uint64_t dst, const void* src, uint64_t n, uintptr_t) { return cuMemcpyHtoD_v2(dst, src, n); }
int cuMemcpyDtoH_v2(void* dst, uint64_t src, uint64_t n) {
  if (dry(src))
    memset(dst, 0, n);
  else
    memcpy(dst, (void*)src, n);
  return 0;
}
int cuMemcpyDtoHAsync_v2(void* dst, uint64_t src, uint64_t n, uintptr_t) { return cuMemcpyDtoH_v2(dst, src, n); }
int cuMemcpyDtoDAsync_v2(uint64_t dst, uint64_t src, uint64_t n, uintptr_t) {
  if (!dry(dst) && !dry(src)) memmove((void*)dst, (void*)src, n);
  return 0;
}
int cuMemsetD32Async(uint64_t dst, unsigned v, uint64_t n, uintptr_t) {
  if (dry(dst)) return 0;
  unsigned* p = (unsigned*)dst;
  for (uint64_t i = 0; i < n; i++) p[i] = v;
  return 0;
}
int cuMemHostAlloc(void** p, size_t bytes, unsigned) {
  *p = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
  return *p ? 0 : 2;
}
int cuMemFreeHost(void* p) {
  free(p);
  return 0;
}
int cuModuleLoadDataEx(uintptr_t* mod, const void*, unsigned, int*, uintptr_t*) {
  *mod = 1;
  return 0;
}
int cuModuleGetFunction(uintptr_t* f, uintptr_t, const char* name) {
  for (int i = 0; i < emu_num_kernels; i++)
    if (strcmp(emu_kernels[i].name, name) == 0) {
      *f = (uintptr_t)&emu_kernels[i];
      return 0;
    }
  return 500;  // CUDA_ERROR_NOT_FOUND
}
int cuFuncSetAttribute(uintptr_t, int, int) { return 0; }
int cuFuncGetAttribute(int* v, int attr, uintptr_t) {
  *v = attr == 0 ? kMaxThreads : 32;  // max threads per block; registers
  return 0;
}
int cuGetErrorName(int r, const char** s) {
  switch (r) {
    case 1:
      *s = "CUDA_ERROR_INVALID_VALUE";
      break;
    case 2:
      *s = "CUDA_ERROR_OUT_OF_MEMORY";
      break;
    case 101:
      *s = "CUDA_ERROR_INVALID_DEVICE";
      break;
    case 500:
      *s = "CUDA_ERROR_NOT_FOUND";
      break;
    default:
      *s = "CUDA_ERROR_UNKNOWN";
  }
  return 0;
}
int cuEventCreate(uintptr_t* ev, unsigned) {
  *ev = (uintptr_t) new Event{0};
  return 0;
}
int cuEventRecord(uintptr_t ev, uintptr_t) {
  ((Event*)ev)->ms = nowMS();
  return 0;
}
int cuEventSynchronize(uintptr_t) { return 0; }
int cuEventElapsedTime_v2(float* ms, uintptr_t a, uintptr_t b) {
  *ms = (float)(((Event*)b)->ms - ((Event*)a)->ms);
  return 0;
}
int cuEventDestroy_v2(uintptr_t ev) {
  delete (Event*)ev;
  return 0;
}

int cuLaunchKernel(uintptr_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned smem, uintptr_t, void** args, void**) {
  const EmuKernel* k = (const EmuKernel*)f;
  long threads = (long)bx * by * bz;
  if (threads < 1 || threads > kMaxThreads || gx == 0 || gy == 0 || gz == 0 || smem > kSmemBytes)
    return 1;  // CUDA_ERROR_INVALID_VALUE, as the device answers a bad launch shape
  if (currentDevice == kDryDevice) return 0;
  std::lock_guard<std::mutex> lk(launchMu);
  Launch l;
  l.fn = k->call;
  l.args = args;
  l.name = k->name;
  l.grid = {gx, gy, gz};
  l.block = {bx, by, bz};
  l.smem = smem;
  l.total = (long)gx * gy * gz;
  Pool::get().run(&l);
  return 0;
}

// --------------------------------------------------------------- cuBLASLt
// Matrix products as plain loops (column-major, as cuBLAS), float32
// accumulation; bf16 operands are widened exactly.

struct LtDesc {
  int compute, scale, transA = 0, transB = 0;
};
struct LtLayout {
  int type;
  uint64_t rows, cols;
  int64_t ld;
};

int cublasLtCreate(uintptr_t* h) {
  *h = 1;
  return 0;
}
int cublasLtMatmulDescCreate(uintptr_t* d, int compute, int scale) {
  *d = (uintptr_t) new LtDesc{compute, scale};
  return 0;
}
int cublasLtMatmulDescDestroy(uintptr_t d) {
  delete (LtDesc*)d;
  return 0;
}
int cublasLtMatmulDescSetAttribute(uintptr_t d, int attr, const void* buf, size_t) {
  LtDesc* desc = (LtDesc*)d;
  if (attr == 3) desc->transA = *(const int*)buf;
  if (attr == 4) desc->transB = *(const int*)buf;
  return 0;
}
int cublasLtMatrixLayoutCreate(uintptr_t* l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  *l = (uintptr_t) new LtLayout{type, rows, cols, ld};
  return 0;
}
int cublasLtMatrixLayoutDestroy(uintptr_t l) {
  delete (LtLayout*)l;
  return 0;
}
int cublasLtMatmulPreferenceCreate(uintptr_t* p) {
  *p = 1;
  return 0;
}
int cublasLtMatmulPreferenceDestroy(uintptr_t) { return 0; }
int cublasLtMatmulPreferenceSetAttribute(uintptr_t, int, const void*, size_t) { return 0; }
int cublasLtMatmulAlgoGetHeuristic(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, int,
                                   void* result, int* n) {
  memset(result, 0, 96);
  *n = 1;
  return 0;
}
const char* cublasLtGetStatusName(int s) { return s == 0 ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_INVALID_VALUE"; }

static float load(const void* p, int type, int64_t i) {
  return type == 14 ? bf16(((const unsigned short*)p)[i]) : ((const float*)p)[i];
}

int cublasLtMatmul(uintptr_t, uintptr_t desc, const float* alpha, const void* A, uintptr_t la, const void* B,
                   uintptr_t lb, const float* beta, const void*, uintptr_t, float* D, uintptr_t ld, const void*,
                   void*, size_t, uintptr_t) {
  if (dry(D)) return 0;
  const LtDesc* d = (const LtDesc*)desc;
  const LtLayout *a = (const LtLayout*)la, *b = (const LtLayout*)lb, *c = (const LtLayout*)ld;
  int64_t m = c->rows, n = c->cols, k = d->transA ? a->rows : a->cols;
  float al = *alpha, be = *beta;
  int nt = (int)std::thread::hardware_concurrency();
  if (nt < 1 || m * n * k < (1 << 22)) nt = 1;
  auto part = [&](int t) {
      for (int64_t j = t; j < n; j += nt)
        for (int64_t i = 0; i < m; i++) {
          float acc = 0;
          for (int64_t l = 0; l < k; l++) {
            float x = d->transA ? load(A, a->type, l + i * a->ld) : load(A, a->type, i + l * a->ld);
            float y = d->transB ? load(B, b->type, j + l * b->ld) : load(B, b->type, l + j * b->ld);
            acc += x * y;
          }
          float* out = D + i + j * c->ld;
          *out = al * acc + (be == 0 ? 0 : be * *out);
        }
  };
  if (nt == 1) {
    part(0);
    return 0;
  }
  std::vector<std::thread> ts;
  for (int t = 0; t < nt; t++) ts.emplace_back(part, t);
  for (auto& t : ts) t.join();
  return 0;
}

}  // extern "C"
// rlm_emu_set_dry_memory sets the dry-run device's memory and the part of
// it kept back for the driver, in bytes; total 0 returns both to the
// defaults. (A function, not the environment: a Go program built without
// cgo cannot change what getenv sees.)
extern "C" void rlm_emu_set_dry_memory(uint64_t total, uint64_t reserve) {
  std::lock_guard<std::mutex> lk(allocMu);
  dryTotalMem = total ? total : kDryTotalMem;
  dryReserve = total ? reserve : kDryReserve;
}

#pragma GCC visibility pop
