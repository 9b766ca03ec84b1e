// Command lookups writes the training lookups of the built-in model's
// recipe (examples/tiny-rlm/data.sh): documents made of the Go toolchain's
// own files (its sources, its testdata of every format, its docs) and of
// generated tables, logs and records, with one fact planted in each, and
// questions about it in many wordings, as an rlm eval custom task.
//
//	go run ./examples/tiny-rlm/lookups -out DIR [-n 800] [-seed 1000]
//	rlm eval --task custom:DIR/lookups.jsonl ...
//
// It exists so that the model sees lookup questions of every shape (who,
// when, how many, which, "give me", questions sent with their document,
// several files, questions whose answer is absent) and documents whose
// preview it has never seen, and learns to answer them all with the same
// short program (lookup(context, query)) rather than with the label or
// record programs. Its keys, values, needle forms and wordings are its
// own: the held-out set (eval/heldout) is written apart from them and is
// never used here.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

func main() {
	out := flag.String("out", "lookups", "output `directory`")
	n := flag.Int("n", 800, "instances")
	seed := flag.Uint64("seed", 1000, "seed")
	flag.Parse()
	if err := run(*out, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "lookups:", err)
		os.Exit(1)
	}
}

type item struct {
	ContextFiles []string          `json:"context_files"`
	Inline       string            `json:"inline,omitempty"`
	Question     string            `json:"question"`
	Answer       string            `json:"answer"`
	Scorer       string            `json:"scorer"`
	Meta         map[string]string `json:"meta"`
}

// haystackExts are the kinds of the Go tree's files that make documents.
var haystackExts = map[string]bool{".go": true, ".txt": true, ".s": true, ".c": true, ".h": true, ".json": true,
	".md": true, ".html": true, ".golden": true, ".input": true, ".test": true, ".conf": true, ".tmpl": true,
	".xml": true, ".csv": true, ".mod": true, ".sum": true, ".bash": true, ".sh": true, ".rc": true, ".bat": true, ".css": true, ".js": true}

func run(out string, n int, seed uint64) error {
	root := runtime.GOROOT()
	var files []string
	filepath.WalkDir(filepath.Join(root, "src"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && haystackExts[filepath.Ext(p)] {
			if fi, err := d.Info(); err == nil && fi.Size() > 200 && fi.Size() < 400<<10 {
				files = append(files, p)
			}
		}
		return nil
	})
	sort.Strings(files)
	if len(files) < 100 {
		return fmt.Errorf("too few files under %s/src", root)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 15))
	var lines []byte
	for i := 0; i < n; i++ {
		f := newFact(rng)
		form := forms[rng.IntN(len(forms))]
		needle := form(rng, f)
		size := []int{24 << 10, 48 << 10, 96 << 10, 200 << 10}[rng.IntN(4)]
		var doc string
		switch rng.IntN(2) {
		case 0:
			doc = generated(rng, size)
		default:
			doc = fromTree(rng, files, size)
		}
		absent := rng.IntN(8) == 0
		if !absent {
			doc = plant(rng, doc, needle)
		}
		q := question(rng, f)
		it := item{Question: q, Answer: f.value, Scorer: "exact", Meta: map[string]string{"form": fmt.Sprint(i % len(forms))}}
		if absent {
			it.Answer, it.Scorer = "No answer", "absent"
		}
		name := fmt.Sprintf("doc%04d.txt", i)
		switch r := rng.IntN(10); {
		case r == 0:
			it.Inline = []string{"question-first", "question-last"}[rng.IntN(2)]
			fallthrough
		case r > 2:
			if err := os.WriteFile(filepath.Join(out, name), []byte(doc), 0o644); err != nil {
				return err
			}
			it.ContextFiles = []string{name}
		default:
			// Two to four files, each of its own kind, the fact in one.
			k := 2 + rng.IntN(3)
			at := rng.IntN(k)
			for j := 0; j < k; j++ {
				part := doc
				if j != at {
					part = generated(rng, size/2)
					if rng.IntN(2) == 0 {
						part = fromTree(rng, files, size/2)
					}
				}
				pn := fmt.Sprintf("doc%04d-%d.txt", i, j+1)
				if err := os.WriteFile(filepath.Join(out, pn), []byte(part), 0o644); err != nil {
					return err
				}
				it.ContextFiles = append(it.ContextFiles, pn)
			}
		}
		b, _ := json.Marshal(it)
		lines = append(append(lines, b...), '\n')
	}
	return os.WriteFile(filepath.Join(out, "lookups.jsonl"), lines, 0o644)
}

