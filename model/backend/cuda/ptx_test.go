package cuda

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPTXMatchesSources regenerates the PTX from kernels/*.cu with
// kernels/gen.sh and fails if the committed files differ: the embedded PTX
// must be what the sources say. It needs Debian's clang-19 (CI installs it).
func TestPTXMatchesSources(t *testing.T) {
	if _, err := exec.LookPath("clang-19"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but clang-19 is missing: %v", err)
		}
		t.Skipf("clang-19 not installed: %v", err)
	}
	dir := t.TempDir()
	if out, err := exec.Command("kernels/gen.sh", dir).CombinedOutput(); err != nil {
		t.Fatalf("kernels/gen.sh: %v\n%s", err, out)
	}
	for _, name := range []string{"kernels_sm_80.ptx", "kernels_sm_90.ptx"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what kernels/gen.sh makes of the sources: run model/backend/cuda/kernels/gen.sh and commit", name)
		}
	}
}
