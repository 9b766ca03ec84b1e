package layout

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strings"
	"testing"
)

// TestREADMENamesEveryPackage holds README.md's layout table ("| package |
// its one job |") against the tree: every library package that go list
// finds, and every command package under cmd/rlm, has a row, and every
// name in a row is a folder of the tree. A row may name siblings briefly:
// "`cmd/rlm/internal/traincmd`, `tracecmd`" names cmd/rlm/internal/tracecmd
// (a bare name that is no folder of the root is the previous one's sibling).
func TestREADMENamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	named := readmePackages(t, readme)
	for name := range named {
		if st, err := os.Stat("../../" + name); err != nil || !st.IsDir() {
			t.Errorf("README's layout table names %s, which is not a folder of the tree", name)
		}
	}
	out, err := exec.Command("go", "list", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		pkg := strings.TrimPrefix(sc.Text(), module)
		if top(pkg) && pkg != "cmd/rlm" && !strings.HasPrefix(pkg, "cmd/rlm/internal/") {
			continue
		}
		if !named[pkg] {
			t.Errorf("%s has no row in README's layout table: say what its one job is", pkg)
		}
	}
}

// readmePackages returns the names in the first column of README's
// layout table.
func readmePackages(t *testing.T, readme []byte) map[string]bool {
	_, table, ok := bytes.Cut(readme, []byte("| package | its one job |"))
	if !ok {
		t.Fatal(`README.md has no "| package | its one job |" table`)
	}
	names := map[string]bool{}
	quoted := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(string(table), "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		first := strings.Split(line, "|")[1]
		parent := ""
		for _, m := range quoted.FindAllStringSubmatch(first, -1) {
			name := m[1]
			if _, err := os.Stat("../../" + name); err != nil && !strings.Contains(name, "/") && parent != "" {
				name = parent + "/" + name
			} else {
				parent = path.Dir(name)
			}
			names[name] = true
		}
	}
	if len(names) < 10 {
		t.Fatalf("read %d names from README's layout table; is its format changed?", len(names))
	}
	return names
}
