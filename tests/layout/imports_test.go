// Package layout keeps the tree's import graph pointing one way: from the
// binary down to the model stack, never back (README.md, "Layout").
package layout

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/rlm-project/rlm/"

// layers lists every library package by layer, lowest first. A package may
// import packages of lower layers only; a new package must be placed here,
// which is the point: where it goes is a design decision.
var layers = [][]string{
	{"internal/clip", "internal/jsonscan", "internal/proctest", "internal/datasetschema", "internal/fakellm", "internal/testpdf", "internal/browsertest",
		"repl/symbols", "model/safetensors", "model/tokenizer", "model/backend", "model/backend/cuda/cudaemu",
		"document", "document/lookup", "store", "models/tinydemo", "training", "recursion/llm"},
	{"api", "repl/protocol", "repl/shims", "jsonschema"},
	{"repl/sandbox", "repl/rewrite"},
	{"repl/worker"},
	{"model/backend/cuda", "model", "store/retention", "store/storetest", "repl", "recursion/upstream"},
	{"inference", "recursion", "training/data", "training/loop"},
	{"inference/modelserver", "inference/client", "inference/inferencetest", "eval", "tracing", "server", "training/sft"},
	{"tracing/tracingtest", "tracing/export", "tracing/spans", "eval/fakemodel", "eval/heldout", "training/expert", "training/rl"},
	{"tracing/traceapi"},
	{"gateway"},
	{"cmd/rlm"},
}

// TestImportsPointDown: every import between library packages goes to a
// lower layer (so there is no cycle and no arrow up), and every package is
// in the table. Commands, examples, benchmarks and tests sit above it all.
func TestImportsPointDown(t *testing.T) {
	layer := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			if _, dup := layer[p]; dup {
				t.Fatalf("%s is in two layers", p)
			}
			layer[p] = i
		}
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(strings.ReplaceAll(sc.Text(), module, ""))
		pkg, imports := fields[0], fields[1:]
		if top(pkg) {
			continue
		}
		from, ok := layer[pkg]
		if !ok {
			t.Errorf("%s is in no layer: add it to the table, below whatever imports it", pkg)
			continue
		}
		for _, imp := range imports {
			to, ok := layer[imp]
			if ok && to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down", pkg, from, imp, to)
			}
		}
	}
}

// top reports whether pkg is a program, example, benchmark or test: they
// may import anything.
func top(pkg string) bool {
	for _, p := range []string{"cmd/", "examples/", "bench/", "tests/"} {
		if strings.HasPrefix(pkg, p) {
			return true
		}
	}
	return false
}
