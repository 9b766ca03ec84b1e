package eval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func generate(t *testing.T, task Task, spec Spec) (Instance, string) {
	t.Helper()
	var buf bytes.Buffer
	inst, err := task.Generate(context.Background(), &buf, spec)
	if err != nil {
		t.Fatalf("%s %+v: %v", task.Name(), spec, err)
	}
	if inst.Bytes != int64(buf.Len()) {
		t.Fatalf("%s: Bytes = %d, wrote %d", task.Name(), inst.Bytes, buf.Len())
	}
	return inst, buf.String()
}

func TestParseLength(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		bad  bool
	}{
		{"8k", 8192, false}, {"128K", 131072, false}, {"1m", 1 << 20, false},
		{"10M", 10 << 20, false}, {"5000", 5000, false},
		{"", 0, true}, {"-3k", 0, true}, {"1g", 0, true}, {"k", 0, true},
	} {
		got, err := ParseLength(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseLength(%q) = %d, %v; want %d, bad=%v", tc.in, got, err, tc.want, tc.bad)
		}
		if !tc.bad && FormatLength(got) != strings.ToUpper(tc.in) {
			t.Errorf("FormatLength(%d) = %q, want %q", got, FormatLength(got), strings.ToUpper(tc.in))
		}
	}
}

func TestGeneratorsDeterministic(t *testing.T) {
	for _, task := range []Task{&SNIAH{Depth: -1}, &SNIAH{UUID: true, Depth: 0.5}, Oolong{}, OolongPairs{},
		&SNIAH{Depth: -1, Keys: 4, Phrasings: PhrasingsHeldOut}, Records{}, Records{Phrasings: PhrasingsHeldIn}, LabelCount{}} {
		t.Run(task.Name(), func(t *testing.T) {
			spec := Spec{Tokens: 8 << 10, Index: 3, Seed: 42}
			a, ca := generate(t, task, spec)
			b, cb := generate(t, task, spec)
			if ca != cb || fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatal("same spec gave different instances")
			}
			spec.Seed = 43
			c, cc := generate(t, task, spec)
			if cc == ca && c.Question == a.Question {
				t.Fatal("different seed gave the same instance")
			}
			// The length is honoured within a record or sentence.
			want := spec.Tokens * CharsPerToken
			if d := len(ca) - want; d > 200 || d < -200 {
				t.Errorf("context is %d bytes, want about %d", len(ca), want)
			}
		})
	}
}

func TestSNIAHNeedleOnce(t *testing.T) {
	hay := filepath.Join(t.TempDir(), "hay.txt")
	if err := os.WriteFile(hay, []byte("Call me Ishmael. Some years ago, never mind how long precisely,\nhaving little or no money in my purse.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		task   *SNIAH
		tokens int
		depth  float64 // want the needle near this fraction; <0 skips the check
	}{
		{"noise-start", &SNIAH{Depth: 0}, 8 << 10, 0},
		{"noise-middle", &SNIAH{Depth: 0.5}, 8 << 10, 0.5},
		{"noise-end", &SNIAH{Depth: 1}, 8 << 10, 1},
		{"noise-random", &SNIAH{Depth: -1}, 32 << 10, -1},
		{"uuid", &SNIAH{Depth: 0.25, UUID: true}, 8 << 10, 0.25},
		{"file", &SNIAH{Depth: 0.7, Haystack: hay}, 8 << 10, 0.7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inst, ctx := generate(t, tc.task, Spec{Tokens: tc.tokens, Index: 1, Seed: 7})
			needle := fmt.Sprintf("for %s is: %s.", inst.Meta["key"], inst.Answer)
			if n := strings.Count(ctx, "special magic"); n != 1 {
				t.Fatalf("%d needles, want 1", n)
			}
			if n := strings.Count(ctx, inst.Answer); n != 1 {
				t.Fatalf("value occurs %d times, want 1", n)
			}
			at := strings.Index(ctx, needle)
			if at < 0 {
				t.Fatalf("needle %q not in context", needle)
			}
			if tc.depth >= 0 {
				if got := float64(at) / float64(len(ctx)); got < tc.depth-0.02 || got > tc.depth+0.02 {
					t.Errorf("needle at depth %.3f, want %.2f", got, tc.depth)
				}
			}
			if !strings.Contains(inst.Question, inst.Meta["key"]) {
				t.Errorf("question %q does not name the key", inst.Question)
			}
			if tc.task.UUID != regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(inst.Answer) {
				t.Errorf("value %q: wrong form", inst.Answer)
			}
			if s, _ := Score(inst, "The number is "+strings.ToUpper(inst.Answer)); s != 1 {
				t.Errorf("score of the right answer = %v", s)
			}
		})
	}
}

