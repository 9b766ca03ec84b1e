// Package fakemodel is a test double for a model solving the eval tasks:
// scripts for internal/fakellm whose "root model" writes correct Go for
// S-NIAH, OOLONG-style and OOLONG-Pairs-style questions, and whose
// "sub-model" answers from the text it is given. It is not a model; it
// exists to test and benchmark the harness (engine, REPL, gateway) end to
// end without an upstream, as in the eval end-to-end test and
// bench/longctx.
package fakemodel

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/internal/fakellm"
)

// Script answers requests for model root as the root of an RLM and all
// other requests as the sub-model.
func Script(root string) fakellm.Script {
	return func(r fakellm.Request) fakellm.Reply {
		if r.Model == root {
			return Root(r)
		}
		return Sub(r)
	}
}

var (
	sniahQ   = regexp.MustCompile(`special magic (?:number|uuid) for ([\w-]+) mentioned`)
	countQ   = regexp.MustCompile(`How many of the comments have the sentiment label '(\w+)'`)
	rankQ    = regexp.MustCompile(`Which sentiment label is the (most|least) common`)
	compareQ = regexp.MustCompile(`is the sentiment label '(\w+)' more common, less common, or the same frequency as the label '(\w+)'`)
	userQ    = regexp.MustCompile(`comments by the user with User ID (\d+) have the sentiment label '(\w+)'`)
	rangeQ   = regexp.MustCompile(`comments dated from (\w{3} \d{2}, \d{4}) to (\w{3} \d{2}, \d{4}) \(both inclusive\) have the sentiment label '(\w+)'`)
	pairsQ   = regexp.MustCompile(`both users have at least (\d+) comments with the sentiment label '(\w+)'(?: dated from (\w{3} \d{2}, \d{4}) to (\w{3} \d{2}, \d{4}))?`)
	recordRE = regexp.MustCompile(`(?m)\|\| Instance: (.*)$`)
	needleRE = regexp.MustCompile(`special magic \w+ for [\w-]+ is: ([\w-]+)\.`)
)

// Root is the fake root model. On its first turn it writes one cell that
// solves the question it finds in the conversation; later turns (reached
// only when that cell failed) give up with FINAL.
func Root(r fakellm.Request) fakellm.Reply {
	if r.Turn() > 1 {
		return fakellm.Reply{Content: "The code failed.\nFINAL(the code failed)"}
	}
	var q strings.Builder
	for _, m := range r.Messages {
		if m.Role == "user" {
			q.WriteString(m.Content)
			q.WriteString("\n")
		}
	}
	code, ok := Code(q.String())
	if !ok {
		return fakellm.Reply{Content: "FINAL(unknown question)"}
	}
	return fakellm.Reply{Content: "I will solve this with code.\n```go\n" + code + "\n```"}
}

