package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Every command of rlm reads its settings one way: each setting is a flag
// (--name), an environment variable (RLM_NAME) and a key of the YAML file
// --config names (name with underscores), in that order of precedence,
// then its default. Flags that name what one invocation works on (its
// input, its output, the run it acts on, what to list) are its arguments:
// flags only, for a variable or a file would hand the same input to every
// later invocation.

// Env is what a command reads besides its arguments.
type Env struct {
	// Getenv reads the environment; nil is os.Getenv.
	Getenv func(string) string
	// Names are every command's settings and arguments: a --config file
	// shared by several commands may hold another command's setting.
	// Empty, only the command's own are known.
	Names Names
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

// Names are the names of the settings and of the arguments of a set of
// commands.
type Names struct {
	Settings, Arguments map[string]bool
}

// NamesOf collects the names of the settings and arguments of tables.
func NamesOf(tables []*Settings) Names {
	n := Names{Settings: map[string]bool{}, Arguments: map[string]bool{}}
	for _, s := range tables {
		for _, r := range s.Rows() {
			n.Settings[r.Name] = true
		}
		for _, a := range s.ArgumentNames() {
			n.Arguments[a] = true
		}
	}
	return n
}

// EnvName is the environment variable of the setting name.
func EnvName(name string) string { return "RLM_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) }

// YAMLKey is the key of the setting name in a --config file.
func YAMLKey(name string) string { return strings.ReplaceAll(name, "-", "_") }

// conventionalEnv are the environment variables OpenAI's own clients read,
// honoured by the settings of the same meaning when their RLM_ variable is
// unset.
var conventionalEnv = map[string]string{"upstream": "OPENAI_BASE_URL", "upstream-key": "OPENAI_API_KEY"}

// renamedSettings are the retired names of settings (see RenamedFlags)
// whose environment variables a command with the new setting refuses: one
// ignored could leave a server open (RLM_API_KEYS).
var renamedSettings = []string{"api-keys", "local-kv-cache", "local-max-seqs", "local-max-batch-tokens", "local-max-model-len", "sampling-seed"}

// Settings are one command's settings: every flag of its FlagSet but
// --config and the flags it calls arguments.
type Settings struct {
	cmd     string // "serve", "train sft": how errors and docs name it
	fs      *flag.FlagSet
	env     Env
	file    *string
	args    map[string]bool
	order   []string // settings in the order help lists them; the rest follow by name
	sources map[string]string
}

// NewSettings defines --config on fs and returns the settings of the
// command cmd, whose flags are defined on fs (before or after this call).
func NewSettings(cmd string, fs *flag.FlagSet, env Env) *Settings {
	s := &Settings{cmd: cmd, fs: fs, env: env, args: map[string]bool{}, sources: map[string]string{}}
	s.file = fs.String("config", "", "YAML `file` of settings (env RLM_CONFIG)")
	return s
}

// Command is the name of the command the settings belong to.
func (s *Settings) Command() string { return s.cmd }

// Arguments marks flags of the command as its arguments: flags only.
func (s *Settings) Arguments(names ...string) {
	for _, n := range names {
		s.args[n] = true
	}
}

// ArgumentNames are the command's arguments, sorted.
func (s *Settings) ArgumentNames() []string {
	var out []string
	s.fs.VisitAll(func(f *flag.Flag) {
		if s.args[f.Name] {
			out = append(out, f.Name)
		}
	})
	return out
}

// Row is one setting as help and docs/settings.md list it.
type Row struct {
	Name, Env, Fallback, YAML, Default, Help string
	Flag                                     *flag.Flag
}

// Rows are the command's settings, in the order help lists them.
func (s *Settings) Rows() []Row {
	seen := map[string]bool{}
	var rows []Row
	add := func(f *flag.Flag) {
		if f == nil || seen[f.Name] || s.args[f.Name] || f.Name == "config" {
			return
		}
		seen[f.Name] = true
		rows = append(rows, Row{Name: f.Name, Env: EnvName(f.Name), Fallback: conventionalEnv[f.Name], YAML: YAMLKey(f.Name),
			Default: f.DefValue, Help: usageText(f), Flag: f})
	}
	for _, n := range s.order {
		add(s.fs.Lookup(n))
	}
	s.fs.VisitAll(add)
	return rows
}

// usageText is the flag's usage with the backquotes that name its value
// removed.
func usageText(f *flag.Flag) string {
	_, u := flag.UnquoteUsage(f)
	return u
}

// Parse parses args, which hold flags only, then reads the settings the
// command line left unset (see Load). Errors are reported as ParseFlags
// reports them; asked for help, it prints the FlagSet's Usage and returns
// flag.ErrHelp.
func (s *Settings) Parse(args []string, stderr io.Writer) error {
	if err := ParseFlags(s.fs, args, stderr, s.fs.Usage); err != nil {
		return err
	}
	if s.fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rlm %s: unexpected arguments %q; `rlm %s -h` lists its flags\n", s.cmd, s.fs.Args(), s.cmd)
		return ErrUsage
	}
	return s.Load()
}

// ParseInterspersed is Parse for a command with positional arguments,
// which flags may follow; it returns the positional ones.
func (s *Settings) ParseInterspersed(args []string, stderr io.Writer) ([]string, error) {
	pos, err := ParseInterspersed(s.fs, args, stderr)
	if err != nil {
		return nil, err
	}
	return pos, s.Load()
}

// Load reads every setting the command line left unset from its
// environment variable (or the conventional one of the upstream), then
// the --config file (RLM_CONFIG when --config is not given); the rest keep
// their defaults. A YAML key that no command knows is an error; one of
// another command's settings is ignored, so one file can serve them all.
// An old variable renamed to one of the command's settings is an error.
func (s *Settings) Load() error {
	given := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	path, from := *s.file, "--config"
	if !given["config"] {
		path, from = s.env.getenv("RLM_CONFIG"), "RLM_CONFIG"
	}
	fileVals, err := s.readFile(path, from)
	if err != nil {
		return err
	}
	mine := map[string]bool{}
	rows := s.Rows()
	for _, r := range rows {
		mine[r.Name] = true
	}
	for _, old := range renamedSettings {
		if env := EnvName(old); s.env.getenv(env) != "" && mine[RenamedFlags[old][0]] {
			return fmt.Errorf("%s: environment variable %s was renamed %s", s.cmd, env, EnvName(RenamedFlags[old][0]))
		}
	}
	for _, r := range rows {
		if given[r.Name] {
			s.sources[r.Name] = "flag --" + r.Name
			continue
		}
		v, src := "", ""
		if fv, ok := fileVals[r.YAML]; ok {
			v, src = fv, "config file key "+r.YAML
		}
		if r.Fallback != "" {
			if ev := s.env.getenv(r.Fallback); ev != "" {
				v, src = ev, "environment variable "+r.Fallback
			}
		}
		if ev := s.env.getenv(r.Env); ev != "" {
			v, src = ev, "environment variable "+r.Env
		}
		if src == "" {
			continue
		}
		if err := r.Flag.Value.Set(v); err != nil {
			return fmt.Errorf("%s: %s: %w", s.cmd, src, err)
		}
		s.sources[r.Name] = src
	}
	return nil
}

// readFile reads the YAML file at path (none when empty) into the values
// of this command's settings, as their flags would be written.
func (s *Settings) readFile(path, from string) (map[string]string, error) {
	vals := map[string]string{}
	if path == "" {
		return vals, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: config file (%s): %w", s.cmd, from, err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: config file %s: %w", s.cmd, path, err)
	}
	mine := map[string]bool{}
	var known []string
	for _, r := range s.Rows() {
		mine[r.YAML] = true
		known = append(known, r.YAML)
	}
	for name := range s.env.Names.Settings {
		known = append(known, YAMLKey(name))
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.ReplaceAll(k, "_", "-")
		switch {
		case mine[k]:
			vals[k] = yamlString(raw[k])
		case s.env.Names.Settings[name] && k == YAMLKey(name):
			// Another command's setting.
		case len(RenamedFlags[name]) > 0:
			return nil, fmt.Errorf("%s: config file %s: key %s was renamed %s", s.cmd, path, k, YAMLKey(RenamedFlags[name][0]))
		case s.args[name] || s.env.Names.Arguments[name]:
			return nil, fmt.Errorf("%s: config file %s: key %s: --%s is an argument of one invocation, given as a flag only (see docs/settings.md)", s.cmd, path, k, name)
		default:
			msg := fmt.Sprintf("%s: config file %s: unknown key %q", s.cmd, path, k)
			if near := Nearest(k, known); near != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", near)
			}
			return nil, fmt.Errorf("%s (see docs/settings.md)", msg)
		}
	}
	return vals, nil
}

