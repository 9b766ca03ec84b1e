// Package expert is a programmatic expert policy for the task families of
// package eval (sniah and docs, records, label-count): a data generator for
// training a small RLM model, not a model and not a test double of one.
//
// The policy writes the Go cells a competent RLM would write for a question
// it recognizes: for a lookup, one short cell that calls the REPL's
// document helper (lookup) and ends the run with FINAL; for the other tasks it looks at the input first (its size
// and a slice), then searches or splits it with strings and regexp, handles a search that
// finds nothing, sends chunks to llm_query_batched when the answer needs
// reading rather than matching (label-count), and ends with FINAL. Each
// instance gets one of several cell styles, picked by a seeded hash of the
// question, so that a model trained on the recordings learns the method
// rather than one program. The policy reads only what a model would: the
// conversation, including the REPL's output of its earlier cells; it never
// sees the generated context or its answer.
//
// As the sub-model (requests without the RLM system prompt) it labels the
// sentiment of the OOLONG-style comments it is sent with eval.OolongLabel:
// the generator's ground truth, standing in for the reading a model does.
// It answers one line per comment, the comment again and then its label,
// the format a small model trained on these answers can learn (see
// labelPrompts).
//
// Served over HTTP (Handler) it is an OpenAI-compatible upstream, so the
// real engine and the real REPL run its cells and the trajectories they
// record (rlm eval --traces) are real recordings of the harness.
package expert

import (
	_ "embed"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/rlm-project/rlm/eval"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Policy is the expert. Seed varies the cell styles across datasets: the
// same seed and question give the same trajectory.
type Policy struct {
	Seed uint64
}

// rlmMarker is a phrase of the RLM system prompt: a request that has it
// is a root (or child) turn; one without it is an llm_query call.
const rlmMarker = "persistent REPL"

// Reply is the policy's next assistant message for a conversation.
func (p Policy) Reply(msgs []Message) string {
	if len(msgs) == 0 {
		return "There is no message to answer."
	}
	if msgs[0].Role == "system" && strings.Contains(msgs[0].Content, rlmMarker) {
		return p.root(msgs)
	}
	return p.sub(msgs[len(msgs)-1].Content)
}

// placeholderRE matches an offloaded input's placeholder in the root's view.
var placeholderRE = regexp.MustCompile(`\[offloaded: [^\n]*\]\n  head: [^\n]*\n  tail: [^\n]*`)

// question is what the policy understood of a request.
type question struct {
	family string // "lookup" (sniah, docs), "count", "extract", "labels"
	key    string // lookup: the key
	field  string // records: the field asked about
	value  string // count: the field value counted; extract: the record ID
	label  string // labels: the sentiment label
}

var (
	lookupKeyRE = regexp.MustCompile(`\b(` + eval.DocKeyRE + `)\b`)
	quotedRE    = regexp.MustCompile(`'([^']+)'`)
	recordIDRE  = regexp.MustCompile(`\b(?:ID|record|number|ID is) (\d{4,})\b`)
	fieldWordRE = regexp.MustCompile(`\b(name|city|product|quantity)\b`)
	labelWordRE = regexp.MustCompile(`'(positive|negative|neutral)'`)
)

// parse recognizes the task in the text of the user's messages. Comment
// labelling and record questions have their own cells; every other
// question is a lookup, whatever its wording and key (lookupCell finds the
// key words itself). key is the key as eval's generators write it, where
// the question has one; the cells never use it.
func parse(text string) (question, bool) {
	text = placeholderRE.ReplaceAllString(text, "")
	if strings.TrimSpace(text) == "" {
		return question{}, false
	}
	switch {
	case lookupKeyRE.MatchString(text):
		// A key like brave-falcon or brave_falcon: a needle lookup, in
		// whatever words it is asked (sniah, docs).
		return question{family: "lookup", key: lookupKeyRE.FindStringSubmatch(text)[1]}, true
	case strings.Contains(text, "comment") && labelWordRE.MatchString(text):
		return question{family: "labels", label: labelWordRE.FindStringSubmatch(text)[1]}, true
	case strings.Contains(text, "record") || strings.Contains(text, "ID"):
		f := fieldWordRE.FindAllStringSubmatch(text, -1)
		if id := recordIDRE.FindStringSubmatch(text); id != nil && len(f) > 0 {
			return question{family: "extract", field: f[0][1], value: id[1]}, true
		}
		v := quotedRE.FindStringSubmatch(text)
		for _, w := range f {
			if v != nil && (w[1] == "city" || w[1] == "product") {
				return question{family: "count", field: w[1], value: v[1]}, true
			}
		}
	}
	return question{family: "lookup"}, true
}

// state is what the root conversation holds so far.
type state struct {
	q        question
	turn     int    // 1-based turn to write
	feedback string // REPL output after the last assistant turn
	rng      *rand.Rand
}

func (p Policy) root(msgs []Message) string {
	turn := 1
	firstUser := ""
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			turn++
		case "user":
			if firstUser == "" {
				firstUser = m.Content
			}
		}
	}
	q, ok := parse(firstUser)
	if !ok {
		return "I can only answer questions of the kinds I was built for (needle lookup, record counting and extraction, comment labelling); this is not one of them.\nFINAL(unsupported question)"
	}
	s := state{q: q, turn: turn}
	if last := msgs[len(msgs)-1]; last.Role == "user" && turn > 1 {
		s.feedback = last.Content
	}
	h := fnv.New64a()
	h.Write([]byte(firstUser))
	s.rng = rand.New(rand.NewPCG(p.Seed, h.Sum64()))
	// Every choice is drawn up front, in the same order on every turn, so
	// that the turns of one conversation agree on the style they use.
	st := styles{
		inspect: s.rng.IntN(len(inspectCells)),
		search:  s.rng.IntN(4),
		final:   s.rng.IntN(2),
		chunk:   []int{8, 10, 12, 16}[s.rng.IntN(4)],
		prompt:  s.rng.IntN(len(labelPrompts)),
		talk:    s.rng.IntN(3),
	}
	if q.family == "lookup" {
		return lookupTurn(s, st)
	}
	if s.turn == 1 {
		return say(st.talk, "look") + fence(inspectCells[st.inspect])
	}
	switch q.family {
	case "lookup":
		return lookupTurn(s, st)
	case "count":
		return countTurn(s, st)
	case "extract":
		return extractTurn(s, st)
	default:
		return labelsTurn(s, st)
	}
}

