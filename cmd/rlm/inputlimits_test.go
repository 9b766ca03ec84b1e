package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// TestQueryBatchesWholeInput: a 40M-character document whose model sends
// every chunk in one llm_query_batched call (40 MB of prompts, past the
// 32 MiB of --max-call-bytes) is answered at the defaults, since the cap
// of one call follows the input (recursion.InputREPLLimits), as the
// reference RLM and rlm-go answer it at theirs. The upstream is fakellm, a
// scripted fake (not a model): its root writes the code a model would,
// its sub-model finds the fact in the one chunk that holds it.
func TestQueryBatchesWholeInput(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 40 MB document")
	}
	const size, chunk = 40_000_000, 1 << 20
	line := "2024-05-01T12:00:00Z worker-17 heartbeat ok, queue depth 3, nothing to report\n"
	var doc strings.Builder
	doc.Grow(size + len(line))
	for doc.Len() < size/2 {
		doc.WriteString(line)
	}
	doc.WriteString("2024-05-01T12:00:01Z vault: the recovery code of vault-9 is QX-5521\n")
	for doc.Len() < size {
		doc.WriteString(line)
	}
	file := filepath.Join(t.TempDir(), "big.log")
	if err := os.WriteFile(file, []byte(doc.String()[:size]), 0o600); err != nil {
		t.Fatal(err)
	}
	var subCalls, batchBytes atomic.Int64
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if !strings.Contains(req.System(), "FINAL") {
			subCalls.Add(1)
			batchBytes.Add(int64(len(req.LastUser())))
			if i := strings.Index(req.LastUser(), "recovery code of vault-9 is "); i >= 0 {
				return fakellm.Reply{Content: strings.Fields(req.LastUser()[i+len("recovery code of vault-9 is "):])[0]}
			}
			return fakellm.Reply{Content: "NONE"}
		}
		if req.Turn() > 1 {
			return fakellm.Reply{Content: "FINAL(lost: " + req.LastUser() + ")"}
		}
		return fakellm.Reply{Content: fakellm.Code(fmt.Sprintf(`var prompts []string
for i := 0; i < len(context); i += %d {
	prompts = append(prompts, "What is the recovery code of vault-9? Answer NONE if this text does not say.\n\n"+context[i:min(i+%d, len(context))])
}
for _, a := range llm_query_batched(prompts) {
	if a != "NONE" {
		FINAL(a)
	}
}`, chunk, chunk))}
	}, fakellm.WithoutRecording())
	defer up.Close()
	var stdout, stderr bytes.Buffer
	status := run(t.Context(), []string{"query", "--upstream", up.URL, "--root-model", "root", "--quiet", "--context", file,
		"What is the recovery code of vault-9?"}, &stdout, &stderr)
	if status != 0 || stdout.String() != "QX-5521\n" {
		t.Fatalf("status %d, answer %q, stderr:\n%s", status, stdout.String(), stderr.String())
	}
	if n, b := subCalls.Load(), batchBytes.Load(); n != (size+chunk-1)/chunk || b <= 32<<20 {
		t.Errorf("%d sub-calls of %d bytes in all; want one batch of %d, over 32 MiB", n, b, (size+chunk-1)/chunk)
	}
}
