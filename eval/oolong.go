package eval

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The labels of the OOLONG-style tasks: the sentiment of a short customer
// comment. The templates are written so that no keyword gives the label away
// ("great" and "love" appear in negative comments, "bad" and "disappoint" in
// positive ones): code alone cannot label a comment, a model reading it can.
var oolongLabels = []string{"positive", "negative", "neutral"}

var oolongTemplates = [][]string{
	{ // positive
		"I was sure the {x} would let me down, and it never did.",
		"Nothing about the {x} was a disappointment.",
		"Not a single complaint about the {x} from anyone at home.",
		"Bad luck with every {x} before this one; this time it just works.",
		"I did not expect to love the {x}, yet here we are.",
		"Hard to believe the {x} cost so little for how well it holds up.",
		"My sister laughed at the {x} until she borrowed it and refused to give it back.",
		"I expected to hate the {x}, but I use it every single day now.",
	},
	{ // negative
		"I wanted to love the {x}, but it never worked.",
		"The {x} was great for about a day.",
		"Calling the {x} good would be generous.",
		"I cannot recommend the {x} to anyone.",
		"The best thing about the {x} was the box it came in.",
		"The {x} works perfectly, if you never plan to turn it on.",
		"Five stars for the delivery, none for the {x}.",
		"I had high hopes for the {x}; the return label is already printed.",
	},
	{ // neutral
		"The {x} arrived on a Tuesday, as the tracking page said it would.",
		"I bought the {x} for my brother's new flat.",
		"The {x} comes in three colours and two sizes.",
		"I have not opened the {x} yet, so I cannot say whether it is good or bad.",
		"The {x} replaced an older one that I gave away.",
		"Is the {x} sold in stores as well, or only online?",
		"The {x} is the same model my neighbour has.",
		"I ordered the {x} together with a spare cable.",
	},
}

var oolongItems = []string{
	"kettle", "blender", "desk lamp", "backpack", "rain jacket", "phone case", "toaster",
	"office chair", "headphones", "coffee grinder", "bike lock", "tent", "water bottle",
	"keyboard", "vacuum cleaner", "frying pan", "alarm clock", "umbrella", "printer", "mattress",
}

// OolongLabel returns the true label of a comment the OOLONG-style
// generators wrote. It exists so that a test double for a sub-model can
// answer "what is the sentiment of this comment" the way a capable model
// would; a real model must read the comment.
func OolongLabel(comment string) (string, bool) {
	comment = strings.TrimSpace(comment)
	for li, ts := range oolongTemplates {
		for _, t := range ts {
			pre, suf, _ := strings.Cut(t, "{x}")
			if strings.HasPrefix(comment, pre) && strings.HasSuffix(comment, suf) && len(comment) > len(pre)+len(suf) {
				if slices.Contains(oolongItems, comment[len(pre):len(comment)-len(suf)]) {
					return oolongLabels[li], true
				}
			}
		}
	}
	return "", false
}

const (
	oolongDays       = 730 // records are dated over two years from oolongEpoch
	oolongHeader     = "The following lines contain customer comments, one per line. Each line has a date, a user ID and a comment. The sentiment of each comment is one of: positive, negative, neutral.\n"
	oolongRecordSize = 100 // rough bytes per record, to size the user pool
)

var oolongEpoch = time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)

func oolongDate(day int) string { return oolongEpoch.AddDate(0, 0, day).Format("Jan 02, 2006") }

// oolongStats is what the generators count while they stream records.
type oolongStats struct {
	records int
	total   [3]int
	users   []int    // user IDs
	perUser [][3]int // per user, in the date range given to writeOolong
	byDay   [oolongDays][3]int
	userAll [][3]int // per user, all dates
}