// fact is one planted fact: the value of an attribute of an entity.
type fact struct {
	entity string // a name, an identifier, a host, a code
	attr   string // the attribute's words ("backup window")
	key    string // the attribute as a key in the entity's style
	value  string
	kind   string // person, date, number, quantity, place, email, version, code, text
}

var syllables = strings.Fields("ka lo mi ren tus var del quin sor bel tam nor fi ga zu pel ros an ther ul mar ko vi da len")

func word(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(syllables[rng.IntN(len(syllables))])
	}
	return b.String()
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

var accents = strings.NewReplacer("a", "á", "o", "ö", "e", "é", "u", "ü")

func personName(rng *rand.Rand) string {
	first, last := title(word(rng, 2)), title(word(rng, 2+rng.IntN(2)))
	if rng.IntN(3) == 0 {
		last = title(accents.Replace(last[:1] + strings.ToLower(last[1:])))
		last = strings.ToUpper(last[:1]) + last[1:]
	}
	return first + " " + last
}

var attrs = []struct{ words, kind string }{
	{"owner", "person"}, {"maintainer", "person"}, {"contact", "email"}, {"support address", "email"},
	{"release date", "date"}, {"expiry date", "date"}, {"start date", "date"}, {"port", "number"}, {"replica count", "number"},
	{"timeout", "quantity"}, {"retention period", "quantity"}, {"disk quota", "quantity"}, {"data directory", "place"},
	{"endpoint", "place"}, {"version", "version"}, {"build id", "code"}, {"access code", "code"}, {"region", "text"},
	{"status", "text"}, {"checksum", "code"}, {"max connections", "number"}, {"log level", "text"}, {"site", "text"},
	// Words of the records family's questions (city, product, quantity,
	// name), asked as lookups: the model must tell "the city of the
	// record with ID 1234" from "the city Marta lives in".
	{"city", "city"}, {"home town", "city"}, {"product", "text"}, {"quantity", "number"}, {"country", "text"},
	{"department", "text"}, {"phone number", "code"}, {"name", "text"},
}

