package recursion

import (
	"bytes"
	"os"
	"regexp"
	"strings"

	"github.com/rlm-project/rlm/recursion/llm"
)

// noAnswerRE matches an answer that says the input holds none: "No
// answer", "not found", "none", with or without a reason after it.
var noAnswerRE = regexp.MustCompile(`(?i)^\s*(?:answer:\s*)?(?:no answer|not found|none found|no such entry|n/a)\b[\s.:;,(!-]*`)

// countRE matches an answer that is a count or another computed number:
// it is worked out, not read, so it need not occur in the input.
var countRE = regexp.MustCompile(`(?i)^\s*(?:answer:\s*)?-?\d[\d,]*\s*$`)

// settle is the end of a node whose model gave answer with FINAL. With
// Config.GroundedAnswers, the root's answer must be one the input
// supports: an answer saying there is none, or (for a lookup) a value
// that does not occur in the offloaded input, ends the run with "No
// answer" and StopNoAnswer, which callers report as incomplete.
func (n *node) settle(answer string, off *offloaded, turn int) nodeResult {
	res := nodeResult{answer: answer, reason: StopFinal, iterations: turn}
	// A structured answer (Request.Answer) is JSON the model built, not a
	// value read from the input: it is checked against its format instead.
	if n.depth > 0 || !n.r.e.cfg.GroundedAnswers || n.r.answer != nil {
		return res
	}
	if m := noAnswerRE.FindString(answer); m != "" {
		why := strings.TrimSpace(answer[len(m):])
		if why == "" {
			why = "the model found no answer in the input"
		}
		res.answer, res.reason = "No answer: "+why, StopNoAnswer
		return res
	}
	if countRE.MatchString(answer) {
		return res
	}
	input := []byte(off.View)
	if off.File != nil {
		b, err := os.ReadFile(off.File.Path)
		if err != nil {
			return res // unchecked, as without the setting
		}
		input = b
	}
	if !occursIn(input, strings.TrimPrefix(strings.TrimSpace(answer), "Answer: ")) {
		res.answer, res.reason = "No answer: the model's answer "+clipLine(answer)+" does not occur in the input", StopNoAnswer
	}
	return res
}

// occursIn reports whether s occurs in doc, ignoring case and treating
// any run of white space in s as any run of white space.
func occursIn(doc []byte, s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 {
		return true
	}
	doc = bytes.ToLower(doc) // ASCII and most letters; the answer is folded the same way
	first := []byte(strings.ToLower(words[0]))
	rest := make([][]byte, len(words)-1)
	for i, w := range words[1:] {
		rest[i] = []byte(strings.ToLower(w))
	}
	for i := 0; ; {
		j := bytes.Index(doc[i:], first)
		if j < 0 {
			return false
		}
		at := i + j + len(first)
		ok := true
		for _, w := range rest {
			k := at
			for k < len(doc) && (doc[k] == ' ' || doc[k] == '\t' || doc[k] == '\n' || doc[k] == '\r') {
				k++
			}
			if k == at || !bytes.HasPrefix(doc[k:], w) {
				ok = false
				break
			}
			at = k + len(w)
		}
		if ok {
			return true
		}
		i += j + 1
	}
}

// assignedInCode reports whether the model's own messages (code in a cell,
// or code written outside one) assign or declare a variable called name:
// then FINAL(name) outside a cell means that variable, and when it does
// not exist (its cell failed or never ran) there is no answer, never the
// variable's name as one.
func assignedInCode(transcript []llm.Message, name string) bool {
	q := regexp.QuoteMeta(name)
	re := regexp.MustCompile(`(?m)(?:^|[\s(,;{])` + q + `\s*(?:,[\w\s,]*)?(?::=|=[^=])|\b(?:var|const)\s+` + q + `\b|,\s*` + q + `\s*:=|\bfor\s+(?:\w+\s*,\s*)?` + q + `\s*:?=`)
	for _, m := range transcript {
		if m.Role == "assistant" && re.MatchString(m.Content) {
			return true
		}
	}
	return false
}
