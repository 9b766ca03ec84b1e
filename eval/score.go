package eval

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Scorers lists the scorer names an Instance may name.
var scorerNames = []string{"sniah", "contains", "oolong", "pairs", "exact", "absent"}

// Score scores answer against inst with the scorer inst names. Scores lie in
// [0, 1].
func Score(inst Instance, answer string) (float64, error) {
	switch inst.Scorer {
	case "sniah", "contains":
		exp := inst.Expected
		if len(exp) == 0 {
			exp = []string{inst.Answer}
		}
		return ScoreContains(exp, answer), nil
	case "oolong":
		return ScoreOolong(inst.Answer, answer), nil
	case "pairs":
		return ScorePairs(inst.Answer, answer), nil
	case "exact":
		exp := inst.Expected
		if len(exp) == 0 {
			exp = []string{inst.Answer}
		}
		for _, e := range exp {
			if normalizeLabel(answer) == normalizeLabel(e) {
				return 1, nil
			}
		}
		return 0, nil
	case "absent":
		return ScoreAbsent(answer), nil
	}
	return 0, fmt.Errorf("unknown scorer %q (want one of %s)", inst.Scorer, strings.Join(scorerNames, ", "))
}

// ScoreAbsent scores a question whose answer the context does not hold:
// 1 when the run gave no answer (the engine's "No answer: ..." or
// nothing), 0 for any answer, which can only be wrong.
func ScoreAbsent(answer string) float64 {
	a := strings.ToLower(strings.TrimSpace(answer))
	if a == "" || strings.HasPrefix(a, "no answer") {
		return 1
	}
	return 0
}

// ScoreContains is RULER's string-match score: the fraction of expected
// values that occur in the answer, ignoring case.
func ScoreContains(expected []string, answer string) float64 {
	if len(expected) == 0 {
		return 0
	}
	a := strings.ToLower(answer)
	found := 0
	for _, e := range expected {
		if strings.Contains(a, strings.ToLower(e)) {
			found++
		}
	}
	return float64(found) / float64(len(expected))
}

var intRE = regexp.MustCompile(`-?\d[\d,]*`)

// ScoreOolong is OOLONG's score: the answer is the text after its last
// colon; numeric gold answers score 0.75^|error|, all others score 1 for an
// exact (case- and punctuation-insensitive) match and 0 otherwise.
func ScoreOolong(gold, answer string) float64 {
	if i := strings.LastIndex(answer, ":"); i >= 0 {
		answer = answer[i+1:]
	}
	if g, err := strconv.Atoi(strings.TrimSpace(gold)); err == nil {
		m := intRE.FindString(answer)
		p, err := strconv.Atoi(strings.ReplaceAll(m, ",", ""))
		if err != nil {
			return 0
		}
		return math.Pow(0.75, math.Abs(float64(p-g)))
	}
	if normalizeLabel(answer) == normalizeLabel(gold) {
		return 1
	}
	return 0
}

// normalizeLabel lowercases s, drops surrounding quotes, brackets, markdown
// emphasis and final punctuation, and collapses runs of white space.
func normalizeLabel(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.Trim(s, " \t\n.,;!'\"`*[]()")
}

// pairRE needs the parentheses: without them "Jan 05, 2023" or a list
// "3, 4, 5" in the answer's prose would count as pairs.
var pairRE = regexp.MustCompile(`\(\s*(\d+)\s*,\s*(\d+)\s*\)`)

var answerRE = regexp.MustCompile(`(?i)answer\s*:`)

// ParsePairs extracts unordered pairs of IDs such as "(12, 34)" from text,
// after its last "Answer:" when it has one (the question asks for the list
// there), so that pairs the answer considered and rejected before it do
// not count.
func ParsePairs(text string) map[[2]string]bool {
	if locs := answerRE.FindAllStringIndex(text, -1); len(locs) > 0 {
		text = text[locs[len(locs)-1][1]:]
	}
	out := map[[2]string]bool{}
	for _, m := range pairRE.FindAllStringSubmatch(text, -1) {
		a, b := m[1], m[2]
		if len(a) > len(b) || (len(a) == len(b) && a > b) {
			a, b = b, a
		}
		out[[2]string{a, b}] = true
	}
	return out
}

// ScorePairs is the F1 score of the pairs in answer against those in gold,
// as OOLONG-Pairs scores it. Two empty sets score 1.
func ScorePairs(gold, answer string) float64 {
	g, p := ParsePairs(gold), ParsePairs(answer)
	if len(g) == 0 && len(p) == 0 {
		return 1
	}
	hit := 0
	for k := range p {
		if g[k] {
			hit++
		}
	}
	if hit == 0 {
		return 0
	}
	prec, rec := float64(hit)/float64(len(p)), float64(hit)/float64(len(g))
	return 2 * prec * rec / (prec + rec)
}
