// Command structprobe asks the lookup helper (package document/lookup)
// questions whose answers a document's structure settles, over real
// files installed on this machine, and reports how often the helper reads
// the right value, by layout and by form of question, so that a record
// misread as another shape shows up without anyone writing a question by
// hand. Two sources (-source json, text, or all):
//
//   - JSON files, each laid out as it was written and as other formats
//     would write the same facts: one line of JSON, YAML, JSON lines, CSV
//     and TSV, a Markdown table, a fixed-width report, INI sections, RFC
//     822 stanzas, an SQL dump;
//   - text of other kinds as written (text.go): C headers' #defines and
//     enum members, Go and Python constants, settings files (properties,
//     INI, systemd units), YAML, Markdown and HTML tables, CSV, dpkg's and
//     apt's logs, man pages' stated defaults; each read by a few strict
//     lines of its grammar.
//
// Usage:
//
//	go run ./examples/tiny-rlm/structprobe            # the development half: totals, then each miss
//	go run ./examples/tiny-rlm/structprobe -held      # the held-out half: totals only
//
// Questions come from the parsed value, not from reading the text: for a
// leaf at a key path (a.b.c) "What is a.b.c?" or "What is the c of b in
// a?"; for a collection (an array of objects named by a "name"-like
// field, or an object whose members are objects, or a table's rows) "What
// is the f of N?"; for a constant or setting "What is X set to?", for a
// package "Which version of P was installed?", for an option "What does
// -w default to?". A question is kept only when its answer occurs once in
// its document (or, for a package's version, only on lines that name the
// package), so that a right reading is the only right answer. Files (and
// the parts a log is cut in) are split in two halves by a hash of their
// path: the development half may be read and tuned on; the held-out half
// only measures, and its misses are never printed. No file that the
// lookup sets (examples/tiny-rlm/devlookups, -sets) name is read.
//
// The JSON layouts other than "as written" are written by encoding/json,
// gopkg.in/yaml.v3 and encoding/csv, or (INI, Markdown, fixed width,
// stanzas, SQL) by a few lines here, from the same parsed value: the facts
// are real, the layouts are what a standard writer makes of them.
package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/rlm-project/rlm/document/lookup"
)

// defaultRoots hold JSON that no development or held-out lookup set reads:
// CloudFormation resource schemas, test data of Go modules, Go's own.
var defaultRoots = []string{
	"/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/cfnlint/data/schemas",
	"/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/samtranslator",
	"/root/go/pkg/mod",
	"/usr/local/go/src",
}

func main() {
	roots := flag.String("roots", strings.Join(defaultRoots, ","), "comma-separated `directories` to take JSON files from")
	perDir := flag.Int("per-dir", 3, "at most this many files from one directory")
	maxFiles := flag.Int("files", 600, "at most this many files in all (both halves)")
	maxSize := flag.Int("max-size", 256<<10, "skip files larger than this many `bytes`")
	perLayout := flag.Int("q", 2, "questions per file and layout")
	held := flag.Bool("held", false, "score the held-out half (totals only) instead of the development half")
	layoutOnly := flag.String("layout", "", "only this `layout`")
	seed := flag.Uint64("seed", 1, "seed for choosing files and questions")
	source := flag.String("source", "all", "`json` (real JSON in eleven layouts), text (real text of other kinds as written) or all")
	sets := flag.String("sets", "examples/tiny-rlm/devlookups", "the `directory` of the lookup sets' sources: files they name are not probed")
	dump := flag.String("dump", "", "write each development miss's document into this `directory` as N.txt (N its number in the list of misses)")
	flag.Parse()
	if *held && *dump != "" {
		fmt.Fprintln(os.Stderr, "structprobe: the held-out half's misses are not shown (-dump with -held)")
		os.Exit(2)
	}

	skip, err := excluded(*sets)
	if err != nil {
		fmt.Fprintln(os.Stderr, "structprobe:", err)
		os.Exit(1)
	}
	var cases []probe
	keep := func(cs []probe) {
		for _, c := range cs {
			if *layoutOnly == "" || c.layout == *layoutOnly {
				cases = append(cases, c)
			}
		}
	}
	if *source != "text" {
		isJSON := func(p string) bool { return strings.HasSuffix(p, ".json") }
		for _, f := range pick(strings.Split(*roots, ","), isJSON, skip, *perDir, *maxFiles, 1<<10, int64(*maxSize), *seed) {
			if heldOut(f) != *held {
				continue
			}
			cs, err := probesOf(f, *perLayout, *seed)
			if err != nil {
				continue // not JSON this probe can read (comments, several values)
			}
			keep(cs)
		}
	}
	if *source != "json" {
		for _, k := range textKinds {
			size := int64(*maxSize)
			if k.split != nil {
				size = 64 << 20 // a log is cut into parts of its own
			}
			n, files := *perDir, *maxFiles/2
			if k.perDir > 0 {
				n, files = k.perDir, k.files
			}
			for _, f := range pick(k.roots, k.match, skip, n, files, 300, size, *seed) {
				cs, err := textProbes(k, f, *perLayout, *seed)
				if err != nil {
					continue
				}
				keep(slices.DeleteFunc(cs, func(p probe) bool { return heldOut(p.file) != *held }))
			}
		}
	}
	if len(cases) == 0 {
		fmt.Fprintln(os.Stderr, "structprobe: no questions (no files of the kinds asked for under the roots)")
		os.Exit(1)
	}
	score(cases)
	report(os.Stdout, cases, !*held)
	if *dump != "" {
		if err := dumpMisses(*dump, cases); err != nil {
			fmt.Fprintln(os.Stderr, "structprobe:", err)
			os.Exit(1)
		}
	}
}

