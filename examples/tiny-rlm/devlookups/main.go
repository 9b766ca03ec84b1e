// Command devlookups is the development set of the REPL's lookup helper
// (package document/lookup): questions over real text that Debian
// packages install, written without reading the helper's code, over files
// the held-out set (eval/heldout) does not read. The helper is changed by
// what this set shows; the held-out set only measures the result.
//
//	go run ./examples/tiny-rlm/devlookups              # score lookup.Find on every case, list the misses
//	go run ./examples/tiny-rlm/devlookups -kind yaml   # only one kind
//	go run ./examples/tiny-rlm/devlookups -out DIR     # DIR/devlookups.jsonl for rlm eval --task custom:...
//	go run ./examples/tiny-rlm/devlookups -fresh       # the fresh set's held-out half, which only measures
//	go run ./examples/tiny-rlm/devlookups -distract    # each attached document between two others, as three files
//	go run ./examples/tiny-rlm/devlookups -split       # each attached document cut in three files
//	go run ./examples/tiny-rlm/devlookups -features F  # each answer's features, and each case's with its answer cut out
//
// Scoring runs the cell the built-in model writes for a lookup
// (training/expert/cells/lookup.txt): lookup(context, query), with the
// question in query, or in the text itself when it came in one message
// with its document; attached files are joined by a blank line as the
// gateway joins them. An empty answer is "No answer".
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/document/lookup"
	"github.com/rlm-project/rlm/eval"
)

// devCase is one question of the set.
type devCase struct {
	ID   string
	Kind string // the kind of text: man, changelog, yaml, ...
	// Form is how the answer is written: a planted needle's form (prose,
	// config, json, csv, log, mdtable, list, comment, stanza, yaml, ini,
	// mail, sql, fixed, ...), "fact" for what was in the text all along,
	// "absent" for a question the document does not answer.
	Form string
	// Files are the real files the document is made of (globs allowed,
	// sorted; .gz files are read gunzipped), joined by a blank line.
	Files []string
	// Make makes the document from real data instead (a JSON list as
	// JSON lines, a table as an SQL dump).
	Make func() (string, error)
	// Size cuts the document to about this many bytes at a line break
	// (0: as it is); the answer must survive the cut.
	Size int
	// Needle is text planted at Depth (0 to 1) of the document, after a
	// line break.
	Needle string
	Depth  float64
	// Question as a user would ask it.
	Question string
	// Answers are the accepted answers; none for an absent answer.
	Answers []string
	// Deliver is how the document is sent: "" attached, "inline" in one
	// message after the question, "inline-after" in one message before
	// it, "files" split into three attached files, "each" each of its
	// Files attached on its own.
	Deliver string
}

// cases are the development set's cases (cases_a.go, cases_b.go): the
// helper is changed by what they show.
var cases [][]devCase

// fresh are a second set written the same way (fresh_*.go), by writers
// who saw neither the helper's code nor its scores. Half of it (by a hash
// of the case's ID, heldOut) only measures: nothing is changed because of
// it, so its score (-fresh) says how the helper does on text and
// questions it was not fitted to. The other half joins the development
// set.
var fresh [][]devCase

// heldOut reports whether a fresh case is in the half that only
// measures.
func heldOut(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%2 == 1
}

