package proctest

import (
	"os/exec"
	"slices"
	"strconv"
	"testing"
)

func TestChildren(t *testing.T) {
	before, err := Children()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	during, _ := Children()
	cmd.Process.Kill()
	cmd.Wait()
	after, _ := Children()
	if !slices.Contains(during, pid) || slices.Contains(before, pid) || slices.Contains(after, pid) {
		t.Errorf("child %s: before %v, while it ran %v, after %v", pid, before, during, after)
	}
}