// writeOolong streams records up to target bytes. inRange selects the days
// counted in perUser.
func writeOolong(ctx context.Context, w io.Writer, r *rand.Rand, target int64, inRange func(day int) bool) (*oolongStats, int64, error) {
	nUsers := min(max(int(target/oolongRecordSize/25), 8), 1000)
	st := &oolongStats{perUser: make([][3]int, nUsers), userAll: make([][3]int, nUsers)}
	seen := map[int]bool{}
	for len(st.users) < nUsers {
		id := 10000 + r.IntN(90000)
		if !seen[id] {
			seen[id] = true
			st.users = append(st.users, id)
		}
	}
	// Distinct weights per instance so that label frequencies differ.
	var weights [3]float64
	sum := 0.0
	for i := range weights {
		weights[i] = 1 + 2*r.Float64()
		sum += weights[i]
	}
	cw := newCountWriter(w)
	cw.WriteString(oolongHeader)
	var line strings.Builder
	for cw.err == nil {
		if st.records%(1<<14) == 0 && ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		x, label := r.Float64()*sum, 0
		for label < 2 && x >= weights[label] {
			x -= weights[label]
			label++
		}
		ts := oolongTemplates[label]
		text := strings.Replace(ts[r.IntN(len(ts))], "{x}", oolongItems[r.IntN(len(oolongItems))], 1)
		u, day := r.IntN(nUsers), r.IntN(oolongDays)
		line.Reset()
		fmt.Fprintf(&line, "Date: %s || User: %d || Instance: %s\n", oolongDate(day), st.users[u], text)
		if cw.n+int64(line.Len()) > target && st.records > 0 {
			break
		}
		cw.WriteString(line.String())
		st.records++
		st.total[label]++
		st.byDay[day][label]++
		st.userAll[u][label]++
		if inRange(day) {
			st.perUser[u][label]++
		}
	}
	if err := cw.Flush(); err != nil {
		return nil, 0, err
	}
	return st, cw.n, nil
}

// Oolong is the OOLONG-style aggregation task: count, rank and compare the
// labels of records, overall, per user and per date range.
type Oolong struct{}

// Name implements Task.
func (Oolong) Name() string { return "oolong" }

// The question kinds of Oolong.
const (
	qCount     = "count"
	qMost      = "most_frequent"
	qLeast     = "least_frequent"
	qCompare   = "compare"
	qUser      = "per_user"
	qDateRange = "date_range"
)

var oolongKinds = []string{qCount, qMost, qLeast, qCompare, qUser, qDateRange}

// Generate implements Task.
func (t Oolong) Generate(ctx context.Context, w io.Writer, spec Spec) (Instance, error) {
	if spec.Tokens <= 0 {
		return Instance{}, fmt.Errorf("oolong: length %d tokens: must be positive", spec.Tokens)
	}
	r := newRand(t.Name(), spec)
	// Everything the question needs is drawn before the records, so that
	// the counts it needs can be taken while streaming.
	kind := oolongKinds[spec.Index%len(oolongKinds)]
	l1 := r.IntN(3)
	l2 := (l1 + 1 + r.IntN(2)) % 3
	from := r.IntN(oolongDays - 60)
	to := from + 30 + r.IntN(oolongDays-from-30)
	userPick := r.Float64()
	st, n, err := writeOolong(ctx, w, r, int64(spec.Tokens)*CharsPerToken, func(int) bool { return true })
	if err != nil {
		return Instance{}, fmt.Errorf("oolong: write records: %w", err)
	}
	L1, L2 := oolongLabels[l1], oolongLabels[l2]
	inst := Instance{Task: t.Name(), Tokens: spec.Tokens, Index: spec.Index, Seed: spec.Seed, Scorer: "oolong", Bytes: n}
	const numForm = " Give your final answer in the form 'Answer: number'."

	if kind == qMost || kind == qLeast {
		order := []int{0, 1, 2}
		sort.SliceStable(order, func(i, j int) bool { return st.total[order[i]] > st.total[order[j]] })
		pick := order[0]
		tie := st.total[order[0]] == st.total[order[1]]
		word := "most"
		if kind == qLeast {
			pick, tie, word = order[2], st.total[order[2]] == st.total[order[1]], "least"
		}
		if tie {
			// No single right answer: ask for a count instead.
			kind = qCount
		} else {
			inst.Question = fmt.Sprintf("Which sentiment label is the %s common among all the comments? "+
				"Give your final answer in the form 'Label: answer', where answer is one of positive, negative, neutral.", word)
			inst.Answer = oolongLabels[pick]
		}
	}
	switch kind {
	case qCount:
		inst.Question = fmt.Sprintf("How many of the comments have the sentiment label '%s'?"+numForm, L1)
		inst.Answer = strconv.Itoa(st.total[l1])
	case qCompare:
		rel := "same frequency as"
		switch a, b := st.total[l1], st.total[l2]; {
		case a > b:
			rel = "more common than"
		case a < b:
			rel = "less common than"
		}
		inst.Question = fmt.Sprintf("Among the comments, is the sentiment label '%s' more common, less common, or the same frequency as the label '%s'? "+
			"Give your final answer in the form 'Answer: %s is [X] %s', where [X] is 'more common than', 'less common than' or 'same frequency as'.", L1, L2, L1, L2)
		inst.Answer = fmt.Sprintf("%s is %s %s", L1, rel, L2)
	case qUser:
		u := int(userPick * float64(len(st.users)))
		inst.Question = fmt.Sprintf("How many comments by the user with User ID %d have the sentiment label '%s'?"+numForm, st.users[u], L1)
		inst.Answer = strconv.Itoa(st.userAll[u][l1])
	case qDateRange:
		c := 0
		for d := from; d <= to; d++ {
			c += st.byDay[d][l1]
		}
		inst.Question = fmt.Sprintf("How many comments dated from %s to %s (both inclusive) have the sentiment label '%s'?"+numForm,
			oolongDate(from), oolongDate(to), L1)
		inst.Answer = strconv.Itoa(c)
	}
	inst.Meta = map[string]string{
		"kind":    kind,
		"records": strconv.Itoa(st.records),
		"counts":  fmt.Sprintf("positive=%d negative=%d neutral=%d", st.total[0], st.total[1], st.total[2]),
	}
	return inst, nil
}

