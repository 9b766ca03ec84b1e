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
	for i, x := range all {
		if i == 12 {
			break
		}
		t.Logf("%6.2f %-8s %-20q %q", x.s, x.c.rec.kind, x.c.label, x.c.value)
	}
	t.Logf("answer %q (%.2f)", a.Value, a.Score)
}
