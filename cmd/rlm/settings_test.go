package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/internal/fakellm"
)

var updateDocs = flag.Bool("update", false, "rewrite the generated table of docs/settings.md, and the built-in model's recorded score (TestBuiltinModelScore)")

// commandFlags returns the flags each command (and subcommand) of rlm
// shows in its -h output, with their help text.
func commandFlags(t *testing.T) map[string]map[string]string {
	t.Helper()
	subs := map[string][]string{"model": {"serve"}, "train": {"sft", "rl", "init", "tokenizer"},
		"traces": {"list", "show", "open", "export", "feedback", "owners"}}
	flagRE := regexp.MustCompile(`^  --?([a-z][a-z0-9-]*)`)
	out := map[string]map[string]string{}
	for name := range commands() {
		invocations := [][]string{{name}}
		for _, sub := range subs[name] {
			invocations = append(invocations, []string{name, sub})
		}
		for _, inv := range invocations {
			var buf bytes.Buffer
			run(t.Context(), append(inv, "-h"), &buf, &buf)
			flags := map[string]string{}
			lines := strings.Split(buf.String(), "\n")
			for i, l := range lines {
				if m := flagRE.FindStringSubmatch(l); m != nil && i+1 < len(lines) {
					flags[m[1]] = strings.TrimSpace(lines[i+1])
				}
			}
			if len(flags) == 0 && len(inv) == 1 && subs[name] != nil {
				continue // a command of subcommands
			}
			if len(flags) == 0 {
				t.Fatalf("rlm %s -h shows no flags:\n%s", strings.Join(inv, " "), buf.String())
			}
			out[strings.Join(inv, " ")] = flags
		}
	}
	return out
}

// settingFields returns, for each setting, the config fields setting it
// changes.
func settingFields(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, o := range settingsTable {
		for _, v := range []string{"7", "3s", "true", "x"} {
			c := &config{}
			if o.Value.Set(c, v) != nil {
				continue
			}
			out[o.Name] = changedFields(reflect.ValueOf(*c), "")
			break
		}
		if len(out[o.Name]) == 0 {
			t.Errorf("setting %s changes no field of config", o.Name)
		}
	}
	return out
}

func changedFields(v reflect.Value, prefix string) []string {
	var out []string
	for i := range v.NumField() {
		f, name := v.Field(i), prefix+v.Type().Field(i).Name
		if f.Kind() == reflect.Struct && f.Type().NumField() > 0 {
			out = append(out, changedFields(f, name+".")...)
		} else if !f.IsZero() {
			out = append(out, name)
		}
	}
	return out
}

// TestSettingsOneNamePerSetting fails on two names for one setting: two
// rows of the table that set the same field, a command's own flag that
// reads a setting's environment variable or repeats a setting's help under
// another name, or one of the old second names issue 11 found.
func TestSettingsOneNamePerSetting(t *testing.T) {
	byField := map[string]string{}
	for name, fields := range settingFields(t) {
		for _, f := range fields {
			if other, ok := byField[f]; ok {
				t.Errorf("settings %s and %s both set %s", other, name, f)
			}
			byField[f] = name
		}
	}
	rows := map[string]cli.Setting[config]{}
	envs := map[string]string{}
	helps := map[string]string{}
	for _, o := range settingsTable {
		if _, dup := rows[o.Name]; dup {
			t.Errorf("setting %s is listed twice", o.Name)
		}
		rows[o.Name] = o
		envs[cli.EnvName(o.Name)] = o.Name
		helps[o.Help] = o.Name
	}
	for _, r := range settingsRows() {
		if r.Fallback != "" {
			envs[r.Fallback] = r.Name
		}
	}
	// A setting's line of help ends with its variable, key and default.
	suffix := regexp.MustCompile(` \(env [A-Z_]+(, then [A-Z_]+)?, YAML [a-z0-9_]+(; default .*)?\)$`)
	var oldNames []string
	for old := range cli.RenamedFlags {
		oldNames = append(oldNames, old)
	}
	envRE := regexp.MustCompile(`\b(?:RLM|OPENAI)_[A-Z_]+`)
	for cmd, flags := range commandFlags(t) {
		for name, help := range flags {
			help = suffix.ReplaceAllString(help, "")
			if slices := strings.Fields(cmd); len(slices) == 1 && cli.CommandSet(cmd) != 0 {
				if o, ok := rows[name]; ok && o.Cmds&cli.CommandSet(cmd) == 0 {
					t.Errorf("rlm %s --%s: not a setting of %s in the table", cmd, name, cmd)
				}
			}
			if _, ok := rows[name]; ok && cli.CommandSet(cmd) != 0 {
				continue // the setting itself
			}
			for _, old := range oldNames {
				if _, current := rows[name]; name == old && !current {
					t.Errorf("rlm %s has --%s, a second name of a setting", cmd, name)
				}
			}
			for _, env := range envRE.FindAllString(help, -1) {
				if s, ok := envs[env]; ok && s != name { // the same setting may read its own
					t.Errorf("rlm %s --%s reads %s, the variable of setting --%s", cmd, name, env, s)
				}
			}
			if s, ok := helps[help]; ok && s != name {
				t.Errorf("rlm %s --%s has the help of setting --%s: %q", cmd, name, s, help)
			}
		}
	}
}