// styles are the per-instance choices of how to write the cells.
type styles struct {
	inspect, search, final, chunk, prompt, talk int
}

func fence(code string) string { return "```go\n" + strings.TrimSpace(code) + "\n```" }

// say is the short prose before a cell, in one of a few voices.
func say(voice int, what string) string {
	lines := map[string][3]string{
		"look":     {"Let me look at the input first.", "First, the size and format of the context.", "I'll inspect the context before searching it."},
		"lookup":   {"This asks for one fact; the lookup helper reads it from the document.", "One value to find: lookup reads it from the record that holds the question's key words.", "A lookup question: I'll let lookup find the value."},
		"search":   {"Now I search for it.", "The format is clear; searching.", "Next, find the relevant part with code."},
		"final":    {"Found it.", "That is the answer.", "The output gives the answer."},
		"fallback": {"Nothing matched; I'll try a looser search.", "No exact match. Searching more broadly.", "The exact pattern is absent; trying a case-insensitive search."},
		"missing":  {"The text does not contain it.", "There is no such entry in the context.", "Nothing matches, so the answer is that it is not there."},
		"label":    {"Code cannot tell the sentiment, so I label chunks with llm_query and count.", "Each comment needs reading: I send chunks of lines to a sub-model and count its labels.", "I'll split the comments into chunks, have llm_query label them, and add up the matches."},
	}
	return lines[what][voice%3] + "\n"
}

// inspectCells look at the input: its size, and a slice of its start.
var inspectCells = []string{
	`fmt.Println(len(context), "chars")
if len(context) > 300 {
	fmt.Println(context[:300])
} else {
	fmt.Println(context)
}`,
	`n := len(context)
fmt.Printf("%d chars in %d piece(s)\n", n, len(contexts))
end := 400
if end > n {
	end = n
}
fmt.Println(context[:end])`,
	`head := context
if len(head) > 250 {
	head = head[:250]
}
fmt.Println("length:", len(context))
fmt.Println(head)
if len(context) > 400 {
	fmt.Println("...")
	fmt.Println(context[len(context)-150:])
}`,
}

// The cells take every exact string they need (the key, the record ID, the
// field, the value, the label) from query, the REPL's copy of the
// question, and FINAL reads the answer from a variable: nothing is retyped
// from the question or from the REPL's output. That is how a careful
// programmer works, and it is what a small model can learn, since copying
// exact strings is what small models do worst.

// foundRE matches the line a search cell prints when it found its answer.
var foundRE = regexp.MustCompile(`(?m)^(?:value|count|answer|total): `)

// finalVar ends the run on a variable the earlier cells set.
func finalVar(st styles, expr string) string {
	return say(st.talk, "final") + fence("FINAL("+expr+")")
}

