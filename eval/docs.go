package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Docs is needle lookup in real documents: one fact about a key, written
// in one of several everyday forms ("X is Y", "key: value", a JSON field,
// a log line, a table row), hidden at a line boundary in real text of one
// of five kinds, and a question asking for the fact's value, whose answer
// must be copied exactly.
//
// The kinds are Go source code and prose, both read from the Go toolchain's
// own tree (its source, its documentation, its licence texts, plus Debian's
// /usr/share/common-licenses where it exists), which every machine that
// builds this project has; and logs, JSON lines and CSV, generated. Their
// text is full of what a model's cells must not trip on: backticks,
// quotes, braces, non-ASCII.
//
// Everything a model could memorize comes in two disjoint halves. The
// held-in half (Phrasings "in") is for training: Go packages of one part
// of the tree, the documentation pages, two log formats, one JSON and one
// CSV schema, five needle forms and twelve question wordings. The held-out
// half (Phrasings "out", and the default) is for evaluation: the other Go
// packages, the licence texts, and other formats, needle forms and
// wordings. Held-out documents are real text no training run saw.
type Docs struct {
	// Source is one of DocSources, or empty for a random one per instance.
	Source string
	// Phrasings is PhrasingsHeldIn or PhrasingsHeldOut (the default).
	Phrasings string
}

// DocSources are the kinds of haystack of Docs.
var DocSources = []string{"go", "prose", "log", "json", "csv"}

// Name implements Task.
func (t *Docs) Name() string {
	v := []string{"phrasings=" + t.heldOut()}
	if t.Source != "" {
		v = append([]string{"source=" + t.Source}, v...)
	}
	return "docs[" + strings.Join(v, ",") + "]"
}

// heldOut names the half the task draws from: "in" or "out".
func (t *Docs) heldOut() string {
	if t.Phrasings == PhrasingsHeldIn {
		return PhrasingsHeldIn
	}
	return PhrasingsHeldOut
}

// docNeedles are the needle forms of each half: a line of its own in the
// haystack, {key} the key, {attr} what the value is, {value} the value.
var docNeedles = phrasingSet{
	in: []string{
		"One of the special magic numbers for {key} is: {value}.",
		"The {attr} of {key} is {value}.",
		"{key}: {value}",
		`{"name": "{key}", "{attr}": "{value}"}`,
		"time=2024-03-01T10:00:00Z level=info key={key} {attr}={value}",
		"{key},{value},{attr}",
	},
	out: []string{
		"{key} = {value}",
		`  "{key}": "{value}",`,
		"| {key} | {value} | {attr} |",
		"[{key}] {attr} {value}",
		"Note that {key} has the {attr} {value}.",
		`<entry key="{key}">{value}</entry>`,
	},
}

// docAttrs name what a value is.
var docAttrs = phrasingSet{
	in:  []string{"code", "token", "serial", "id", "number", "value"},
	out: []string{"pin", "access code", "ticket", "reference", "secret", "passcode"},
}

// docPhrasings ask for a key's value. Each names the key exactly as the
// needle writes it, and no other token of the form word-word or word_word.
var docPhrasings = phrasingSet{
	in: []string{
		"What is the {attr} of {key}?",
		"What is the special magic number for {key} mentioned in the provided text?",
		"Find the value given for {key} in the text.",
		"Which {attr} does the document list for {key}?",
		"Look up {key} and tell me its {attr}.",
		"The text mentions {key}. What value goes with it?",
		"Report the {attr} recorded for {key}.",
		"What does the document say the {attr} of {key} is?",
		"Give me the value of {key}.",
		"Search the text for {key}: what is its {attr}?",
		"I need the {attr} for {key}. What is it?",
		"Tell me the value associated with {key} in this file.",
	},
	out: []string{
		"Which number or code is recorded for {key}?",
		"Somewhere in this document there is an entry for {key}; what {attr} does it give?",
		"Quote the {attr} that the attached file assigns to {key}.",
		"Which value belongs to {key} here?",
		"Could you find {key} in the text and return just its value?",
		"{key} appears once in the document. What is written next to it?",
	},
}