func main() {
	out := flag.String("out", "", "write the set as an rlm eval custom task into this `directory` instead of scoring it")
	kind := flag.String("kind", "", "only cases of this `kind`")
	verbose := flag.Bool("v", false, "print every case, not only the misses")
	only := flag.String("id", "", "only the case with this `ID`")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the lookups to this `file`")
	check := flag.Bool("check", false, "only build the documents and count the cases (no lookups)")
	features := flag.String("features", "", "write each answer's features to this `file` (TSV), with those of each case once its answer's lines are cut out")
	splitted := flag.Bool("split", false, "send each attached case's document cut in three attached files")
	distracted := flag.Bool("distract", false, "send each attached case's document as the middle one of three attached files, between two other cases' documents")
	useFresh := flag.Bool("fresh", false, "use the held-out half of the fresh set (fresh_*.go), which only measures, instead of the development set")
	flag.Parse()
	var set [][]devCase
	for _, l := range fresh {
		var half []devCase
		for _, c := range l {
			if heldOut(c.ID) == *useFresh {
				half = append(half, c)
			}
		}
		set = append(set, half)
	}
	if !*useFresh {
		set = append(cases, set...)
	}
	all, err := build(set, *kind, *only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devlookups:", err)
		os.Exit(1)
	}
	if *distracted {
		all = distract(all)
	}
	if *splitted {
		all = splitEach(all)
	}
	switch {
	case *check:
		counts := map[string]int{}
		for _, b := range all {
			counts[b.Kind+"/"+b.Form+"/"+b.Deliver]++
		}
		for _, k := range slices.Sorted(maps.Keys(counts)) {
			fmt.Printf("%-40s %d\n", k, counts[k])
		}
		fmt.Printf("%d cases\n", len(all))
	case *out != "":
		err = write(*out, all)
	case *features != "":
		err = writeFeatures(*features, all, *verbose)
	default:
		if *cpuprofile != "" {
			f, perr := os.Create(*cpuprofile)
			if perr != nil {
				err = perr
				break
			}
			defer f.Close()
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		score(os.Stdout, all, *verbose)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "devlookups:", err)
		os.Exit(1)
	}
}

// built is a case with its document.
type built struct {
	devCase
	doc   string
	parts []string // the attached files doc is made of, when several
}

func build(set [][]devCase, kind, id string) ([]built, error) {
	var out []built
	seen := map[string]bool{}
	for _, l := range set {
		for _, c := range l {
			if seen[c.ID] {
				return nil, fmt.Errorf("case %s: ID used twice", c.ID)
			}
			seen[c.ID] = true
			if kind != "" && c.Kind != kind || id != "" && c.ID != id {
				continue
			}
			doc, starts, err := c.document()
			if errors.Is(err, errAnswerGone) {
				// The files it reads changed on this machine (an apt
				// update): it is left out, said so, and its answer not
				// shown (it may be a held-out case).
				fmt.Fprintf(os.Stderr, "devlookups: case %s left out: %v\n", c.ID, err)
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("case %s: %w", c.ID, err)
			}
			b := built{devCase: c, doc: doc}
			if c.Deliver == "each" {
				if len(starts) < 2 {
					return nil, fmt.Errorf("case %s: delivered as each of its files, but it has one", c.ID)
				}
				for i, st := range starts {
					end := len(doc)
					if i+1 < len(starts) {
						end = starts[i+1] - 2 // the blank line that joins them
					}
					b.parts = append(b.parts, doc[st:end])
				}
			}
			out = append(out, b)
		}
	}
	return out, nil
}

// document builds the case's document, and where each of its files
// starts in it.
func (c devCase) document() (string, []int, error) {
	var doc string
	var starts []int
	if c.Make != nil {
		d, err := c.Make()
		if err != nil {
			return "", nil, err
		}
		doc = d
	} else {
		var parts []string
		size := 0 // of parts joined
		for _, g := range c.Files {
			names, err := filepath.Glob(g)
			if err != nil || len(names) == 0 {
				return "", nil, fmt.Errorf("no file matches %s", g)
			}
			sort.Strings(names)
			for _, n := range names {
				t, err := readFile(n)
				if err != nil {
					return "", nil, err
				}
				if strings.ContainsRune(t, 0) {
					continue // a binary file a glob caught: no one attaches one as text
				}
				if t, err = render(n, t); err != nil {
					return "", nil, err
				}
				if len(parts) > 0 {
					size += 2
				}
				starts = append(starts, size)
				parts = append(parts, t)
				size += len(t)
				if c.Size > 0 && size > 2*c.Size {
					break
				}
			}
		}
		doc = strings.Join(parts, "\n\n")
	}
	if c.Size > 0 && len(doc) > c.Size {
		cut := c.Size
		if i := strings.LastIndexByte(doc[:cut], '\n'); i > 0 {
			cut = i + 1
		}
		doc = doc[:cut]
		for len(starts) > 0 && starts[len(starts)-1] >= cut {
			starts = starts[:len(starts)-1]
		}
	}
	if c.Needle != "" {
		at := int(c.Depth * float64(len(doc)))
		if i := strings.IndexByte(doc[at:], '\n'); i >= 0 {
			at += i + 1
		} else {
			at = len(doc)
		}
		needle := strings.TrimRight(c.Needle, "\n") + "\n"
		doc = doc[:at] + needle + doc[at:]
		for i := range starts {
			if starts[i] > at {
				starts[i] += len(needle)
			}
		}
	}
	lower := strings.ToLower(doc)
	for i, a := range c.Answers {
		if i == 0 && !strings.Contains(lower, strings.ToLower(a)) {
			return "", nil, errAnswerGone
		}
	}
	return doc, starts, nil
}

