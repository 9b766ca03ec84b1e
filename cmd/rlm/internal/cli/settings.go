package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlm-project/rlm/eval"
)

// The settings of rlm serve, query and eval are one table (cmd/rlm's
// settingsTable): each row one name as a flag, an environment variable and
// a key of a YAML file, read in that order of precedence.

// CmdSet is the commands a setting applies to: bit i stands for
// SettingCommands[i].
type CmdSet uint8

const (
	ForServe CmdSet = 1 << iota
	ForQuery
	ForEval
	AllCommands = ForServe | ForQuery | ForEval
)

// SettingCommands are the commands that take settings, in CmdSet's order.
var SettingCommands = []string{"serve", "query", "eval"}

func (s CmdSet) String() string {
	var names []string
	for i, name := range SettingCommands {
		if s&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// CommandSet is the CmdSet of the command name; 0 for one without settings.
func CommandSet(name string) CmdSet {
	for i, n := range SettingCommands {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// Setting is one configuration setting: one name for every command that
// takes it, as a flag (--name), an environment variable (RLM_NAME) and a
// key of the --config YAML file (name with underscores). Precedence: flag,
// then environment variable, then the conventional fallback variable (for
// the upstream, OPENAI_BASE_URL and OPENAI_API_KEY), then YAML file, then
// the default.
//
// C is the configuration the settings fill in.
type Setting[C any] struct {
	Name string
	Cmds CmdSet
	Def  string
	Help string
	Set  func(c *C, v string) error
}

// Env is the setting's environment variable.
func (s Setting[C]) Env() string { return EnvName(s.Name) }

// YAML is the setting's key in a --config file.
func (s Setting[C]) YAML() string { return strings.ReplaceAll(s.Name, "-", "_") }

// EnvName is the environment variable of the setting name.
func EnvName(name string) string { return "RLM_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) }

// conventionalEnv are the environment variables OpenAI's own clients read,
// honoured by the settings of the same meaning when their RLM_ variable is
// unset.
var conventionalEnv = map[string]string{"upstream": "OPENAI_BASE_URL", "upstream-key": "OPENAI_API_KEY"}

// Fallback is the conventional environment variable of the setting, if any.
func (s Setting[C]) Fallback() string { return conventionalEnv[s.Name] }

// Str sets a string setting.
func Str[C any](f func(c *C) *string) func(*C, string) error {
	return func(c *C, v string) error { *f(c) = v; return nil }
}

// List sets a comma-separated list, empty items dropped.
func List[C any](f func(c *C) *[]string) func(*C, string) error {
	return func(c *C, v string) error {
		*f(c) = nil
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*f(c) = append(*f(c), s)
			}
		}
		return nil
	}
}

// Num sets an integer setting.
func Num[C any](f func(c *C) *int) func(*C, string) error {
	return func(c *C, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("not an integer: %q", v)
		}
		*f(c) = n
		return nil
	}
}

// Bool sets a boolean setting.
func Bool[C any](f func(c *C) *bool) func(*C, string) error {
	return func(c *C, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("not true or false: %q", v)
		}
		*f(c) = b
		return nil
	}
}

// Window reads a context window: auto (0), a positive number of tokens
// (8192, 128k) or a negative one (no compaction, -1).
func Window[C any](f func(c *C) *int) func(*C, string) error {
	return func(c *C, v string) error {
		if v == "auto" {
			*f(c) = 0
			return nil
		}
		if n, err := strconv.Atoi(v); err == nil && n < 0 {
			*f(c) = -1
			return nil
		}
		n, err := eval.ParseLength(v)
		if err != nil {
			return fmt.Errorf("want auto, a number of tokens like 131072 or 128k, or a negative number (no compaction): %q", v)
		}
		*f(c) = n
		return nil
	}
}

// Dur sets a duration setting.
func Dur[C any](f func(c *C) *time.Duration) func(*C, string) error {
	return func(c *C, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("not a duration like 30s or 5m: %q", v)
		}
		*f(c) = d
		return nil
	}
}