func newFact(rng *rand.Rand) fact {
	a := attrs[rng.IntN(len(attrs))]
	f := fact{attr: a.words, kind: a.kind}
	switch rng.IntN(5) {
	case 0:
		f.entity = word(rng, 2) + "-" + word(rng, 1+rng.IntN(2))
	case 1:
		f.entity = word(rng, 2) + "_" + word(rng, 2)
	case 2:
		f.entity = personName(rng)
	case 3:
		f.entity = fmt.Sprintf("%s-%02d", word(rng, 1), rng.IntN(99)+1)
	default:
		f.entity = title(word(rng, 3))
	}
	ws := strings.Fields(a.words)
	switch rng.IntN(4) {
	case 0:
		f.key = strings.Join(ws, "_")
	case 1:
		f.key = ws[0]
		for _, w := range ws[1:] {
			f.key += title(w)
		}
	case 2:
		f.key = strings.Join(ws, "-")
	default:
		f.key = strings.Join(ws, " ")
	}
	switch a.kind {
	case "person":
		f.value = personName(rng)
	case "city":
		f.value = title(word(rng, 2)) + []string{"", "ów", "burg", "ville", " Bay"}[rng.IntN(5)]
	case "email":
		f.value = word(rng, 2) + "@" + word(rng, 2) + ".example"
	case "date":
		months := strings.Fields("January February March April May June July August September October November December")
		y, m, d := 2019+rng.IntN(9), rng.IntN(12), 1+rng.IntN(28)
		f.value = []string{fmt.Sprintf("%d-%02d-%02d", y, m+1, d), fmt.Sprintf("%d %s %d", d, months[m], y),
			fmt.Sprintf("%s %d, %d", months[m], d, y)}[rng.IntN(3)]
	case "number":
		f.value = fmt.Sprint([]int{rng.IntN(60000) + 1024, rng.IntN(64) + 2, rng.IntN(5000) + 10}[rng.IntN(3)])
	case "quantity":
		f.value = fmt.Sprintf("%d %s", rng.IntN(500)+2, []string{"seconds", "minutes", "days", "GB", "MiB", "ms", "hours"}[rng.IntN(7)])
	case "place":
		f.value = []string{"/srv/" + word(rng, 2) + "/" + word(rng, 1), "https://" + word(rng, 2) + ".example.org/" + word(rng, 1),
			"/var/lib/" + word(rng, 2)}[rng.IntN(3)]
	case "version":
		f.value = fmt.Sprintf("%d.%d.%d", rng.IntN(9), rng.IntN(30), rng.IntN(20))
		if rng.IntN(2) == 0 {
			f.value += fmt.Sprintf("-%d", rng.IntN(5)+1)
		}
	case "code":
		f.value = []string{fmt.Sprintf("%X-%04d", rng.IntN(4096), rng.IntN(10000)), fmt.Sprintf("0x%08x", rng.Uint32()),
			fmt.Sprintf("%s%d", strings.ToUpper(word(rng, 1)), rng.IntN(99999))}[rng.IntN(3)]
	default:
		f.value = title(word(rng, 2)) + []string{"", " " + title(word(rng, 2))}[rng.IntN(2)]
	}
	return f
}

// forms write a fact as it may appear in a document.
var forms = []func(*rand.Rand, fact) string{
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("The %s of %s is %s.", f.attr, f.entity, f.value)
	},
	func(r *rand.Rand, f fact) string { return fmt.Sprintf("%s: %s = %s", f.entity, f.key, f.value) },
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf(`{"name": %q, %q: %q, "updated": "2024-02-0%d"}`, f.entity, f.key, f.value, r.IntN(9)+1)
	},
	func(r *rand.Rand, f fact) string {
		v := f.value
		if strings.Contains(v, ",") {
			v = `"` + v + `"`
		}
		return fmt.Sprintf("name,%s,notes\n%s,%s,ok\n%s,%s,check", strings.ReplaceAll(f.key, " ", "_"), word(r, 2), word(r, 2), f.entity, v)
	},
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("| name | %s |\n| --- | --- |\n| %s | %s |\n| %s | %s |", f.attr, word(r, 3), word(r, 2), f.entity, f.value)
	},
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("%s:\n  %s: %s\n  enabled: true", f.entity, f.key, f.value)
	},
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("[%s]\n%s = %s\nenabled = yes", f.entity, f.key, f.value)
	},
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("2024-03-%02dT10:%02d:00Z level=info entity=%s %s=%q", r.IntN(28)+1, r.IntN(60), f.entity, strings.ReplaceAll(f.key, " ", "_"), f.value)
	},
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("// %s: the %s is %s", f.entity, f.attr, f.value)
	},
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("Name: %s\nStatus: active\n%s: %s\n", f.entity, title(strings.ReplaceAll(f.attr, " ", "-")), f.value)
	},
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("INSERT INTO items (name, %s) VALUES ('%s', '%s');", strings.ReplaceAll(f.key, " ", "_"), f.entity, f.value)
	},
	func(r *rand.Rand, f fact) string {
		return fmt.Sprintf("For %s, the %s was set to %s last week.", f.entity, f.attr, f.value)
	},
}