func TestSNIAHRejectsHaystackWithNeedlePhrase(t *testing.T) {
	hay := filepath.Join(t.TempDir(), "hay.txt")
	os.WriteFile(hay, []byte(strings.Repeat("x", 70000)+"Special Magic numbers"), 0o644)
	if _, err := (&SNIAH{Haystack: hay}).Generate(context.Background(), &bytes.Buffer{}, Spec{Tokens: 1000}); err == nil {
		t.Fatal("no error for a haystack containing the needle phrase")
	}
	empty := filepath.Join(t.TempDir(), "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	if _, err := (&SNIAH{Haystack: empty}).Generate(context.Background(), &bytes.Buffer{}, Spec{Tokens: 1000}); err == nil {
		t.Fatal("no error for an empty haystack")
	}
}

var recordRE = regexp.MustCompile(`(?m)^Date: (\w{3} \d{2}, \d{4}) \|\| User: (\d+) \|\| Instance: (.*)$`)

type record struct {
	date  string
	user  string
	label string
}

func parseRecords(t *testing.T, ctx string) []record {
	t.Helper()
	var out []record
	for _, m := range recordRE.FindAllStringSubmatch(ctx, -1) {
		l, ok := OolongLabel(m[3])
		if !ok {
			t.Fatalf("cannot label %q", m[3])
		}
		out = append(out, record{m[1], m[2], l})
	}
	if got := strings.Count(ctx, "\n") - 1; got != len(out) {
		t.Fatalf("parsed %d records of %d lines", len(out), got)
	}
	return out
}

// TestOolongAnswers recounts the records independently and checks every
// question kind's gold answer against the recount.
func TestOolongAnswers(t *testing.T) {
	seenKinds := map[string]bool{}
	for i := 0; i < 12; i++ {
		inst, ctx := generate(t, Oolong{}, Spec{Tokens: 16 << 10, Index: i, Seed: 5})
		recs := parseRecords(t, ctx)
		seenKinds[inst.Meta["kind"]] = true
		count := func(keep func(record) bool) map[string]int {
			c := map[string]int{}
			for _, r := range recs {
				if keep(r) {
					c[r.label]++
				}
			}
			return c
		}
		all := count(func(record) bool { return true })
		var want string
		q := inst.Question
		quoted := regexp.MustCompile(`'(positive|negative|neutral)'`).FindAllStringSubmatch(q, -1)
		switch inst.Meta["kind"] {
		case qCount:
			want = strconv.Itoa(all[quoted[0][1]])
		case qMost, qLeast:
			best := ""
			for _, l := range oolongLabels {
				if best == "" || (inst.Meta["kind"] == qMost) == (all[l] > all[best]) {
					best = l
				}
			}
			want = best
		case qCompare:
			a, b := all[quoted[0][1]], all[quoted[1][1]]
			rel := map[bool]string{true: "more common than", false: "less common than"}[a > b]
			if a == b {
				rel = "same frequency as"
			}
			want = quoted[0][1] + " is " + rel + " " + quoted[1][1]
		case qUser:
			u := regexp.MustCompile(`User ID (\d+)`).FindStringSubmatch(q)[1]
			want = strconv.Itoa(count(func(r record) bool { return r.user == u })[quoted[0][1]])
		case qDateRange:
			m := regexp.MustCompile(`from (\w{3} \d{2}, \d{4}) to (\w{3} \d{2}, \d{4})`).FindStringSubmatch(q)
			from, to := parseDay(t, m[1]), parseDay(t, m[2])
			want = strconv.Itoa(count(func(r record) bool { d := parseDay(t, r.date); return d >= from && d <= to })[quoted[0][1]])
		}
		if want != inst.Answer {
			t.Errorf("instance %d (%s): gold %q, recount %q\n%s", i, inst.Meta["kind"], inst.Answer, want, q)
		}
		if s := ScoreOolong(inst.Answer, "Answer: "+want); s != 1 {
			t.Errorf("instance %d: right answer scores %v", i, s)
		}
	}
	for _, k := range oolongKinds {
		if !seenKinds[k] {
			t.Errorf("question kind %s never generated", k)
		}
	}
}