// settingsDoc is docs/settings.md's tables, generated from the code: the
// table serve, query and eval share, then the settings and arguments each
// command has of its own.
func settingsDoc() string {
	var b strings.Builder
	b.WriteString("### rlm serve, rlm query and rlm eval\n\n")
	b.WriteString("| flag | environment | YAML | default | commands | meaning |\n| --- | --- | --- | --- | --- | --- |\n")
	shared := map[string]bool{}
	for _, o := range settingsTable {
		shared[o.Name] = true
		fmt.Fprintf(&b, "| `--%s` | %s | `%s` | `%s` | %s | %s |\n", o.Name, docEnv(o.Name), cli.YAMLKey(o.Name), docDefault(o.Def), o.Cmds, docCell(o.Help))
	}
	// The other commands, in the order rlm help lists them; forms whose
	// settings are the same (the traces subcommands) share one section.
	type section struct {
		names []string
		rows  string
		args  []string
	}
	var sections []*section
	var names []string
	for name := range commands() {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, s := range commands()[name].Tables(cli.Env{}) {
			var rows strings.Builder
			for _, r := range s.Rows() {
				if shared[r.Name] && cli.CommandSet(s.Command()) != 0 {
					continue
				}
				fmt.Fprintf(&rows, "| `--%s` | %s | `%s` | `%s` | %s |\n", r.Name, docEnv(r.Name), r.YAML, docDefault(r.Default), docCell(r.Help))
			}
			args := ""
			for i, a := range s.ArgumentNames() {
				if i > 0 {
					args += ", "
				}
				args += "`--" + a + "`"
			}
			if args == "" {
				args = "none"
			}
			if rows.Len() == 0 && args == "none" {
				continue // serve: the shared table is all it has
			}
			if n := len(sections); n > 0 && sections[n-1].rows == rows.String() {
				sections[n-1].names = append(sections[n-1].names, s.Command())
				sections[n-1].args = append(sections[n-1].args, "`"+s.Command()+"`: "+args)
				continue
			}
			sections = append(sections, &section{names: []string{s.Command()}, rows: rows.String(), args: []string{args}})
		}
	}
	for _, sec := range sections {
		fmt.Fprintf(&b, "\n### rlm %s\n\n", strings.Join(sec.names, ", rlm "))
		if cli.CommandSet(sec.names[0]) != 0 {
			b.WriteString("The settings above, and:\n\n")
		}
		if len(sec.args) == 1 {
			fmt.Fprintf(&b, "Arguments (flags only): %s.\n", sec.args[0])
		} else {
			fmt.Fprintf(&b, "Arguments (flags only): %s.\n", strings.Join(sec.args, "; "))
		}
		if sec.rows == "" {
			continue
		}
		b.WriteString("\n| flag | environment | YAML | default | meaning |\n| --- | --- | --- | --- | --- |\n")
		b.WriteString(sec.rows)
	}
	return b.String()
}

// docEnv is the environment variable of the setting name, then the
// conventional one it falls back to.
func docEnv(name string) string {
	env := "`" + cli.EnvName(name) + "`"
	for _, s := range settingsRows() {
		if s.Name == name && s.Fallback != "" {
			env += ", then `" + s.Fallback + "`"
		}
	}
	return env
}

