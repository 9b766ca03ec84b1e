// Package heldout builds the held-out lookup benchmark of issue 38 from real
// text that Debian packages install: Python and C sources, man pages,
// changelogs, dpkg's status database, Markdown, logs, JSON lines, CSV and
// TSV tables, YAML, unit files, shell scripts, mailboxes, an SQL dump, a
// paged fixed-width report and rendered HTML manuals, 200 KB to 8 MB, with
// questions written for this set alone (cases.go). The documents are made
// at evaluation time from the machine's files, never checked in; the set
// is frozen by the cases, the packages they read (Packages) and the
// SHA-256 of every document, recorded in manifest.json.
//
// Build writes a directory that `rlm eval --task custom:DIR/heldout.jsonl`
// runs; Report breaks its results down by kind, needle form, size and
// delivery.
//
// Nothing in this package may be used to train or tune a model: it is the
// set the built-in model is judged on.
package heldout

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/eval"
)

// Case is one question of the set.
type Case struct {
	ID   string
	Kind string // one of the kinds (sources.go)
	// Form is how the answer is written in the document: the planted
	// needle's form (prose, config, json, csv, log, mdtable, list,
	// comment, stanza, yaml, ini, mail, sql, fixed), "fact" for what was
	// in the real text all along, "absent" for a question the document
	// does not answer.
	Form string
	// Size is the document's size ("200k", "1m", "8m"); the kind's whole
	// pool when it is smaller, and never less than a fact's own file.
	// Empty: the pool's one file as it is.
	Size     string
	Question string
	// Answers are the accepted answers, the first the canonical one;
	// none for an absent answer.
	Answers []string
	// Needle is planted text (one or more lines) at a seeded depth.
	Needle string
	// Fact names the pool file (path or derived name) that holds a fact,
	// and Witness text of it that must be in the document.
	Fact, Witness string
	// Status computes the answer from dpkg's status file: a package and a
	// field of its stanza.
	Status [2]string
	// Absent is text that must not occur in the document.
	Absent []string
	// Deliver is how the document is sent: "" attached as one file,
	// "inline" in the one message with the question, "files" split into
	// three attached files.
	Deliver string
}

// Item is one built instance, a line of heldout.jsonl.
type Item = eval.CustomLine

// TaskFile is the name of the custom task file Build writes.
const TaskFile = "heldout.jsonl"

// ErrSources is wrapped by Build's error when the machine lacks files the
// set reads: the packages named are not installed.
var ErrSources = errors.New("held-out sources missing")

//go:embed manifest.json
var manifestJSON []byte

// Manifest records what a build made: each case's documents' SHA-256
// and the versions of the packages they came from.
type Manifest struct {
	Packages  map[string]string   `json:"packages"`
	Documents map[string][]string `json:"documents"` // case ID -> SHA-256 of each file
}

// Frozen is the manifest checked in with the set.
func Frozen() (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(manifestJSON, &m); err != nil {
		return m, fmt.Errorf("heldout: manifest.json: %w", err)
	}
	return m, nil
}

