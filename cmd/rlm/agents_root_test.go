package main

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// The fake upstream of the agent framework tests (agents_test.go): a
// root model that uses the client tools it is offered.

// agentRoot is the fake root model (a scripted test double, not a model)
// of the agent tests; it stands in for a capable model. It reads the
// question and the tools the client offers (listed in its first input):
//   - a question about the weather ("weather in Oslo and Cairo") with a
//     tool that takes a city: a cell calls the tool for each city, at once
//     (a goroutine each) and prints the outputs ("weather in Oslo: snow");
//     from those lines it answers "Oslo: snow; Cairo: heat";
//   - a tool that takes a customer: a cell calls it for each customer the
//     offloaded document names, in one batched call, and prints the total,
//     with which it answers;
//   - asked for a JSON answer (a response format), it builds the object
//     {"city": ..., "forecast": ...} in a cell, from the tool's output, or,
//     without a tool, from the question's own words ("Lima is foggy
//     today").
//
// cells counts the cells that called a tool, so that a test can tell a
// resumed run (one such cell a question) from a conversation run again
// (which writes the cell again, answered from the client's outputs).
type agentRoot struct {
	cells atomic.Int32
}

var (
	// offeredToolRE finds the client's tools in the root's first input:
	// "- NAME: description Parameters (JSON Schema): {...}".
	offeredToolRE = regexp.MustCompile(`(?m)^- ([A-Za-z0-9_]+)\b(.*)$`)
	// citiesRE finds the cities a question asks the weather of.
	citiesRE = regexp.MustCompile(`weather in ((?:[A-Z][A-Za-z]*(?:, | and )?)+)`)
	// reportRE finds a line a tool-calling cell printed.
	reportRE = regexp.MustCompile(`(?m)^weather in ([A-Za-z]+): (.*)$`)
	// balancesRE finds the line a balances cell printed.
	balancesRE = regexp.MustCompile(`(?m)^balances of (\d+) customers: total (-?\d+)$`)
	// statedRE finds a forecast the question states.
	statedRE = regexp.MustCompile(`([A-Z][a-z]+) is ([a-z]+) today`)
)

func (a *agentRoot) script(req fakellm.Request) fakellm.Reply {
	var all strings.Builder
	for _, m := range req.Messages {
		all.WriteString(m.Content)
		all.WriteString("\n")
	}
	conv := all.String()
	wantJSON := strings.Contains(conv, "The answer must be one JSON")
	if reports := reportRE.FindAllStringSubmatch(req.LastUser(), -1); reports != nil {
		if wantJSON {
			return jsonAnswer(reports[0][1], reports[0][2])
		}
		var parts []string
		for _, r := range reports {
			parts = append(parts, r[1]+": "+r[2])
		}
		return fakellm.Reply{Content: "FINAL(" + strings.Join(parts, "; ") + ")"}
	}
	if m := balancesRE.FindStringSubmatch(req.LastUser()); m != nil {
		return fakellm.Reply{Content: "FINAL(The " + m[1] + " customers hold " + m[2] + " in all.)"}
	}
	if tool := offeredTool(conv, `"customer"`); tool != "" {
		a.cells.Add(1)
		return fakellm.Reply{Content: fakellm.Code(balancesCell(tool))}
	}
	tool := offeredTool(conv, `"city"`)
	if m := citiesRE.FindStringSubmatch(conv); m != nil && tool != "" {
		a.cells.Add(1)
		return fakellm.Reply{Content: fakellm.Code(weatherCell(tool, splitCities(m[1])))}
	}
	if m := statedRE.FindStringSubmatch(conv); m != nil && wantJSON {
		return jsonAnswer(m[1], m[2])
	}
	return fakellm.Reply{Content: "FINAL(Ask me about the weather.)"}
}

// offeredTool is the client's tool whose listing has param (its
// parameters' schema names it), or "".
func offeredTool(conv, param string) string {
	_, list, ok := strings.Cut(conv, "The client offers these tools.")
	if !ok {
		return ""
	}
	for _, m := range offeredToolRE.FindAllStringSubmatch(list, -1) {
		if strings.Contains(m[2], param) {
			return m[1]
		}
	}
	return ""
}

// splitCities splits "Paris, Rome and Oslo".
func splitCities(s string) []string {
	var out []string
	for _, c := range strings.FieldsFunc(strings.ReplaceAll(s, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, c)
	}
	return out
}

// weatherCell calls tool for each city, at once (a goroutine each), and
// prints its outputs.
func weatherCell(tool string, cities []string) string {
	if len(cities) == 1 {
		return fmt.Sprintf(`fmt.Printf("weather in %%s: %%s\n", %q, %s(map[string]any{"city": %q}))`, cities[0], tool, cities[0])
	}
	return fmt.Sprintf(`cities := %#v
out := make([]string, len(cities))
var wg sync.WaitGroup
for i, c := range cities {
	wg.Add(1)
	go func(i int, c string) {
		defer wg.Done()
		out[i] = %s(map[string]any{"city": c})
	}(i, c)
}
wg.Wait()
for i, c := range cities {
	fmt.Printf("weather in %%s: %%s\n", c, out[i])
}`, cities, tool)
}

// jsonAnswer is a cell that answers {"city": city, "forecast": forecast}
// as JSON, the way the format message asks.
func jsonAnswer(city, forecast string) fakellm.Reply {
	return fakellm.Reply{Content: fakellm.Code(fmt.Sprintf(`b, _ := json.Marshal(map[string]any{"city": %q, "forecast": %q})
FINAL(string(b))`, city, forecast))}
}

// balancesCell looks up the balance of each customer the offloaded
// document names (one record a paragraph: "... customer C017 ...") with
// one batched call of the client's tool, and prints the total.
func balancesCell(tool string) string {
	return fmt.Sprintf(`var args []any
for _, m := range regexp.MustCompile("customer (C[0-9]+)").FindAllStringSubmatch(context, -1) {
	args = append(args, map[string]any{"customer": m[1]})
}
total := 0
for _, b := range %s_batched(args) {
	n, err := strconv.Atoi(strings.TrimSpace(b))
	if err != nil {
		fmt.Println("not a number:", b)
	}
	total += n
}
fmt.Printf("balances of %%d customers: total %%d\n", len(args), total)`, tool)
}
