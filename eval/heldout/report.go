package heldout

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rlm-project/rlm/eval"
)

// Tally counts results of one group.
type Tally struct {
	N, Right int
	// Complete counts runs that ended with an answer (stop reason final,
	// and not an answer saying there is none); RightComplete those of
	// them that were right.
	Complete, RightComplete int
	// Absent counts questions the document does not answer, AbsentRight
	// those that got no answer.
	Absent, AbsentRight int
}

func (t *Tally) add(r eval.Result) {
	t.N++
	right := r.Score >= 1
	if right {
		t.Right++
	}
	if r.StopReason == "final" && eval.ScoreAbsent(r.Answer) == 0 {
		t.Complete++
		if right {
			t.RightComplete++
		}
	}
	if r.Meta["form"] == "absent" {
		t.Absent++
		if right {
			t.AbsentRight++
		}
	}
}

// Precision is the share of complete answers that were right.
func (t Tally) Precision() float64 {
	if t.Complete == 0 {
		return 1
	}
	return float64(t.RightComplete) / float64(t.Complete)
}

// Summary tallies results overall and by each label of their meta.
func Summary(results []eval.Result) (all Tally, by map[string]map[string]*Tally) {
	by = map[string]map[string]*Tally{}
	for _, r := range results {
		if r.Error != "" || r.Skipped != "" || r.Meta["id"] == "" {
			continue
		}
		all.add(r)
		for _, dim := range []string{"kind", "form", "size", "deliver"} {
			if by[dim] == nil {
				by[dim] = map[string]*Tally{}
			}
			t := by[dim][r.Meta[dim]]
			if t == nil {
				t = &Tally{}
				by[dim][r.Meta[dim]] = t
			}
			t.add(r)
		}
	}
	return all, by
}

// Report writes the breakdown of an rlm eval results file of the set:
// right answers by kind, needle form, size and delivery; the precision of
// complete answers; the No-answer rate; and the wrong answers.
func Report(w io.Writer, resultsPath string) error {
	results, err := eval.ReadResults(resultsPath)
	if err != nil {
		return err
	}
	all, by := Summary(results)
	if all.N == 0 {
		return fmt.Errorf("%s: no results of the held-out set", resultsPath)
	}
	fmt.Fprintf(w, "right: %d / %d = %.3f\n", all.Right, all.N, float64(all.Right)/float64(all.N))
	fmt.Fprintf(w, "complete answers: %d, right %d, precision %.3f\n", all.Complete, all.RightComplete, all.Precision())
	fmt.Fprintf(w, "no answer: %d of %d runs (%.3f); questions without an answer in the document: %d of %d got none\n",
		all.N-all.Complete, all.N, float64(all.N-all.Complete)/float64(all.N), all.AbsentRight, all.Absent)
	for _, dim := range []string{"kind", "form", "size", "deliver"} {
		fmt.Fprintf(w, "\nby %s:\n", dim)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "\tright\tof\tcomplete\tprecision")
		var labels []string
		for l := range by[dim] {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		for _, l := range labels {
			t := by[dim][l]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\n", l, t.Right, t.N, t.Complete, t.Precision())
		}
		tw.Flush()
	}
	var wrong []string
	for _, r := range results {
		if r.Meta["id"] != "" && r.Error == "" && r.Score < 1 {
			wrong = append(wrong, fmt.Sprintf("%s (%s): %q for %q", r.Meta["id"], r.StopReason, clipTo(r.Answer, 60), clipTo(r.Gold, 40)))
		}
	}
	sort.Strings(wrong)
	fmt.Fprintf(w, "\nwrong (%d):\n  %s\n", len(wrong), strings.Join(wrong, "\n  "))
	return nil
}

func clipTo(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
