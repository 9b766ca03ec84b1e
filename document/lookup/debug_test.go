package lookup

import (
	"os"
	"sort"
	"testing"
)

// TestDebugExplain prints the best readings of $LOOKUP_DOC for $LOOKUP_Q.
func TestDebugExplain(t *testing.T) {
	doc, q := os.Getenv("LOOKUP_DOC"), os.Getenv("LOOKUP_Q")
	if doc == "" {
		t.Skip("LOOKUP_DOC not set")
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		c cand
		s float64
	}
	var all []seen
	a := explain(string(b), q, func(c cand, s float64) { all = append(all, seen{c, s}) })
	sort.SliceStable(all, func(i, j int) bool { return all[i].s > all[j].s })
	only := os.Getenv("LOOKUP_V")
	n := 0
	for _, x := range all {
		if only != "" && x.c.value != only {
			continue
		}
		if n++; n > 12 {
			break
		}
		a, b := lineAt(x.c.rec.text, min(max(x.c.at-x.c.rec.start, 0), len(x.c.rec.text)))
		l := x.c.rec.text[a:b]
		if len(l) > 90 {
			l = l[:90]
		}
		t.Logf("%6.2f %-8s %-20q %-24q %q", x.s, x.c.rec.kind, x.c.label, x.c.value, l)
	}
	t.Logf("answer %q (%.2f)", a.Value, a.Score)
}
