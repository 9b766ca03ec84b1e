// Package tracecmd is `rlm traces`: list, show, open, export and score
// recorded runs, from a trace directory on disk (--dir) or from a running
// gateway (--url, through traceapi.Client), with the same flags and output
// for both.
package tracecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/export"
	"github.com/rlm-project/rlm/tracing/traceapi"
)

const tracesUsage = `Usage:
  rlm traces list   [flags]                list recorded runs, newest first
  rlm traces show   [flags] ID             the recursion tree in the terminal
  rlm traces open   [flags] ID             open a run in the web viewer (prints its URL; with
                                           --dir and no --url, serves one over the directory until Ctrl-C)
  rlm traces export [flags] --out FILE     training samples as JSONL
  rlm traces feedback [flags] --score X ID attach a reward to a run
  rlm traces owners --dir DIR [--api-key K] whose runs a data directory holds

Runs are read from a running gateway (--url, --api-key) or, with --dir, from
a gateway's data directory (or rlm eval's traces directory) on this machine.
See docs/tracing.md.
`

// Command is `rlm traces` in rlm's list of commands.
var Command = cli.Command{Summary: "list, show, open and export recorded runs (trajectories)", Run: Run,
	Tables: func(env cli.Env) []*cli.Settings {
		var out []*cli.Settings
		for _, sub := range subcommands {
			t, _ := newTracesArgs(sub, env, io.Discard)
			out = append(out, t.settings)
		}
		return out
	}}

// subcommands are the subcommands of `rlm traces`.
var subcommands = []string{"list", "show", "open", "export", "feedback", "owners"}

// Run runs `rlm traces` with the arguments after "traces".
func Run(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, tracesUsage)
		if len(args) == 0 {
			return cli.ErrUsage
		}
		return nil
	}
	t, err := parseTracesArgs(args[0], args[1:], env, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	src, err := t.source(ctx, stdout)
	if err != nil || src == nil {
		return err
	}
	switch t.sub {
	case "list":
		return t.list(ctx, src, stdout, stderr)
	case "show":
		return t.show(ctx, src, stdout)
	case "open":
		return t.open(ctx, src, stdout, stderr)
	case "feedback":
		return t.feedback(ctx, src, stdout)
	}
	return t.export(ctx, src, stdout, stderr)
}

// tracesArgs are the parsed arguments of one `rlm traces` subcommand.
type tracesArgs struct {
	sub, id        string
	fs             *flag.FlagSet
	settings       *cli.Settings
	base, key, dir string
	owner          string
	q              filterFlags
	listen         string
	out, format    string
	score          float64
	label          string
	asJSON         bool
}

// newTracesArgs defines the flags of the subcommand sub, whose help goes
// to stderr; false for an unknown subcommand. The gateway's address and
// key are settings; the rest are arguments.
func newTracesArgs(sub string, env cli.Env, stderr io.Writer) (*tracesArgs, bool) {
	t := &tracesArgs{sub: sub}
	fs := flag.NewFlagSet("rlm traces "+sub, flag.ContinueOnError)
	t.fs, t.settings = fs, cli.NewSettings("traces "+sub, fs, env)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, tracesUsage)
		fmt.Fprintf(stderr, "\nOf %s:\n", sub)
		t.settings.PrintUsage(stderr)
	}
	fs.StringVar(&t.base, "url", "http://127.0.0.1:8080", "gateway base `URL`")
	fs.StringVar(&t.key, "api-key", "", "gateway API `key`; with --dir, selects the runs of the owner the gateway derives from it")
	fs.StringVar(&t.dir, "dir", "", "read the gateway's data `directory` (its disk store) instead of asking the gateway")
	fs.StringVar(&t.owner, "owner", "", "with --dir: whose runs, as the owner id (default: derived from --api-key, else \""+tracing.DefaultOwner+"\", the owner of a gateway without keys and of rlm eval)")
	switch sub {
	case "list":
		t.q.register(fs)
		fs.BoolVar(&t.asJSON, "json", false, "print the page as JSON")
	case "show":
		fs.BoolVar(&t.asJSON, "json", false, "print the whole trajectory as JSON")
	case "open":
		fs.StringVar(&t.listen, "listen", "127.0.0.1:0", "with --dir and no --url: `address` of the viewer served over the directory until Ctrl-C (port 0: any free one)")
	case "owners":
	case "export":
		t.q.register(fs)
		fs.StringVar(&t.format, "format", export.FormatSFT, "`format`: "+strings.Join(export.Formats, ", "))
		fs.StringVar(&t.out, "out", "", "output `file` (JSONL; - for stdout)")
	case "feedback":
		fs.Float64Var(&t.score, "score", 0, "reward `score` (required)")
		fs.StringVar(&t.label, "label", "", "reward `label`")
	default:
		return nil, false
	}
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != "url" && f.Name != "api-key" && f.Name != "config" {
			t.settings.Arguments(f.Name)
		}
	})
	return t, true
}