// errAnswerGone is a case's document that does not hold its answer: the
// files it is built from are this machine's, and they changed.
var errAnswerGone = errors.New("its answer is not in the document this machine's files make")

func readFile(name string) (string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
	}
	return string(b), nil
}

// extractor renders HTML files as the gateway renders an attached one.
var extractor = document.New(document.Options{})

// render is the text the REPL holds of an attached file: an HTML file's
// rendered text, any other file as it is.
func render(name, text string) (string, error) {
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(name, ".gz")))
	if ext != ".html" && ext != ".htm" {
		return text, nil
	}
	r, err := extractor.Extract(context.Background(), document.Source{Filename: filepath.Base(name), Data: strings.NewReader(text), Size: int64(len(text))})
	if err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return strings.Join(r.Pieces, "\n"), nil
}

// message is the text the REPL's context holds, where each attached file
// starts in it, and the question its query holds, as the gateway delivers
// the case.
func (b built) message() (text string, starts []int, query string) {
	switch b.Deliver {
	case "inline":
		return b.Question + "\n\n" + b.doc, nil, ""
	case "inline-after":
		return b.doc + "\n\n" + b.Question, nil, ""
	case "files":
		text, starts := join(split(b.doc, 3))
		return text, starts, b.Question
	}
	if b.parts != nil {
		text, starts := join(b.parts)
		return text, starts, b.Question
	}
	return b.doc, nil, b.Question
}

// join joins files as the REPL's context does, by a blank line, and
// returns where each starts.
func join(files []string) (string, []int) {
	var starts []int
	var sb strings.Builder
	for i, f := range files {
		if i > 0 {
			sb.WriteString("\n\n")
		}
		starts = append(starts, sb.Len())
		sb.WriteString(f)
	}
	return sb.String(), starts
}

// split cuts doc into n parts at line breaks near equal sizes.
func split(doc string, n int) []string {
	var out []string
	start := 0
	for i := 1; i < n; i++ {
		at := max(start, len(doc)*i/n)
		j := strings.IndexByte(doc[at:], '\n')
		if j < 0 {
			break
		}
		out = append(out, doc[start:at+j+1])
		start = at + j + 1
	}
	return append(out, doc[start:])
}

// right scores an answer: exact (eval's "exact" scorer) against any
// accepted answer, or "No answer" for an absent one.
func (b built) right(answer string) bool {
	if len(b.Answers) == 0 {
		return eval.ScoreAbsent(answer) == 1
	}
	s, _ := eval.Score(eval.Instance{Scorer: "exact", Expected: b.Answers}, answer)
	return s == 1
}

type tally struct{ n, right, complete, completeRight int }

func (t *tally) add(right, complete bool) {
	t.n++
	if right {
		t.right++
	}
	if complete {
		t.complete++
		if right {
			t.completeRight++
		}
	}
}

