package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestSizes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"1048576", 1 << 20}, {"512MiB", 512 << 20}, {"64MB", 64e6}, {" 2 GiB ", 2 << 30}, {"3KiB", 3 << 10}, {"7B", 7}} {
		if got, err := ParseSize(c.in); err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "-1MiB", "lots", "1.5GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q): no error", bad)
		}
	}
	for _, n := range []int64{1, 1023, 1 << 10, 5 << 20, 3 << 30, 3<<30 + 1} {
		if got, err := ParseSize(FormatSize(n)); err != nil || got != n {
			t.Errorf("FormatSize(%d) = %q reads back as %d, %v", n, FormatSize(n), got, err)
		}
	}
}

func TestParseDevice(t *testing.T) {
	for _, c := range []struct {
		in, kind string
		ordinal  int
		err      bool
	}{{"auto", "auto", 0, false}, {"cpu", "cpu", 0, false}, {"cuda", "cuda", 0, false}, {"cuda:3", "cuda", 3, false},
		{"cuda:-1", "", 0, true}, {"cuda:x", "", 0, true}, {"gpu", "", 0, true}} {
		d, err := ParseDevice(c.in, "bf16")
		if (err != nil) != c.err || !c.err && (d.Kind != c.kind || d.Ordinal != c.ordinal) {
			t.Errorf("ParseDevice(%q) = %+v, %v", c.in, d, err)
		}
	}
	if _, err := ParseDevice("cpu", "fp8"); err == nil {
		t.Error("precision fp8 accepted")
	}
}

// TestFlagErrors: a bad flag is one line naming the flag's new name, the
// nearest name, or how to list the flags, and ParseFlags returns ErrUsage.
func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sampling-seed", "1"}, "rlm test: --sampling-seed was renamed --seed"},
		{[]string{"--temprature", "1"}, "unknown flag --temprature (did you mean --temperature?)"},
		{[]string{"--zzz"}, "unknown flag --zzz; `rlm test -h` lists its flags"},
		{[]string{"--n", "x"}, "invalid value \"x\" for flag --n"},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.String("temperature", "", "")
		fs.Int("n", 0, "")
		fs.String("seed", "", "")
		var stderr bytes.Buffer
		err := ParseFlags(fs, c.args, &stderr, func() {})
		if !errors.Is(err, ErrUsage) || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: %v, stderr %q; want one line with %q", c.args, err, stderr.String(), c.want)
		}
	}
}

// TestParseInterspersed: flags may follow positional arguments; after --
// everything is positional.
func TestParseInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	j := fs.Bool("json", false, "")
	pos, err := ParseInterspersed(fs, []string{"show", "ID", "--json", "--", "--not-a-flag"}, &bytes.Buffer{})
	if err != nil || !*j || strings.Join(pos, " ") != "show ID --not-a-flag" || !IsSet(fs, "json") || IsSet(fs, "other") {
		t.Errorf("positional %q, json %v, err %v", pos, *j, err)
	}
}
