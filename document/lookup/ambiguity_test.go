package lookup

import "testing"

// TestAmbiguousIsNoAnswer checks the ambiguity margin: when the text
// gives two different values that read as well as each other, Find gives
// no answer rather than a guess, and the values it weighed are the two.
func TestAmbiguousIsNoAnswer(t *testing.T) {
	t.Parallel()
	text := wrap("The gate code of the north warehouse is 7720-B.") + wrap("The gate code of the north warehouse is 7731-C.")
	seen := map[string]float64{}
	a := explain(text, "What is the gate code of the north warehouse?", func(c cand, s float64) {
		if old, ok := seen[c.value]; !ok || s > old {
			seen[c.value] = s
		}
	})
	if a.Value != "" {
		t.Errorf("Find = %q, want no answer: the text gives two codes", a.Value)
	}
	b, c := seen["7720-B"], seen["7731-C"]
	if b == 0 || c == 0 || max(b-c, c-b) >= ambiguity {
		t.Errorf("scores of the two codes: %.2f and %.2f, want both within %.1f of each other", b, c, ambiguity)
	}
	// With one of them, it answers.
	if got := Find(wrap("The gate code of the north warehouse is 7720-B."), "What is the gate code of the north warehouse?"); got != "7720-B" {
		t.Errorf("Find with one code = %q, want 7720-B", got)
	}
}