// settingsRows are the rows of settingsTable as serve, query and eval
// list them.
func settingsRows() []cli.Row {
	var rows []cli.Row
	for _, cmd := range cli.SettingCommands {
		s, _ := newSettings(cmd, flag.NewFlagSet(cmd, flag.ContinueOnError), cli.Env{})
		rows = append(rows, s.Rows()...)
	}
	return rows
}

func docDefault(def string) string {
	if def == "" {
		return "(empty)"
	}
	return def
}

func docCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// TestSettingsDocs checks that docs/settings.md holds the tables the code
// generates, so no setting lacks its row; `go test -run TestSettingsDocs
// -update` rewrites them.
func TestSettingsDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "settings.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- settings table: generated by go test ./cmd/rlm -run TestSettingsDocs -update -->\n", "<!-- end of settings table -->"
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers of the generated table", path)
	}
	want := settingsDoc()
	if got := doc[i+len(begin) : j]; got != want {
		if *updateDocs {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		for _, row := range strings.Split(strings.TrimSpace(want), "\n") {
			if !strings.Contains(got, row) {
				t.Errorf("%s lacks the row %s", path, row)
			}
		}
		t.Errorf("%s's tables differ from the code; run go test ./cmd/rlm -run TestSettingsDocs -update", path)
	}
}

// loadTable loads table i of the command name from scratch, with args
// (flags only), the environment env and no other.
func loadTable(t *testing.T, name string, i int, args []string, env map[string]string) (*cli.Settings, error) {
	t.Helper()
	s := commands()[name].Tables(cli.Env{Getenv: func(k string) string { return env[k] }})[i]
	return s, s.Parse(args, io.Discard)
}

// sampleValues are tried in turn as a setting's value in
// TestEverySettingRoundTrips: the first that its flag takes, and that
// changes its value, is used.
var sampleValues = []string{"7", "0.5", "3s", "true", "false", "2GiB", "cpu", "x"}