func (t tally) String() string {
	p := "-"
	if t.complete > 0 {
		p = fmt.Sprintf("%.2f", float64(t.completeRight)/float64(t.complete))
	}
	return fmt.Sprintf("%3d/%-3d  complete %3d  precision %s", t.right, t.n, t.complete, p)
}

func score(w io.Writer, all []built, verbose bool) {
	var total tally
	by := map[string]map[string]*tally{"kind": {}, "form": {}, "deliver": {}, "set": {}}
	for _, b := range all {
		text, starts, query := b.message()
		start := time.Now()
		got := lookup.ExplainIn(text, starts, query)
		took := time.Since(start)
		if took > time.Second {
			fmt.Fprintf(w, "SLOW %s: %.1f s over %d bytes\n", b.ID, took.Seconds(), len(text))
		}
		complete := got.Value != ""
		right := b.right(got.Value)
		total.add(right, complete)
		deliver := b.Deliver
		if deliver == "" {
			deliver = "attached"
		}
		set, _, _ := strings.Cut(b.ID, "-") // a, b: the first set; c, d: the second; e, f: the third
		for dim, key := range map[string]string{"kind": b.Kind, "form": b.Form, "deliver": deliver, "set": set} {
			if by[dim][key] == nil {
				by[dim][key] = &tally{}
			}
			by[dim][key].add(right, complete)
		}
		if !right || verbose {
			mark := "MISS"
			if right {
				mark = "ok"
			}
			fmt.Fprintf(w, "%s %s [%s/%s] %q\n    got %q (score %.2f, line %q)\n    want %q\n", mark, b.ID, b.Kind, b.Form, b.Question,
				got.Value, got.Score, clip(got.Line, 160), b.Answers)
		}
	}
	for _, dim := range []string{"kind", "form", "deliver", "set"} {
		fmt.Fprintf(w, "\nby %s:\n", dim)
		for _, k := range slices.Sorted(maps.Keys(by[dim])) {
			fmt.Fprintf(w, "  %-14s %s\n", k, by[dim][k])
		}
	}
	fmt.Fprintf(w, "\nall: %s\n", total)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func write(dir string, all []built) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var lines []byte
	for _, b := range all {
		it := eval.CustomLine{Question: b.Question, Answer: b.Answers, Scorer: "exact",
			Meta: map[string]string{"id": b.ID, "kind": b.Kind, "form": b.Form, "deliver": b.Deliver}}
		if len(b.Answers) == 0 {
			it.Answer, it.Scorer = []string{"No answer"}, "absent"
		}
		docs := []string{b.doc}
		switch b.Deliver {
		case "files":
			docs = split(b.doc, 3)
		case "each":
			docs = b.parts
		case "inline":
			it.Inline = eval.InlineQuestionFirst
		case "inline-after":
			it.Inline = eval.InlineQuestionLast
		}
		for i, d := range docs {
			name := fmt.Sprintf("%s-%d.txt", b.ID, i)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(d), 0o644); err != nil {
				return err
			}
			it.ContextFiles = append(it.ContextFiles, name)
		}
		line, err := json.Marshal(it)
		if err != nil {
			return err
		}
		lines = append(append(lines, line...), '\n')
	}
	return os.WriteFile(filepath.Join(dir, "devlookups.jsonl"), lines, 0o644)
}

// seeded returns a generator for a case's own choices, seeded by the
// FNV-1a hash of its ID.
func seeded(id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	return rand.New(rand.NewPCG(h.Sum64(), 38))
}

// pgDumpHead is the start of a pg_dump plain-text dump by PostgreSQL
// version.
func pgDumpHead(version string) string {
	return `--
-- PostgreSQL database dump
--

-- Dumped from database version ` + version + ` (Debian ` + version + `-0+deb12u1)
-- Dumped by pg_dump version ` + version + ` (Debian ` + version + `-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

`
}

