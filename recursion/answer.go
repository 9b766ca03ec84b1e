package recursion

import (
	"fmt"
	"strings"
)

// AnswerFormat is what the root's answer must be, when the client asked
// for structured output (a JSON schema, or any JSON object): the model is
// told Describe, and each FINAL is checked; a refused one goes back to the
// model with Check's reason, and a run that never gives a valid one ends
// with StopInvalidAnswer.
type AnswerFormat struct {
	// Describe tells the model what the answer must be.
	Describe string
	// Check returns the answer as it is to be sent (the JSON value, without
	// fences), or why it is refused.
	Check func(answer string) (string, error)
}

// answerFeedback is what the root's FINAL(answer) still lacks: the tool
// calls tool_choice requires, or the answer's format. It returns the
// answer as it is to be sent, or feedback for the model.
func (n *node) answerFeedback(answer string) (string, string) {
	if n.depth != 0 {
		return answer, ""
	}
	r := n.r
	if fb := r.tools.requirement(); fb != "" {
		return "", fb
	}
	if f := r.answer; f != nil && f.Check != nil {
		out, err := f.Check(answer)
		if err != nil {
			r.answerRefused.Store(err.Error())
			return "", "FINAL refused: " + err.Error() + "\nThe answer must be " + f.Describe
		}
		return out, ""
	}
	return answer, ""
}

// answerMessage tells the root's model the answer's format, after its
// input.
func answerMessage(f *AnswerFormat) string {
	if f == nil {
		return ""
	}
	return "\n\nThe answer must be " + strings.TrimSpace(f.Describe) + "\nBuild it in Go and end with FINAL(string(b)), " +
		"b from json.Marshal of the value: FINAL prints its argument as fmt.Print does, so a map or a byte slice would not be JSON."
}

// invalidAnswer is the stop of a root that ran out of turns after its
// FINALs were refused for their format: StopInvalidAnswer, saying why.
func (r *runState) invalidAnswer(res nodeResult) nodeResult {
	why, _ := r.answerRefused.Load().(string)
	if why == "" || res.reason == StopFinal {
		return res
	}
	res.reason = StopInvalidAnswer
	res.err = fmt.Sprintf("no FINAL matched the response format (the last was refused: %s); %s", why, res.err)
	return res
}
