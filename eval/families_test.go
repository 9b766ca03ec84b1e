package eval

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// templateRE turns a phrasing template into a regexp matching the
// questions made from it.
func templateRE(t string) *regexp.Regexp {
	q := regexp.QuoteMeta(t)
	q = regexp.MustCompile(`\\\{\w+\\\}`).ReplaceAllString(q, `.+`)
	return regexp.MustCompile("^" + q + "$")
}

// fromSet reports which of the set's templates produced q: "in", "out" or "".
func fromSet(p phrasingSet, q string) string {
	for _, tpl := range p.in {
		if templateRE(tpl).MatchString(q) {
			return PhrasingsHeldIn
		}
	}
	for _, tpl := range p.out {
		if templateRE(tpl).MatchString(q) {
			return PhrasingsHeldOut
		}
	}
	return ""
}

func TestPhrasingSetsDisjointAndUsed(t *testing.T) {
	sets := []struct {
		name string
		p    phrasingSet
		task func(set string) Task
		// index picks the question kind of records: its two kinds have
		// their own phrasing sets.
		index int
	}{
		{"sniah", sniahPhrasings, func(s string) Task { return &SNIAH{Depth: -1, Phrasings: s} }, 0},
		{"records-count", recordsCountPhrasings, func(s string) Task { return Records{Phrasings: s} }, 0},
		{"records-extract", recordsExtractPhrasings, func(s string) Task { return Records{Phrasings: s} }, 1},
		{"label-count", labelCountPhrasings, func(s string) Task { return LabelCount{Phrasings: s} }, 0},
	}
	for _, tc := range sets {
		t.Run(tc.name, func(t *testing.T) {
			for _, a := range tc.p.in {
				for _, b := range tc.p.out {
					if templateRE(a).MatchString(b) || templateRE(b).MatchString(a) || a == b {
						t.Errorf("held-in %q and held-out %q overlap", a, b)
					}
				}
			}
			for _, set := range []string{PhrasingsDefault, PhrasingsHeldIn, PhrasingsHeldOut} {
				seen := map[string]bool{}
				for seed := range int64(40) {
					inst, _ := generate(t, tc.task(set), Spec{Tokens: 2 << 10, Index: tc.index, Seed: seed})
					got := fromSet(tc.p, inst.Question)
					want := set
					if set == PhrasingsDefault {
						want = PhrasingsHeldIn
						if !templateRE(tc.p.in[0]).MatchString(inst.Question) {
							t.Fatalf("default phrasing gave %q, not the original wording", inst.Question)
						}
					}
					if got != want {
						t.Fatalf("phrasings %q gave %q, which is from set %q", set, inst.Question, got)
					}
					seen[inst.Question[:20]] = true
				}
				if set != PhrasingsDefault && len(seen) < 2 {
					t.Errorf("phrasings %q: 40 seeds used only %d wording(s)", set, len(seen))
				}
			}
		})
	}
	if _, err := NewTask("sniah", TaskOptions{Phrasings: "held"}); err == nil {
		t.Error("unknown phrasing set accepted")
	}
}

var anyNeedleRE = regexp.MustCompile(`One of the special magic (numbers|uuids) for ([a-z]+-[a-z]+) is: ([0-9a-f-]+)\.`)