// question asks for a fact in one of many wordings.
func question(r *rand.Rand, f fact) string {
	e, a := f.entity, f.attr
	var ws []string
	switch f.kind {
	case "person":
		ws = []string{"Who is the %[2]s of %[1]s?", "Who is %[1]s's %[2]s?", "Name the %[2]s of %[1]s.", "%[1]s: who is listed as %[2]s?"}
	case "date":
		ws = []string{"When is the %[2]s of %[1]s?", "What %[2]s does %[1]s have?", "On what date is %[1]s's %[2]s?", "Tell me the %[2]s for %[1]s."}
	case "number":
		ws = []string{"How many is the %[2]s of %[1]s?", "What %[2]s does %[1]s use?", "Which %[2]s is set for %[1]s?", "What's the %[2]s of %[1]s?"}
	case "quantity":
		ws = []string{"How long is the %[2]s of %[1]s?", "What is the %[2]s for %[1]s?", "How much %[2]s does %[1]s get?"}
	case "place":
		ws = []string{"Where is the %[2]s of %[1]s?", "What is %[1]s's %[2]s?", "Which %[2]s does %[1]s use?"}
	case "city":
		ws = []string{"What %[2]s does %[1]s live in?", "Which %[2]s is %[1]s from?", "Where does %[1]s live?", "What is the %[2]s of %[1]s?", "In which %[2]s is %[1]s?"}
	case "email":
		ws = []string{"What is the %[2]s of %[1]s?", "Which e-mail address is the %[2]s for %[1]s?", "Where do I write to reach %[1]s's %[2]s?"}
	default:
		ws = []string{"What is the %[2]s of %[1]s?", "Which %[2]s does %[1]s have?", "Give me the %[2]s for %[1]s.",
			"I need %[1]s's %[2]s.", "Can you find the %[2]s of %[1]s in the document?", "Look up %[1]s and report its %[2]s."}
	}
	return fmt.Sprintf(ws[r.IntN(len(ws))], e, a)
}

