package recursion

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/repl"
)

// TestPromptImportsMatchAllowlist checks that the system prompt tells the
// model exactly the packages the REPL accepts: no more, no fewer.
func TestPromptImportsMatchAllowlist(t *testing.T) {
	m := regexp.MustCompile(`Allowed imports: ([^.]+)\.`).FindStringSubmatch(SystemPrompt())
	if m == nil {
		t.Fatal("the system prompt has no line \"Allowed imports: ...\"")
	}
	got := strings.Split(m[1], ", ")
	want := repl.AllowedImports()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("prompt lists %v\nREPL allows %v", got, want)
	}
	if strings.Contains(SystemPrompt(), "{{") {
		t.Error("the system prompt has an unfilled placeholder")
	}
}