func parseDay(t *testing.T, s string) int {
	for d := 0; d < oolongDays; d++ {
		if oolongDate(d) == s {
			return d
		}
	}
	t.Fatalf("bad date %q", s)
	return 0
}

func TestOolongPairsAnswers(t *testing.T) {
	for i := 0; i < 4; i++ {
		inst, ctx := generate(t, OolongPairs{}, Spec{Tokens: 16 << 10, Index: i, Seed: 9})
		recs := parseRecords(t, ctx)
		m := regexp.MustCompile(`at least (\d+) comments with the sentiment label '(\w+)'(?: dated from (\w{3} \d{2}, \d{4}) to (\w{3} \d{2}, \d{4}))?`).FindStringSubmatch(inst.Question)
		if m == nil {
			t.Fatalf("question %q", inst.Question)
		}
		threshold, _ := strconv.Atoi(m[1])
		from, to := 0, oolongDays-1
		if m[3] != "" {
			from, to = parseDay(t, m[3]), parseDay(t, m[4])
		}
		per := map[string]int{}
		for _, r := range recs {
			if d := parseDay(t, r.date); r.label == m[2] && d >= from && d <= to {
				per[r.user]++
			}
		}
		var ok []int
		for u, c := range per {
			if c >= threshold {
				n, _ := strconv.Atoi(u)
				ok = append(ok, n)
			}
		}
		if want := len(ok) * (len(ok) - 1) / 2; len(ParsePairs(inst.Answer)) != want || want == 0 {
			t.Fatalf("instance %d: %d gold pairs, recount gives %d", i, len(ParsePairs(inst.Answer)), want)
		}
		for _, a := range ok {
			for _, b := range ok {
				if a < b && !ParsePairs(inst.Answer)[[2]string{strconv.Itoa(a), strconv.Itoa(b)}] {
					t.Errorf("instance %d: pair (%d, %d) missing from gold", i, a, b)
				}
			}
		}
	}
}

func TestOolongLabelsNotKeywordDecidable(t *testing.T) {
	// Each of these words appears in templates of at least two labels, so
	// that a keyword match cannot decide the label.
	for _, w := range []string{"good", "never", "love", "not"} {
		labels := map[int]bool{}
		for li, ts := range oolongTemplates {
			for _, tpl := range ts {
				if strings.Contains(strings.ToLower(tpl), w) {
					labels[li] = true
				}
			}
		}
		if len(labels) < 2 {
			t.Errorf("%q decides the label: only in %v", w, labels)
		}
	}
}