// Code returns the Go cell that answers question, which must contain one of
// the eval tasks' questions.
func Code(question string) (string, bool) {
	if m := sniahQ.FindStringSubmatch(question); m != nil {
		return fmt.Sprintf(`fmt.Println("context chars:", len(context))
m := regexp.MustCompile(%q).FindStringSubmatch(context)
if m == nil {
	FINAL("not found")
} else {
	FINAL(m[1])
}`, `special magic \w+ for `+regexp.QuoteMeta(m[1])+` is: ([\w-]+)\.`), true
	}
	var tail string
	switch {
	case countQ.MatchString(question):
		m := countQ.FindStringSubmatch(question)
		tail = fmt.Sprintf(`n := 0
for i := range recs {
	if labels[i] == %q {
		n++
	}
}
FINAL(fmt.Sprintf("Answer: %%d", n))`, m[1])
	case rankQ.MatchString(question):
		most := rankQ.FindStringSubmatch(question)[1] == "most"
		tail = fmt.Sprintf(`counts := map[string]int{}
for _, l := range labels {
	counts[l]++
}
best := ""
for _, l := range []string{"positive", "negative", "neutral"} {
	if best == "" || (%v && counts[l] > counts[best]) || (!%v && counts[l] < counts[best]) {
		best = l
	}
}
FINAL("Label: " + best)`, most, most)
	case compareQ.MatchString(question):
		m := compareQ.FindStringSubmatch(question)
		tail = fmt.Sprintf(`na, nb := 0, 0
for _, l := range labels {
	if l == %q {
		na++
	}
	if l == %q {
		nb++
	}
}
rel := "same frequency as"
if na > nb {
	rel = "more common than"
} else if na < nb {
	rel = "less common than"
}
FINAL("Answer: %s is " + rel + " %s")`, m[1], m[2], m[1], m[2])
	case userQ.MatchString(question):
		m := userQ.FindStringSubmatch(question)
		tail = fmt.Sprintf(`n := 0
for i := range recs {
	if users[i] == %q && labels[i] == %q {
		n++
	}
}
FINAL(fmt.Sprintf("Answer: %%d", n))`, m[1], m[2])
	case rangeQ.MatchString(question):
		m := rangeQ.FindStringSubmatch(question)
		tail = fmt.Sprintf(`from, to := day(%q), day(%q)
n := 0
for i := range recs {
	d := day(dates[i])
	if !d.Before(from) && !d.After(to) && labels[i] == %q {
		n++
	}
}
FINAL(fmt.Sprintf("Answer: %%d", n))`, m[1], m[2], m[3])
	case pairsQ.MatchString(question):
		m := pairsQ.FindStringSubmatch(question)
		from, to := "Jan 01, 2000", "Dec 31, 2999"
		if m[3] != "" {
			from, to = m[3], m[4]
		}
		tail = fmt.Sprintf(`from, to := day(%q), day(%q)
per := map[string]int{}
for i := range recs {
	d := day(dates[i])
	if !d.Before(from) && !d.After(to) && labels[i] == %q {
		per[users[i]]++
	}
}
var ok []string
for u, c := range per {
	if c >= %s {
		ok = append(ok, u)
	}
}
sort.Strings(ok)
var pairs []string
for i := range ok {
	for j := i + 1; j < len(ok); j++ {
		pairs = append(pairs, "("+ok[i]+", "+ok[j]+")")
	}
}
if len(pairs) == 0 {
	FINAL("Answer: none")
} else {
	FINAL("Answer:\n" + strings.Join(pairs, "\n"))
}`, from, to, m[2], m[1])
	default:
		return "", false
	}
	return oolongPrefix + tail, true
}

// oolongPrefix labels every record with the sub-model, in chunks, and
// leaves the records' dates, users and labels in parallel slices.
const oolongPrefix = `day := func(s string) time.Time {
	t, err := time.Parse("Jan 02, 2006", s)
	if err != nil {
		panic(err)
	}
	return t
}
_ = day // not every question needs dates
var recs, dates, users []string
for _, l := range strings.Split(context, "\n") {
	if strings.HasPrefix(l, "Date: ") {
		parts := strings.SplitN(l, " || ", 3)
		recs = append(recs, l)
		dates = append(dates, strings.TrimPrefix(parts[0], "Date: "))
		users = append(users, strings.TrimPrefix(parts[1], "User: "))
	}
}
fmt.Println("records:", len(recs))
const chunk = 2000
var prompts []string
for i := 0; i < len(recs); i += chunk {
	j := i + chunk
	if j > len(recs) {
		j = len(recs)
	}
	prompts = append(prompts, "Give the sentiment label (positive, negative or neutral) of each comment below, one label per line, in order.\n"+strings.Join(recs[i:j], "\n"))
}
var labels []string
for _, a := range llm_query_batched(prompts) {
	labels = append(labels, strings.Split(strings.TrimSpace(a), "\n")...)
}
if len(labels) != len(recs) {
	panic(fmt.Sprintf("got %d labels for %d records", len(labels), len(recs)))
}
`

// Sub is the fake sub-model: asked for the labels of comments, it labels
// each one (it knows the generator's templates, as a capable model would
// know sentiment); given text with a needle, it returns the needle's value.
func Sub(r fakellm.Request) fakellm.Reply {
	text := r.LastUser()
	if ms := recordRE.FindAllStringSubmatch(text, -1); ms != nil {
		out := make([]string, len(ms))
		for i, m := range ms {
			l, ok := eval.OolongLabel(m[1])
			if !ok {
				l = "neutral"
			}
			out[i] = l
		}
		return fakellm.Reply{Content: strings.Join(out, "\n")}
	}
	if m := needleRE.FindStringSubmatch(text); m != nil {
		return fakellm.Reply{Content: m[1]}
	}
	return fakellm.Reply{Content: "I cannot find that in the text."}
}