// TestEverySettingRoundTrips walks every command's table of settings:
// each setting, given as its flag, as its environment variable and as its
// key of a --config file, loads to the same values of every setting,
// different from the defaults; and the command's help lists it with its
// variable and key.
func TestEverySettingRoundTrips(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	checked := 0
	for name, c := range commands() {
		for i, table := range c.Tables(cli.Env{}) {
			t.Run(strings.ReplaceAll(table.Command(), " ", "_"), func(t *testing.T) {
				def, err := loadTable(t, name, i, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				var help bytes.Buffer
				run(t.Context(), append(strings.Fields(table.Command()), "-h"), &help, &help)
				for _, r := range table.Rows() {
					var v string
					for _, cand := range sampleValues {
						s, err := loadTable(t, name, i, []string{"--" + r.Name + "=" + cand}, nil)
						if err == nil && s.Values()[r.Name] != def.Values()[r.Name] {
							v = cand
							break
						}
					}
					if v == "" {
						t.Errorf("--%s: no sample value changes it", r.Name)
						continue
					}
					byFlag, _ := loadTable(t, name, i, []string{"--" + r.Name + "=" + v}, nil)
					byEnv, err := loadTable(t, name, i, nil, map[string]string{r.Env: v})
					if err != nil {
						t.Errorf("%s=%s: %v", r.Env, v, err)
						continue
					}
					file := filepath.Join(dir, strings.ReplaceAll(table.Command(), " ", "-")+"-"+r.Name+".yaml")
					os.WriteFile(file, []byte(r.YAML+": "+v+"\n"), 0o600)
					byFile, err := loadTable(t, name, i, nil, map[string]string{"RLM_CONFIG": file})
					if err != nil {
						t.Errorf("YAML %s: %s: %v", r.YAML, v, err)
						continue
					}
					if !reflect.DeepEqual(byFlag.Values(), byEnv.Values()) || !reflect.DeepEqual(byFlag.Values(), byFile.Values()) {
						t.Errorf("--%s=%s, %s=%s and YAML %s: %s load differently: %q, %q, %q", r.Name, v, r.Env, v, r.YAML, v,
							byFlag.Values()[r.Name], byEnv.Values()[r.Name], byFile.Values()[r.Name])
					}
					for _, s := range []*cli.Settings{byFlag, byEnv, byFile} {
						if !s.Explicit(r.Name) {
							t.Errorf("--%s given by %s is not explicit", r.Name, s.Source(r.Name))
						}
					}
					if want := fmt.Sprintf("(env %s", r.Env); !strings.Contains(help.String(), "  --"+r.Name+" ") ||
						!strings.Contains(help.String(), want) || !strings.Contains(help.String(), "YAML "+r.YAML) {
						t.Errorf("rlm %s -h does not list --%s with %s and YAML %s", table.Command(), r.Name, want, r.YAML)
					}
					checked++
				}
			})
		}
	}
	t.Cleanup(func() {
		if checked < 200 {
			t.Errorf("only %d settings checked", checked)
		}
	})
}

// TestSettingsReachQuery: `rlm query` takes the upstream from RLM_UPSTREAM
// (the name serve uses), before OPENAI_BASE_URL; with neither, and the
// built-in model turned off (RLM_LOCAL_MODEL=none), it refuses to guess
// one. The upstream is fakellm, a scripted fake (not a model).
func TestSettingsReachQuery(t *testing.T) {
	srv := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "FINAL(ok)"} })
	defer srv.Close()
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"RLM_UPSTREAM wins", map[string]string{"RLM_UPSTREAM": srv.URL, "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, "ok\n"},
		{"OPENAI_BASE_URL as fallback", map[string]string{"OPENAI_BASE_URL": srv.URL}, "ok\n"},
		{"none", map[string]string{"RLM_LOCAL_MODEL": "none"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"RLM_UPSTREAM", "OPENAI_BASE_URL", "RLM_UPSTREAM_KEY", "OPENAI_API_KEY", "RLM_LOCAL_MODEL"} {
				t.Setenv(k, tt.env[k])
			}
			t.Setenv("RLM_ROOT_MODEL", "root-model")
			var stdout, stderr bytes.Buffer
			status := run(t.Context(), []string{"query", "--quiet", "q"}, &stdout, &stderr)
			if stdout.String() != tt.want {
				t.Fatalf("status %d, stdout %q, stderr:\n%s", status, stdout.String(), stderr.String())
			}
			if tt.want == "" && (status != 1 || !strings.Contains(stderr.String(), "no upstream: set --upstream, RLM_UPSTREAM or OPENAI_BASE_URL")) {
				t.Errorf("status %d, stderr:\n%s", status, stderr.String())
			}
		})
	}
}

// TestBudgetSettings: a budget left at its default is only a maximum (the
// run's budget then follows its input); one set by flag or environment is
// the run's own for query and eval, and only a maximum for serve.
func TestBudgetSettings(t *testing.T) {
	load := func(cmd string, args []string, env map[string]string) *config {
		t.Helper()
		s, c := newSettings(cmd, flag.NewFlagSet(cmd, flag.ContinueOnError), cli.Env{Getenv: func(k string) string { return env[k] }})
		if err := s.Parse(args, io.Discard); err != nil {
			t.Fatal(err)
		}
		return c.loaded(s)
	}
	run, maxima := load("query", nil, nil).runBudgets()
	if run.MaxLLMCalls != 0 || run.MaxTotalTokens != 0 || run.Timeout != 0 ||
		maxima.MaxLLMCalls != 2000 || maxima.MaxTotalTokens != 50_000_000 || maxima.Timeout != time.Hour {
		t.Errorf("defaults: run %+v, maxima %+v", run, maxima)
	}
	run, maxima = load("eval", []string{"--max-total-tokens", "7000"}, map[string]string{"RLM_TIMEOUT": "5m"}).runBudgets()
	if run.MaxTotalTokens != 7000 || run.Timeout != 5*time.Minute || run.MaxLLMCalls != 0 || maxima.MaxTotalTokens != 7000 {
		t.Errorf("set: run %+v, maxima %+v", run, maxima)
	}
	defaults, maxima := load("serve", []string{"--max-total-tokens", "7000"}, nil).serveLimits()
	if defaults.MaxTotalTokens != 0 || defaults.MaxLLMCalls != 0 || defaults.Timeout != 0 || defaults.MaxIterations != 30 ||
		maxima.MaxTotalTokens != 7000 || maxima.MaxLLMCalls != 2000 || maxima.OffloadThreshold != 0 {
		t.Errorf("serve: defaults %+v, maxima %+v", defaults, maxima)
	}
}