func TestCustom(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "doc.txt"), []byte("the door code is 4711"), 0o644)
	good := `{"context": "alpha beta", "question": "q1", "answer": "beta"}
{"context_file": "doc.txt", "question": "q2", "answer": ["4711", "door"], "scorer": "sniah"}

{"context": "x", "question": "q3", "answer": 12, "scorer": "oolong"}
`
	p := filepath.Join(dir, "mine.jsonl")
	os.WriteFile(p, []byte(good), 0o644)
	task, err := LoadCustom(p)
	if err != nil {
		t.Fatal(err)
	}
	if task.Name() != "custom:mine" || task.Len() != 3 {
		t.Fatalf("name %q len %d", task.Name(), task.Len())
	}
	inst, ctx := generate(t, task, Spec{Index: 1})
	if ctx != "the door code is 4711" || inst.Question != "q2" || inst.Scorer != "sniah" {
		t.Fatalf("instance 1: %+v %q", inst, ctx)
	}
	if s, _ := Score(inst, "4711"); s != 0.5 {
		t.Errorf("half the values found scores %v, want 0.5", s)
	}
	inst, _ = generate(t, task, Spec{Index: 2})
	if s, _ := Score(inst, "Answer: 13"); s != 0.75 {
		t.Errorf("oolong numeric off by one: %v", s)
	}
	if _, err := task.Generate(context.Background(), &bytes.Buffer{}, Spec{Index: 3}); err == nil {
		t.Error("no error for an index past the end")
	}

	// Several files, inline delivery, labels.
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("second part"), 0o644)
	os.WriteFile(p, []byte(`{"context_files": ["doc.txt", "b.txt"], "question": "q4", "answer": ["4711", "4711."], "scorer": "exact", "meta": {"kind": "prose"}}
{"context_file": "doc.txt", "inline": "question-first", "question": "q5", "answer": "No answer", "scorer": "absent"}
`), 0o644)
	task, err = LoadCustom(p)
	if err != nil {
		t.Fatal(err)
	}
	inst, ctx = generate(t, task, Spec{Index: 0})
	if ctx != "the door code is 4711" || len(inst.Documents) != 1 || filepath.Base(inst.Documents[0]) != "b.txt" ||
		inst.Meta["kind"] != "prose" || inst.Tokens != EstimateTokens(int64(len(ctx)+len("second part"))) {
		t.Fatalf("instance with two files: %+v", inst)
	}
	req, err := RLMRequest(inst, filepath.Join(dir, "doc.txt"))
	if err != nil || len(req.Documents) != 2 || req.Documents[1].Path != inst.Documents[0] {
		t.Fatalf("request of two files: %+v, %v", req, err)
	}
	inst, _ = generate(t, task, Spec{Index: 1})
	req, err = RLMRequest(inst, filepath.Join(dir, "doc.txt"))
	if err != nil || len(req.Documents) != 0 || req.Messages[0].Content != "q5\n\nthe door code is 4711" {
		t.Fatalf("inline request: %+v, %v", req, err)
	}
	if s, _ := Score(inst, "No answer: not in the text"); s != 1 {
		t.Errorf("absent scorer gave %v to No answer", s)
	}

	for _, bad := range []string{
		`{"context_files": ["doc.txt", "b.txt"], "inline": "question-last", "question": "q", "answer": "a"}`,
		`{"context_file": "doc.txt", "inline": "sideways", "question": "q", "answer": "a"}`,
		`{"context_file": "doc.txt", "context_files": ["doc.txt"], "question": "q", "answer": "a"}`,
		`{"question": "q", "answer": "a"}`,
		`{"context": "c", "answer": "a"}`,
		`{"context": "c", "question": "q"}`,
		`{"context": "c", "question": "q", "answer": "a", "scorer": "bleu"}`,
		`{"context": "c", "context_file": "doc.txt", "question": "q", "answer": "a"}`,
		`{"context_file": "missing.txt", "question": "q", "answer": "a"}`,
		`{"context": "c", "question": "q", "answer": {"x": 1}}`,
		`{"context": "c", "question": "q", "answer": "a", "extra": 1}`,
		`not json`,
		``,
	} {
		os.WriteFile(p, []byte(bad), 0o644)
		if _, err := LoadCustom(p); err == nil {
			t.Errorf("no error for %s", bad)
		}
	}
}

func TestSNIAHNameCarriesOptions(t *testing.T) {
	for _, tc := range []struct {
		task *SNIAH
		want string
	}{
		{&SNIAH{Depth: -1}, "sniah"},
		{&SNIAH{Depth: 0.5}, "sniah[depth=0.50]"},
		{&SNIAH{Depth: -1, UUID: true, Haystack: "/x/moby.txt"}, "sniah[uuid,haystack=moby.txt]"},
	} {
		if got := tc.task.Name(); got != tc.want {
			t.Errorf("Name() = %q, want %q", got, tc.want)
		}
	}
}