func notFound(feedback string) bool {
	return strings.Contains(feedback, "not found") || strings.Contains(feedback, "no match")
}

// lookupCell answers a lookup with the REPL's document helper: lookup
// (package document/lookup) reads the value the question asks for from
// the line, table row, record, section or sentence that holds its key
// words, whatever the document's format, or gives "" when the text does
// not clearly answer, which the cell turns into "No answer". query is the
// REPL's copy of the question (empty when the question came in one
// message with its document; lookup then finds it in the text), so
// nothing is copied from the question into the code. The cell is short
// (about 40 tokens) and the same for every lookup: what the model must
// learn is to choose it, from the question and the preview, over the
// record and label programs.
//
//go:embed cells/lookup.txt
var lookupCell string

// lookupTurn writes the turns of a lookup: lookupCell at once, with no
// look at the input first, so that what the model writes depends on the
// question and not on a preview it has never seen (a model of a million
// parameters writes junk after an unfamiliar preview); if the cell failed
// (it ends the run with FINAL when it runs), no answer.
func lookupTurn(s state, st styles) string {
	if s.turn == 1 {
		return say(st.talk, "lookup") + fence(lookupCell)
	}
	return say(st.talk, "missing") + fence(`FINAL("No answer")`)
}

// recordFromQuery takes the record ID and the field asked about out of
// query.
const recordFromQuery = "id := regexp.MustCompile(`\\d{4,}`).FindString(query)\n" +
	"field := regexp.MustCompile(`\\b(name|city|product|quantity)\\b`).FindString(query)\n" +
	"fmt.Println(\"record\", id, \"field\", field)\n"

// countFromQuery takes the field (city or product) and the quoted value
// counted out of query.
const countFromQuery = "field := regexp.MustCompile(`\\b(city|product)\\b`).FindString(query)\n" +
	"value := regexp.MustCompile(`'([^']+)'`).FindStringSubmatch(query)[1]\n" +
	"fmt.Printf(\"field %s value %q\\n\", field, value)\n"

// countTurn writes turns 2 and later of a records count.
func countTurn(s state, st styles) string {
	if s.turn == 2 {
		var code string
		switch st.search {
		case 0:
			code = countFromQuery + "n := strings.Count(context, \"| \"+field+\": \"+value+\" |\")\nfmt.Println(\"count:\", n)"
		case 1:
			code = countFromQuery + `n := 0
for _, line := range strings.Split(context, "\n") {
	if strings.Contains(line, "| "+field+": "+value+" |") {
		n++
	}
}
fmt.Println("count:", n)`
		case 2:
			code = countFromQuery + "re := regexp.MustCompile(regexp.QuoteMeta(\"| \" + field + \": \" + value + \" |\"))\n" +
				"n := len(re.FindAllStringIndex(context, -1))\nfmt.Println(\"count:\", n)"
		default:
			code = countFromQuery + `n, records := 0, 0
for _, line := range strings.Split(context, "\n") {
	if !strings.HasPrefix(line, "ID: ") {
		continue
	}
	records++
	for _, part := range strings.Split(line, " | ") {
		if part == field+": "+value {
			n++
		}
	}
}
fmt.Println("records:", records)
fmt.Println("count:", n)`
		}
		if st.final == 1 {
			code += "\nFINAL(fmt.Sprintf(\"Answer: %d\", n))"
		}
		return say(st.talk, "search") + fence(code)
	}
	if foundRE.MatchString(s.feedback) {
		return finalVar(st, `fmt.Sprintf("Answer: %d", n)`)
	}
	return say(st.talk, "missing") + fence(`FINAL("Answer: 0")`)
}

// extractTurn writes turns 2 and later of a records extraction.
func extractTurn(s state, st styles) string {
	if s.turn == 2 {
		var code string
		switch st.search % 2 {
		case 0:
			code = recordFromQuery + `answer := ""
i := strings.Index(context, "ID: "+id+" |")
if i < 0 {
	fmt.Println("not found")
} else {
	line := context[i:]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	for _, part := range strings.Split(line, " | ") {
		if v, ok := strings.CutPrefix(part, field+": "); ok {
			answer = strings.TrimSpace(v)
		}
	}
	fmt.Println(line)
	fmt.Println("answer:", answer)
}`
		default:
			code = recordFromQuery + "line := regexp.MustCompile(`(?m)^ID: ` + id + ` \\|.*$`).FindString(context)\n" +
				`answer := ""
if line == "" {
	fmt.Println("not found")
} else {
	for _, part := range strings.Split(line, " | ") {
		if v, ok := strings.CutPrefix(part, field+": "); ok {
			answer = strings.TrimSpace(v)
		}
	}
	fmt.Println("answer:", answer)
}`
		}
		return say(st.talk, "search") + fence(code)
	}
	if notFound(s.feedback) || !foundRE.MatchString(s.feedback) {
		return say(st.talk, "missing") + fence(`FINAL("Answer: not found")`)
	}
	return finalVar(st, `"Answer: " + answer`)
}

