package lookup

import (
	"strings"
	"os"
	"testing"
)

func TestDebugTerms(t *testing.T) {
	doc, q := os.Getenv("LOOKUP_DOC"), os.Getenv("LOOKUP_Q")
	if doc == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(doc)
	qq := parseQuery(q)
	f := newFinder(string(b), qq)
	if f == nil {
		t.Log("nil finder")
		return
	}
	for i, tm := range f.terms {
		t.Logf("term %q strong=%v name=%v stems=%v count=%d", tm.text, tm.strong, tm.name, tm.stems, f.counts[i])
	}
	for _, tm := range f.missing {
		t.Logf("missing %q", tm.text)
	}
	t.Logf("want %v which %q", qq.want, qq.which)
}

func TestDebugRec(t *testing.T) {
	doc, q, sub := os.Getenv("LOOKUP_DOC"), os.Getenv("LOOKUP_Q"), os.Getenv("LOOKUP_REC")
	if doc == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(doc)
	explain(string(b), q, func(c cand, s float64) {
		if strings.Contains(c.rec.text, sub) {
			t.Logf("%6.2f %s %q %q", s, c.rec.kind, c.label, c.value)
		}
	})
}

func TestDebugAnchors(t *testing.T) {
	doc, q, sub := os.Getenv("LOOKUP_DOC"), os.Getenv("LOOKUP_Q"), os.Getenv("LOOKUP_REC")
	if doc == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(doc)
	text := string(b)
	f := newFinder(text, parseQuery(q))
	at := strings.Index(text, sub)
	for i, tm := range f.terms {
		occ := occurrences(text, f.folded, tm, maxAnchors)
		near := 0
		for _, o := range occ {
			if o >= at-300 && o <= at+300 {
				near++
			}
		}
		t.Logf("%s: %d occ, %d near", tm.text, len(occ), near)
		_ = i
	}
}

func TestDebugRecords(t *testing.T) {
	doc, sub := os.Getenv("LOOKUP_DOC"), os.Getenv("LOOKUP_REC")
	if doc == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(doc)
	text := string(b)
	at := strings.Index(text, sub)
	for _, r := range records(text, at, newRecordMemo()) {
		t.Logf("%s %d fields: %q", r.kind, len(r.fields), r.text[:min(len(r.text), 200)])
	}
}
