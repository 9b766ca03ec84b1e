package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CustomLine is one line of a custom task file as a generator writes it:
// attached documents (paths relative to the file), the question, its
// accepted answers, the scorer and labels for reports. Generators of
// held-out and development sets write it; LoadCustom also reads the other
// forms described at Custom (a context in the line, a single answer).
type CustomLine struct {
	ContextFiles []string          `json:"context_files"`
	Inline       string            `json:"inline,omitempty"`
	Question     string            `json:"question"`
	Answer       []string          `json:"answer"`
	Scorer       string            `json:"scorer"`
	Meta         map[string]string `json:"meta"`
}

// Custom is a task read from a JSONL file, one instance per line:
//
//	{"context": "...", "question": "...", "answer": "...", "scorer": "contains"}
//	{"context_file": "doc.txt", "question": "...", "answer": ["a", "b"], "scorer": "sniah"}
//	{"context_files": ["a.txt", "b.txt"], "inline": "question-last", "question": "...", "answer": ["x", "y"], "scorer": "exact", "meta": {"kind": "csv"}}
//
// context_file is relative to the JSONL file's directory; context_files
// attaches several documents (the first is the instance's context, the
// others are attached after it). inline sends the document in the one
// user message with the question instead of attaching it:
// "question-first" or "question-last" says where the question goes.
// answer is a string, a number, or a list of strings: for the sniah and
// contains scorers values that must all appear, for exact the accepted
// answers. scorer is one of sniah, contains, oolong, pairs, exact, absent;
// empty means contains. meta labels the instance in the results (reports
// break results down by it).
type Custom struct {
	name  string
	items []customItem
}

type customItem struct {
	context     string
	contextFile string
	more        []string // further documents, attached after the context
	inline      string
	size        int64
	question    string
	answer      string
	expected    []string
	scorer      string
	meta        map[string]string
}

// LoadCustom reads a custom task. Its name is "custom:" and the file's base
// name without extension.
func LoadCustom(path string) (*Custom, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load custom task: %w", err)
	}
	defer f.Close()
	base := filepath.Base(path)
	t := &Custom{name: "custom:" + strings.TrimSuffix(base, filepath.Ext(base))}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		it, err := parseCustomLine(sc.Bytes(), filepath.Dir(path))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		t.items = append(t.items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(t.items) == 0 {
		return nil, fmt.Errorf("%s: no instances", path)
	}
	return t, nil
}

func parseCustomLine(b []byte, dir string) (customItem, error) {
	var raw struct {
		Context      *string           `json:"context"`
		ContextFile  string            `json:"context_file"`
		ContextFiles []string          `json:"context_files"`
		Inline       string            `json:"inline"`
		Question     string            `json:"question"`
		Answer       json.RawMessage   `json:"answer"`
		Scorer       string            `json:"scorer"`
		Meta         map[string]string `json:"meta"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return customItem{}, err
	}
	it := customItem{question: raw.Question, scorer: raw.Scorer, inline: raw.Inline, meta: raw.Meta}
	if it.scorer == "" {
		it.scorer = "contains"
	}
	if !slices.Contains(scorerNames, it.scorer) {
		return it, fmt.Errorf("unknown scorer %q (want one of %s)", it.scorer, strings.Join(scorerNames, ", "))
	}
	if raw.Question == "" {
		return it, fmt.Errorf("missing question")
	}
	switch raw.Inline {
	case "", InlineQuestionFirst, InlineQuestionLast:
	default:
		return it, fmt.Errorf("inline is %q (want %q or %q)", raw.Inline, InlineQuestionFirst, InlineQuestionLast)
	}
	if len(raw.ContextFiles) > 0 {
		if raw.ContextFile != "" {
			return it, fmt.Errorf("give context_file or context_files, not both")
		}
		if raw.Inline != "" && len(raw.ContextFiles) > 1 {
			return it, fmt.Errorf("inline sends one document; this instance has %d", len(raw.ContextFiles))
		}
		raw.ContextFile = raw.ContextFiles[0]
		for _, p := range raw.ContextFiles[1:] {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			fi, err := os.Stat(p)
			if err != nil {
				return it, fmt.Errorf("context_files: %w", err)
			}
			it.more = append(it.more, p)
			it.size += fi.Size()
		}
	}
	switch {
	case raw.Context != nil && raw.ContextFile != "":
		return it, fmt.Errorf("give context or context_file, not both")
	case raw.Context != nil:
		it.context, it.size = *raw.Context, int64(len(*raw.Context))
	case raw.ContextFile != "":
		p := raw.ContextFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return it, fmt.Errorf("context_file: %w", err)
		}
		it.contextFile, it.size = p, it.size+fi.Size()
	default:
		return it, fmt.Errorf("missing context or context_file")
	}
	var s string
	var list []string
	var num json.Number
	switch {
	case len(raw.Answer) == 0:
		return it, fmt.Errorf("missing answer")
	case json.Unmarshal(raw.Answer, &s) == nil:
		it.answer = s
	case json.Unmarshal(raw.Answer, &list) == nil && len(list) > 0:
		it.answer, it.expected = strings.Join(list, "\n"), list
	case json.Unmarshal(raw.Answer, &num) == nil:
		it.answer = num.String()
	default:
		return it, fmt.Errorf("answer must be a string, a number or a non-empty list of strings")
	}
	return it, nil
}

// Name implements Task.
func (t *Custom) Name() string { return t.name }

// Len implements FixedTask.
func (t *Custom) Len() int { return len(t.items) }

// Tokens implements FixedTask.
func (t *Custom) Tokens(i int) int { return EstimateTokens(t.items[i].size) }

// Generate implements Task. spec.Tokens is ignored: the instance is
// spec.Index of the file.
func (t *Custom) Generate(ctx context.Context, w io.Writer, spec Spec) (Instance, error) {
	if spec.Index < 0 || spec.Index >= len(t.items) {
		return Instance{}, fmt.Errorf("%s: no instance %d (have %d)", t.name, spec.Index, len(t.items))
	}
	it := t.items[spec.Index]
	var n int64
	var err error
	if it.contextFile != "" {
		var f *os.File
		if f, err = os.Open(it.contextFile); err == nil {
			n, err = io.Copy(w, f)
			f.Close()
		}
	} else {
		var k int
		k, err = io.WriteString(w, it.context)
		n = int64(k)
	}
	if err != nil {
		return Instance{}, fmt.Errorf("%s: write context %d: %w", t.name, spec.Index, err)
	}
	all := n
	for _, p := range it.more {
		fi, err := os.Stat(p)
		if err != nil {
			return Instance{}, fmt.Errorf("%s: context %d: %w", t.name, spec.Index, err)
		}
		all += fi.Size()
	}
	return Instance{
		Task: t.name, Tokens: EstimateTokens(all), Index: spec.Index, Seed: spec.Seed,
		Question: it.question, Answer: it.answer, Expected: it.expected, Scorer: it.scorer, Bytes: n,
		Documents: it.more, Inline: it.inline, Meta: it.meta,
	}, nil
}
