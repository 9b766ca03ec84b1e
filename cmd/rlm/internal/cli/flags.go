// Package cli holds the conventions every command of rlm follows on the
// command line: settings that are each a flag, an environment variable
// and a YAML key (settings.go, table.go), one line for a bad flag (with the
// new name of a renamed one or the nearest name of a mistyped one), help
// with two dashes, flags after positional arguments, exit status 2 for
// usage errors, and the --device and task flags that several commands
// share.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Command is one subcommand of rlm. Run gets the arguments after the
// subcommand's name. Tables returns its settings, one table for each form
// of it that has settings ("model serve", "train sft"), on flag sets of
// their own: for help, docs/settings.md, tests, and the names a --config
// file or the environment may use.
type Command struct {
	Summary string
	Run     func(ctx context.Context, env Env, args []string, stdout, stderr io.Writer) error
	Tables  func(env Env) []*Settings
}

// ErrUsage is returned by a command whose flags were wrong; ParseFlags has
// already printed why.
var ErrUsage = errors.New("usage")

// FlagError is a flag value that parsed but is not usable (a temperature
// that is not a number, an unknown baseline). rlm prints it and exits 2, as
// for the flag package's own errors.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// BadFlag returns a FlagError formatted like fmt.Errorf.
func BadFlag(format string, args ...any) error {
	return &FlagError{fmt.Errorf(format, args...)}
}

// MultiFlag collects a repeatable string flag.
type MultiFlag []string

func (m *MultiFlag) String() string     { return strings.Join(*m, ",") }
func (m *MultiFlag) Set(v string) error { *m = append(*m, v); return nil }

// RenamedFlags maps each retired flag name to the names that replaced
// it, so that a command given an old name says which to use instead: the
// first of them the command has. Every setting has one name in every
// command (issue 26).
var RenamedFlags = map[string][]string{
	"api-keys":               {"api-key"},
	"local-kv-cache":         {"kv-cache"},
	"kv-cache-tokens":        {"kv-cache"},
	"local-max-seqs":         {"max-seqs"},
	"local-max-batch-tokens": {"max-batch-tokens"},
	"local-max-model-len":    {"model-window"},
	"max-model-len":          {"model-window"},
	"context-window":         {"model-window"},
	"sampling-seed":          {"seed"},
	"concurrency":            {"parallel", "call-concurrency"},
	"max-tokens":             {"max-total-tokens", "max-completion-tokens"},
	"max-calls":              {"max-llm-calls"},
	// Names query and eval had before they shared serve's settings.
	"base-url":          {"upstream"},
	"api-key":           {"upstream-key"},
	"call-timeout":      {"upstream-timeout"},
	"call-idle-timeout": {"upstream-idle-timeout"},
	"retries":           {"upstream-retries"},
	"max-timeout":       {"timeout"},
	"sub-concurrency":   {"call-concurrency"},
}

// RenamedTo returns the flag of fs that replaced the retired name, if any.
func RenamedTo(fs *flag.FlagSet, name string) string {
	if fs.Lookup(name) != nil {
		return ""
	}
	for _, to := range RenamedFlags[name] {
		if fs.Lookup(to) != nil {
			return to
		}
	}
	return ""
}

// ParseFlags parses args with fs. Asked for help (-h), it prints usage to
// stderr and returns flag.ErrHelp. A bad flag gets one line on stderr,
// not the whole help: what was wrong, the new name of a renamed flag or
// the nearest name of a mistyped one, and how to see the flags; it
// returns ErrUsage.
func ParseFlags(fs *flag.FlagSet, args []string, stderr io.Writer, usage func()) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	fs.Usage = usage
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return flag.ErrHelp
	}
	fmt.Fprintln(stderr, flagErrorLine(fs, err))
	return ErrUsage
}

var (
	undefinedRE = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)
	dashNameRE  = regexp.MustCompile(`(flag|for|argument:) -([a-z0-9][a-z0-9-]*)`)
)

// flagErrorLine is the one line a bad flag gets.
func flagErrorLine(fs *flag.FlagSet, err error) string {
	cmd := "rlm " + strings.TrimPrefix(fs.Name(), "rlm ")
	help := fmt.Sprintf("`%s -h` lists its flags", cmd)
	if m := undefinedRE.FindStringSubmatch(err.Error()); m != nil {
		name, _, _ := strings.Cut(m[1], "=")
		if to := RenamedTo(fs, name); to != "" {
			return fmt.Sprintf("%s: --%s was renamed --%s", cmd, name, to)
		}
		if near := nearestFlag(fs, name); near != "" {
			return fmt.Sprintf("%s: unknown flag --%s (did you mean --%s?); %s", cmd, name, near, help)
		}
		return fmt.Sprintf("%s: unknown flag --%s; %s", cmd, name, help)
	}
	// The flag package names flags with one dash; rlm's help and errors
	// use two.
	return fmt.Sprintf("%s: %s; %s", cmd, dashNameRE.ReplaceAllString(err.Error(), "$1 --$2"), help)
}

// nearestFlag returns the flag of fs closest to name, if one is close
// enough to be a typo of it (see Nearest).
func nearestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return Nearest(name, names)
}

// Nearest returns the candidate closest to name, if one is close enough to
// be a typo of it: at most two edits, or name a part of it; "" if none.
func Nearest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(name, c)
		if len(name) >= 4 && strings.Contains(c, name) && d > 2 {
			d = 2
		}
		if d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// PrintFlags writes the flags of fs that skip does not leave out, in
// rlm's help style: two dashes, the kind of value, the usage and the
// default.
func PrintFlags(w io.Writer, fs *flag.FlagSet, skip func(name string) bool) {
	fs.VisitAll(func(f *flag.Flag) {
		if skip != nil && skip(f.Name) {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  --%s\n    \t%s%s\n", strings.TrimSpace(f.Name+" "+name), usage, def)
	})
}

// ParseInterspersed parses fs from args, letting flags follow positional
// arguments (which the flag package stops at); it returns the positional
// ones. After "--" everything is positional. Errors are reported as
// ParseFlags reports them.
func ParseInterspersed(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	var pos []string
	usage := fs.Usage
	for {
		if err := ParseFlags(fs, args, stderr, usage); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// IsSet reports whether the command line set the flag name of fs.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