// Size sets a byte count (512MiB, 64MB, 1048576).
func Size[C any](f func(c *C) *int64) func(*C, string) error {
	return func(c *C, v string) error {
		n, err := ParseSize(v)
		if err != nil {
			return err
		}
		*f(c) = n
		return nil
	}
}

// SizeOrZero is Size for a setting where 0 means no bound.
func SizeOrZero[C any](f func(c *C) *int64) func(*C, string) error {
	return func(c *C, v string) error {
		if strings.TrimSpace(v) == "0" {
			*f(c) = 0
			return nil
		}
		return Size(f)(c, v)
	}
}

// SizeInt is Size for an int setting.
func SizeInt[C any](f func(c *C) *int) func(*C, string) error {
	return func(c *C, v string) error {
		n, err := ParseSize(v)
		if err != nil {
			return err
		}
		if n > 1<<31-1 {
			return fmt.Errorf("size %q is too large", v)
		}
		*f(c) = int(n)
		return nil
	}
}

// renamedSettings are the retired names of settings (see RenamedFlags),
// whose environment variables are refused.
var renamedSettings = []string{"api-keys", "local-kv-cache", "local-max-seqs", "local-max-batch-tokens", "local-max-model-len", "sampling-seed"}

// SettingFlags are the settings of one command registered on its FlagSet.
type SettingFlags[C any] struct {
	table  []Setting[C]
	cmd    string
	fs     *flag.FlagSet
	file   *string
	vals   map[string]*string
	getenv func(string) string
}

// RegisterSettings defines --config and a flag for every setting of table
// that the command cmd takes on fs. Values are strings until Load, which
// reads them with the environment and the YAML file in the order of
// precedence.
func RegisterSettings[C any](table []Setting[C], fs *flag.FlagSet, cmd string, getenv func(string) string) *SettingFlags[C] {
	s := &SettingFlags[C]{table: table, cmd: cmd, fs: fs, vals: map[string]*string{}, getenv: getenv}
	s.file = fs.String("config", getenv("RLM_CONFIG"), "optional YAML `file` of settings (env RLM_CONFIG); flags override environment variables, which override the file")
	for _, o := range s.settings() {
		v := new(string)
		s.vals[o.Name] = v
		if o.Def == "true" || o.Def == "false" {
			*v = o.Def
			fs.Var(boolString{v}, o.Name, o.usage()) // --name alone means true
			continue
		}
		fs.StringVar(v, o.Name, o.Def, o.usage())
	}
	return s
}

// boolString is a boolean setting's flag: its value is kept as text, like
// every setting's until load, but --name alone means --name=true.
type boolString struct{ p *string }

func (b boolString) String() string {
	if b.p == nil {
		return ""
	}
	return *b.p
}
func (b boolString) Set(v string) error { *b.p = v; return nil }
func (b boolString) IsBoolFlag() bool   { return true }

func (o Setting[C]) usage() string {
	env := o.Env()
	if o.Fallback() != "" {
		env += ", then " + o.Fallback()
	}
	return fmt.Sprintf("%s (env %s, YAML %s)", o.Help, env, o.YAML())
}

func (s *SettingFlags[C]) settings() []Setting[C] {
	var out []Setting[C]
	for _, o := range s.table {
		if o.Cmds&CommandSet(s.cmd) != 0 {
			out = append(out, o)
		}
	}
	return out
}