// Packages lists the Debian packages the set reads, sorted.
func Packages() []string {
	seen := map[string]bool{}
	for _, k := range kinds {
		for _, p := range k.packages {
			seen[p] = true
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Cases returns the set's cases.
func Cases() []Case { return append([]Case(nil), cases...) }

// Build writes every case's documents and heldout.jsonl into dir, reading
// the machine's files under root ("/"). It returns the manifest of what it
// wrote. A case whose document breaks its own checks (a witness missing,
// an answer absent, absent text present) is an error: the machine's files
// are not the ones the set was written on.
func Build(dir, root string) (Manifest, error) {
	e := &env{root: root, ext: document.New(document.Options{}), owned: map[string][]string{}}
	defer e.ext.Close()
	var missing []string
	for _, p := range Packages() {
		if p == "dpkg" || p == "apt" {
			continue // their files here are logs and the status database
		}
		if _, err := e.packageFiles(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return Manifest{}, fmt.Errorf("%w: install %s (apt-get install %s)", ErrSources, strings.Join(missing, ", "), strings.Join(missing, " "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Manifest{}, err
	}
	man := Manifest{Packages: map[string]string{}, Documents: map[string][]string{}}
	for _, p := range Packages() {
		man.Packages[p] = packageVersion(p)
	}
	pools := map[string][]file{}
	var lines []byte
	var bad []error
	inlines := 0
	for _, c := range cases {
		k, ok := kindNamed(c.Kind)
		if !ok {
			return man, fmt.Errorf("case %s: unknown kind %q", c.ID, c.Kind)
		}
		pool, ok := pools[k.name]
		if !ok {
			var err error
			if pool, err = k.pool(e); err != nil {
				return man, fmt.Errorf("%w: kind %s: %v", ErrSources, k.name, err)
			}
			pools[k.name] = pool
		}
		doc, answers, err := c.document(k, pool)
		if err != nil {
			bad = append(bad, fmt.Errorf("case %s: %w", c.ID, err))
			continue
		}
		parts := []string{doc}
		if c.Deliver == "files" {
			parts = split(doc, 3, k.blankOnly)
		}
		it := Item{Question: c.Question, Answer: answers, Scorer: "exact",
			Meta: map[string]string{"id": c.ID, "kind": c.Kind, "form": c.Form, "size": sizeLabel(len(doc)), "deliver": deliverLabel(c.Deliver)}}
		if len(answers) == 0 {
			it.Answer, it.Scorer = []string{"No answer"}, "absent"
		}
		if c.Deliver == "inline" {
			// Half the questions before their document, half after.
			it.Inline = eval.InlineQuestionLast
			if inlines%2 == 1 {
				it.Inline = eval.InlineQuestionFirst
			}
			it.Meta["deliver"] = it.Inline
			inlines++
		}
		for i, p := range parts {
			name := fmt.Sprintf("%s.txt", c.ID)
			if len(parts) > 1 {
				name = fmt.Sprintf("%s-part%d.txt", c.ID, i+1)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(p), 0o644); err != nil {
				return man, err
			}
			sum := sha256.Sum256([]byte(p))
			man.Documents[c.ID] = append(man.Documents[c.ID], hex.EncodeToString(sum[:]))
			it.ContextFiles = append(it.ContextFiles, name)
		}
		b, _ := json.Marshal(it)
		lines = append(append(lines, b...), '\n')
	}
	if len(bad) > 0 {
		return man, errors.Join(bad...)
	}
	if err := os.WriteFile(filepath.Join(dir, TaskFile), lines, 0o644); err != nil {
		return man, err
	}
	b, _ := json.MarshalIndent(man, "", "  ")
	return man, os.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n'), 0o644)
}

// Differences lists the cases whose documents differ from the frozen
// manifest's, and the packages whose versions differ.
func (m Manifest) Differences(frozen Manifest) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(frozen.Packages)) {
		if m.Packages[p] != frozen.Packages[p] {
			out = append(out, fmt.Sprintf("package %s is %q, the set was frozen with %q", p, m.Packages[p], frozen.Packages[p]))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(frozen.Documents)) {
		if strings.Join(m.Documents[id], ",") != strings.Join(frozen.Documents[id], ",") {
			out = append(out, fmt.Sprintf("case %s: its documents differ from the frozen ones", id))
		}
	}
	return out
}

func kindNamed(name string) (kind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}

func parseSize(s string) int {
	var n int
	var unit string
	fmt.Sscanf(s, "%d%s", &n, &unit)
	switch unit {
	case "k":
		return n << 10
	case "m":
		return n << 20
	}
	return n
}

// sizeLabel buckets a document's size for the report.
func sizeLabel(n int) string {
	switch {
	case n < 512<<10:
		return "≤0.5 MB"
	case n < 3<<20:
		return "0.5-3 MB"
	}
	return ">3 MB"
}

func deliverLabel(d string) string {
	if d == "" {
		return "file"
	}
	return d
}

// joinFiles is the files' texts, sep between them.
func joinFiles(files []file, sep string) string {
	var b strings.Builder
	for i, f := range files {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(f.text)
	}
	return b.String()
}

// document makes a case's document from its kind's pool and returns it
// with the accepted answers.
func (c Case) document(k kind, pool []file) (string, []string, error) {
	h := fnv.New64a()
	h.Write([]byte(c.ID))
	rng := rand.New(rand.NewPCG(h.Sum64(), 38))
	answers := c.Answers
	var doc string
	if c.Size == "" {
		doc = joinFiles(pool, k.sep)
	} else {
		target := parseSize(c.Size)
		order := rng.Perm(len(pool))
		var fact *file
		var chosen []file
		total := 0
		for _, i := range order {
			if c.Fact != "" && pool[i].name == c.Fact {
				fact = &pool[i]
			}
		}
		if c.Fact != "" && fact == nil {
			return "", nil, fmt.Errorf("the fact's file %s is not in the %s pool", c.Fact, k.name)
		}
		if fact != nil {
			total = len(fact.text)
		}
		for _, i := range order {
			if total >= target {
				break
			}
			if fact != nil && pool[i].name == fact.name {
				continue
			}
			chosen = append(chosen, pool[i])
			total += len(pool[i].text) + len(k.sep)
		}
		if fact != nil {
			// Not last: the last file is cut to the target size.
			at := 0
			if len(chosen) > 1 {
				at = rng.IntN(len(chosen))
			}
			chosen = append(chosen[:at], append([]file{*fact}, chosen[at:]...)...)
		}
		if total > target && len(chosen) > 1 && (fact == nil || chosen[len(chosen)-1].name != fact.name) {
			last := &chosen[len(chosen)-1]
			keep := len(last.text) - (total - target)
			if keep > 0 {
				if i := strings.LastIndexByte(last.text[:keep], '\n'); i >= 0 {
					keep = i + 1
				}
				last.text = last.text[:keep]
			} else {
				chosen = chosen[:len(chosen)-1]
			}
		}
		doc = joinFiles(chosen, k.sep)
	}
	if c.Status[0] != "" {
		v := dpkgField(doc, c.Status[0], c.Status[1])
		if v == "" {
			return "", nil, fmt.Errorf("package %s has no %s field in the status database", c.Status[0], c.Status[1])
		}
		answers = []string{v}
		if name, _, ok := strings.Cut(v, " <"); ok {
			answers = append(answers, name, strings.Trim(v[len(name)+1:], "<>"))
		}
	}
	if c.Needle != "" {
		doc = plant(doc, c.Needle, rng.Float64()*0.9+0.05, k.blankOnly)
	}
	if c.Witness != "" && !strings.Contains(doc, c.Witness) {
		return "", nil, fmt.Errorf("witness %q is not in the document", c.Witness)
	}
	if len(answers) > 0 && !strings.Contains(strings.ToLower(doc), strings.ToLower(answers[0])) {
		return "", nil, fmt.Errorf("answer %q is not in the document", answers[0])
	}
	for _, a := range c.Absent {
		if strings.Contains(strings.ToLower(doc), strings.ToLower(a)) {
			return "", nil, fmt.Errorf("%q, which the question asks about, is in the document", a)
		}
	}
	return doc, answers, nil
}

// plant inserts needle at about depth (0 to 1) of doc: after the next
// blank line when blankOnly (between paragraphs), else after the next line
// break, as a block of its own.
func plant(doc, needle string, depth float64, blankOnly bool) string {
	at := int(depth * float64(len(doc)))
	sep := "\n"
	if blankOnly {
		sep = "\n\n"
	}
	i := strings.Index(doc[at:], sep)
	if i < 0 {
		return doc + "\n" + needle + "\n"
	}
	at += i + len(sep)
	block := strings.TrimRight(needle, "\n") + "\n"
	if blankOnly {
		block += "\n"
	}
	return doc[:at] + block + doc[at:]
}

// split cuts doc into n parts at line (or paragraph) boundaries near
// equal sizes.
func split(doc string, n int, blankOnly bool) []string {
	sep := "\n"
	if blankOnly {
		sep = "\n\n"
	}
	var out []string
	start := 0
	for i := 1; i < n; i++ {
		at := max(start, len(doc)*i/n)
		j := strings.Index(doc[at:], sep)
		if j < 0 {
			break
		}
		end := at + j + len(sep)
		out = append(out, doc[start:end])
		start = end
	}
	return append(out, doc[start:])
}
