package tinydemo

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/model/backend"
)

var update = flag.Bool("update", false, "rewrite weights/SHA256SUMS from the files in weights/")

// maxEmbedded bounds what the model adds to the binary (issue 15: at most
// about 25 MB).
const maxEmbedded = 25 << 20

// TestChecksums: the embedded files are those SHA256SUMS lists. With
// -update it first rewrites weights/SHA256SUMS from the files on disk (the
// embedded ones are the same: go test rebuilds when they change).
func TestChecksums(t *testing.T) {
	if *update {
		sums, err := FormatSums(os.DirFS("weights"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("weights", SumsFile), sums, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote weights/%s:\n%s", SumsFile, sums)
		return
	}
	if err := Verify(); err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	err := fs.WalkDir(FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		t.Logf("%-22s %9d bytes", path, info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > maxEmbedded {
		t.Errorf("the embedded model is %d bytes, more than the %d allowed", total, maxEmbedded)
	}
}

// copyFS is the embedded checkpoint in memory, to corrupt.
func copyFS(t *testing.T) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	ents, err := fs.ReadDir(FS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := fs.ReadFile(FS(), e.Name())
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = &fstest.MapFile{Data: b}
	}
	return out
}

// TestVerifyDetectsCorruption: a changed, missing or unlisted file fails
// Verify with an error naming it.
func TestVerifyDetectsCorruption(t *testing.T) {
	if err := VerifyFS(copyFS(t)); err != nil {
		t.Fatalf("an intact copy fails: %v", err)
	}
	flip := func(name string, at func(n int) int) func(fstest.MapFS) {
		return func(f fstest.MapFS) {
			b := append([]byte(nil), f[name].Data...)
			b[at(len(b))] ^= 1
			f[name] = &fstest.MapFile{Data: b}
		}
	}
	for _, tt := range []struct {
		name, want string
		edit       func(fstest.MapFS)
	}{
		{"one bit of the last weight", "model.safetensors has SHA-256", flip("model.safetensors", func(n int) int { return n - 1 })},
		{"one bit of the header", "model.safetensors has SHA-256", flip("model.safetensors", func(int) int { return 20 })},
		{"tokenizer edited", "tokenizer.json has SHA-256", flip("tokenizer.json", func(n int) int { return n / 2 })},
		{"config edited", "config.json has SHA-256", flip("config.json", func(n int) int { return n / 2 })},
		{"weights missing", "model.safetensors", func(f fstest.MapFS) { delete(f, "model.safetensors") }},
		{"no SHA256SUMS", SumsFile, func(f fstest.MapFS) { delete(f, SumsFile) }},
		{"weights not listed", "does not list model.safetensors", func(f fstest.MapFS) {
			var keep []string
			for _, l := range strings.Split(string(f[SumsFile].Data), "\n") {
				if !strings.HasSuffix(l, " model.safetensors") {
					keep = append(keep, l)
				}
			}
			f[SumsFile] = &fstest.MapFile{Data: []byte(strings.Join(keep, "\n"))}
		}},
		{"malformed line", "line 1", func(f fstest.MapFS) {
			f[SumsFile] = &fstest.MapFile{Data: append([]byte("not-a-sum config.json\n"), f[SumsFile].Data...)}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := copyFS(t)
			tt.edit(f)
			err := VerifyFS(f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Verify: %v; want an error mentioning %q", err, tt.want)
			}
		})
	}
}

// TestLoads: the shipped checkpoint loads from the embedded files into an
// inference engine, with a tokenizer that fits the model, and generates.
func TestLoads(t *testing.T) {
	e, err := inference.LoadFS(backend.CPU{}, FS(), inference.Config{Name: Name, KVCacheTokens: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if v, mv := e.Tokenizer().VocabSize(), e.Model().Cfg.VocabSize; v > mv {
		t.Errorf("tokenizer has %d tokens, the model %d", v, mv)
	}
	if e.Name() != Name {
		t.Errorf("name %q", e.Name())
	}
	rec, err := RecordedEval()
	if err != nil {
		t.Fatal(err)
	}
	sums, err := ReadSums(FS())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Model != Name || rec.WeightsSHA256 != sums["model.safetensors"] {
		t.Errorf("eval.json was recorded for model %q with weights %s; these are %s with %s: re-record it (examples/tiny-rlm/ship.sh)",
			rec.Model, rec.WeightsSHA256, Name, sums["model.safetensors"])
	}
}
