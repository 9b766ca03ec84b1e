package rewrite_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/repl/rewrite"
)

// The differential corpus: programs and cells written the way models write
// Go (repl/rewrite/testdata/corpus; gen_* files come from
// testdata/gencorpus, the others are written by hand). Each runs natively,
// built at test time with the go command, and in the REPL; the outputs must
// be identical, or the REPL must refuse with the error listed for it in
// REFUSALS.txt. A REPL that succeeds with a different output always fails
// the test. The corpus is the rewrites' specification: what they (with the
// shims they call) must make the interpreter run as Go does; it runs end to
// end, through sessions of package repl.
//
// A .go file is a whole program ("package main") and runs as one cell, the
// way a model pastes one. A .gocell file is a session of cells separated by
// lines "// cell"; natively its imports and declarations become the package
// and its statements, in order, the body of main.

//go:generate go run ./testdata/gencorpus

const corpusDir = "testdata/corpus"

// TestMain lets the test binary serve as the sessions' worker.
func TestMain(m *testing.M) {
	repl.MaybeRunWorker()
	os.Exit(m.Run())
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// cellSep separates the cells of a corpus session.
var cellSep = regexp.MustCompile(`(?m)^// cell\n`)

type corpusProgram struct {
	name  string // file name without .go
	src   string
	cells []string
}

func (p corpusProgram) isProgram() bool { return strings.HasPrefix(p.src, "package main") }

func loadCorpus(t testing.TB) []corpusProgram {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := filepath.Glob(filepath.Join(corpusDir, "*.gocell"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, cells...)
	sort.Strings(files)
	var out []corpusProgram
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".go"), ".gocell")
		p := newCorpusProgram(name, string(b))
		if p.isProgram() != strings.HasSuffix(f, ".go") {
			t.Fatalf("%s: whole programs (package main) are .go files, sessions of cells .gocell files", f)
		}
		out = append(out, p)
	}
	return out
}

func newCorpusProgram(name, src string) corpusProgram {
	p := corpusProgram{name: name, src: src}
	if p.isProgram() {
		p.cells = []string{src}
	} else {
		p.cells = cellSep.Split(src, -1)
	}
	return p
}

// refusal is an entry of REFUSALS.txt: a corpus program the REPL refuses,
// the text its error must contain, and why the form cannot be supported.
type refusal struct{ errHas, why string }