// writeFeatures writes, for each case, the features of the helper's
// answer and whether it was right; then the same for the case with every
// line that holds an accepted answer cut out, where any answer is wrong.
// The second kind of row is a wrong reading of the sort a user meets
// when the record that answers is written in a way the helper cannot
// read: what a decision to answer or not has to learn to refuse.
func writeFeatures(name string, all []built, verbose bool) error {
	var buf bytes.Buffer
	fmt.Fprintln(&buf, "id\tcut\tform\tcomplete\tright\tscore\tclear\tkind\tfallback\tlen\tcount\tkeys")
	row := func(b built, cut bool, text string, starts []int, query string) {
		got := lookup.ExplainIn(text, starts, query)
		right := b.right(got.Value)
		if cut {
			right = got.Value == ""
			if !right && verbose {
				fmt.Fprintf(os.Stderr, "CUT %s %q\n    got %q (%s, score %.2f) from %q\n    want %q\n", b.ID, b.Question, got.Value, got.Kind, got.Score, clip(got.Line, 200), b.Answers)
			}
		}
		count := 0
		if got.Value != "" {
			count = strings.Count(strings.ToLower(text), strings.ToLower(got.Value))
		}
		fmt.Fprintf(&buf, "%s\t%v\t%s\t%v\t%v\t%.3f\t%.3f\t%s\t%v\t%d\t%d\t%.2f\n", b.ID, cut, b.Form, got.Value != "", right,
			got.Score, got.Clear, got.Kind, got.Fallback, len(got.Value), count, got.Keys)
	}
	for _, b := range all {
		text, starts, query := b.message()
		row(b, false, text, starts, query)
		if len(b.Answers) == 0 {
			continue
		}
		if cut, ok := cutAnswers(text, b.Answers); ok {
			row(b, true, cut, nil, query)
		}
	}
	return os.WriteFile(name, buf.Bytes(), 0o644)
}

// cutAnswers removes every line of text that holds one of answers; it
// reports false when an answer is too short or on too many lines to cut.
func cutAnswers(text string, answers []string) (string, bool) {
	lines := strings.SplitAfter(text, "\n")
	lower := make([]string, len(lines))
	for i, l := range lines {
		lower[i] = strings.ToLower(l)
	}
	drop := map[int]bool{}
	for _, a := range answers {
		a = strings.ToLower(a)
		if len(a) < 3 {
			return "", false
		}
		for i, l := range lower {
			if strings.Contains(l, a) {
				drop[i] = true
			}
		}
	}
	if len(drop) == 0 || len(drop) > 20 {
		return "", false
	}
	var out strings.Builder
	for i, l := range lines {
		if !drop[i] {
			out.WriteString(l)
		}
	}
	return out.String(), true
}

// splitEach sends each attached case's document as three attached files,
// cut near a third and two thirds at line breaks (delivery "files").
func splitEach(all []built) []built {
	var out []built
	for _, b := range all {
		if b.Deliver == "" {
			b.Deliver = "files"
			out = append(out, b)
		}
	}
	return out
}

// distractMax bounds the size of a document used as a distractor.
var distractMax = 1 << 20

// distract sends each attached case's document as the middle one of three
// attached files, between two other cases' documents of other kinds that
// hold none of its answers.
func distract(all []built) []built {
	var out []built
	for i, b := range all {
		if b.Deliver != "" {
			continue
		}
		var others []string
		for j := 1; j < len(all) && len(others) < 2; j++ {
			o := all[(i+j*37)%len(all)]
			if o.Kind == b.Kind || len(o.doc) > distractMax {
				continue
			}
			ok := true
			for _, a := range b.Answers {
				if strings.Contains(strings.ToLower(o.doc), strings.ToLower(a)) {
					ok = false
				}
			}
			if ok {
				others = append(others, o.doc)
			}
		}
		if len(others) < 2 {
			continue // too few cases of other kinds (-id, -kind)
		}
		b.parts = []string{others[0], b.doc, others[1]}
		b.doc, _ = join(b.parts)
		out = append(out, b)
	}
	return out
}
