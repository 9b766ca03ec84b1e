package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/internal/testpdf"
)

// coastPages are the pages of the test PDF; page 2 talks about tides.
var coastPages = []string{"Lighthouses guard the northern coast.", "Tides rise twice daily here.", "Keepers logged every storm."}

var foundRE = regexp.MustCompile(`found on page (\d+) of (\d+)`)

// pageFinder is the fake upstream's script: its "root model" writes Go that
// looks for a phrase in each page (contexts[i]) and answers with the page
// it found.
func pageFinder(req fakellm.Request) fakellm.Reply {
	if m := foundRE.FindStringSubmatch(req.LastUser()); m != nil {
		return fakellm.Reply{Content: fmt.Sprintf("FINAL(page %s of %s)", m[1], m[2])}
	}
	if req.Turn() > 1 {
		return fakellm.Reply{Content: "FINAL(not found)"}
	}
	return fakellm.Reply{Content: fakellm.Code(`import (
	"fmt"
	"strings"
)
for i, page := range contexts {
	// Word gaps in this PDF are positions, not spaces: compare without them.
	if strings.Contains(strings.Join(strings.Fields(page), ""), "Tidesrise") {
		fmt.Printf("found on page %d of %d\n", i+1, len(contexts))
	}
}`)}
}

// TestServePDFInChatMessage sends a PDF as a file part of a chat message to
// the real gateway, engine and REPL. The upstream is fakellm, a scripted
// test double, not a model: its "root model" writes Go that looks for a
// phrase in each page (contexts[i]) and answers with the page it found.
func TestServePDFInChatMessage(t *testing.T) {
	pdf := testpdf.Make(t, coastPages)
	up := fakellm.New(pageFinder)
	defer up.Close()
	s := startServe(t, upstreamArgs(up.URL)...)
	file := map[string]any{"type": "file", "file": map[string]string{
		"filename": "coast.pdf", "file_data": "data:application/pdf;base64," + base64.StdEncoding.EncodeToString(pdf)}}
	body, _ := json.Marshal(map[string]any{"model": "rlm", "messages": []any{map[string]any{"role": "user",
		"content": []any{map[string]string{"type": "text", "text": "Which page talks about tides?"}, file}}}})
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var comp struct {
		Choices []struct {
			Message struct{ Content string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&comp); err != nil || resp.StatusCode != 200 || len(comp.Choices) != 1 {
		t.Fatalf("status %d, %v, %+v", resp.StatusCode, err, comp)
	}
	if got := comp.Choices[0].Message.Content; got != "page 2 of 3" {
		t.Errorf("answer %q, want \"page 2 of 3\"", got)
	}
	// The root saw one placeholder for the three pages (the head of the
	// first, the tail of the last), not the pages themselves.
	first := up.Requests()[0].LastUser()
	if !strings.Contains(first, `contexts[0..2], document "coast.pdf", 3 parts (page 1 to page 3)`) || strings.Contains(first, "Tides") {
		t.Errorf("the root's view of the document:\n%s", first)
	}
}

// TestNodeSDKDocuments runs tests/node/documents_sdk.mjs: the official npm
// openai client uploads a PDF and sends one inline, against `rlm serve`
// with the real engine and REPL and fakellm (a scripted test double, not a
// model) as the upstream, and gets a BadRequestError for an ELF binary.
func TestNodeSDKDocuments(t *testing.T) {
	node, err := exec.LookPath("node")
	sdk := filepath.Join("..", "..", "tests", "node", "node_modules", "openai")
	if _, serr := os.Stat(sdk); err != nil || serr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node and tests/node/node_modules/openai are required in CI (cd tests/node && npm ci): %v %v", err, serr)
		}
		t.Skip("node or the npm openai package is missing; run: cd tests/node && npm ci")
	}
	pdfPath := filepath.Join(t.TempDir(), "coast.pdf")
	if err := os.WriteFile(pdfPath, testpdf.Make(t, coastPages), 0o600); err != nil {
		t.Fatal(err)
	}
	up := fakellm.New(pageFinder)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "node-key")...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "documents_sdk.mjs")
	cmd.Dir = filepath.Join("..", "..", "tests", "node")
	cmd.Env = append(os.Environ(), "RLM_BASE_URL="+s.URL+"/v1", "RLM_KEY=node-key", "RLM_PDF="+pdfPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s\nserver log:\n%s", err, stderr.String(), s.Stderr.String())
	}
	var res struct {
		Uploaded, Inline string
		ELF              struct {
			Status      int
			Param, Code string
			Message     string
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("node output %q: %v", stdout.String(), err)
	}
	if res.Uploaded != "page 2 of 3" || res.Inline != "page 2 of 3" {
		t.Errorf("answers: uploaded %q, inline %q; want \"page 2 of 3\"", res.Uploaded, res.Inline)
	}
	if res.ELF.Status != 400 || res.ELF.Param != "file" || res.ELF.Code != "unsupported_file_type" || !strings.Contains(res.ELF.Message, "ELF") {
		t.Errorf("ELF upload: %+v", res.ELF)
	}
}

// TestQueryDocuments: `rlm query --context` reads context files as the
// gateway reads attachments: a PDF's pages are contexts pieces (fakellm's
// scripted "root model" finds the page), an ELF binary is refused before
// any model call.
func TestQueryDocuments(t *testing.T) {
	dir := t.TempDir()
	pdf := filepath.Join(dir, "coast.pdf")
	if err := os.WriteFile(pdf, testpdf.Make(t, coastPages), 0o600); err != nil {
		t.Fatal(err)
	}
	elf := filepath.Join(dir, "tool")
	if err := os.WriteFile(elf, append([]byte("\x7fELF\x02\x01\x01\x00"), make([]byte, 512)...), 0o600); err != nil {
		t.Fatal(err)
	}
	up := fakellm.New(pageFinder)
	defer up.Close()
	t.Setenv("RLM_ROOT_MODEL", "root-model")
	t.Setenv("OPENAI_API_KEY", "test-key")
	var stdout, stderr bytes.Buffer
	if status := run(t.Context(), []string{"query", "--upstream", up.URL, "--quiet", "--context", pdf, "Which page talks about tides?"}, &stdout, &stderr); status != 0 || stdout.String() != "page 2 of 3\n" {
		t.Fatalf("status %d, stdout %q, stderr:\n%s", status, stdout.String(), stderr.String())
	}
	calls := len(up.Requests())
	stdout.Reset()
	stderr.Reset()
	status := run(t.Context(), []string{"query", "--upstream", up.URL, "--quiet", "--context", elf, "What is this?"}, &stdout, &stderr)
	if status != 1 || !strings.Contains(stderr.String(), "ELF executable") || len(up.Requests()) != calls {
		t.Fatalf("ELF context: status %d, stderr %q, %d model calls", status, stderr.String(), len(up.Requests())-calls)
	}
}
