package interp_test

import (
	"os"
	"os/exec"
	"testing"
)

// This file is the copy's own (../README.md).

// TestSeriesGivesCopy runs ../../yaegi-patches/check.sh: the patch series
// taken back out of this copy gives upstream's files, applied to them it
// gives the copy again, and op.go is what internal/cmd/genop generates. A
// change to the copy must go into its patch (regen.sh), or a rebase onto
// a new upstream version would lose it. It needs bash, git and sha256sum.
func TestSeriesGivesCopy(t *testing.T) {
	for _, tool := range []string{"bash", "git", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true but %s is missing: %v", tool, err)
			}
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
	out, err := exec.Command("bash", "../../yaegi-patches/check.sh").CombinedOutput()
	if err != nil {
		t.Fatalf("check.sh: %v\n%s", err, out)
	}
}
