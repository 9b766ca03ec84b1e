// Package cudaemu builds the CUDA emulator of model/backend/cuda/emu: a
// shared library that stands in for the NVIDIA driver (libcuda.so.1) and
// cuBLASLt, over host memory, and runs the CUDA backend's own kernels
// compiled for the CPU. With it the backend's GPU tests run on machines
// without a GPU, CI among them: kernels and the Go code that launches them
// are checked for correctness (not speed) before they reach a GPU.
//
// Its device 1 (DryRunDevice) is a dry run: the backend allocates and
// launches exactly as on a GPU, but no memory stands behind the
// allocations and nothing runs. Tests read the backend's memory peaks from
// it for models larger than the host could hold (see MemoryStats in
// model/backend/cuda).
//
// It needs clang++ (Debian's clang-19, which CI installs for the PTX
// check) and the repository's sources; tests call Use from TestMain.
package cudaemu

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ebitengine/purego"
)

// The environment variables by which the CUDA backend loads another driver
// or cuBLASLt than the system's (see model/backend/cuda).
const (
	DriverEnv = "RLM_CUDA_DRIVER"
	BlasEnv   = "RLM_CUBLASLT"
	// LibEnv names an emulator library built before (bench/cuda/build.sh
	// carries one to the GPU machine, which has no compiler): Build
	// returns it instead of building.
	LibEnv = "RLM_CUDA_EMU_LIB"
)

// DryRunDevice is the emulator's dry-run device: open it with
// cuda.Options{Device: DryRunDevice, Driver: lib, BLAS: lib}. It reports
// an H100 80GB's memory (79.2 GiB), keeps 1 GiB of it back for the driver
// (SetDryMemory changes both), and fails allocations beyond the rest as
// the driver does.
const DryRunDevice = 1

// SetDryMemory sets the dry-run device's total memory and the part kept
// back for the driver, in the emulator library lib, for backends opened on
// it from then on; total 0 returns to the defaults. Tests beside a real
// GPU give it the GPU's.
func SetDryMemory(lib string, total, reserve uint64) error {
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return fmt.Errorf("cudaemu: %w", err)
	}
	set, err := purego.Dlsym(h, "rlm_emu_set_dry_memory")
	if err != nil {
		return fmt.Errorf("cudaemu: %s is not the emulator: %w", lib, err)
	}
	purego.SyscallN(set, uintptr(total), uintptr(reserve))
	return nil
}

// Compiler is the C++ compiler Build uses unless $CXX names another.
const Compiler = "clang++-19"

var (
	once    sync.Once
	libPath string
	libErr  error
)

// Build compiles the emulator, once per version of its sources (cached
// under the user's cache directory), and returns the library's path.
func Build() (string, error) {
	if lib := os.Getenv(LibEnv); lib != "" {
		return lib, nil
	}
	once.Do(func() { libPath, libErr = build() })
	return libPath, libErr
}

// Use points the CUDA backend at the emulator unless a driver is there
// (the machine has an NVIDIA driver, or the variables are already set). It
// returns what it did, for the test log: "" when it changed nothing.
func Use() (string, error) {
	if os.Getenv(DriverEnv) != "" {
		return "", nil
	}
	if h, err := purego.Dlopen("libcuda.so.1", purego.RTLD_LAZY); err == nil {
		purego.Dlclose(h)
		return "", nil
	}
	lib, err := Build()
	if err != nil {
		return "", err
	}
	os.Setenv(DriverEnv, lib)
	os.Setenv(BlasEnv, lib)
	return "CUDA emulator: " + lib, nil
}

func sourceDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cudaemu: cannot locate the sources")
	}
	dir := filepath.Join(filepath.Dir(file), "..")
	if _, err := os.Stat(filepath.Join(dir, "emu", "emu.cpp")); err != nil {
		return "", fmt.Errorf("cudaemu: sources not found beside the binary: %w", err)
	}
	return dir, nil
}

// kernelDecl finds the kernels in the preprocessed sources, where
// __global__ is gone and macros that declare kernels are expanded.
var kernelDecl = regexp.MustCompile(`extern "C"\s+void\s+([A-Za-z0-9_]+)\s*\(`)

func build() (string, error) {
	src, err := sourceDir()
	if err != nil {
		return "", err
	}
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = Compiler
	}
	if _, err := exec.LookPath(cxx); err != nil {
		return "", fmt.Errorf("cudaemu: %s not found (apt-get install clang-19): %w", cxx, err)
	}
	files, err := filepath.Glob(filepath.Join(src, "kernels", "*.cu*"))
	if err != nil {
		return "", err
	}
	files = append(files, filepath.Join(src, "emu", "emu.h"), filepath.Join(src, "emu", "emu.cpp"),
		filepath.Join(src, "emu", "kernels_emu.cpp"), filepath.Join(src, "cudaemu", "cudaemu.go"))
	sort.Strings(files)
	h := sha256.New()
	fmt.Fprintln(h, cxx)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "rlm", "cudaemu", hex.EncodeToString(h.Sum(nil))[:16])
	lib := filepath.Join(dir, "libcudaemu.so")
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	pre, err := exec.Command(cxx, "-E", "-P", "-x", "c++", "-std=c++20", "-DRLM_EMU", "-I", filepath.Join(src, "kernels"),
		filepath.Join(src, "kernels", "kernels.cu")).Output()
	if err != nil {
		return "", fmt.Errorf("cudaemu: preprocess the kernels: %w", err)
	}
	var list strings.Builder
	for _, m := range kernelDecl.FindAllSubmatch(pre, -1) {
		n := string(m[1])
		fmt.Fprintf(&list, "K(%s)\n", n)
	}
	if err := os.WriteFile(filepath.Join(tmp, "kernel_list.inc"), []byte(list.String()), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(tmp, "libcudaemu.so")
	// -Bsymbolic: the library's calls to its own exported functions (which
	// have the driver's names) stay inside it, even where the real driver
	// is loaded too.
	cmd := exec.Command(cxx, "-std=c++20", "-O2", "-ffp-contract=fast", "-fPIC", "-shared", "-pthread",
		"-fvisibility=hidden", "-Wno-unknown-pragmas", "-Wl,-Bsymbolic", "-I", filepath.Join(src, "kernels"), "-I", tmp,
		"-o", out, filepath.Join(src, "emu", "emu.cpp"), filepath.Join(src, "emu", "kernels_emu.cpp"))
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cudaemu: build: %v\n%s", err, b)
	}
	// Rename is atomic: test binaries building at once each get a whole file.
	if err := os.Rename(out, lib); err != nil {
		return "", err
	}
	return lib, nil
}