// Explicit reports whether the setting name was given by flag, environment
// variable or file rather than left at its default.
func (s *Settings) Explicit(name string) bool { return s.sources[name] != "" }

// Source says where the setting name came from: "flag --name",
// "environment variable RLM_NAME", "config file key name" or "default".
func (s *Settings) Source(name string) string {
	if src := s.sources[name]; src != "" {
		return src
	}
	return "default"
}

// Values are the values of every setting as their flags print them.
func (s *Settings) Values() map[string]string {
	out := map[string]string{}
	for _, r := range s.Rows() {
		out[r.Name] = r.Flag.Value.String()
	}
	return out
}

// PrintUsage writes the command's arguments, when it has any, then its
// settings in the order of Rows, each with its variable, key and default.
func (s *Settings) PrintUsage(w io.Writer) {
	if len(s.ArgumentNames()) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		PrintFlags(w, s.fs, func(name string) bool { return !s.args[name] })
	}
	fmt.Fprintln(w, "\nSettings (flag, then environment variable, then --config file; see docs/settings.md):")
	fmt.Fprintln(w, "  --config file\n    \tYAML file of settings (env RLM_CONFIG)")
	for _, r := range s.Rows() {
		env := r.Env
		if r.Fallback != "" {
			env += ", then " + r.Fallback
		}
		def := ""
		if r.Default != "" {
			def = "; default " + r.Default
		}
		fmt.Fprintf(w, "  --%s %s\n    \t%s (env %s, YAML %s%s)\n", r.Name, valueName(r.Flag), r.Help, env, r.YAML, def)
	}
}

