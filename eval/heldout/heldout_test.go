package heldout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/eval"
)

// TestBuild builds the set from this machine's Debian files and checks
// every case's own checks (Build's): the facts' witnesses and the answers
// are in their documents, what absent questions ask about is not. The
// task file must load as an rlm eval custom task. Documents that differ
// from the frozen manifest (other package versions) are logged. Without
// the packages the test skips, and fails under CI=true.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	man, err := Build(dir, "/")
	if errors.Is(err, ErrSources) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI installs them)", err)
		}
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	task, err := eval.LoadCustom(filepath.Join(dir, TaskFile))
	if err != nil {
		t.Fatal(err)
	}
	if task.Len() != len(cases) {
		t.Errorf("the task has %d instances, the set %d cases", task.Len(), len(cases))
	}
	frozen, err := Frozen()
	if err != nil {
		t.Fatal(err)
	}
	if d := man.Differences(frozen); len(d) > 0 {
		t.Logf("this machine's documents differ from the frozen set's (scores are not comparable):\n%s", strings.Join(d, "\n"))
	}
}

// TestCasesCover checks the set covers what issue 38 asks of it: every
// kind, needle forms, facts already in the text, absent answers, inline
// questions and several files, and IDs that are unique.
func TestCasesCover(t *testing.T) {
	t.Parallel()
	ids := map[string]bool{}
	count := map[string]int{}
	for _, c := range cases {
		if ids[c.ID] {
			t.Errorf("case ID %s is used twice", c.ID)
		}
		ids[c.ID] = true
		if _, ok := kindNamed(c.Kind); !ok {
			t.Errorf("case %s: unknown kind %q", c.ID, c.Kind)
		}
		count["kind:"+c.Kind]++
		count["form:"+c.Form]++
		count["deliver:"+deliverLabel(c.Deliver)]++
		if (c.Form == "absent") != (len(c.Answers) == 0 && c.Status[0] == "") {
			t.Errorf("case %s: form %q with %d answers", c.ID, c.Form, len(c.Answers))
		}
	}
	for _, k := range kinds {
		if count["kind:"+k.name] < 5 {
			t.Errorf("kind %s has %d cases, want at least 5", k.name, count["kind:"+k.name])
		}
	}
	for key, least := range map[string]int{"form:fact": 20, "form:absent": 10, "deliver:inline": 8, "deliver:files": 6,
		"form:prose": 4, "form:comment": 4, "form:mdtable": 2, "form:csv": 3, "form:json": 2, "form:log": 3, "form:config": 3} {
		if count[key] < least {
			t.Errorf("%s: %d cases, want at least %d", key, count[key], least)
		}
	}
}