// OolongPairs is the OOLONG-Pairs-style task: list all pairs of users who
// both meet a condition on their labelled records. Scored by F1 over pairs.
type OolongPairs struct{}

// Name implements Task.
func (OolongPairs) Name() string { return "oolong-pairs" }

// Generate implements Task.
func (t OolongPairs) Generate(ctx context.Context, w io.Writer, spec Spec) (Instance, error) {
	if spec.Tokens <= 0 {
		return Instance{}, fmt.Errorf("oolong-pairs: length %d tokens: must be positive", spec.Tokens)
	}
	r := newRand(t.Name(), spec)
	label := r.IntN(3)
	from, to, ranged := 0, oolongDays-1, spec.Index%2 == 1
	if ranged {
		from = r.IntN(oolongDays / 2)
		to = from + oolongDays/4 + r.IntN(oolongDays/4)
	}
	k := 4 + r.IntN(5) // about this many users qualify
	st, n, err := writeOolong(ctx, w, r, int64(spec.Tokens)*CharsPerToken, func(d int) bool { return d >= from && d <= to })
	if err != nil {
		return Instance{}, fmt.Errorf("oolong-pairs: write records: %w", err)
	}
	counts := make([]int, len(st.users))
	for u := range st.users {
		counts[u] = st.perUser[u][label]
	}
	sorted := slices.Clone(counts)
	sort.Sort(sort.Reverse(sort.IntSlice(sorted)))
	threshold := max(1, sorted[min(k, len(sorted))-1])
	var ids []int
	for u, c := range counts {
		if c >= threshold {
			ids = append(ids, st.users[u])
		}
	}
	sort.Ints(ids)
	var pairs []string
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			pairs = append(pairs, fmt.Sprintf("(%d, %d)", ids[i], ids[j]))
		}
	}
	cond := fmt.Sprintf("at least %d comments with the sentiment label '%s'", threshold, oolongLabels[label])
	if ranged {
		cond += fmt.Sprintf(" dated from %s to %s (both inclusive)", oolongDate(from), oolongDate(to))
	}
	return Instance{
		Task: t.Name(), Tokens: spec.Tokens, Index: spec.Index, Seed: spec.Seed,
		Question: "List every pair of user IDs such that both users have " + cond + ". " +
			"Write each pair once, as (smaller ID, larger ID), one pair per line, after a line 'Answer:'. " +
			"If no pair qualifies, answer 'Answer: none'.",
		Answer: strings.Join(pairs, "\n"),
		Scorer: "pairs",
		Bytes:  n,
		Meta: map[string]string{
			"records": strconv.Itoa(st.records), "qualifying_users": strconv.Itoa(len(ids)),
			"pairs": strconv.Itoa(len(pairs)),
		},
	}, nil
}
