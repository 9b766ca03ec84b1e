package eval

import (
	"context"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocs checks every kind and half of the docs task from the text
// alone: the needle is one line of its own, the key is written nowhere
// else, the question names the key and no other key-like token, and the
// answer is the value the needle gives, which DocValueRE finds on its line.
func TestDocs(t *testing.T) {
	keyRE := regexp.MustCompile(DocKeyRE)
	valueRE := regexp.MustCompile(DocValueRE)
	for _, source := range DocSources {
		for _, half := range []string{PhrasingsHeldIn, PhrasingsHeldOut} {
			task := &Docs{Source: source, Phrasings: half}
			t.Run(source+"-"+half, func(t *testing.T) {
				forms := map[string]bool{}
				for i := range 8 {
					inst, doc := generate(t, task, Spec{Tokens: 4 << 10, Index: i, Seed: 5})
					key, needle := inst.Meta["key"], inst.Meta["needle"]
					if n := strings.Count(doc, key); n != 1 {
						t.Fatalf("#%d: key %q written %d times", i, key, n)
					}
					lines := strings.Split(doc, "\n")
					at := slices.Index(lines, needle)
					if at < 0 {
						t.Fatalf("#%d: needle %q is not a line of its own", i, needle)
					}
					if got := valueRE.FindString(lines[at][strings.Index(lines[at], key)+len(key):]); got != inst.Answer {
						t.Fatalf("#%d: the value after the key in %q is %q, answer %q", i, needle, got, inst.Answer)
					}
					if ks := keyRE.FindAllString(inst.Question, -1); len(ks) != 1 || ks[0] != key {
						t.Fatalf("#%d: question %q has key-like tokens %q, want only %q", i, inst.Question, ks, key)
					}
					if d := len(doc) - 4<<10*CharsPerToken; d > 2000 || d < -2000 {
						t.Errorf("#%d: %d bytes, want about %d", i, len(doc), 4<<10*CharsPerToken)
					}
					if fromSet(docPhrasings, inst.Question) != half {
						t.Errorf("#%d: question %q is not from the %s half", i, inst.Question, half)
					}
					forms[needleForm(t, needle, half)] = true
				}
				if len(forms) < 2 {
					t.Errorf("8 instances used %d needle form(s)", len(forms))
				}
			})
		}
	}
}

// needleForm names the template that wrote needle, failing if it is not
// from half.
func needleForm(t *testing.T, needle, half string) string {
	t.Helper()
	for _, set := range []struct {
		half  string
		forms []string
	}{{PhrasingsHeldIn, docNeedles.in}, {PhrasingsHeldOut, docNeedles.out}} {
		for _, f := range set.forms {
			if docTemplateRE(f).MatchString(needle) {
				if set.half != half {
					t.Fatalf("needle %q is from the %s half, want %s", needle, set.half, half)
				}
				return f
			}
		}
	}
	t.Fatalf("needle %q is from no template", needle)
	return ""
}

// docTemplateRE matches what a docs template writes: its key, value and
// attribute are the forms Docs draws them from (templateRE's .+ would let
// "{key}: {value}" match a JSON field too).
func docTemplateRE(tpl string) *regexp.Regexp {
	q := regexp.QuoteMeta(tpl)
	q = strings.NewReplacer(`\{key\}`, "(?:"+DocKeyRE+")", `\{value\}`, "(?:"+DocValueRE+")", `\{attr\}`, "[a-z ]+").Replace(q)
	return regexp.MustCompile("^" + q + "$")
}

var docSample = map[string]string{"key": "quiet-harbor", "value": "KX-4471", "attr": "code"}

// TestDocsHalvesDisjoint: no text, format, needle form, attribute or
// wording is in both halves, so held-out documents are unseen.
func TestDocsHalvesDisjoint(t *testing.T) {
	for _, p := range []struct {
		name string
		set  phrasingSet
	}{{"needles", docNeedles}, {"attrs", docAttrs}, {"phrasings", docPhrasings}} {
		for _, a := range p.set.in {
			for _, b := range p.set.out {
				if a == b || docTemplateRE(a).MatchString(fillTemplate(b, docSample)) || docTemplateRE(b).MatchString(fillTemplate(a, docSample)) {
					t.Errorf("%s: held-in %q and held-out %q overlap", p.name, a, b)
				}
			}
		}
	}
	for _, source := range []string{"go", "prose"} {
		in, err := docFiles(source, PhrasingsHeldIn)
		if err != nil {
			t.Fatal(err)
		}
		out, err := docFiles(source, PhrasingsHeldOut)
		if err != nil {
			t.Fatal(err)
		}
		if len(in) == 0 || len(out) == 0 {
			t.Fatalf("%s: %d held-in and %d held-out files", source, len(in), len(out))
		}
		for _, f := range out {
			if _, found := slices.BinarySearch(in, f); found {
				t.Errorf("%s: %s is in both halves", source, f)
			}
		}
	}
	for _, lines := range []func(string) func() string{
		func(h string) func() string { return stringsOf(logLines(h, newRand("x", Spec{}))) },
		func(h string) func() string { return stringsOf(jsonLines(h, newRand("x", Spec{}))) },
		func(h string) func() string { return stringsOf(csvLines(h, newRand("x", Spec{}))) },
	} {
		in, out := lines(PhrasingsHeldIn), lines(PhrasingsHeldOut)
		a, b := in(), out()
		if shape(a) == shape(b) {
			t.Errorf("held-in %q and held-out %q have one format", a, b)
		}
	}
}

func stringsOf(next func() (string, error)) func() string {
	return func() string { s, _ := next(); return s }
}

// shape is a line with its letters and digits dropped: its format.
func shape(s string) string {
	return regexp.MustCompile(`[\pL\pN]+`).ReplaceAllString(s, "")
}

func TestDocsBadInput(t *testing.T) {
	for _, task := range []*Docs{{Source: "pdf"}, {}} {
		spec := Spec{Tokens: 1 << 10}
		if task.Source == "" {
			spec.Tokens = 0
		}
		if _, err := task.Generate(context.Background(), io.Discard, spec); err == nil {
			t.Errorf("%s %+v: no error", task.Name(), spec)
		}
	}
	if _, err := NewTask("docs", TaskOptions{Source: "go"}); err != nil {
		t.Error(err)
	}
}