func loadRefusals(t testing.TB) map[string]refusal {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "REFUSALS.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]refusal{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		parts := strings.SplitN(l, "\t", 3)
		if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
			t.Fatalf("REFUSALS.txt:%d: want name<TAB>error text<TAB>reason, got %q", n, l)
		}
		out[parts[0]] = refusal{parts[1], parts[2]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// nativeSource turns a corpus program into the source of package pkg whose
// function Main runs it.
func nativeSource(p corpusProgram, pkg string) (string, error) {
	if p.isProgram() {
		src := strings.Replace(p.src, "package main", "package "+pkg, 1)
		if !mainFuncRE.MatchString(src) {
			return "", errors.New("program has no func main")
		}
		if initFuncRE.MatchString(src) {
			return "", errors.New("corpus programs may not declare init: it would run in every program of the native binary")
		}
		return mainFuncRE.ReplaceAllString(src, "func Main() {"), nil
	}
	return rewrite.NativeCells(strings.Join(p.cells, ""), pkg)
}

var (
	mainFuncRE = regexp.MustCompile(`(?m)^func main\(\) \{`)
	initFuncRE = regexp.MustCompile(`(?m)^func init\(\)`)
)

// nativeResult is what a program printed natively, and whether it failed.
type nativeResult struct {
	compileErr string // the program does not compile
	stdout     string
	failed     bool // exited non-zero (a panic)
	stderr     string
}

// buildNative compiles every program into one binary (one package each,
// Main selected by the first argument) and runs them all. The binary is
// kept in the user cache, keyed by the sources and the Go version, so an
// unchanged corpus is not built again.
func buildNative(t testing.TB, progs []corpusProgram) map[string]nativeResult {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is needed to run the corpus natively")
	}
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version())
	srcs := map[string]string{}
	results := map[string]nativeResult{}
	pkgOf := map[string]string{}
	for i, p := range progs {
		pkg := fmt.Sprintf("p%04d", i)
		src, err := nativeSource(p, pkg)
		if err != nil {
			results[p.name] = nativeResult{compileErr: err.Error()}
			continue
		}
		srcs[pkg], pkgOf[pkg] = src, p.name
		fmt.Fprintf(h, "%s\x00%s\x00", pkg, src)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "rlm-repl-corpus")
	dir := filepath.Join(root, hex.EncodeToString(h.Sum(nil))[:16])
	// Binaries of earlier versions of the corpus are of no more use.
	if old, err := os.ReadDir(root); err == nil {
		for _, e := range old {
			if e.Name() != filepath.Base(dir) {
				os.RemoveAll(filepath.Join(root, e.Name()))
			}
		}
	}
	bin := filepath.Join(dir, "corpus.bin")
	broken := map[string]string{} // pkg -> compiler output
	if b, err := os.ReadFile(filepath.Join(dir, "broken.txt")); err == nil {
		for _, l := range strings.Split(string(b), "\x00") {
			if pkg, msg, ok := strings.Cut(l, "\x01"); ok {
				broken[pkg] = msg
			}
		}
	}
	if _, err := os.Stat(bin); err != nil {
		broken = buildCorpusBinary(t, goBin, dir, srcs)
		var rec []string
		for pkg, msg := range broken {
			rec = append(rec, pkg+"\x01"+msg)
		}
		if err := os.WriteFile(filepath.Join(dir, "broken.txt"), []byte(strings.Join(rec, "\x00")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for pkg, msg := range broken {
		results[pkgOf[pkg]] = nativeResult{compileErr: msg}
		delete(srcs, pkg)
	}
	var mu sync.Mutex
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for pkg := range srcs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, pkg)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			mu.Lock()
			// Each program is package pNNNN of one binary; run alone by
			// go run it is package main, which %T and %#v print.
			stdout := strings.ReplaceAll(out.String(), pkg+".", "main.")
			results[pkgOf[pkg]] = nativeResult{stdout: stdout, failed: err != nil, stderr: errOut.String()}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return results
}

// buildCorpusBinary writes the module and builds it; packages that do not
// compile are left out (and returned with the compiler's message) so that
// one broken program does not hide the others.
func buildCorpusBinary(t testing.TB, goBin, dir string, srcs map[string]string) map[string]string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte("module corpus\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for pkg, src := range srcs {
		if err := os.MkdirAll(filepath.Join(work, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, pkg, "prog.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	broken := map[string]string{}
	pkgRE := regexp.MustCompile(`(?m)^(?:\./)?(p\d{4})/prog\.go:.*$`)
	for attempt := 0; attempt < 5; attempt++ {
		var b strings.Builder
		b.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n")
		var pkgs []string
		for pkg := range srcs {
			if _, bad := broken[pkg]; !bad {
				pkgs = append(pkgs, pkg)
			}
		}
		sort.Strings(pkgs)
		for _, pkg := range pkgs {
			fmt.Fprintf(&b, "\t%q\n", "corpus/"+pkg)
		}
		b.WriteString(")\n\nfunc main() {\n\tswitch os.Args[1] {\n")
		for _, pkg := range pkgs {
			fmt.Fprintf(&b, "\tcase %q:\n\t\t%s.Main()\n", pkg, pkg)
		}
		b.WriteString("\tdefault:\n\t\tfmt.Fprintln(os.Stderr, \"unknown program\")\n\t\tos.Exit(2)\n\t}\n}\n")
		if err := os.WriteFile(filepath.Join(work, "main.go"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(goBin, "build", "-o", filepath.Join(dir, "corpus.bin"), ".")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false", "GO111MODULE=on")
		out, err := cmd.CombinedOutput()
		if err == nil {
			return broken
		}
		found := false
		for _, m := range pkgRE.FindAllStringSubmatch(string(out), -1) {
			if _, ok := srcs[m[1]]; ok {
				broken[m[1]] += m[0] + "\n"
				found = true
			}
		}
		if !found {
			t.Fatalf("building the native corpus: %v\n%s", err, out)
		}
	}
	t.Fatal("building the native corpus: too many broken programs")
	return nil
}

// replResult is what a program printed in the REPL, and its error.
type replResult struct {
	output string
	err    string
}

func runInREPL(ctx context.Context, p *repl.Pool, prog corpusProgram) (replResult, error) {
	s, err := p.NewSession(ctx, repl.SessionConfig{})
	if err != nil {
		return replResult{}, err
	}
	defer s.Close()
	var out strings.Builder
	for _, c := range prog.cells {
		r, err := s.Run(ctx, c)
		if err != nil {
			return replResult{}, err
		}
		out.WriteString(r.Output)
		if r.Error != "" {
			return replResult{output: out.String(), err: r.Error}, nil
		}
	}
	return replResult{output: out.String()}, nil
}

// verdict compares a native and a REPL run. It returns "same", "refused"
// (the REPL failed where Go succeeded) or "" with a reason when the REPL
// gave a successful result that Go does not give.
func verdict(n nativeResult, r replResult) (string, string) {
	switch {
	case n.failed && r.err == "":
		return "", fmt.Sprintf("native run failed (%s) but the REPL succeeded with output %q", firstLine(n.stderr), r.output)
	case n.failed:
		if !strings.HasPrefix(n.stdout, r.output) && !strings.HasPrefix(r.output, n.stdout) {
			return "", fmt.Sprintf("both failed but printed differently before:\nnative: %q\nREPL:   %q", n.stdout, r.output)
		}
		return "same", ""
	case r.err != "":
		return "refused", ""
	case n.stdout != r.output:
		return "", fmt.Sprintf("different output:\nnative: %q\nREPL:   %q", n.stdout, r.output)
	}
	return "same", ""
}

func TestCorpusDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the whole corpus")
	}
	progs := loadCorpus(t)
	if len(progs) < 300 {
		t.Errorf("the corpus has %d programs; it must keep at least 300", len(progs))
	}
	refusals := loadRefusals(t)
	start := time.Now()
	native := buildNative(t, progs)
	nativeTime := time.Since(start)
	p, err := repl.NewPool(repl.PoolConfig{Size: 2, Limits: repl.Limits{CellTimeout: 20 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start = time.Now()
	repl := make([]replResult, len(progs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, prog := range progs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := runInREPL(context.Background(), p, prog)
			if err != nil {
				r.err = "session: " + err.Error()
			}
			repl[i] = r
		}()
	}
	wg.Wait()
	replTime := time.Since(start)

	same, refused := 0, 0
	for i, prog := range progs {
		n, r := native[prog.name], repl[i]
		if n.compileErr != "" {
			t.Errorf("%s: does not compile natively; fix the corpus:\n%s", prog.name, n.compileErr)
			continue
		}
		v, why := verdict(n, r)
		ref, listed := refusals[prog.name]
		switch {
		case v == "":
			t.Errorf("%s: %s", prog.name, why)
		case v == "refused" && !listed:
			t.Errorf("%s: the REPL refused a program Go runs, and REFUSALS.txt does not list it: %s", prog.name, r.err)
		case v == "refused" && !strings.Contains(r.err, ref.errHas):
			t.Errorf("%s: refused with %q, REFUSALS.txt expects an error containing %q", prog.name, r.err, ref.errHas)
		case v == "refused":
			refused++
		case listed:
			t.Errorf("%s: listed in REFUSALS.txt but now runs identically; remove the entry", prog.name)
			same++
		default:
			same++
		}
	}
	for name := range refusals {
		if _, ok := native[name]; !ok {
			t.Errorf("REFUSALS.txt lists %s, which is not in the corpus", name)
		}
	}
	t.Logf("corpus: %d programs, %d identical (%.1f%%), %d refused with a listed error, %d failing; native build+run %v, REPL %v",
		len(progs), same, 100*float64(same)/float64(len(progs)), refused, len(progs)-same-refused, nativeTime.Round(time.Millisecond), replTime.Round(time.Millisecond))
}

// FuzzDifferential mutates corpus programs and checks that the REPL never
// returns a successful output that native Go does not give; it may refuse.
// Inputs that do not compile natively say nothing and are skipped. Run it
// with: go test ./repl/rewrite -run XXX -fuzz FuzzDifferential -fuzztime 10m
func FuzzDifferential(f *testing.F) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		f.Skip("the go command is needed to run programs natively")
	}
	progs := loadCorpus(f)
	fuzzing := flag.Lookup("test.fuzz") != nil && flag.Lookup("test.fuzz").Value.String() != ""
	// Each input is built with the go command (about half a second), so
	// fuzzing starts from every fifth program and a plain test run checks
	// six seeds.
	for i, p := range progs {
		if fuzzing && i%5 == 0 || i%60 == 0 {
			f.Add(p.src)
		}
	}
	pool, err := repl.NewPool(repl.PoolConfig{Size: 1, Limits: repl.Limits{CellTimeout: 10 * time.Second}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { pool.Close() })
	work := f.TempDir()
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte("module fuzz\n\ngo 1.26\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "\x00") || len(src) > 20000 {
			return
		}
		prog := newCorpusProgram("fuzz", src)
		n, ok := runNativeOnce(t, goBin, work, prog)
		if !ok {
			return // not a Go program: nothing to compare with
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r, err := runInREPL(ctx, pool, prog)
		if err != nil {
			t.Fatalf("session: %v", err)
		}
		if v, why := verdict(n, r); v == "" {
			t.Fatalf("%s\nprogram:\n%s", why, src)
		}
	})
}

// runNativeOnce builds and runs one program; ok is false when it does not
// compile or does not finish in time (the comparison then says nothing).
func runNativeOnce(t *testing.T, goBin, work string, prog corpusProgram) (nativeResult, bool) {
	src, err := nativeSource(prog, "main")
	if err != nil {
		return nativeResult{}, false
	}
	src = strings.Replace(src, "func Main() {", "func main() {", 1)
	if err := os.WriteFile(filepath.Join(work, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(work, "prog")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false")
	if err := cmd.Run(); err != nil {
		return nativeResult{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, bin)
	var out, errOut bytes.Buffer
	run.Stdout, run.Stderr = &out, &errOut
	err = run.Run()
	if ctx.Err() != nil {
		return nativeResult{}, false
	}
	return nativeResult{stdout: out.String(), stderr: errOut.String(), failed: err != nil}, true
}