// generated writes size bytes of a made-up table, log, record list, man
// page, changelog, YAML, SQL dump, mailbox, paged report or Markdown.
func generated(r *rand.Rand, size int) string {
	var b strings.Builder
	switch r.IntN(12) {
	case 5:
		// A man page's roff source.
		fmt.Fprintf(&b, ".TH %s 1 \"2024\" \"%s %d.%d\"\n.SH NAME\n%s \\- %s %s\n.SH OPTIONS\n", strings.ToUpper(word(r, 2)), word(r, 2), r.IntN(9), r.IntN(20), word(r, 2), word(r, 2), word(r, 3))
		for b.Len() < size {
			fmt.Fprintf(&b, ".TP\n.B \\-\\-%s\n%s %s %s the %s\\&. The default is %d\\&.\n", word(r, 2), title(word(r, 2)), word(r, 3), word(r, 2), word(r, 2), r.IntN(100))
		}
	case 6:
		// Debian-style changelog entries.
		for b.Len() < size {
			fmt.Fprintf(&b, "%s (%d.%d-%d) unstable; urgency=medium\n\n  * %s %s %s.\n  * %s %s (Closes: #%d)\n\n -- %s <%s@%s.example>  Mon, %02d Jan 20%02d 10:%02d:00 +0000\n\n",
				word(r, 2), r.IntN(9), r.IntN(30), r.IntN(5)+1, title(word(r, 2)), word(r, 3), word(r, 2), title(word(r, 2)), word(r, 2), 100000+r.IntN(900000),
				personName(r), word(r, 2), word(r, 2), 1+r.IntN(28), 10+r.IntN(15), r.IntN(60))
		}
	case 7:
		// YAML documents.
		for b.Len() < size {
			fmt.Fprintf(&b, "- name: %s\n  spec:\n    replicas: %d\n    image: %s/%s:%d.%d\n  labels:\n    team: %s\n", word(r, 3), r.IntN(9)+1, word(r, 2), word(r, 2), r.IntN(9), r.IntN(20), word(r, 2))
		}
	case 8:
		// An SQL dump.
		fmt.Fprintf(&b, "CREATE TABLE public.%s (\n    id integer,\n    name text,\n    owner text\n);\n\n", word(r, 2))
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "INSERT INTO public.%s (id, name, owner) VALUES (%d, '%s', '%s');\n", word(r, 1), i, word(r, 3), personName(r))
		}
	case 9:
		// A mailbox.
		for b.Len() < size {
			who := personName(r)
			fmt.Fprintf(&b, "From %s@%s.example Mon Feb  3 10:00:00 2025\nFrom: %s <%s@%s.example>\nDate: Mon, 03 Feb 2025 10:%02d:00 +0000\nSubject: %s %s\nMessage-ID: <%d@%s.example>\n\n%s %s %s %s.\n\n",
				word(r, 2), word(r, 2), who, word(r, 2), word(r, 2), r.IntN(60), title(word(r, 2)), word(r, 3), r.IntN(99999), word(r, 2), title(word(r, 2)), word(r, 3), word(r, 2), word(r, 2))
		}
	case 10:
		// A paged, fixed-width report.
		for p := 1; b.Len() < size; p++ {
			fmt.Fprintf(&b, "\fINVENTORY REPORT%40s PAGE %d\n\nCODE      ITEM                          SITE\n--------- ----------------------------- ----------\n", "", p)
			for i := 0; i < 50; i++ {
				fmt.Fprintf(&b, "%-9s %-29s %s\n", fmt.Sprintf("%s-%d", strings.ToUpper(word(r, 1)), r.IntN(999)), word(r, 3), title(word(r, 2)))
			}
		}
	case 11:
		// Markdown documentation.
		for b.Len() < size {
			fmt.Fprintf(&b, "## %s %s\n\n%s %s %s %s.\n\n| option | default |\n| --- | --- |\n| %s | %d |\n| %s | %s |\n\n- %s: %s\n- %s: %s\n\n",
				title(word(r, 2)), word(r, 2), title(word(r, 2)), word(r, 3), word(r, 2), word(r, 2), word(r, 2), r.IntN(100), word(r, 2), word(r, 1),
				title(word(r, 1)), word(r, 2), title(word(r, 1)), word(r, 2))
		}
	case 0:
		b.WriteString("id,host,owner,region,port\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "%d,%s-%02d,%s,%s,%d\n", 1000+i, word(r, 2), r.IntN(99), personName(r), word(r, 1), 1024+r.IntN(60000))
		}
	case 1:
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "2024-0%d-%02d %02d:%02d:%02d %s[%d]: %s %s %s\n", 1+r.IntN(9), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60),
				word(r, 2), r.IntN(9000)+100, []string{"INFO", "WARN", "ERROR", "DEBUG"}[r.IntN(4)], word(r, 3), word(r, 2))
		}
	case 2:
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, `{"id": %d, "user": %q, "action": %q, "ms": %d}`+"\n", i, word(r, 2), word(r, 2), r.IntN(900))
		}
	case 3:
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "Package: %s\nVersion: %d.%d-%d\nMaintainer: %s <%s@%s.example>\nDescription: %s %s\n\n", word(r, 3),
				r.IntN(9), r.IntN(20), r.IntN(4), personName(r), word(r, 2), word(r, 2), word(r, 2), word(r, 3))
		}
	default:
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "[%s]\nhost = %s.internal\nport = %d\nuser = %s\n\n", word(r, 2), word(r, 2), 1024+r.IntN(60000), word(r, 2))
		}
	}
	return b.String()
}

// fromTree concatenates random files of the Go tree up to size bytes.
func fromTree(r *rand.Rand, files []string, size int) string {
	var b strings.Builder
	for b.Len() < size {
		t, err := os.ReadFile(files[r.IntN(len(files))])
		if err != nil {
			continue
		}
		b.Write(t)
		b.WriteString("\n")
	}
	s := b.String()
	if len(s) > size {
		if i := strings.LastIndexByte(s[:size], '\n'); i > 0 {
			s = s[:i+1]
		}
	}
	return s
}

// plant inserts needle at a random line boundary, as a block of its own.
func plant(r *rand.Rand, doc, needle string) string {
	at := r.IntN(len(doc))
	i := strings.IndexByte(doc[at:], '\n')
	if i < 0 {
		return doc + "\n" + needle + "\n"
	}
	at += i + 1
	return doc[:at] + "\n" + needle + "\n\n" + doc[at:]
}