// parseTracesArgs parses and checks sub's flags and run ID.
func parseTracesArgs(sub string, args []string, env cli.Env, stderr io.Writer) (*tracesArgs, error) {
	t, ok := newTracesArgs(sub, env, stderr)
	if !ok {
		fmt.Fprintf(stderr, "rlm traces: unknown subcommand %q\n\n%s", sub, tracesUsage)
		return nil, cli.ErrUsage
	}
	// Flags may come after the run ID too: rlm traces show ID --json.
	pos, err := t.settings.ParseInterspersed(args, stderr)
	if err != nil {
		return nil, err
	}
	needID := sub == "show" || sub == "open" || sub == "feedback"
	if needID != (len(pos) == 1) || (!needID && len(pos) != 0) {
		if needID {
			fmt.Fprintf(stderr, "rlm traces %s: want exactly one run ID\n", sub)
		} else {
			fmt.Fprintf(stderr, "rlm traces %s: unexpected arguments %q\n", sub, pos)
		}
		return nil, cli.ErrUsage
	}
	if len(pos) == 1 {
		t.id = pos[0]
	}
	return t, t.check(stderr)
}

// check refuses flags that do not go together.
func (t *tracesArgs) check(stderr io.Writer) error {
	switch {
	case t.sub == "export" && t.out == "":
		fmt.Fprintln(stderr, "rlm traces export: --out is required")
		return cli.ErrUsage
	case t.sub == "feedback" && !cli.IsSet(t.fs, "score"):
		fmt.Fprintln(stderr, "rlm traces feedback: --score is required")
		return cli.ErrUsage
	case t.sub == "feedback" && (math.IsNaN(t.score) || math.IsInf(t.score, 0)):
		return cli.BadFlag("traces feedback: --score %v: want a finite number", t.score)
	case t.sub == "owners" && t.dir == "":
		return cli.BadFlag("traces owners: --dir is required (a gateway only shows an API key its own runs)")
	case t.dir == "" && cli.IsSet(t.fs, "owner"):
		return cli.BadFlag("traces %s: --owner needs --dir (a gateway decides the owner from --api-key)", t.sub)
	}
	if t.sub == "open" {
		if u, err := url.Parse(t.base); err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("--url %q: not an absolute URL", t.base)
		}
	}
	return nil
}

// source opens where the runs are read: the directory, or the gateway.
// `owners` is answered here, from the directory, and gives no source.
func (t *tracesArgs) source(ctx context.Context, stdout io.Writer) (traceSource, error) {
	if t.dir == "" {
		return &traceapi.Client{BaseURL: t.base, APIKey: t.key}, nil
	}
	ls, err := openLocal(ctx, t.dir, ownerChoice{owner: t.owner, ownerSet: cli.IsSet(t.fs, "owner"),
		key: t.key, keyFrom: t.settings.Source("api-key")})
	if err != nil {
		return nil, err
	}
	if err := ls.check(t.sub == "owners"); err != nil {
		return nil, err
	}
	switch t.sub {
	case "owners":
		ls.printOwners(stdout)
		return nil, nil
	case "feedback":
		if err := ls.writable(); err != nil {
			return nil, err
		}
	}
	return ls, nil
}

func (t *tracesArgs) list(ctx context.Context, src traceSource, stdout, stderr io.Writer) error {
	page, err := src.List(ctx, t.q.values())
	if err != nil {
		return err
	}
	if t.asJSON {
		return writeIndentJSON(stdout, page)
	}
	writeList(stdout, page)
	if len(page.Data) == 0 {
		fmt.Fprintln(stderr, "rlm traces: no runs match")
	}
	if ls, ok := src.(*localSource); ok {
		ls.hintOthers(stderr)
	}
	return nil
}