// dumpMisses writes the document of each miss to dir/N.txt, N counting
// the misses from 1 as report lists them.
func dumpMisses(dir string, cases []probe) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n := 0
	for _, p := range cases {
		if p.isRight() {
			continue
		}
		n++
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.txt", n)), []byte(p.doc), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// heldOut reports whether file belongs to the held-out half.
func heldOut(file string) bool {
	h := fnv.New32a()
	h.Write([]byte(file))
	return h.Sum32()%2 == 1
}

// pick walks roots for files that match, of minSize to maxSize bytes and
// not skipped, takes at most perDir of each directory, and returns
// maxFiles of them chosen by seed, sorted.
func pick(roots []string, match, skip func(string) bool, perDir, maxFiles int, minSize, maxSize int64, seed uint64) []string {
	byDir := map[string][]string{}
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable parts of a tree are skipped
			}
			if d.IsDir() {
				if n := d.Name(); n == ".git" || n == ".github" || n == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !match(p) || skip(p) {
				return nil
			}
			info, err := d.Info()
			if err != nil || info.Size() < minSize || info.Size() > maxSize {
				return nil
			}
			byDir[filepath.Dir(p)] = append(byDir[filepath.Dir(p)], p)
			return nil
		})
	}
	r := rand.New(rand.NewPCG(seed, 7))
	var all []string
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		fs := byDir[dir]
		sort.Strings(fs)
		r.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
		all = append(all, fs[:min(perDir, len(fs))]...)
	}
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	all = all[:min(maxFiles, len(all))]
	sort.Strings(all)
	return all
}

// probe is one question over one layout of one file.
type probe struct {
	file, layout, form string
	doc, question      string
	want               string
	also               []string // other ways to write want
	got                string
}

// leaf is a scalar of the parsed value: its key path, or its field and
// the name of the member of a collection it belongs to.
type leaf struct {
	path  []string
	owner string
	value string
}

// member is one named object of a collection: its scalar fields.
type member struct {
	name   string
	fields map[string]string
}

// nameKeys are the fields that name an array's objects, in order of
// preference.
var nameKeys = []string{"name", "Name", "id", "Id", "ID", "key", "title", "typeName", "filename"}