// labelPrompts are the instructions sent with each chunk to llm_query. The
// cells send the bare comments, one per line, and the sub-model answers
// "comment | label" per line. Repeating the comment is for the small model
// trained on these answers: labelling "the 7th line" of a list means
// finding it, which a 4-layer model learns slowly, while after copying a
// line the label depends only on what it just wrote (examples/tiny-rlm
// measures both).
var labelPrompts = []string{
	"Label the sentiment of each comment below as positive, negative or neutral. Write one line per comment: the comment, then \" | \" and its label.",
	"For every comment below, give its sentiment (positive, negative or neutral): repeat each comment on its own line followed by \" | \" and the label.",
	"Classify each comment's sentiment as positive, negative or neutral. Answer with one line per comment, in order: the comment as written, \" | \", its label.",
}

// maxChunks keeps label-count under the default budget of 200 model calls.
const maxChunks = 150

// labelsTurn writes turns 2 and later of a label count.
func labelsTurn(s state, st styles) string {
	if s.turn == 2 {
		collect := []string{`var lines []string
for _, l := range strings.Split(context, "\n") {
	if strings.Contains(l, "|| Instance: ") {
		lines = append(lines, l)
	}
}`, "lines := regexp.MustCompile(`(?m)^Date: .*$`).FindAllString(context, -1)", `all := strings.Split(context, "\n")
lines := make([]string, 0, len(all))
for _, l := range all {
	if strings.HasPrefix(l, "Date: ") {
		lines = append(lines, l)
	}
}`}[st.search%3]
		code := "label := regexp.MustCompile(`'(positive|negative|neutral)'`).FindStringSubmatch(query)[1]\n" + collect + fmt.Sprintf(`
size := %d
if (len(lines)+size-1)/size > %d {
	size = (len(lines) + %d) / %d
}
var prompts []string
for i := 0; i < len(lines); i += size {
	j := i + size
	if j > len(lines) {
		j = len(lines)
	}
	var b strings.Builder
	b.WriteString(%q + "\n\n")
	for _, l := range lines[i:j] {
		_, comment, _ := strings.Cut(l, "Instance: ")
		b.WriteString(comment + "\n")
	}
	prompts = append(prompts, b.String())
}
answers := llm_query_batched(prompts)
total, failed := 0, 0
for _, a := range answers {
	if strings.HasPrefix(a, "error:") || strings.HasPrefix(a, "budget exhausted") {
		failed++
		continue
	}
	for _, l := range strings.Split(a, "\n") {
		if strings.HasSuffix(strings.ToLower(strings.TrimSpace(l)), "| "+label) {
			total++
		}
	}
}
fmt.Println("comments:", len(lines), "chunks:", len(prompts), "failed:", failed)
fmt.Println("total:", total)`, st.chunk, maxChunks, maxChunks-1, maxChunks, labelPrompts[st.prompt])
		if st.final == 1 {
			code += "\nif failed == 0 {\n\tFINAL(fmt.Sprintf(\"Answer: %d\", total))\n}"
		}
		return say(st.talk, "label") + fence(code)
	}
	if foundRE.MatchString(s.feedback) {
		return finalVar(st, `fmt.Sprintf("Answer: %d", total)`)
	}
	return say(st.talk, "missing") + fence(`FINAL("Answer: 0")`)
}

// commentRE finds the comment of an OOLONG-style record line.
var commentRE = regexp.MustCompile(`\|\| Instance: (.*)$`)

// sub answers an llm_query prompt: one line per comment, the comment then
// " | " and its sentiment label. Whole record lines are reduced to their
// comment.
func (p Policy) sub(prompt string) string {
	var lines []string
	for _, l := range strings.Split(prompt, "\n") {
		if m := commentRE.FindStringSubmatch(l); m != nil {
			l = m[1]
		}
		l = strings.TrimSpace(l)
		label, ok := eval.OolongLabel(l)
		if !ok {
			continue
		}
		lines = append(lines, l+" | "+label)
	}
	if len(lines) == 0 {
		return "I can only label the sentiment of customer comments."
	}
	return strings.Join(lines, "\n")
}

// estimateTokens is the usage the server reports: four characters a token.
func estimateTokens(s string) int { return len(s)/4 + 1 }