func (t *tracesArgs) show(ctx context.Context, src traceSource, stdout io.Writer) error {
	b, err := src.Get(ctx, t.id)
	if err != nil {
		return err
	}
	if t.asJSON {
		_, err := stdout.Write(append(b, '\n'))
		return err
	}
	var tr tracing.Trajectory
	if err := json.Unmarshal(b, &tr); err != nil {
		return fmt.Errorf("decode trace %s: %w", t.id, err)
	}
	writeTree(stdout, &tr)
	return nil
}

func (t *tracesArgs) open(ctx context.Context, src traceSource, stdout, stderr io.Writer) error {
	// Never send anyone to a page that would say "not found".
	if _, err := src.Get(ctx, t.id); err != nil {
		return err
	}
	if ls, ok := src.(*localSource); ok && !t.settings.Explicit("url") {
		// No gateway was named as holding this directory (it may be rlm
		// eval's traces, or a copy from another machine): serve the
		// viewer over it.
		return ls.serveViewer(ctx, t.listen, t.id, stdout, stderr)
	}
	viewer := fmt.Sprintf("%s/ui/#/runs/%s", strings.TrimRight(t.base, "/"), url.PathEscape(t.id))
	fmt.Fprintln(stdout, viewer)
	if how, err := openBrowser(ctx, viewer); err != nil {
		fmt.Fprintf(stderr, "rlm traces open: could not open a browser (%v); open the URL above\n", err)
	} else if how != "" {
		fmt.Fprintf(stderr, "rlm traces open: opened in your browser (%s)\n", how)
	}
	return nil
}

func (t *tracesArgs) feedback(ctx context.Context, src traceSource, stdout io.Writer) error {
	if err := src.Feedback(ctx, t.id, t.score, t.label); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recorded reward %s", strconv.FormatFloat(t.score, 'g', -1, 64))
	if t.label != "" {
		fmt.Fprintf(stdout, " (label %q)", t.label)
	}
	fmt.Fprintf(stdout, " for run %s\n", t.id)
	return nil
}

func (t *tracesArgs) export(ctx context.Context, src traceSource, stdout, stderr io.Writer) error {
	v := t.q.values()
	v.Set("format", t.format)
	if t.out == "-" {
		n, err := src.Export(ctx, v, newExportProgress(stdout, stderr))
		if err == nil {
			fmt.Fprintf(stderr, "%d samples\n", n)
		}
		return err
	}
	// Write beside the target and rename, so a failed export never leaves
	// a truncated file that looks complete.
	tmp, err := os.CreateTemp(filepath.Dir(t.out), ".export-*.jsonl")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name())
	n, err := src.Export(ctx, v, newExportProgress(tmp, stderr))
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("export: write %s: %w", tmp.Name(), cerr)
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), t.out); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stderr, "wrote %d samples to %s\n", n, t.out)
	return nil
}

// serveViewer serves the web viewer over the directory until ctx ends
// (Ctrl-C), opening run id in a browser: the viewer's assets and the trace
// API as a gateway serves them, for the directory's owner only, on a
// loopback address by default.
func (s *localSource) serveViewer(ctx context.Context, listen, id string, stdout, stderr io.Writer) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("traces open: %w", err)
	}
	mux := http.NewServeMux()
	ui := traceapi.UIHandler()
	mux.Handle("/", ui)
	mux.Handle("/v1/", traceapi.New(s.svc, traceapi.Config{}).Handler(func(*http.Request) (string, error) { return s.owner, nil }))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	viewer := fmt.Sprintf("http://%s/ui/#/runs/%s", ln.Addr(), url.PathEscape(id))
	fmt.Fprintln(stdout, viewer)
	fmt.Fprintf(stderr, "rlm traces open: serving the viewer over %s (owner %s) until Ctrl-C\n", s.dir, s.owner)
	if how, err := openBrowser(ctx, viewer); err != nil {
		fmt.Fprintf(stderr, "rlm traces open: could not open a browser (%v); open the URL above\n", err)
	} else if how != "" {
		fmt.Fprintf(stderr, "rlm traces open: opened in your browser (%s)\n", how)
	}
	select {
	case err := <-done:
		return fmt.Errorf("traces open: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	<-done
	return nil
}

func writeIndentJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// filterFlags are the selection flags of list and export; they travel as the
// query parameters of GET /v1/traces.
type filterFlags struct {
	model, stop, status, since, until, minReward, cursor string
	limit                                                int
}

func (f *filterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "only runs of this root `model`")
	fs.StringVar(&f.stop, "stop-reason", "", "only runs that stopped for this `reason` (final, max_iterations, ...)")
	fs.StringVar(&f.status, "status", "", "only runs with this `status` (completed, incomplete, failed, cancelled)")
	fs.StringVar(&f.since, "since", "", "only runs started at or after `time` (RFC 3339, YYYY-MM-DD or Unix seconds)")
	fs.StringVar(&f.until, "until", "", "only runs started before `time`")
	fs.StringVar(&f.minReward, "min-reward", "", "only runs with a reward of at least `x`")
	fs.StringVar(&f.cursor, "cursor", "", "list: continue from the next_cursor of a previous page")
	fs.IntVar(&f.limit, "limit", 0, "list: runs per page (default 50, max 1000)")
}