// probesOf builds the questions over each layout of file.
func probesOf(file string, perLayout int, seed uint64) ([]probe, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON value", file)
	}
	var leaves []leaf
	walk(v, nil, &leaves)
	colls := collections(v, nil)

	h := fnv.New64a()
	h.Write([]byte(file))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))

	var out []probe
	add := func(layout, doc string, ls []leaf) {
		var kept []probe
		for _, l := range ls {
			if p, ok := ask(file, layout, doc, l, r); ok {
				kept = append(kept, p)
			}
		}
		r.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
		out = append(out, kept[:min(perLayout, len(kept))]...)
	}
	add("as written", string(raw), leaves)
	var one bytes.Buffer
	if json.Compact(&one, raw) == nil {
		add("one line", one.String(), leaves)
	}
	if y, err := yaml.Marshal(plain(v)); err == nil {
		add("yaml", string(y), leaves)
	}
	for _, c := range colls {
		var ls []leaf
		for _, m := range c {
			for f, val := range m.fields {
				ls = append(ls, leaf{path: []string{f}, owner: m.name, value: val})
			}
		}
		sort.Slice(ls, func(i, j int) bool {
			return ls[i].owner+"\x00"+ls[i].path[0] < ls[j].owner+"\x00"+ls[j].path[0]
		})
		add("json lines", jsonLines(c), ls)
		add("csv", table(c, "csv"), ls)
		add("tsv", table(c, "tsv"), ls)
		add("markdown", table(c, "markdown"), ls)
		add("fixed width", fixedWidth(c), ls)
		add("ini", ini(c), ls)
		add("stanzas", stanzas(c), ls)
		add("sql", sqlInserts(c), ls)
		break // the first collection is enough for one file
	}
	return out, nil
}

// walk collects the scalars of v under object keys (not through arrays:
// an index is no key a person asks by).
func walk(v any, path []string, out *[]leaf) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walk(v[k], append(slices.Clone(path), k), out)
		}
	case []any:
	default:
		if s, ok := scalar(v); ok && len(path) > 0 {
			*out = append(*out, leaf{path: path, value: s})
		}
	}
}

// scalar formats a JSON scalar as the text a writer prints for it.
func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return fmt.Sprint(v), true
	}
	return "", false
}

// collections finds, anywhere in v, arrays of objects named by one of
// nameKeys and objects whose members are all objects: each a list of
// named members with their scalar fields.
func collections(v any, out [][]member) [][]member {
	switch v := v.(type) {
	case map[string]any:
		if c, ok := objectCollection(v); ok {
			out = append(out, c)
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = collections(v[k], out)
		}
	case []any:
		if c, ok := arrayCollection(v); ok {
			out = append(out, c)
		}
		for _, x := range v {
			out = collections(x, out)
		}
	}
	return out
}

func fieldsOf(o map[string]any, skip string) map[string]string {
	fs := map[string]string{}
	for k, x := range o {
		// (A value of several lines is no cell of a table or line of
		// an INI file.)
		if s, ok := scalar(x); ok && k != skip && !strings.ContainsAny(s, "\r\n") {
			fs[k] = s
		}
	}
	return fs
}

func objectCollection(v map[string]any) ([]member, bool) {
	if len(v) < 3 {
		return nil, false
	}
	var c []member
	for _, k := range slices.Sorted(maps.Keys(v)) {
		o, ok := v[k].(map[string]any)
		if !ok {
			return nil, false
		}
		if fs := fieldsOf(o, ""); len(fs) > 0 {
			c = append(c, member{name: k, fields: fs})
		}
	}
	return c, len(c) >= 3
}

func arrayCollection(v []any) ([]member, bool) {
	if len(v) < 3 {
		return nil, false
	}
	for _, key := range nameKeys {
		seen := map[string]bool{}
		var c []member
		for _, x := range v {
			o, ok := x.(map[string]any)
			if !ok {
				return nil, false
			}
			name, ok := o[key].(string)
			if !ok || name == "" || seen[name] {
				c = nil
				break
			}
			seen[name] = true
			c = append(c, member{name: name, fields: fieldsOf(o, key)})
		}
		if c != nil {
			return c, true
		}
	}
	return nil, false
}

// ask words a question for l over doc, if its answer can be told apart:
// a value of 2 to 80 characters on one line that occurs once in doc, and
// keys that read as words.
func ask(file, layout, doc string, l leaf, r *rand.Rand) (probe, bool) {
	v := l.value
	if len(v) < 2 || len(v) > 80 || strings.ContainsAny(v, "\n\r\t") {
		return probe{}, false
	}
	if strings.Count(strings.ToLower(doc), strings.ToLower(v)) != 1 {
		return probe{}, false
	}
	form, q, ok := leafQuestion(l, r)
	if !ok {
		return probe{}, false
	}
	return probe{file: file, layout: layout, form: form, doc: doc, question: q, want: v}, true
}

