package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
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
	subs := map[string][]string{"model": {"serve"}, "train": {"sft", "init"},
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
			if o.Set(c, v) != nil {
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
		envs[o.Env()] = o.Name
		if o.Fallback() != "" {
			envs[o.Fallback()] = o.Name
		}
		helps[o.Help] = o.Name
	}
	var oldNames []string
	for old := range cli.RenamedFlags {
		oldNames = append(oldNames, old)
	}
	envRE := regexp.MustCompile(`\b(?:RLM|OPENAI)_[A-Z_]+`)
	for cmd, flags := range commandFlags(t) {
		for name, help := range flags {
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

// settingsDocTable is docs/settings.md's table, generated from the code.
func settingsDocTable() string {
	var b strings.Builder
	b.WriteString("| flag | environment | YAML | default | commands | meaning |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, o := range settingsTable {
		def := o.Def
		if def == "" {
			def = "(empty)"
		}
		env := "`" + o.Env() + "`"
		if o.Fallback() != "" {
			env += ", then `" + o.Fallback() + "`"
		}
		fmt.Fprintf(&b, "| `--%s` | %s | `%s` | `%s` | %s | %s |\n", o.Name, env, o.YAML(), def, o.Cmds, strings.ReplaceAll(o.Help, "|", "\\|"))
	}
	return b.String()
}

// TestSettingsDocs checks that docs/settings.md holds the table the code
// generates, so no setting lacks its row; `go test -run TestSettingsDocs
// -update` rewrites it.
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
	want := settingsDocTable()
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
		t.Errorf("%s's table differs from the code; run go test ./cmd/rlm -run TestSettingsDocs -update", path)
	}
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
		fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		s := registerSettings(fs, cmd, func(k string) string { return env[k] })
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		c, err := s.load()
		if err != nil {
			t.Fatal(err)
		}
		return c
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
// command: query reads its settings from it and ignores serve's, and a key
// no command knows is an error.
func TestSettingsFileSharedByCommands(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "rlm.yaml")
	os.WriteFile(good, []byte("listen: 0.0.0.0:9000\nupstream: http://up.example/v1\nmax_llm_calls: 7\n"), 0o600)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("max_calls: 7\n"), 0o600)
	load := func(file string) (*config, error) {
		fs := flag.NewFlagSet("query", flag.ContinueOnError)
		s := registerSettings(fs, "query", func(string) string { return "" })
		if err := fs.Parse([]string{"--config", file}); err != nil {
			t.Fatal(err)
		}
		return s.load()
	}
	c, err := load(good)
	if err != nil || c.Upstream != "http://up.example/v1" || c.Limits.MaxLLMCalls != 7 || !c.explicit["max-llm-calls"] || c.Listen != "" {
		t.Fatalf("%v %+v", err, c)
	}
	if _, err := load(bad); err == nil || !strings.Contains(err.Error(), `key max_calls was renamed max_llm_calls`) {
		t.Fatalf("old key accepted: %v", err)
	}
}