func (f *filterFlags) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"model": f.model, "stop_reason": f.stop, "status": f.status, "since": f.since,
		"until": f.until, "min_reward": f.minReward, "cursor": f.cursor} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.limit != 0 {
		v.Set("limit", strconv.Itoa(f.limit))
	}
	return v
}

// traceSource is where the command reads runs: a gateway or a data directory.
// *traceapi.Client is the gateway's.
type traceSource interface {
	List(ctx context.Context, q url.Values) (tracing.Page, error)
	Get(ctx context.Context, id string) ([]byte, error)
	Export(ctx context.Context, q url.Values, w io.Writer) (int, error)
	Feedback(ctx context.Context, id string, score float64, label string) error
}

type localSource struct {
	svc    *tracing.Service
	dir    string
	owner  string
	why    string         // where owner came from, for messages
	owners map[string]int // runs by owner in the directory
}

// ownerChoice is what the command line says about whose runs to read.
type ownerChoice struct {
	owner, key string
	ownerSet   bool   // given as a flag
	keyFrom    string // where the key came from (cli.Settings.Source)
}

// ownerOfKey is the owner a gateway records a key's runs under.
func ownerOfKey(key string) string { return store.OwnerOfKey(strings.TrimSpace(key)) }

// openLocal opens a data directory's trajectories read-only: reading
// commands never create the directory (a mistyped --dir is an error, not an
// empty listing) and never touch a running gateway's files.
func openLocal(ctx context.Context, dir string, oc ownerChoice) (*localSource, error) {
	d, err := store.OpenDiskReadOnly(dir)
	if err != nil {
		return nil, fmt.Errorf("--dir: %w", err)
	}
	svc := newLocalService(d)
	owners, err := svc.Archive().Owners(ctx)
	if err != nil {
		return nil, fmt.Errorf("--dir %s: %w", dir, err)
	}
	s := &localSource{svc: svc, dir: dir, owners: owners, owner: tracing.DefaultOwner,
		why: "the default: the owner of a gateway without API keys and of rlm eval"}
	switch {
	case oc.ownerSet && strings.HasPrefix(oc.keyFrom, "flag") && oc.owner != ownerOfKey(oc.key):
		return nil, cli.BadFlag("--owner %s and --api-key disagree: that key's owner is %s", oc.owner, ownerOfKey(oc.key))
	case oc.ownerSet:
		s.owner, s.why = oc.owner, "--owner"
	case oc.key != "":
		s.owner, s.why = ownerOfKey(oc.key), "derived from the API key"
		if !strings.HasPrefix(oc.keyFrom, "flag") {
			s.why += " in the " + oc.keyFrom
		}
	}
	if !tracing.ValidName(s.owner) {
		return nil, cli.BadFlag("--owner %q: not an owner id", s.owner)
	}
	return s, nil
}

func newLocalService(st tracing.Store) *tracing.Service {
	return tracing.NewService(tracing.Config{Store: st})
}

// writable reopens the store for writing, for feedback, once check has
// found runs there.
func (s *localSource) writable() error {
	d, err := store.OpenDisk(s.dir)
	if err != nil {
		return fmt.Errorf("--dir: %w", err)
	}
	s.svc = newLocalService(d)
	return nil
}