// PrintUsage writes the command's own flags (those of fs that are not
// settings), then its settings in the table's order, which groups them as
// docs/settings.md does.
func (s *SettingFlags[C]) PrintUsage(w io.Writer) {
	fmt.Fprintln(w, "Flags:")
	PrintFlags(w, s.fs, func(name string) bool {
		_, ok := s.vals[name]
		return ok || name == "config"
	})
	fmt.Fprintf(w, "Settings (a flag wins over the environment, which wins over the --config file; see docs/settings.md):\n")
	fmt.Fprintln(w, "  --config file\n    \toptional YAML file of settings (env RLM_CONFIG)")
	for _, o := range s.settings() {
		def := ""
		if o.Def != "" {
			def = "; default " + o.Def
		}
		env := o.Env()
		if o.Fallback() != "" {
			env += ", then " + o.Fallback()
		}
		fmt.Fprintf(w, "  --%s %s\n    \t%s (env %s, YAML %s%s)\n", o.Name, placeholder(o.Def), o.Help, env, o.YAML(), def)
	}
}

// Load applies defaults, then the YAML file, then the environment, then the
// flags fs was given, to a new C. A YAML key that no command knows is an
// error; one of another command's settings is ignored, so one file can
// serve them all. explicit names the settings given by flag, environment
// or file rather than left at their defaults.
func (s *SettingFlags[C]) Load() (c *C, explicit map[string]bool, err error) {
	setByFlag := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { setByFlag[f.Name] = true })
	fileVals := map[string]string{}
	if *s.file != "" {
		b, err := os.ReadFile(*s.file)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: config file: %w", s.cmd, err)
		}
		var raw map[string]any
		if err := yaml.Unmarshal(b, &raw); err != nil {
			return nil, nil, fmt.Errorf("%s: config file %s: %w", s.cmd, *s.file, err)
		}
		known := map[string]bool{}
		for _, o := range s.table {
			known[o.YAML()] = true
		}
		for k, v := range raw {
			if !known[k] {
				for _, to := range RenamedFlags[strings.ReplaceAll(k, "_", "-")] {
					if to := strings.ReplaceAll(to, "-", "_"); known[to] {
						return nil, nil, fmt.Errorf("%s: config file %s: key %s was renamed %s", s.cmd, *s.file, k, to)
					}
				}
			}
			if !known[k] {
				return nil, nil, fmt.Errorf("%s: config file %s: unknown key %q (see docs/settings.md)", s.cmd, *s.file, k)
			}
			fileVals[k] = yamlString(v)
		}
	}
	for _, old := range renamedSettings {
		// An old variable left in a deployment must not be ignored
		// silently: RLM_API_KEYS ignored would open the server.
		if env := EnvName(old); s.getenv(env) != "" {
			return nil, nil, fmt.Errorf("%s: environment variable %s was renamed %s", s.cmd, env, EnvName(RenamedFlags[old][0]))
		}
	}
	c, explicit = new(C), map[string]bool{}
	for _, o := range s.settings() {
		v, from := o.Def, "default"
		if fv, ok := fileVals[o.YAML()]; ok {
			v, from = fv, "config file key "+o.YAML()
		}
		if o.Fallback() != "" {
			if ev := s.getenv(o.Fallback()); ev != "" {
				v, from = ev, "environment variable "+o.Fallback()
			}
		}
		if ev := s.getenv(o.Env()); ev != "" {
			v, from = ev, "environment variable "+o.Env()
		}
		if setByFlag[o.Name] {
			v, from = *s.vals[o.Name], "flag --"+o.Name
		}
		if v == "" {
			continue
		}
		explicit[o.Name] = from != "default"
		if err := o.Set(c, v); err != nil {
			if setByFlag[o.Name] {
				return nil, nil, BadFlag("%s: %s: %w", s.cmd, from, err)
			}
			return nil, nil, fmt.Errorf("%s: %s: %w", s.cmd, from, err)
		}
	}
	return c, explicit, nil
}

// placeholder names the kind of value a setting takes in its help, judged
// by its default.
func placeholder(def string) string {
	if _, err := strconv.Atoi(def); err == nil {
		return "int"
	}
	if _, err := strconv.ParseBool(def); err == nil {
		return "bool"
	}
	if _, err := time.ParseDuration(def); err == nil {
		return "duration"
	}
	if _, err := ParseSize(def); err == nil {
		return "size"
	}
	return "string"
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
