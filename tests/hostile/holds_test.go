package hostile

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// Attacks the gateway already withstands, kept here so that they keep
// failing: they share one server, which must stay up through all of them.

func cells(blocks ...string) string {
	var b strings.Builder
	for _, c := range blocks {
		fmt.Fprintf(&b, "```go\n%s\n```\n", c)
	}
	return b.String()
}

func TestAttacksThatAlreadyFail(t *testing.T) {
	imports := []string{
		`import "os"`,
		"import (\n\t\"os/exec\"\n)",
		`import h "net/http"`,
		`import . "syscall"`,
		`import _ "unsafe"`,
		`import "github.com/evil/pkg"`,
		"import \"plugin\"\nfmt.Println(1)",
	}
	shadow := []string{
		`llm_query := func(s string) string { return "shadow" }` + "\nfmt.Println(llm_query(\"x\"))",
		`var FINAL = 3`,
		`context := "mine"` + "\nfmt.Println(context)",
		`type string int`,
		`func SHOW_VARS() string { return "" }`,
	}
	bombs := []string{
		"x := " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000),
		"y := " + strings.Repeat("[]", 50000) + "int{}",
		"z := 1" + strings.Repeat("+1", 200000),
		strings.Repeat("{", 100000) + strings.Repeat("}", 100000),
	}
	attacks["imports"] = []string{cells(imports...), "FINAL(imports)"}
	attacks["shadow"] = []string{cells(shadow...), "FINAL(shadow)"}
	attacks["bombs"] = []string{cells(bombs...), "FINAL(bombs)"}
	t.Cleanup(func() {
		for _, k := range []string{"imports", "shadow", "bombs"} {
			delete(attacks, k)
		}
	})
	up := fakellm.New(rootScript)
	defer up.Close()
	// A smaller heap limit: one bomb grows the worker's heap until the
	// watchdog stops it, which need not take 2 GiB of the test machine.
	s := startServer(t, up.URL, "--repl-heap-bytes", "512MiB")

	t.Run("imports", func(t *testing.T) {
		c, _ := s.chat(t, keyA, "imports", "")
		tr, _ := s.trace(t, keyA, c.RLM.TraceID)
		got := tr.Nodes[0].Turns[0].Cells
		if len(got) != len(imports) {
			t.Fatalf("%d cells ran, want %d", len(got), len(imports))
		}
		for i, cell := range got {
			if !strings.Contains(cell.Error, "import") || cell.Output != "" {
				t.Errorf("cell %q: error %q output %q; want the import refused", imports[i], cell.Error, cell.Output)
			}
		}
		if c.answer() != "imports" {
			t.Errorf("answer %q", c.answer())
		}
	})
	t.Run("shadowing predeclared names", func(t *testing.T) {
		c, _ := s.chat(t, keyA, "shadow", "")
		if c.answer() != "shadow" {
			t.Errorf("answer %q", c.answer())
		}
		// Model code may shadow the names in its own scope; the host
		// functions behind them, and the next turn's FINAL, are not touched.
		tr, _ := s.trace(t, keyA, c.RLM.TraceID)
		got := tr.Nodes[0].Turns[0].Cells
		if len(got) != len(shadow) || got[0].Output != "shadow\n" || got[2].Output != "mine\n" {
			t.Fatalf("cells %+v", got)
		}
		for i, cell := range got {
			if strings.Contains(cell.Error, "restarted") || strings.Contains(cell.Error, "internal error") {
				t.Errorf("%.40q: error %q", shadow[i], cell.Error)
			}
		}
	})
	t.Run("parser bombs", func(t *testing.T) {
		c, _ := s.chat(t, keyA, "bombs", "")
		if c.answer() != "bombs" {
			t.Errorf("answer %q", c.answer())
		}
		tr, size := s.trace(t, keyA, c.RLM.TraceID)
		got := tr.Nodes[0].Turns[0].Cells
		if len(got) != len(bombs) {
			t.Fatalf("%d cells ran, want %d", len(got), len(bombs))
		}
		for i, cell := range got {
			if cell.Error == "" {
				t.Errorf("bomb %d ran without an error", i)
			}
			if len(cell.Error) > 16<<10 {
				t.Errorf("bomb %d: error of %d bytes", i, len(cell.Error))
			}
			t.Logf("bomb %d: error %.120q", i, cell.Error)
		}
		if size > 4<<20 {
			t.Errorf("trace of %d bytes", size)
		}
	})
	var traceA string
	t.Run("tenant isolation", func(t *testing.T) {
		c, _ := s.chat(t, keyA, "trivial", "")
		traceA = c.RLM.TraceID
		s.trace(t, keyA, traceA)
		if status, b := s.do(t, "GET", "/v1/traces/"+traceA, keyB, nil); status != http.StatusNotFound {
			t.Errorf("tenant B read tenant A's trace: %d %.200s", status, b)
		}
		if _, b := s.do(t, "GET", "/v1/traces", keyB, nil); strings.Contains(string(b), traceA) {
			t.Errorf("tenant B's listing shows tenant A's trace")
		}
		if status, _ := s.do(t, "POST", "/v1/traces/"+traceA+"/feedback", keyB, []byte(`{"score":1}`)); status < 400 {
			t.Errorf("tenant B rated tenant A's trace: %d", status)
		}
		if status, _ := s.do(t, "GET", "/v1/traces/"+traceA, "", nil); status != http.StatusUnauthorized {
			t.Errorf("no key: %d, want 401", status)
		}
		if status, _ := s.do(t, "GET", "/v1/traces/"+traceA, "wrong-key", nil); status != http.StatusUnauthorized {
			t.Errorf("wrong key: %d, want 401", status)
		}
	})
	t.Run("traversal ids", func(t *testing.T) {
		for _, path := range []string{
			"/v1/traces/..%2F..%2F..%2Fetc%2Fpasswd",
			"/v1/traces/%2e%2e",
			"/v1/traces/..%2Fkey-tenant-b%2Ft%2F" + traceA,
			"/v1/files/..%2F..%2F..%2Fetc%2Fpasswd",
			"/v1/files/..%2F..%2F..%2Fetc%2Fpasswd/content",
			"/v1/files/%2e%2e%2f%2e%2e%2fetc%2fpasswd/content",
		} {
			status, b := s.do(t, "GET", path, keyB, nil)
			if status < 400 || status >= 500 || strings.Contains(string(b), "root:") || strings.Contains(string(b), `"nodes"`) {
				t.Errorf("GET %s: %d %.200s", path, status, b)
			}
		}
	})
	t.Run("malformed bodies", func(t *testing.T) {
		for _, body := range []string{
			``,
			`{`,
			`[]`,
			`null`,
			`{"model":"rlm","messages":"hello"}`,
			`{"model":"rlm","messages":[{"role":"user","content":5}]}`,
			`{"model":"rlm","messages":[]}`,
			`{"model":"nope","messages":[{"role":"user","content":"x"}]}`,
			`{"model":"rlm","messages":[{"role":"user","content":"x"}],"rlm":{"max_depth":"deep"}}`,
			`{"model":"rlm","messages":[{"role":"user","content":"x"}],"stream":"yes"}`,
			"{\"model\":\"rlm\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]",
		} {
			status, b := s.do(t, "POST", "/v1/chat/completions", keyA, []byte(body))
			var e struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			if status < 400 || status >= 500 || json.Unmarshal(b, &e) != nil || e.Error.Message == "" || e.Error.Type == "" {
				t.Errorf("body %.60q: %d %.200s; want a 4xx OpenAI error", body, status, b)
			}
		}
	})
	// After all of it, the server still answers.
	c, _ := s.chat(t, keyB, "trivial", "")
	if c.answer() != "hi" {
		t.Fatalf("trivial request after the attacks: %q", c.answer())
	}
	s.alive(t)
}