// leafQuestion words the question whose answer is l's value: by its key
// path, or by its field and the name of its member; ok is false for keys
// that do not read as words.
func leafQuestion(l leaf, r *rand.Rand) (form, question string, ok bool) {
	if len(l.path) > 4 {
		return "", "", false // a deeper path is no question a person words
	}
	for _, k := range l.path {
		if !keyLike(k) {
			return "", "", false
		}
	}
	n := len(l.path)
	switch {
	case l.owner != "":
		if !nameLike(l.owner) {
			return "", "", false
		}
		return "field of name", fmt.Sprintf("What is the %s of %s?", l.path[0], l.owner), true
	case r.IntN(2) == 0:
		return "dotted path", fmt.Sprintf("What is %s?", strings.Join(l.path, ".")), true
	case n == 1:
		return "key", fmt.Sprintf("What is the %s?", l.path[0]), true
	case n == 2:
		return "key of parent", fmt.Sprintf("What is the %s of %s?", l.path[1], l.path[0]), true
	case n > 3:
		// The last three keys would not tell a deeper path apart.
		return "dotted path", fmt.Sprintf("What is %s?", strings.Join(l.path, ".")), true
	}
	return "key of parent in grandparent", fmt.Sprintf("What is the %s of %s in %s?", l.path[n-1], l.path[n-2], l.path[n-3]), true
}

// keyLike reports whether k reads as a key a person would ask by: 2 to 40
// characters, a letter first, letters, digits, '_', '-' and '.' only.
func keyLike(k string) bool {
	if len(k) < 2 || len(k) > 40 {
		return false
	}
	for i, c := range k {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter {
			return false
		}
		if !letter && !(c >= '0' && c <= '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// nameLike reports whether a member's name reads as one a person would
// ask by: a key, or up to five words of letters, digits and -_./: (not a
// format string, "%d files remaining!").
func nameLike(n string) bool {
	if keyLike(n) {
		return true
	}
	if len(n) > 40 || len(strings.Fields(n)) > 5 || !strings.ContainsFunc(n, unicode.IsLetter) {
		return false
	}
	return !strings.ContainsFunc(n, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" -_./:", r)
	})
}

// plain turns json.Numbers into ints or floats, so that YAML writes them
// as numbers and not as quoted strings.
func plain(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = plain(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = plain(x)
		}
		return a
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return v.String()
	}
	return v
}

// columns are the field names of a collection, "name" first.
func columns(c []member) []string {
	set := map[string]bool{}
	for _, m := range c {
		for f := range m.fields {
			set[f] = true
		}
	}
	delete(set, "name")
	return append([]string{"name"}, slices.Sorted(maps.Keys(set))...)
}

func row(m member, cols []string) []string {
	out := []string{m.name}
	for _, c := range cols[1:] {
		out = append(out, m.fields[c])
	}
	return out
}