// valueName names the kind of value a flag takes in help.
func valueName(f *flag.Flag) string {
	if k, ok := f.Value.(interface{ Kind() string }); ok {
		return k.Kind()
	}
	name, _ := flag.UnquoteUsage(f)
	if name == "" {
		return "bool"
	}
	return name
}

// yamlString renders a YAML value the way the flag would be written: lists
// become comma-separated, maps alias=value pairs.
func yamlString(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = yamlString(e)
		}
		return strings.Join(parts, ",")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + yamlString(x[k])
		}
		return strings.Join(parts, ",")
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// WarnUnknownEnv writes one line to w for each RLM_ variable of environ
// that is no command's setting (names) and none of the other variables
// rlm reads (others): a typo would otherwise be ignored in silence. The
// line names the variable and, when one is close, the setting's variable
// it may have meant.
func WarnUnknownEnv(w io.Writer, environ []string, names Names, others []string) {
	known := map[string]bool{"RLM_CONFIG": true}
	for _, o := range others {
		known[o] = true
	}
	var vars []string
	for n := range names.Settings {
		vars = append(vars, EnvName(n))
	}
	sort.Strings(vars)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "RLM_") || known[k] {
			continue
		}
		name := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(k, "RLM_"), "_", "-"))
		if names.Settings[name] {
			continue
		}
		why := "no rlm command reads it"
		switch {
		case len(RenamedFlags[name]) > 0:
			why = "it was renamed " + EnvName(RenamedFlags[name][0])
		case names.Arguments[name]:
			why = "--" + name + " is an argument of one invocation, given as a flag only"
		default:
			if near := Nearest(k, vars); near != "" {
				why += fmt.Sprintf(" (did you mean %s?)", near)
			}
		}
		fmt.Fprintf(w, "rlm: warning: environment variable %s is not a setting: %s; see docs/settings.md\n", k, why)
	}
}