// DocValueRE matches every value Docs writes: a UUID, a code like KX-4471,
// or a number of five digits or more. The expert's cells use the same
// expression, so a model trained on them learns it.
const DocValueRE = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Z]{2}-[0-9]{4}|[0-9]{5,}`

// DocKeyRE matches a key of Docs in a question.
const DocKeyRE = `[a-z]+[-_][a-z]+`

func docValue(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return uuid(r)
	case 1:
		return fmt.Sprintf("%c%c-%04d", 'A'+r.IntN(26), 'A'+r.IntN(26), r.IntN(10000))
	}
	return strconv.Itoa(1_000_000 + r.IntN(9_000_000))
}

// Generate implements Task.
func (t *Docs) Generate(ctx context.Context, w io.Writer, spec Spec) (Instance, error) {
	if spec.Tokens <= 0 {
		return Instance{}, fmt.Errorf("docs: length %d tokens: must be positive", spec.Tokens)
	}
	if t.Source != "" && !slices.Contains(DocSources, t.Source) {
		return Instance{}, fmt.Errorf("docs: source %q: want one of %s", t.Source, strings.Join(DocSources, ", "))
	}
	half := t.heldOut()
	r := newRand(t.Name(), spec)
	source := t.Source
	if source == "" {
		source = DocSources[r.IntN(len(DocSources))]
	}
	sep := []string{"-", "_"}[r.IntN(2)]
	key := pick(r, keyAdjectives) + sep + pick(r, keyNouns)
	value := docValue(r)
	form, _ := docNeedles.pick(r, half)
	attr, _ := docAttrs.pick(r, half)
	question, _ := docPhrasings.pick(r, half)
	vars := map[string]string{"key": key, "value": value, "attr": attr}
	needle := fillTemplate(form, vars)
	depth := r.Float64()
	target := int64(spec.Tokens) * CharsPerToken

	cw := newCountWriter(w)
	nextLine, err := docLines(source, half, r)
	if err != nil {
		return Instance{}, fmt.Errorf("docs: %w", err)
	}
	at := int64(depth * float64(max(0, target-int64(len(needle))-1)))
	placedNeedle := false
	for cw.n < target && cw.err == nil {
		if err := ctx.Err(); err != nil {
			return Instance{}, err
		}
		line, err := nextLine()
		if err != nil {
			return Instance{}, fmt.Errorf("docs: %w", err)
		}
		if strings.Contains(line, key) {
			continue // the key is written once, in the needle
		}
		if !placedNeedle && cw.n+int64(len(line)) >= at {
			cw.WriteString(needle + "\n")
			placedNeedle = true
		}
		if cw.n+int64(len(line))+1 > target {
			break
		}
		cw.WriteString(line + "\n")
	}
	if !placedNeedle {
		cw.WriteString(needle + "\n")
	}
	if err := cw.Flush(); err != nil {
		return Instance{}, fmt.Errorf("docs: write haystack: %w", err)
	}
	return Instance{
		Task:   t.Name(),
		Tokens: spec.Tokens, Index: spec.Index, Seed: spec.Seed,
		Question: fillTemplate(question, vars),
		Answer:   value,
		Expected: []string{value},
		Scorer:   "sniah",
		Bytes:    cw.n,
		Meta:     map[string]string{"key": key, "source": source, "needle": needle, "depth": strconv.FormatFloat(depth, 'f', 3, 64)},
	}, nil
}

// docLines hands out the lines of a source's haystack, endlessly.
func docLines(source, half string, r *rand.Rand) (func() (string, error), error) {
	switch source {
	case "go", "prose":
		files, err := docFiles(source, half)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no %s files for the %s half", source, half)
		}
		order := r.Perm(len(files))
		var lines []string
		i := 0
		return func() (string, error) {
			for len(lines) == 0 {
				b, err := os.ReadFile(files[order[i%len(order)]])
				i++
				if err != nil {
					return "", err
				}
				lines = strings.Split(strings.ToValidUTF8(string(b), "\uFFFD"), "\n")
			}
			l := lines[0]
			lines = lines[1:]
			return l, nil
		}, nil
	case "log":
		return logLines(half, r), nil
	case "json":
		return jsonLines(half, r), nil
	case "csv":
		return csvLines(half, r), nil
	}
	return nil, fmt.Errorf("source %q: want one of %s", source, strings.Join(DocSources, ", "))
}

// goRoot finds the Go toolchain's tree: $GOROOT, the running binary's, or
// what `go env GOROOT` says.
var goRoot = sync.OnceValues(func() (string, error) {
	for _, dir := range []string{os.Getenv("GOROOT"), runtime.GOROOT()} {
		if dir != "" {
			if _, err := os.Stat(filepath.Join(dir, "src")); err == nil {
				return dir, nil
			}
		}
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("the docs task reads the Go toolchain's tree, and no Go toolchain was found: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
})

// docFiles lists a half's files of a real-text source, sorted. Go
// packages are split by a hash of their directory: one in five is held
// out. Prose: the documentation (held in) and the licence and community
// texts (held out).
func docFiles(source, half string) ([]string, error) {
	root, err := goRoot()
	if err != nil {
		return nil, err
	}
	var files []string
	switch source {
	case "go":
		err = filepath.WalkDir(filepath.Join(root, "src"), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
				return nil // generated tables are not what people read
			}
			h := fnv.New32a()
			h.Write([]byte(filepath.Dir(strings.TrimPrefix(path, root))))
			if (h.Sum32()%5 == 0) == (half == PhrasingsHeldOut) {
				files = append(files, path)
			}
			return nil
		})
	case "prose":
		if half == PhrasingsHeldIn {
			filepath.WalkDir(filepath.Join(root, "doc"), func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".html") || strings.HasSuffix(path, ".md")) {
					files = append(files, path)
				}
				return nil
			})
			filepath.WalkDir(filepath.Join(root, "src"), func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
					files = append(files, path)
				}
				return nil
			})
		} else {
			for _, f := range []string{"LICENSE", "PATENTS", "CONTRIBUTING.md", "SECURITY.md", "README.md"} {
				if _, err := os.Stat(filepath.Join(root, f)); err == nil {
					files = append(files, filepath.Join(root, f))
				}
			}
			if ents, err := os.ReadDir("/usr/share/common-licenses"); err == nil {
				for _, e := range ents {
					if e.Type().IsRegular() {
						files = append(files, filepath.Join("/usr/share/common-licenses", e.Name()))
					}
				}
			}
		}
	}
	slices.Sort(files)
	return files, err
}

var (
	docUsers    = []string{"alice", "bob", "chloé", "dmitri", "eun-ji", "fatima", "gustavo", "hiroshi", "ingrid", "josé", "kwame", "lucía"}
	docPaths    = []string{"/", "/index.html", "/api/v1/items", "/api/v1/users/42", "/static/app.js", "/login", "/search?q=caf%C3%A9", "/healthz", "/metrics"}
	docServices = []string{"auth", "billing", "search", "mailer", "gateway", "scheduler", "cache"}
	docWords    = []string{"started", "retrying", "timeout after 30s", "connection reset", "ok", "queued", "flushed 128 entries", "cache miss", "user \"admin\" logged in", "rate limited", "`SELECT 1` ran"}
	docProducts = []string{"widget", "gadget", "sprocket", "gizmo", "doohickey", "Überschalter", "café crème"}
	docCities   = []string{"Berlin", "São Paulo", "Zürich", "Lagos", "Osaka", "Montréal", "Kraków", "Austin"}
)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func docIP(r *rand.Rand) string {
	return fmt.Sprintf("%d.%d.%d.%d", 10+r.IntN(200), r.IntN(256), r.IntN(256), 1+r.IntN(254))
}

// logLines are generated log lines: nginx access logs and syslog held in;
// an application's bracketed log and Apache error logs held out.
func logLines(half string, r *rand.Rand) func() (string, error) {
	n := 0
	return func() (string, error) {
		n++
		sec := n % 60
		ts := fmt.Sprintf("2024-03-%02d %02d:%02d:%02d", 1+n/86400%28, n/3600%24, n/60%60, sec)
		if half == PhrasingsHeldIn {
			if r.IntN(2) == 0 {
				return fmt.Sprintf(`%s - %s [01/Mar/2024:%02d:%02d:%02d +0000] "GET %s HTTP/1.1" %d %d "-" "Mozilla/5.0"`,
					docIP(r), pick(r, docUsers), n/3600%24, n/60%60, sec, pick(r, docPaths), pick(r, []int{200, 200, 200, 304, 404, 500}), r.IntN(50000)), nil
			}
			return fmt.Sprintf("Mar  1 %02d:%02d:%02d host%d %s[%d]: %s", n/3600%24, n/60%60, sec, r.IntN(9), pick(r, docServices), 1000+r.IntN(9000), pick(r, docWords)), nil
		}
		if r.IntN(2) == 0 {
			return fmt.Sprintf("[%s] [%s] (%s) %s - request took %dms", ts, pick(r, []string{"INFO", "WARN", "DEBUG", "ERROR"}), pick(r, docServices), pick(r, docWords), r.IntN(900)), nil
		}
		return fmt.Sprintf("[%s] [core:error] [pid %d] [client %s] AH00124: %s", ts, 100+r.IntN(9000), docIP(r), pick(r, docWords)), nil
	}
}

// jsonLines are generated JSON records: user events held in, orders held
// out.
func jsonLines(half string, r *rand.Rand) func() (string, error) {
	n := 0
	return func() (string, error) {
		n++
		if half == PhrasingsHeldIn {
			return fmt.Sprintf(`{"event": %q, "user": %q, "ts": %d, "ok": %t, "tags": ["a", "b\"c"]}`,
				pick(r, []string{"click", "view", "purchase", "signup"}), pick(r, docUsers), 1700000000+n*7, r.IntN(4) > 0), nil
		}
		return fmt.Sprintf(`{"order": %d, "item": %q, "qty": %d, "city": %q, "note": %q}`,
			n, pick(r, docProducts), 1+r.IntN(9), pick(r, docCities), pick(r, []string{"", "gift", "rush — please", "leave at door"})), nil
	}
}

// csvLines are generated CSV rows, a header first: inventory held in,
// sensor readings held out.
func csvLines(half string, r *rand.Rand) func() (string, error) {
	n := 0
	return func() (string, error) {
		n++
		if half == PhrasingsHeldIn {
			if n == 1 {
				return "sku,product,city,stock,price", nil
			}
			return fmt.Sprintf("SKU%d,%s,%s,%d,%d.%02d", n, pick(r, docProducts), pick(r, docCities), r.IntN(500), r.IntN(100), r.IntN(100)), nil
		}
		if n == 1 {
			return "sensor;reading;unit;site;ok", nil
		}
		return fmt.Sprintf("s%03d;%d.%d;%s;%s;%s", r.IntN(999), r.IntN(100), r.IntN(10), pick(r, []string{"°C", "hPa", "%"}), pick(r, docCities), pick(r, []string{"yes", "no"})), nil
	}
}