// TestSettingsFileSharedByCommands: one YAML file configures every
// command: query reads its settings from it and ignores serve's and
// train's, and a key no command knows is an error.
func TestSettingsFileSharedByCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	good := write("rlm.yaml", "listen: 0.0.0.0:9000\nupstream: http://up.example/v1\nmax_llm_calls: 7\nlr: 0.001\n")
	env := newEnv(func(string) string { return "" })
	load := func(file string) (*config, error) {
		s, c := newSettings("query", flag.NewFlagSet("query", flag.ContinueOnError), env)
		if err := s.Parse([]string{"--config", file}, io.Discard); err != nil {
			return nil, err
		}
		return c.loaded(s), nil
	}
	c, err := load(good)
	if err != nil || c.Upstream != "http://up.example/v1" || c.Limits.MaxLLMCalls != 7 || !c.explicit["max-llm-calls"] || c.Listen != "" {
		t.Fatalf("%v %+v", err, c)
	}
	for body, want := range map[string]string{
		"max_calls: 7\n":       "key max_calls was renamed max_llm_calls",
		"max_iteration: 7\n":   `unknown key "max_iteration" (did you mean max_iterations?)`,
		"max-iterations: 7\n":  `unknown key "max-iterations" (did you mean max_iterations?)`,
		"context: notes.txt\n": "key context: --context is an argument of one invocation, given as a flag only",
	} {
		if _, err := load(write("bad.yaml", body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

// TestUnknownEnvWarned: an RLM_ variable no command reads is named on
// stderr, once, by every command, with the variable it may have meant; a
// setting's variable, or another variable rlm reads, is not.
func TestUnknownEnvWarned(t *testing.T) {
	t.Setenv("RLM_MAX_ITERATION", "5")
	t.Setenv("RLM_OUT", "x")
	t.Setenv("RLM_BASE_URL", "http://x")
	t.Setenv("RLM_LR", "0.1")
	t.Setenv("RLM_CUDA_DRIVER", "libcuda.so.1")
	for _, args := range [][]string{{"query", "-h"}, {"serve", "-h"}, {"model", "serve", "-h"}, {"train", "sft", "-h"},
		{"traces", "list", "-h"}, {"eval", "--n", "x"}, {"help"}} {
		var stdout, stderr bytes.Buffer
		run(t.Context(), args, &stdout, &stderr)
		for want, n := range map[string]int{
			"rlm: warning: environment variable RLM_MAX_ITERATION is not a setting: no rlm command reads it (did you mean RLM_MAX_ITERATIONS?)": 1,
			"rlm: warning: environment variable RLM_OUT is not a setting: --out is an argument of one invocation, given as a flag only":         1,
			"rlm: warning: environment variable RLM_BASE_URL is not a setting: it was renamed RLM_UPSTREAM":                                     1,
			"RLM_LR ": 0, "RLM_CUDA_DRIVER": 0,
		} {
			if got := strings.Count(stderr.String(), want); got != n {
				t.Errorf("rlm %s: %q %d times on stderr, want %d:\n%s", strings.Join(args, " "), want, got, n, stderr.String())
			}
		}
	}
}

// TestDocsNameRealFlags: every flag README.md and docs/ name is one that
// some command's help lists, or a retired name the renamed table gives.
func TestDocsNameRealFlags(t *testing.T) {
	known := map[string]bool{}
	for _, flags := range commandFlags(t) {
		for name := range flags {
			known[name] = true
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	flagRE := regexp.MustCompile("(?:^|[ (`])--([a-z0-9][a-z0-9-]*)")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range flagRE.FindAllStringSubmatch(string(b), -1) {
			if name := m[1]; !known[name] && len(cli.RenamedFlags[name]) == 0 {
				t.Errorf("%s names --%s, which no command has", filepath.Base(f), name)
			}
		}
	}
}
