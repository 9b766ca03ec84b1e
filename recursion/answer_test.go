package recursion

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// cityFormat accepts a JSON object with a city.
var cityFormat = &AnswerFormat{Describe: `a JSON object {"city": string}.`, Check: func(a string) (string, error) {
	var v struct{ City *string }
	if json.Unmarshal([]byte(a), &v) != nil || v.City == nil {
		return "", errors.New(`want a JSON object with "city"`)
	}
	return a, nil
}}

// TestAnswerFormat: a FINAL that does not match the response format goes
// back to the model with the reason; one that does is the answer; a run
// that never gives one stops with invalid_answer.
func TestAnswerFormat(t *testing.T) {
	t.Parallel()
	learns := func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.LastUser(), "FINAL refused") {
			return fakellm.Reply{Content: fakellm.Code(`b, _ := json.Marshal(map[string]any{"city": "Paris"})
FINAL(string(b))`)}
		}
		return fakellm.Reply{Content: "FINAL(Paris)"}
	}
	e, _, _ := realEngine(t, learns, Config{})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("Which city?"), Answer: cityFormat})
	if err != nil || res.StopReason != StopFinal || res.Answer != `{"city":"Paris"}` {
		t.Errorf("got %v %s %q", err, res.StopReason, res.Answer)
	}
	never := func(req fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "FINAL(Paris)"} }
	e2, _, _ := realEngine(t, never, Config{})
	res, err = e2.Run(t.Context(), Request{Messages: userMsg("Which city?"), Answer: cityFormat, Limits: Limits{MaxIterations: 3}})
	if err != nil || res.StopReason != StopInvalidAnswer || !strings.Contains(res.Error, `"city"`) {
		t.Errorf("got %v %s %q %q", err, res.StopReason, res.Error, res.Answer)
	}
}