func TestSNIAHMultiKey(t *testing.T) {
	hay := filepath.Join(t.TempDir(), "hay.txt")
	if err := os.WriteFile(hay, []byte(strings.Repeat("It was a dark and stormy night; the rain fell in torrents.\n", 40)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, task := range []*SNIAH{{Depth: -1, Keys: 6}, {Depth: 0.3, Keys: 3, UUID: true}, {Depth: -1, Keys: 5, Haystack: hay}} {
		for i := range 10 {
			inst, ctx := generate(t, task, Spec{Tokens: 4 << 10, Index: i, Seed: 7})
			ms := anyNeedleRE.FindAllStringSubmatch(ctx, -1)
			if len(ms) != task.Keys {
				t.Fatalf("%s #%d: %d needles, want %d", task.Name(), i, len(ms), task.Keys)
			}
			keys := map[string]string{}
			for _, m := range ms {
				if _, dup := keys[m[2]]; dup {
					t.Fatalf("%s #%d: key %s twice", task.Name(), i, m[2])
				}
				keys[m[2]] = m[3]
			}
			if keys[inst.Meta["key"]] != inst.Answer || !strings.Contains(inst.Question, inst.Meta["key"]) {
				t.Fatalf("%s #%d: asked key %s has value %q in the text, answer %q", task.Name(), i, inst.Meta["key"], keys[inst.Meta["key"]], inst.Answer)
			}
		}
	}
	if !strings.Contains((&SNIAH{Depth: -1, Keys: 2, Phrasings: "out"}).Name(), "keys=2,phrasings=out") {
		t.Error("name does not carry keys and phrasings")
	}
}

var orderRecordRE = regexp.MustCompile(`^ID: (\d+) \| name: ([A-Za-z ]+) \| city: (\w+) \| product: ([a-z ]+) \| quantity: (\d+)$`)

// TestRecordsAnswers recomputes every answer from the text alone.
func TestRecordsAnswers(t *testing.T) {
	for _, set := range []string{PhrasingsDefault, PhrasingsHeldOut} {
		for i := range 12 {
			inst, ctx := generate(t, Records{Phrasings: set}, Spec{Tokens: 3 << 10, Index: i, Seed: 11})
			lines := strings.Split(strings.TrimSuffix(ctx, "\n"), "\n")
			if lines[0]+"\n" != recordsHeader {
				t.Fatalf("header %q", lines[0])
			}
			byID := map[string]map[string]string{}
			count := 0
			prev := -1
			for _, l := range lines[1:] {
				m := orderRecordRE.FindStringSubmatch(l)
				if m == nil {
					t.Fatalf("bad record line %q", l)
				}
				id, _ := strconv.Atoi(m[1])
				if id <= prev {
					t.Fatalf("IDs not increasing: %d after %d", id, prev)
				}
				prev = id
				rec := map[string]string{"name": m[2], "city": m[3], "product": m[4], "quantity": m[5]}
				byID[m[1]] = rec
				if rec[inst.Meta["field"]] == inst.Meta["value"] {
					count++
				}
			}
			var want string
			switch inst.Meta["kind"] {
			case "count":
				want = strconv.Itoa(count)
				if !strings.Contains(inst.Question, "'"+inst.Meta["value"]+"'") {
					t.Fatalf("question %q does not quote the value", inst.Question)
				}
			case "extract":
				rec, ok := byID[inst.Meta["id"]]
				if !ok || !strings.Contains(inst.Question, inst.Meta["id"]) {
					t.Fatalf("record %s asked by %q is not in the text", inst.Meta["id"], inst.Question)
				}
				want = rec[inst.Meta["field"]]
			default:
				t.Fatalf("kind %q", inst.Meta["kind"])
			}
			if inst.Answer != want || inst.Meta["kind"] != []string{"count", "extract"}[i%2] {
				t.Fatalf("#%d %s: answer %q, the text gives %q", i, inst.Meta["kind"], inst.Answer, want)
			}
			if s, _ := Score(inst, "Answer: "+want); s != 1 {
				t.Fatalf("the right answer scores %v", s)
			}
		}
	}
}

var commentRE = regexp.MustCompile(`^Date: \w{3} \d{2}, \d{4} \|\| User: \d+ \|\| Instance: (.+)$`)

func TestLabelCountAnswers(t *testing.T) {
	for i := range 8 {
		inst, ctx := generate(t, LabelCount{Phrasings: PhrasingsHeldIn}, Spec{Tokens: 2 << 10, Index: i, Seed: 5})
		label := inst.Meta["label"]
		if !strings.Contains(inst.Question, "'"+label+"'") {
			t.Fatalf("question %q does not quote the label %q", inst.Question, label)
		}
		n := 0
		for _, l := range strings.Split(strings.TrimSpace(ctx), "\n")[1:] {
			m := commentRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("bad line %q", l)
			}
			got, ok := OolongLabel(m[1])
			if !ok {
				t.Fatalf("comment %q has no label", m[1])
			}
			if got == label {
				n++
			}
		}
		if inst.Answer != strconv.Itoa(n) {
			t.Fatalf("answer %s, the text has %d %s comments", inst.Answer, n, label)
		}
	}
}

// peakWriter discards what it is given and samples the live heap, to show
// that a generator streams instead of building its context in memory.
type peakWriter struct {
	n, writes int64
	peak      uint64
}

func (p *peakWriter) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	if p.writes++; p.writes%64 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		p.peak = max(p.peak, ms.HeapAlloc)
	}
	return len(b), nil
}

// TestGenerateTenMillionTokensStreams writes a 10M-token instance of each
// new family: the size is honoured and the heap stays far below the 40 MB
// of text.
func TestGenerateTenMillionTokensStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 40 MB per task")
	}
	const tokens = 10 << 20
	for _, task := range []Task{&SNIAH{Depth: -1, Keys: 4, UUID: true, Phrasings: PhrasingsHeldOut}, Records{}, LabelCount{}} {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		w := &peakWriter{}
		inst, err := task.Generate(context.Background(), w, Spec{Tokens: tokens, Index: 1, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(tokens) * CharsPerToken
		if inst.Bytes != w.n || w.n < want-200 || w.n > want+200 {
			t.Errorf("%s: wrote %d bytes (instance says %d), want about %d", task.Name(), w.n, inst.Bytes, want)
		}
		if grew := int64(w.peak) - int64(base.HeapAlloc); grew > 16<<20 {
			t.Errorf("%s: heap grew by %d MB while writing", task.Name(), grew>>20)
		}
		t.Logf("%s: %s, %d bytes, answer %q", task.Name(), fmt.Sprint(inst.Meta), w.n, inst.Answer)
	}
}

var _ io.Writer = (*peakWriter)(nil)