// check fails when the directory holds no runs, or (unless anyOwner) none
// of the owner's, naming the owners it does hold.
func (s *localSource) check(anyOwner bool) error {
	if len(s.owners) == 0 {
		return fmt.Errorf("%s holds no recorded runs: give the --data-dir of an rlm serve that used the disk store, or the traces directory of an rlm eval (OUT/traces)", s.dir)
	}
	if !anyOwner && s.owners[s.owner] == 0 {
		return fmt.Errorf("%s holds no runs of owner %s (%s); it holds the runs of %s: choose one with --owner, or give the gateway API key whose runs you want with --api-key",
			s.dir, s.owner, s.why, ownerList(s.owners, ""))
	}
	return nil
}

// hintOthers says on w which other owners have runs in the directory, so
// that a listing of one owner never hides that there are others.
func (s *localSource) hintOthers(w io.Writer) {
	if len(s.owners) > 1 {
		fmt.Fprintf(w, "rlm traces: listed owner %s (%s); %s also holds the runs of %s (--owner)\n",
			s.owner, s.why, s.dir, ownerList(s.owners, s.owner))
	}
}

func (s *localSource) printOwners(w io.Writer) {
	names := make([]string, 0, len(s.owners))
	width := len("OWNER")
	for o := range s.owners {
		names = append(names, o)
		width = max(width, len(o))
	}
	sort.Strings(names)
	fmt.Fprintf(w, "%-*s  %6s\n", width, "OWNER", "RUNS")
	for _, o := range names {
		line := fmt.Sprintf("%-*s  %6d", width, o, s.owners[o])
		if o == s.owner {
			line += "  <- " + s.why
		}
		fmt.Fprintln(w, line)
	}
}

// ownerList writes the owners other than skip as "a (3 runs), b (1 run)".
func ownerList(owners map[string]int, skip string) string {
	var parts []string
	for o, n := range owners {
		if o == skip {
			continue
		}
		runs := "runs"
		if n == 1 {
			runs = "run"
		}
		parts = append(parts, fmt.Sprintf("%s (%d %s)", o, n, runs))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func (s *localSource) List(ctx context.Context, q url.Values) (tracing.Page, error) {
	f, err := traceapi.ParseFilter(q)
	if err != nil {
		return tracing.Page{}, err
	}
	return s.svc.List(ctx, s.owner, f)
}

func (s *localSource) Get(ctx context.Context, id string) ([]byte, error) {
	return s.svc.Raw(ctx, s.owner, id)
}

func (s *localSource) Export(ctx context.Context, q url.Values, w io.Writer) (int, error) {
	f, err := traceapi.ParseFilter(q)
	if err != nil {
		return 0, err
	}
	st, err := export.Write(ctx, s.svc.Archive(), s.owner, f, q.Get("format"), w)
	return st.Samples, err
}

func (s *localSource) Feedback(ctx context.Context, id string, score float64, label string) error {
	_, err := s.svc.Feedback(ctx, s.owner, id, tracing.Reward{Score: score, Label: label})
	return err
}

// exportProgress passes an export through and, on a long one, says every
// few seconds on stderr how many samples are written so far, so that the
// command shows it is alive. It prints from Write: no goroutine to stop.
type exportProgress struct {
	w, log  io.Writer
	n       int
	start   time.Time
	printed time.Time
}

// exportProgressEvery is how often a running export reports.
const exportProgressEvery = 2 * time.Second

func newExportProgress(w, log io.Writer) *exportProgress {
	now := time.Now()
	return &exportProgress{w: w, log: log, start: now, printed: now}
}

func (p *exportProgress) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += bytes.Count(b[:n], []byte("\n"))
	if now := time.Now(); now.Sub(p.printed) >= exportProgressEvery {
		p.printed = now
		fmt.Fprintf(p.log, "rlm: exported %d samples (%s)\n", p.n, now.Sub(p.start).Round(time.Second))
	}
	return n, err
}

// browserWait is how long openBrowser waits for the opener to report
// failure; an opener still running then has started the browser.
const browserWait = 5 * time.Second

// openBrowser opens u in the user's browser where there is one: with
// macOS's open, or with xdg-open in a desktop session (DISPLAY or
// WAYLAND_DISPLAY set). Over SSH or in a container there is none and it
// does nothing: the printed URL is the way there. It returns the program it
// used, or "" when there was none to use.
func openBrowser(ctx context.Context, u string) (string, error) {
	name := "xdg-open"
	switch {
	case runtime.GOOS == "darwin":
		name = "open"
	case os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "":
		return "", nil
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", nil
	}
	cmd := exec.Command(path, u)
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
	case <-time.After(browserWait):
	case <-ctx.Done():
	}
	return name, nil
}
