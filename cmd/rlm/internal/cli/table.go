package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/eval"
)

// A table of settings fills one configuration C for several commands
// (serve, query and eval share cmd/rlm's): each row a setting, with the
// commands it applies to, its default and how its text reads into C.

// CmdSet is the commands a setting applies to: bit i stands for
// SettingCommands[i].
type CmdSet uint8

const (
	ForServe CmdSet = 1 << iota
	ForQuery
	ForEval
	AllCommands = ForServe | ForQuery | ForEval
)

// SettingCommands are the commands of CmdSet, in its order.
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

// CommandSet is the CmdSet of the command name; 0 for one not in it.
func CommandSet(name string) CmdSet {
	for i, n := range SettingCommands {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// Setting is one row of a table of settings of the configuration C.
type Setting[C any] struct {
	Name  string
	Cmds  CmdSet
	Def   string
	Help  string
	Value Field[C]
}

// Field reads a setting's text into a field of C, and writes that field
// as text again.
type Field[C any] struct {
	Set func(c *C, v string) error
	Get func(c *C) string
}

// RegisterTable defines on s's FlagSet a flag for every row of table that
// the command cmd takes, reading into c, whose fields are set to the rows'
// defaults first. Help lists them in the table's order.
func RegisterTable[C any](s *Settings, table []Setting[C], cmd CmdSet, c *C) {
	for _, o := range table {
		if o.Cmds&cmd == 0 {
			continue
		}
		if o.Def != "" {
			if err := o.Value.Set(c, o.Def); err != nil {
				panic(fmt.Sprintf("setting %s: default %q: %v", o.Name, o.Def, err))
			}
		}
		s.fs.Var(&rowValue[C]{row: o, c: c}, o.Name, o.Help)
		s.order = append(s.order, o.Name)
	}
	// The flag package records a Value's String as its default, which is
	// the row's default read back (1h0m0s for 1h); help shows it as written.
	for _, o := range table {
		if f := s.fs.Lookup(o.Name); f != nil && o.Cmds&cmd != 0 {
			f.DefValue = o.Def
		}
	}
}

// rowValue is the flag of one row.
type rowValue[C any] struct {
	row Setting[C]
	c   *C
}

func (v *rowValue[C]) String() string {
	if v.c == nil {
		return "" // the zero Value the flag package makes for its help
	}
	return v.row.Value.Get(v.c)
}
func (v *rowValue[C]) Set(s string) error { return v.row.Value.Set(v.c, s) }

// IsBoolFlag lets --name alone mean --name=true for a boolean row.
func (v *rowValue[C]) IsBoolFlag() bool { return v.row.Def == "true" || v.row.Def == "false" }

// Kind names the kind of value the row takes in help, judged by its
// default.
func (v *rowValue[C]) Kind() string {
	def := v.row.Def
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

// Str is a string setting.
func Str[C any](f func(c *C) *string) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error { *f(c) = v; return nil },
		Get: func(c *C) string { return *f(c) },
	}
}

// List is a comma-separated list, empty items dropped.
func List[C any](f func(c *C) *[]string) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error {
			*f(c) = nil
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					*f(c) = append(*f(c), s)
				}
			}
			return nil
		},
		Get: func(c *C) string { return strings.Join(*f(c), ",") },
	}
}

// Num is an integer setting.
func Num[C any](f func(c *C) *int) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("not an integer: %q", v)
			}
			*f(c) = n
			return nil
		},
		Get: func(c *C) string { return strconv.Itoa(*f(c)) },
	}
}

// Bool is a boolean setting.
func Bool[C any](f func(c *C) *bool) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("not true or false: %q", v)
			}
			*f(c) = b
			return nil
		},
		Get: func(c *C) string { return strconv.FormatBool(*f(c)) },
	}
}

// Window is a context window: auto (0), a positive number of tokens
// (8192, 128k) or a negative one (no compaction, -1).
func Window[C any](f func(c *C) *int) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error {
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
		},
		Get: func(c *C) string {
			if *f(c) == 0 {
				return "auto"
			}
			return strconv.Itoa(*f(c))
		},
	}
}

// Auto is an integer setting that may be auto (0), resolved when the
// command knows what it runs (see --max-failed-turns).
func Auto[C any](f func(c *C) *int) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error {
			if v == "auto" {
				*f(c) = 0
				return nil
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("want auto or a positive integer: %q", v)
			}
			*f(c) = n
			return nil
		},
		Get: func(c *C) string {
			if *f(c) == 0 {
				return "auto"
			}
			return strconv.Itoa(*f(c))
		},
	}
}

// Dur is a duration setting.
func Dur[C any](f func(c *C) *time.Duration) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("not a duration like 30s or 5m: %q", v)
			}
			*f(c) = d
			return nil
		},
		Get: func(c *C) string { return f(c).String() },
	}
}

// Size is a byte count (512MiB, 64MB, 1048576).
func Size[C any](f func(c *C) *int64) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error {
			n, err := ParseSize(v)
			if err != nil {
				return err
			}
			*f(c) = n
			return nil
		},
		Get: func(c *C) string { return FormatSize(*f(c)) },
	}
}

// SizeOrZero is Size for a setting where 0 means no bound.
func SizeOrZero[C any](f func(c *C) *int64) Field[C] {
	size := Size(f)
	return Field[C]{
		Set: func(c *C, v string) error {
			if strings.TrimSpace(v) == "0" {
				*f(c) = 0
				return nil
			}
			return size.Set(c, v)
		},
		Get: func(c *C) string { return FormatSize(*f(c)) },
	}
}

// SizeInt is Size for an int setting.
func SizeInt[C any](f func(c *C) *int) Field[C] {
	return Field[C]{
		Set: func(c *C, v string) error {
			n, err := ParseSize(v)
			if err != nil {
				return err
			}
			if n > 1<<31-1 {
				return fmt.Errorf("size %q is too large", v)
			}
			*f(c) = int(n)
			return nil
		},
		Get: func(c *C) string { return FormatSize(int64(*f(c))) },
	}
}
