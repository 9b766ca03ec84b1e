package eval

import (
	"math"
	"testing"
)

func TestScoreContains(t *testing.T) {
	for _, tc := range []struct {
		exp    []string
		answer string
		want   float64
	}{
		{[]string{"1234567"}, "The special magic number is 1234567.", 1},
		{[]string{"1234567"}, "123456", 0},
		{[]string{"ABCDEF12-aaaa"}, "abcdef12-AAAA", 1},
		{[]string{"111", "222", "333", "444"}, "111 and 333", 0.5},
		{[]string{"111", "222", "333"}, "", 0},
		{nil, "anything", 0},
	} {
		if got := ScoreContains(tc.exp, tc.answer); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ScoreContains(%v, %q) = %v, want %v", tc.exp, tc.answer, got, tc.want)
		}
	}
}

func TestScoreOolong(t *testing.T) {
	for _, tc := range []struct {
		gold, answer string
		want         float64
	}{
		{"42", "Answer: 42", 1},
		{"42", "Answer: 41", 0.75},
		{"42", "Answer: 44", 0.5625},
		{"42", "The count is 40 or so. Answer: 45", 0.421875},
		{"1200", "**Answer:** 1,200", 1},
		{"42", "I think 42: not sure", 0}, // only the text after the last colon counts
		{"42", "Answer: many", 0},
		{"positive", "Label: Positive.", 1},
		{"positive", "Label: 'positive'", 1},
		{"positive", "Label: negative", 0},
		{"positive", "positive", 1}, // no colon: the whole answer
		{"neutral is less common than positive", "Answer: neutral is less common than positive", 1},
		{"neutral is less common than positive", "Answer: neutral is more common than positive", 0},
		{"neutral is less common than positive", "Answer: neutral is less  common than\npositive.", 1},
	} {
		if got := ScoreOolong(tc.gold, tc.answer); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ScoreOolong(%q, %q) = %v, want %v", tc.gold, tc.answer, got, tc.want)
		}
	}
}

func TestScorePairs(t *testing.T) {
	gold := "(1, 2)\n(1, 3)\n(2, 3)\n(3, 4)"
	for _, tc := range []struct {
		gold, answer string
		want         float64
	}{
		{gold, "Answer:\n(1, 2)\n(1, 3)\n(2, 3)\n(3, 4)", 1},
		{gold, "(2,1) (3, 1) (3,2) (4,3) (2, 1)", 1},              // order within and between pairs does not matter
		{gold, "(1, 2)\n(1, 3)", 2 * 1 * 0.5 / 1.5},               // P=1, R=0.5
		{gold, "(1, 2)\n(1, 3)\n(5, 6)\n(7, 8)", 0.5},             // P=0.5, R=0.5
		{gold, "(1, 2)\n(1, 3)\n(2, 3)\n(3, 4)\n(4, 5)", 8.0 / 9}, // P=0.8, R=1
		{gold, "Answer: none", 0},
		// Dates and bare number lists in prose are not pairs.
		{gold, "Answer:\n(1, 2)\n(1, 3)\n(2, 3)\n(3, 4)\nfrom Jan 05, 2023 to Feb 10, 2023; users 5, 6", 1},
		// Only the list after the last "Answer:" counts, not pairs weighed before it.
		{gold, "(5, 6) and (7, 8) fall short.\nANSWER:\n(1, 2)\n(1, 3)\n(2, 3)\n(3, 4)", 1},
		{gold, "Answer: (1, 2)\nWait, correcting.\nAnswer: none", 0},
		{"", "Answer: none", 1},
		{"", "(1, 2)", 0},
	} {
		if got := ScorePairs(tc.gold, tc.answer); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ScorePairs(%q) = %v, want %v", tc.answer, got, tc.want)
		}
	}
}

func TestScoreDispatch(t *testing.T) {
	for _, tc := range []struct {
		inst   Instance
		answer string
		want   float64
		bad    bool
	}{
		{Instance{Scorer: "exact", Answer: "Paris"}, " paris. ", 1, false},
		{Instance{Scorer: "exact", Answer: "Paris"}, "It is Paris", 0, false},
		{Instance{Scorer: "contains", Answer: "Paris"}, "It is Paris", 1, false},
		{Instance{Scorer: "pairs", Answer: "(1, 2)"}, "(2, 1)", 1, false},
		{Instance{Scorer: "exact", Answer: "Paris\nParis, France", Expected: []string{"Paris", "Paris, France"}}, "paris, france", 1, false},
		{Instance{Scorer: "exact", Answer: "Paris\nParis, France", Expected: []string{"Paris", "Paris, France"}}, "France", 0, false},
		{Instance{Scorer: "absent", Answer: "No answer"}, "No answer: the document does not say", 1, false},
		{Instance{Scorer: "absent", Answer: "No answer"}, "", 1, false},
		{Instance{Scorer: "absent", Answer: "No answer"}, "value", 0, false},
		{Instance{Scorer: "bleu"}, "", 0, true},
	} {
		got, err := Score(tc.inst, tc.answer)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("Score(%+v, %q) = %v, %v", tc.inst, tc.answer, got, err)
		}
	}
}