func jsonLines(c []member) string {
	var b strings.Builder
	for _, m := range c {
		o := map[string]string{"name": m.name}
		for k, v := range m.fields {
			if k != "name" {
				o[k] = v
			}
		}
		line, _ := json.Marshal(o)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func table(c []member, format string) string {
	cols := columns(c)
	var b strings.Builder
	if format == "csv" || format == "tsv" {
		w := csv.NewWriter(&b)
		if format == "tsv" {
			w.Comma = '\t'
		}
		w.Write(cols)
		for _, m := range c {
			w.Write(row(m, cols))
		}
		w.Flush()
		return b.String()
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	line := func(cells []string) {
		b.WriteString("|")
		for _, s := range cells {
			b.WriteString(" " + cell(s) + " |")
		}
		b.WriteString("\n")
	}
	line(cols)
	b.WriteString(strings.Repeat("| --- ", len(cols)) + "|\n")
	for _, m := range c {
		line(row(m, cols))
	}
	return b.String()
}

// fixedWidth writes the collection as a report's columns, each padded to
// its widest cell and parted by two spaces, with a rule under the heads.
func fixedWidth(c []member) string {
	cols := columns(c)
	rows := [][]string{cols}
	for _, m := range c {
		rows = append(rows, row(m, cols))
	}
	width := make([]int, len(cols))
	for _, r := range rows {
		for i, cell := range r {
			width[i] = max(width[i], len(cell))
		}
	}
	var b strings.Builder
	for n, r := range rows {
		var line strings.Builder
		for i, cell := range r {
			fmt.Fprintf(&line, "%-*s  ", width[i], cell)
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
		if n == 0 {
			var rule strings.Builder
			for _, w := range width {
				rule.WriteString(strings.Repeat("-", w) + "  ")
			}
			b.WriteString(strings.TrimRight(rule.String(), " ") + "\n")
		}
	}
	return b.String()
}

// stanzas writes the collection as RFC 822 paragraphs, as a Debian
// package database does: "Name: N", then a "Field: value" line each.
func stanzas(c []member) string {
	return paragraphs(c, "Name: %s\n", "%s: %s\n", func(k string) bool { return k != "name" && keyLike(k) })
}

// ini writes the collection as INI sections: "[N]", then "field = value".
func ini(c []member) string {
	return paragraphs(c, "[%s]\n", "%s = %s\n", func(string) bool { return true })
}

// paragraphs writes each member as a paragraph: its name in the format
// head, then each field that keep keeps, in the format pair.
func paragraphs(c []member, head, pair string, keep func(string) bool) string {
	var b strings.Builder
	for _, m := range c {
		fmt.Fprintf(&b, head, m.name)
		for _, k := range slices.Sorted(maps.Keys(m.fields)) {
			if keep(k) {
				fmt.Fprintf(&b, pair, k, m.fields[k])
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// sqlInserts writes the collection as an SQL dump: a CREATE TABLE and an
// INSERT per member.
func sqlInserts(c []member) string {
	cols := columns(c)
	quoted := make([]string, len(cols))
	for i, col := range cols {
		quoted[i] = `"` + col + `"`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE items (\n    %s text\n);\n\n", strings.Join(quoted, " text,\n    "))
	for _, m := range c {
		vals := row(m, cols)
		for i, v := range vals {
			vals[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		fmt.Fprintf(&b, "INSERT INTO items (%s) VALUES (%s);\n", strings.Join(quoted, ", "), strings.Join(vals, ", "))
	}
	return b.String()
}

// score runs the helper on every probe, on all CPUs.
func score(cases []probe) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				cases[i].got = lookup.Find(cases[i].doc, cases[i].question)
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
}

// isRight reports whether the helper's answer is the probe's.
func (p probe) isRight() bool {
	return right(p.got, p.want) || slices.ContainsFunc(p.also, func(w string) bool { return right(p.got, w) })
}

// right reports whether got is want, up to case, surrounding quotes and
// a closing full stop.
func right(got, want string) bool {
	// A sentence's closing full stop is the sentence's, not the value's.
	norm := func(s string) string {
		return strings.TrimSuffix(strings.ToLower(strings.Trim(strings.TrimSpace(s), `"'`)), ".")
	}
	return norm(got) == norm(want)
}

type tally struct{ n, answered, right int }

func (t tally) String() string {
	prec := "-"
	if t.answered > 0 {
		prec = fmt.Sprintf("%.2f", float64(t.right)/float64(t.answered))
	}
	return fmt.Sprintf("%4d %4d (%.2f) %4d  %s", t.n, t.right, float64(t.right)/float64(max(t.n, 1)), t.answered, prec)
}

func (t *tally) add(p probe) {
	t.n++
	if p.got != "" {
		t.answered++
	}
	if p.isRight() {
		t.right++
	}
}

// report prints totals by layout and by form, and the misses when
// showMisses.
func report(w *os.File, cases []probe, showMisses bool) {
	byLayout, byForm := map[string]*tally{}, map[string]*tally{}
	var all tally
	files := map[string]bool{}
	for _, p := range cases {
		files[p.file] = true
		for _, m := range []struct {
			m map[string]*tally
			k string
		}{{byLayout, p.layout}, {byForm, p.form}} {
			if m.m[m.k] == nil {
				m.m[m.k] = &tally{}
			}
			m.m[m.k].add(p)
		}
		all.add(p)
	}
	fmt.Fprintf(w, "%d questions over %d files\n%-30s %4s %11s %4s  %s\n", len(cases), len(files), "", "n", "right", "ans", "precision")
	for _, m := range []map[string]*tally{byLayout, byForm} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(w, "%-30s %s\n", k, m[k])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-30s %s\n", "all", all)
	if !showMisses {
		return
	}
	n := 0
	for _, p := range cases {
		if p.isRight() {
			continue
		}
		n++
		fmt.Fprintf(w, "\nMISS %d %s [%s] %s\n  want %q got %q\n", n, p.file, p.layout, p.question, p.want, p.got)
	}
}
