// Package lookup finds facts in a document's text: the value a question
// asks for, read from the line, table row, record, section or sentence
// that holds the question's key words. Its functions are pure (text and a
// question in, strings out) and fast on tens of megabytes; the REPL
// offers them to model code as lookup and lookup_lines.
//
// How Find reads a question: its key words are the words that are not
// question words ("what is the ... of"); identifiers (snake_case,
// camelCase, kebab-case, dotted.names, paths, versions), numbers and
// capitalized names are strong keys, which the answer's record must hold;
// other words are matched loosely (case, plurals, inflections and a few
// synonyms) against the record's field names and text. Where they are
// found, the text is read several ways at once: the line's key: value
// pairs, a name defined in code (#define NAME "v", const X Type = 1,
// Python's X = 'v'), a table row under its header (Markdown, CSV, TSV,
// fixed-width, HTML), a JSON object, an SQL INSERT, an RFC 822 stanza or
// mail, an INI section, a YAML block, a changelog entry, a list, a
// Markdown section under its heading, a man page's option and its
// description, a sentence. Each
// labelled value is scored by how well its label and record match the
// question and whether it is the kind of value asked for (a date for
// "when", a person for "who", a number for "how many").
//
// Man pages are read as rendered (roff and mdoc markup removed). Keys
// the whole text is about (Redis in a Redis log) need not be on the
// answer's line. A date in a question is found however the text writes
// it, an identifier also run together (SHA-256 as SHA256), and a
// language asked for ("in Russian") by its code (GenericName[ru]).
//
// Find answers "" rather than guess: when a strong key is nowhere in the
// text, when no record holds the keys, when the best reading scores too
// low, or when a different value reads nearly as well (the ambiguity
// margin).
package lookup

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxAnchors bounds the matches of the anchor key that are read.
const maxAnchors = 4000

// Answer is Find's reading of a text: the value, the line it was read
// from, and its score.
type Answer struct {
	Value string
	Line  string
	Score float64
	// Kind is the kind of record the value was read from (line, prose,
	// table, json, stanza, ...).
	Kind string
	// Clear is how many times over the ambiguity margin the value beats
	// the best other value (at least 1; 99 when there is none).
	Clear float64
	// Keys is the share of the question's key words the value's record
	// holds (strong, topics and loose; those nowhere in the text count
	// as not held).
	Keys float64
	// Fallback is set when the value was found only by the last try,
	// with the text's topics and capitalized everyday words relaxed.
	Fallback bool
}

// Find returns the value text gives for what question asks, or "" when
// the text does not clearly answer it. An empty question is looked for in
// the text itself (see Question), as when a message holds both.
func Find(text, question string) string {
	return explainIn(text, nil, question, nil).Value
}

// FindIn is Find over a text joined from several files, as the REPL's
// context joins the files of a request: starts are the byte offsets at
// which the files begin. Each file's man pages are rendered on their own,
// and a key near any file's start can be what that file is about.
func FindIn(text string, starts []int, question string) string {
	return explainIn(text, starts, question, nil).Value
}

// Explain is Find with the line the value was read from.
func Explain(text, question string) Answer {
	return explainIn(text, nil, question, nil)
}

// ExplainIn is FindIn with the line the value was read from.
func ExplainIn(text string, starts []int, question string) Answer {
	return explainIn(text, starts, question, nil)
}

// explain is Explain, with every value scored shown to trace (when not
// nil).
func explain(text, question string, trace func(c cand, score float64)) Answer {
	return explainIn(text, nil, question, trace)
}

func explainIn(text string, starts []int, question string, trace func(c cand, score float64)) Answer {
	if strings.TrimSpace(question) == "" {
		var rest string
		question, rest = Question(text)
		if question == "" {
			return Answer{}
		}
		// The question is cut from the text's head or tail.
		if !strings.HasPrefix(text, rest) {
			starts = shift(starts, len(rest)-len(text))
		}
		text = rest
	}
	// Man pages are read as rendered: their markup parts a setting's
	// name from its value (.IP "default_days" 4).
	text, starts = renderParts(text, starts)
	q := parseQuery(question)
	f := newFinder(text, q)
	if f == nil {
		return Answer{}
	}
	f.starts = starts
	f.trace = trace
	return f.answer()
}

// shift moves starts by d, keeping those still inside the text (and 0).
func shift(starts []int, d int) []int {
	out := []int{0}
	for _, s := range starts {
		if s+d > 0 {
			out = append(out, s+d)
		}
	}
	return out
}

// renderParts renders each file's man pages (renderRoff) and returns the
// rendered text with its files' starts; starts that are not increasing
// offsets into text are dropped.
func renderParts(text string, starts []int) (string, []int) {
	var cuts []int
	for _, s := range starts {
		if s > 0 && s < len(text) && (len(cuts) == 0 || s > cuts[len(cuts)-1]) {
			cuts = append(cuts, s)
		}
	}
	if len(cuts) == 0 {
		return renderRoff(text), []int{0}
	}
	var b strings.Builder
	b.Grow(len(text))
	out := []int{0}
	prev := 0
	for _, c := range append(cuts, len(text)) {
		if prev > 0 {
			out = append(out, b.Len())
		}
		b.WriteString(renderRoff(text[prev:c]))
		prev = c
	}
	return b.String(), out
}

// answer is the finder's best reading, looked for again with the text's
// topics relaxed when no record holds every key.
func (f *finder) answer() Answer {
	f.relaxTopics(false)
	if a := f.best(); a.Value != "" {
		return a
	}
	// No record holds every key: the keys the whole text is about
	// (Redis in a Redis log, HTTP::Tiny in its module) need not be on
	// the answer's line, nor a capitalized everyday word.
	topics := f.relaxTopics(true)
	if !f.relaxNames() && !topics {
		return Answer{}
	}
	// A last try, with fewer keys to go by: it must win more clearly.
	f.fallback = true
	return f.best()
}

// relaxNames turns the names the text mostly writes in lower case into
// loose words: the question capitalized an everyday word ("an Escape key
// press"). It reports whether any was.
func (f *finder) relaxNames() bool {
	any := false
	for i, t := range f.terms {
		if !t.name || !t.strong {
			continue
		}
		anyCase := t
		anyCase.name = false
		if all := len(occurrences(f.text, f.folded, anyCase, maxAnchors)); all >= 3*f.counts[i] && all-f.counts[i] >= 3 {
			t.strong, t.name = false, false
			f.terms[i], f.counts[i] = t, len(occurrences(f.text, f.folded, t, maxAnchors))
			any = true
		}
	}
	return any
}

// rareStrong reports whether a strong key other than the topics is left.
func (f *finder) rareStrong(topics []int) bool {
	for i, t := range f.terms {
		if t.strong && !slices.Contains(topics, i) {
			return true
		}
	}
	return false
}

// topicReach: a key found this near the text's start is its subject
// (a title, a package line, a log's first lines).
const topicReach = 4096

// topicCount: a key found this many times is what the text is about.
const topicCount = 20

// nearAStart reports whether folded key w is within topicReach of the
// start of one of the text's files.
func (f *finder) nearAStart(w string) bool {
	for _, s := range f.starts {
		if strings.Contains(f.folded[s:min(len(f.folded), s+topicReach)], w) {
			return true
		}
	}
	return false
}

// relaxTopics turns the strong keys that the text is about into topic
// words, which support a record that holds them and cost nothing where it
// does not; it reports whether any was.
//
// A key found topicCount times is a topic from the start; one near the
// text's start only when nearStart is set (as a last try: a table's first
// rows are near its start too).
func (f *finder) relaxTopics(nearStart bool) bool {
	var topics []int
	other := false
	most := 0
	for i, t := range f.terms {
		if t.strong {
			most = max(most, f.counts[i])
		}
	}
	for i, t := range f.terms {
		// A key a tenth as frequent as another is not what the text
		// is about (Sizzle in jQuery): it still picks the record.
		frequent := f.counts[i] >= topicCount
		subject := !frequent || f.counts[i]*10 > most // frequent, but not as the text's subject is
		// A number or version near the start is a table of contents'
		// entry (12.22.10), not the text's subject.
		title := nearStart && !unicode.IsDigit(rune(t.fold[0])) && f.nearAStart(t.fold)
		if t.strong && subject && (frequent || title) {
			topics = append(topics, i)
		} else if !t.topic {
			other = true
		}
	}
	// Topics alone do not pick a record: some other word must. And a
	// frequent key beside a rare one is a column's value that picks the
	// row (NAD27 beside Arizona), not what the text is about.
	if len(topics) == 0 || !other || !nearStart && f.rareStrong(topics) {
		return false
	}
	for _, i := range topics {
		f.terms[i].strong, f.terms[i].topic = false, true
	}
	return true
}

// Lines returns up to n lines of text that hold the most of question's
// key words, best first: what to read when Find found nothing.
func Lines(text, question string, n int) []string {
	if strings.TrimSpace(question) == "" {
		question, text = Question(text)
	}
	q := parseQuery(question)
	folded := foldASCII(text)
	type hit struct {
		a, b  int
		score float64
	}
	byLine := map[int]*hit{}
	for _, t := range q.terms {
		locs := occurrences(text, folded, t, maxAnchors)
		w := 1.0
		if t.strong {
			w = 2
		}
		if len(locs) > 0 {
			w += 1 / float64(len(locs))
		}
		seenLine := map[int]bool{}
		for _, at := range locs {
			a, b := lineAt(text, at)
			if seenLine[a] || q.text != "" && strings.Contains(text[a:b], q.text) {
				continue
			}
			seenLine[a] = true
			h := byLine[a]
			if h == nil {
				h = &hit{a: a, b: b}
				byLine[a] = h
			}
			h.score += w
		}
	}
	hits := make([]*hit, 0, len(byLine))
	for _, h := range byLine {
		hits = append(hits, h)
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].a < hits[j].a
	})
	var out []string
	for _, h := range hits {
		if len(out) == n {
			break
		}
		l := text[h.a:h.b]
		if len(l) > 300 {
			l = l[:300]
		}
		out = append(out, l)
	}
	return out
}

// finder holds a question's search of one text.
type finder struct {
	text, folded string
	q            query
	terms        []term // the keys the text can be searched for
	counts       []int
	// missing are loose key words found nowhere in the text: they may
	// still name a field (a changelog's "uploaded by"), else they count
	// against every reading.
	missing   []term
	lineStems map[string][]string // stemsOf's
	lineHas   map[[2]int]bool     // onLine's
	// fallback: the last try, with the text's topics relaxed.
	fallback bool
	fitted   map[string]bool // fits's
	// lang is the code of the language the question asks in ("in
	// Russian": ru), when the text tags values by language.
	lang string
	// starts are where the text's files begin (0 for one file).
	starts []int
	// paths are the dotted key paths the question gives that the text
	// nests (info.version), lower-cased.
	paths []string
	// trace, when set (by tests), sees every value scored.
	trace func(c cand, score float64)
}

// fileNameRE matches a file name that a question may mention as where the
// text came from (it need not be in the text).
var fileNameRE = regexp.MustCompile(`(?i)\.(?:txt|md|csv|tsv|tab|json|jsonl|ya?ml|xml|html?|log|conf|cfg|ini|toml|h|c|cc|cpp|go|py|rs|js|ts|sh|sql|service|timer|socket|gz|pdf|out|list)$`)

func newFinder(text string, q query) *finder {
	f := &finder{text: text, folded: foldASCII(text), q: q, starts: []int{0}}
	hasStrong, strongFound := false, false
	for _, t := range q.terms {
		locs := occurrences(text, f.folded, t, maxAnchors)
		n := len(locs)
		if !t.strong && allCapsWord(t.text) && slices.ContainsFunc(locs, func(at int) bool { return strings.HasPrefix(text[at:], t.text) }) {
			// ISTRIP, PLATFORM as the text writes them: a name in
			// capitals (#define ISTRIP), which the answer's record
			// must hold, not a field's name asked in capitals.
			t.strong = true
		}
		if n == 0 && t.dates != nil {
			// The date as the text writes it: 2023-04-27 for
			// "April 27, 2023".
			for _, d := range t.dates {
				dt := term{text: d, fold: foldASCII(d), strong: true}
				if n = len(occurrences(text, f.folded, dt, maxAnchors)); n > 0 {
					t = dt
					break
				}
			}
		}
		if n == 0 && t.strong && !t.name && !fileNameRE.MatchString(t.text) {
			// (A file name the text does not hold is where it came
			// from: jetty.sh is no JETTY_SH.)
			t, n = f.respell(t)
			if n == 0 {
				if ws, ns := f.keyPath(t); ws != nil {
					// info.version where JSON nests "version" in
					// "info": its keys, as "the version of info".
					f.terms = append(f.terms, ws...)
					f.counts = append(f.counts, ns...)
					f.paths = append(f.paths, strings.ToLower(t.text))
					continue
				}
				if ws, ns := f.partsOnALine(t); ws != nil {
					// "cache-pruning" where a line says "Prune
					// caches": its words, loosely.
					f.terms = append(f.terms, ws...)
					f.counts = append(f.counts, ns...)
					continue
				}
			}
		}
		if code := languageCodes[strings.ToLower(t.text)]; n == 0 && code != "" {
			// "in Russian" where the text tags it: GenericName[ru],
			// label_de.
			t = term{text: code, fold: code, stems: []string{code}}
			n = len(occurrences(text, f.folded, t, maxAnchors))
			f.lang = code
		}
		hasStrong = hasStrong || t.strong
		switch {
		case n > 0:
			f.terms = append(f.terms, t)
			f.counts = append(f.counts, n)
			strongFound = strongFound || t.strong
		case t.strong && !t.name && phraseHyphenated(t.text):
			// copy-on-write, end-to-end: a phrase the question wrote
			// as one word, not a name; a word the text lacks.
			t.strong = false
			f.missing = append(f.missing, t)
		case t.strong && !t.name && !fileNameRE.MatchString(t.text):
			// An identifier, number or version that is nowhere in the
			// text: the text does not hold what is asked.
			return nil
		case !t.strong:
			f.missing = append(f.missing, t)
		}
	}
	if hasStrong && !strongFound {
		// Every name the question gives is absent: it asks about
		// something this text does not mention.
		return nil
	}
	if len(f.terms) == 0 {
		return nil
	}
	return f
}

// respell looks for an identifier the text does not hold as the question
// wrote it, in the spellings a person means by it: run together (SHA-256
// as SHA256); its words parted by another mark (net.core.somaxconn as
// /proc/sys/net/core/somaxconn, compiled-in as "compiled in", roff's
// idle\-exit), the last one inflected ("destination constraints"). A
// name without its namespace (faillock for pam_faillock) is not tried: it
// read the module's other settings.
func (f *finder) respell(t term) (term, int) {
	words := identPartRE.Split(t.text, -1)
	if len(words) < 2 || slices.Contains(words, "") {
		return t, 0
	}
	squashed := strings.Join(words, "")
	st := t
	st.text, st.fold, st.stems = squashed, foldASCII(squashed), nil
	for _, p := range parts(squashed) {
		st.stems = append(st.stems, stem(p))
	}
	if n := len(occurrences(f.text, f.folded, st, maxAnchors)); n > 0 {
		return st, n
	}
	// Numbers parted otherwise are other numbers (2.4.1, 2/4/1).
	if !slices.ContainsFunc(words, noLetter) {
		if st, n := f.respelledAs(t, words); n > 0 {
			return st, n
		}
	}
	return t, 0
}

// keyPathRE matches a dotted path of keys: info.version,
// spec.template.replicas (each key starts with a letter).
var keyPathRE = regexp.MustCompile(`^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*){1,5}$`)

// keyPath returns the keys of dotted path t as the question's words, and
// how often each is found, when the text does not hold the path as
// written but holds every key: a path into nested JSON, YAML or TOML,
// where each key is written on its own. Else nil.
func (f *finder) keyPath(t term) ([]term, []int) {
	if !keyPathRE.MatchString(t.text) {
		return nil, nil
	}
	var ts []term
	var ns []int
	for _, key := range strings.Split(t.text, ".") {
		kts := parseQuery("What is " + key + "?").terms
		if len(kts) == 1 && !f.asKey(key) {
			return nil, nil // sort.Slice: a package's function, not keys
		}
		for _, kt := range kts {
			n := len(occurrences(f.text, f.folded, kt, maxAnchors))
			if n == 0 {
				return nil, nil
			}
			ts, ns = append(ts, kt), append(ns, n)
		}
	}
	if len(ts) < 2 {
		return nil, nil
	}
	return ts, ns
}

// asKey reports whether the text writes key as a key somewhere: before
// a colon or an equals sign ("info": {, info:, info =), or as a section
// ([info]).
func (f *finder) asKey(key string) bool {
	for at := 0; ; {
		i := strings.Index(f.text[at:], key)
		if i < 0 {
			return false
		}
		at += i + len(key)
		rest := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(f.text[at:min(len(f.text), at+8)], `"`), `'`), " \t")
		if rest != "" && strings.IndexByte(":=]", rest[0]) >= 0 {
			return true
		}
	}
}

// partsOnALine returns the words of hyphenated key t as loose keys, and
// how often each is found, when one line of the text holds them all, in
// any order; else nil. (A
// hyphenated word is a person's wording; snake_case and dotted names are
// a program's, and their words elsewhere name other things:
// transaction_timeout is not idle_in_transaction_session_timeout.)
func (f *finder) partsOnALine(t term) ([]term, []int) {
	if strings.ContainsAny(t.text, "_./\\") {
		return nil, nil
	}
	var ws []term
	for _, w := range strings.Split(t.text, "-") {
		if utf8.RuneCountInString(w) < 3 || noLetter(w) || stopWords[strings.ToLower(w)] {
			continue
		}
		ws = append(ws, term{text: w, fold: foldASCII(w), stems: []string{stem(w)}})
	}
	if len(ws) < 2 {
		return nil, nil
	}
	ns := make([]int, len(ws))
	rarest := 0
	for i, w := range ws {
		if ns[i] = len(occurrences(f.text, f.folded, w, maxAnchors)); ns[i] == 0 {
			return nil, nil
		}
		if ns[i] < ns[rarest] {
			rarest = i
		}
	}
	seen := map[int]bool{}
	for _, at := range occurrences(f.text, f.folded, ws[rarest], maxAnchors) {
		a, b := lineAt(f.text, at)
		if seen[a] {
			continue
		}
		seen[a] = true
		if f.together(f.text[a:b], ws) {
			return ws, ns
		}
	}
	return nil, nil
}

// creditStems are verbs that credit someone other than whoever made a
// change: who reported, requested or suggested it.
var creditStems = setOf(`report request suggest notic discover thank spot propos found point`)

// senderStems ask who sent a message; recipientLabels are the fields that
// name whom it went to.
var (
	senderStems     = setOf(`sent send sender wrot written post`)
	recipientLabels = setOf(`to cc bcc delivered-to x-original-to envelope-to resent-to`)
)

// asksAny reports whether a key word of the question has one of stems.
func (f *finder) asksAny(stems map[string]bool) bool {
	for _, t := range append(f.terms, f.missing...) {
		for _, st := range t.stems {
			if stems[st] {
				return true
			}
		}
	}
	return false
}

// together reports whether line holds every one of loose keys ws, side
// by side (in any order, a short word between them at most: "Prune
// caches", "centre originating"), as one phrase.
func (f *finder) together(line string, ws []term) bool {
	folded := foldASCII(line)
	var spans [][]int
	for _, w := range ws {
		locs := occurrences(line, folded, w, maxAnchors)
		if len(locs) == 0 {
			return false
		}
		spans = append(spans, locs)
	}
	// Some occurrence of the first word with every other word's
	// nearest occurrence close by.
	for _, at := range spans[0] {
		near := true
		for _, locs := range spans[1:] {
			best := -1
			for _, x := range locs {
				if best < 0 || abs(x-at) < abs(best-at) {
					best = x
				}
			}
			near = near && abs(best-at) <= phraseReach*len(ws)
		}
		if near {
			return true
		}
	}
	return false
}

// phraseReach is how far apart, in bytes, the words of one phrase start
// at most, per word.
const phraseReach = 16

func abs(x int) int { return max(x, -x) }

// phraseHyphenated reports whether w is words joined by hyphens as a
// phrase is, one of them "on", "to", "of"...: copy-on-write, out-of-band
// (a name's parts are not joined so).
func phraseHyphenated(w string) bool {
	ps := strings.Split(strings.ToLower(w), "-")
	if len(ps) < 3 || slices.ContainsFunc(ps, func(p string) bool { return p == "" || !isLetters(p) }) {
		return false
	}
	return slices.ContainsFunc(ps[1:len(ps)-1], func(p string) bool { return hyphenJoins[p] })
}

var hyphenJoins = setOf(`on of to in the by for and at or a`)

// isLetters reports whether w is letters only.
func isLetters(w string) bool {
	return !strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
}

// cellHolds reports whether one of r's fields holds key t.
func cellHolds(r *record, t term) bool {
	for _, fl := range r.fields {
		if len(occurrences(fl.value, foldASCII(fl.value), t, 1)) > 0 {
			return true
		}
	}
	return false
}

// noLetter reports whether w has no letter.
func noLetter(w string) bool { return !strings.ContainsFunc(w, unicode.IsLetter) }

// identPartRE parts an identifier's words.
var identPartRE = regexp.MustCompile(`[-_./\\]+`)

// respelledAs finds identifier t's words in the text parted by other
// marks (a space, a slash, a roff hyphen), its last word with up to two
// letters more, and returns the spelling the text uses most.
func (f *finder) respelledAs(t term, words []string) (term, int) {
	var pat strings.Builder
	for i, w := range words {
		if i > 0 {
			pat.WriteString(`(?:[-_./ ]|\\-)`)
		}
		pat.WriteString(regexp.QuoteMeta(foldASCII(w)))
	}
	pat.WriteString(`[a-z]{0,2}`)
	re, err := regexp.Compile(pat.String())
	if err != nil {
		return t, 0
	}
	seen := map[string]int{}
	surface := ""
	for _, loc := range re.FindAllStringIndex(f.folded, maxAnchors) {
		if !boundaryBefore(f.text, loc[0]) || !boundaryAfter(f.text, loc[1]) {
			continue
		}
		s := f.text[loc[0]:loc[1]]
		if seen[s]++; seen[s] > seen[surface] {
			surface = s
		}
	}
	if surface == "" {
		return t, 0
	}
	st := t
	st.text, st.fold = surface, foldASCII(surface)
	return st, len(occurrences(f.text, f.folded, st, maxAnchors))
}

// occurrences finds term t in text (folded is its ASCII-folded copy): the
// whole word, case-insensitively; loose words also by their stem, as a
// word's start. At most limit offsets.
func occurrences(text, folded string, t term, limit int) []int {
	needle := t.fold
	prefix := false
	if !t.strong && len(t.stems) > 0 {
		// A loose word by its longest stem, as a word's start:
		// "released" finds "release", "e-mail" finds "mail".
		st := t.stems[0]
		for _, x := range t.stems[1:] {
			if len(x) > len(st) {
				st = x
			}
		}
		if len(t.stems) > 1 || len(st) >= 4 {
			// As a word's start, so that "default" finds "defaults".
			needle, prefix = foldASCII(st), len(st) >= 3
		}
	}
	var out []int
	for i := 0; len(out) < limit; {
		j := strings.Index(folded[i:], needle)
		if j < 0 {
			break
		}
		at := i + j
		end := at + len(needle)
		if boundaryBefore(text, at) && (prefix || boundaryAfter(text, end)) && !(t.strong && (versionGoesOn(text, at, end) || hyphenGoesOn(t, text, end))) {
			// Non-ASCII letters are matched as written; check case-
			// insensitively where the fold did not reach.
			// A name (Norway, Ingrid) is matched capitalized: "renquin"
			// in running text is another word.
			if (prefix || strings.EqualFold(text[at:end], t.text) || foldASCII(text[at:end]) == needle) &&
				(!t.name || capitalized(text[at:end])) {
				out = append(out, at)
			}
		}
		i = end
	}
	return out
}

// hyphenGoesOn reports whether a hyphenated name goes on past end in
// text: --default-cache-ttl in --default-cache-ttl-ssh, ca-certificates
// in ca-certificates-java, each another name.
func hyphenGoesOn(t term, text string, end int) bool {
	if !strings.Contains(t.text, "-") || end+1 >= len(text) || text[end] != '-' {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[end+1:])
	return unicode.IsLetter(r)
}

// versionGoesOn reports whether the number or version at text[at:end]
// is part of a longer one: 1.0.8-2 in 1.0.8-2.1, 0.8 in 1.0.8.
func versionGoesOn(text string, at, end int) bool {
	isDigit := func(i int) bool { return i >= 0 && i < len(text) && text[i] >= '0' && text[i] <= '9' }
	if !isDigit(at) && !isDigit(end-1) {
		return false
	}
	if isDigit(end-1) && end+1 < len(text) && strings.IndexByte(".-+~_", text[end]) >= 0 && isDigit(end+1) {
		return true
	}
	return isDigit(at) && at >= 2 && text[at-1] == '.' && isDigit(at-2)
}

// cand is one value a record offers.
type cand struct {
	value string
	label string
	rec   *record
	at    int
}

// best reads the records around the anchor key's matches and returns the
// best-scoring value.
func (f *finder) best() Answer {
	// The anchor: the rarest strong key, else the rarest key.
	anchor := -1
	for i, t := range f.terms {
		if anchor < 0 || t.strong && !f.terms[anchor].strong ||
			t.strong == f.terms[anchor].strong && f.counts[i] < f.counts[anchor] {
			anchor = i
		}
	}
	locs := occurrences(f.text, f.folded, f.terms[anchor], maxAnchors)
	// Other keys with few matches anchor too: a strong key may be only in
	// a table's header, its row found by another key.
	for i, t := range f.terms {
		if i != anchor && f.counts[i] <= maxExtraAnchors {
			locs = append(locs, occurrences(f.text, f.folded, t, maxExtraAnchors)...)
		}
	}
	locs = f.promising(locs)
	seenLine := map[int]bool{}
	seen := map[recordKey]bool{}
	memo := newRecordMemo()
	var bestA Answer
	bestScore := -1e9
	byValue, seenValue, byPlace, byLabel := map[string]float64{}, map[string]bool{}, map[string]int{}, map[string]string{}
	bestPlace, bestLabel := -1, ""
	for _, at := range locs {
		a, b := lineAt(f.text, at)
		key := a
		if o, ok := memo.lineObjectAt(f.text, a, b, at); ok {
			key = o // a line of JSON holds many objects, each read on its own
		}
		if seenLine[key] || f.q.text != "" && strings.Contains(f.text[a:b], f.q.text) {
			continue // seen, or the question itself
		}
		seenLine[key] = true
		rs := records(f.text, at, memo)
		structured := false
		for _, r := range rs {
			if r.kind == "define" && slices.ContainsFunc(r.fields, func(fl field) bool { return f.isStrong(fl.label) }) {
				// The name asked for, defined: its value is the whole
				// literal ("platform: BSD-x86"), not a sentence's
				// words.
				structured = true
			}
			if r.kind == "line" || r.kind == "prose" || r.kind == "section" || len(r.fields) < 2 {
				continue
			}
			for _, fl := range r.fields {
				if fl.at >= a && fl.at <= b {
					structured = true // the line is one of the record's fields
				}
			}
		}
		for _, r := range rs {
			if structured && r.kind == "prose" {
				continue // a table row or a record's line is not a sentence
			}
			// A JSON object read as one line's pairs and as JSON is
			// read twice: as JSON its nested keys keep their parents
			// (engines.node, not node).
			key := recordKey{r.start, len(r.text), r.kind == "json"}
			if seen[key] {
				continue
			}
			seen[key] = true
			r := r
			m := f.match(&r)
			if m == nil {
				continue
			}
			cs := f.candidates(&r, !structured)
			only := f.onlyOfKind(cs)
			for _, c := range cs {
				s := f.score(c, m, at)
				if only != "" && strings.EqualFold(c.value, only) {
					s += onlyBonus
				}
				if f.trace != nil {
					f.trace(c, s)
				}
				if v := strings.ToLower(c.value); s > byValue[v] || !seenValue[v] {
					byValue[v], seenValue[v], byPlace[v], byLabel[v] = s, true, place(&r, c.at), strings.ToLower(c.label)
				}
				if s > bestScore {
					bestScore, bestPlace, bestLabel = s, place(&r, c.at), strings.ToLower(c.label)
					a, b := lineAt(f.text, min(max(c.at, 0), len(f.text)))
					bestA = Answer{Value: c.value, Line: f.text[a:b], Score: s, Kind: r.kind, Fallback: f.fallback, Keys: f.coverage(m)}
				}
			}
		}
	}
	least, wide := minScore, ambiguity
	if !f.hasStrong() {
		// Only everyday words to go by: many lines hold some of them.
		least = minScoreLoose
	}
	if f.fallback {
		least, wide = least+1, wide+0.5
	}
	if bestScore < least || isNull(bestA.Value) {
		// Nothing reads well enough, or what reads best says the
		// setting has no value here (backlog=None): its value, if
		// any, is not written where the keys are.
		return Answer{}
	}
	// A different value that reads almost as well: the text answers
	// the question two ways, and a guess between them is no answer.
	bv := strings.ToLower(bestA.Value)
	bestA.Clear = 99
	for v, sc := range byValue {
		margin := wide
		p := byPlace[v]
		if p >= 0 && bestPlace >= 0 && max(p-bestPlace, bestPlace-p) <= samePlace {
			if f.q.want == personKind && strings.Contains(v, "@") != strings.Contains(bv, "@") {
				continue // a person's name and e-mail address, side by side
			}
			if sameFact(byLabel[v], bestLabel) {
				continue // COREDUMP_SIGNAL and COREDUMP_SIGNAL_NAME: one fact, two ways
			}
			// Two fields of one record (a name and its e-mail
			// address, a signal's number and name) are most often
			// one fact told twice.
			margin /= 3
		}
		if v == bv || strings.Contains(v, bv) || strings.Contains(bv, v) || restated(bestA.Line, bv, v) {
			continue
		}
		if bestScore-sc < margin {
			return Answer{}
		}
		bestA.Clear = min(bestA.Clear, (bestScore-sc)/margin)
	}
	return bestA
}

// coverage is the share of the question's key words record match m
// holds.
func (f *finder) coverage(m *matches) float64 {
	n, held := len(f.terms)+len(f.missing), 0
	for i := range f.terms {
		if m.strong[i] || m.loose[i] {
			held++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(held) / float64(n)
}

// onlyBonus is what a value gains for being the only one of the kind
// asked for in a record that holds the question's strong keys.
const onlyBonus = 1.5

// onlyOfKind returns the one value among cs of the kind the question
// asks for (an IP address, an e-mail address, a URL, an ID), when the
// question has strong keys and there is exactly one: the record the keys
// pick answers with it, however the question's other words are put ("log
// in" for "Accepted publickey").
func (f *finder) onlyOfKind(cs []cand) string {
	switch f.q.want {
	case ipKind, emailKind, urlKind, idKind:
	default:
		return "" // names, numbers and dates are everywhere
	}
	if !f.hasStrong() {
		return ""
	}
	only := ""
	for _, c := range cs {
		v := strings.ToLower(c.value)
		if v == "" || v == only || !f.couldBe(c.value) || !f.fits(c.value) {
			continue
		}
		if only != "" && !strings.Contains(v, only) && !strings.Contains(only, v) {
			return ""
		}
		if only == "" || len(v) < len(only) {
			only = v
		}
	}
	return only
}

// namedVersion reports whether version c comes right after a name the
// question gives, as a program states its version: "PostgreSQL 15.18",
// "Apache/2.4.62", "Sizzle CSS Selector Engine v2.3.6".
func (f *finder) namedVersion(c cand) bool {
	if c.at <= 0 || c.at > len(f.text) || !strings.HasPrefix(f.text[c.at:], c.value) {
		return false
	}
	a, _ := lineAt(f.text, c.at)
	before := f.text[max(a, c.at-60):c.at]
	folded := foldASCII(before)
	for _, t := range f.terms {
		if !t.strong && !t.topic {
			continue
		}
		for _, at := range occurrences(before, folded, t, 10) {
			// The key's word ends where its letters do: a loose key
			// is found by its stem ("node" of "Nodes"), not as
			// written.
			end := min(len(before), at+len(t.fold))
			if !t.strong {
				end = at + strings.IndexFunc(before[at:]+" ", func(r rune) bool { return !isWordRune(r) })
			}
			if nameToVersionRE.MatchString(before[end:]) {
				return true
			}
		}
	}
	return false
}

// versionKeyed reports whether a field's key, the last of its dotted
// label, is a thing the question names: "dependencies.semver": "^7.8.5"
// for "which version of semver", a dependency map's name and version.
func (f *finder) versionKeyed(label string) bool {
	key := lastKey(label)
	for _, t := range f.terms {
		if strings.EqualFold(key, t.text) && stem(strings.ToLower(key)) != "version" {
			return true
		}
	}
	return false
}

// nameToVersionRE is what may part a name from its version: a space or
// slash, "version", or a few capitalized words.
var nameToVersionRE = regexp.MustCompile(`^(?:/|[ \t]+(?:(?:version|\p{Lu}[\pL\pN]*)[ \t]+){0,3})$`)

// durationFit scores how well a field and its value read as a time span
// ("how long"): +1 for a label or unit of time, -1 for one of size.
func durationFit(label, v string) float64 {
	score := 0.0
	for _, p := range append(parts(label), parts(v)...) {
		switch {
		case timeWords[p]:
			score = max(score, 1)
		case sizeWords[p]:
			return -1
		}
	}
	return score
}

var timeWords = setOf(`s sec secs second seconds ms msec millisecond milliseconds us min mins minute minutes h hr hrs hour hours
d day days week weeks time ttl timeout delay age interval duration expire expires expiry lifetime period wait`)

var sizeWords = setOf(`b kb kib mb mib gb gib tb bytes byte size length count max_size`)

// restated reports whether line gives values a and b as one, the second
// in brackets after the first: "10000 (10 seconds)".
func restated(line, a, b string) bool {
	l := strings.ToLower(line)
	return strings.Contains(l, a+" ("+b+")") || strings.Contains(l, b+" ("+a+")")
}

// place is where a value of a record of labelled fields was read, for
// the ambiguity check; -1 for a line's or a sentence's values, which are
// not fields of one record.
func place(r *record, at int) int {
	if r.kind == "line" || r.kind == "define" || r.kind == "prose" || r.kind == "term" {
		return -1
	}
	return at
}

// samePlace: two fields read this near each other are of one record.
const samePlace = 400

// ambiguity is how much better the answer must score than any other
// value, unless one holds the other.
const ambiguity = 1.5

// maxReadLines bounds the anchor lines whose records are read: the ones
// with the most of the question's keys around them.
const maxReadLines = 600

// maxReadBytes bounds the bytes of those lines: long lines (JSON
// objects of kilobytes each) cost more to read.
const maxReadBytes = 1 << 19

// promiseReach is how far around an anchor's line its keys are counted.
const promiseReach = 400

// promising orders the anchors by how many of the question's keys occur
// near their line (then by position), one per line, and keeps the first
// maxReadLines: a key found thousands of times (PID in a journal) would
// otherwise have each of its lines read.
func (f *finder) promising(locs []int) []int {
	type line struct{ at, a, b, keys int }
	byLine := map[int]*line{}
	var lines []*line
	size := 0
	for _, at := range locs {
		a, b := lineAt(f.text, at)
		if byLine[a] == nil {
			l := &line{at: at, a: a, b: b}
			byLine[a] = l
			lines = append(lines, l)
			size += b - a
		}
	}
	if len(lines) <= maxReadLines && size <= maxReadBytes {
		return locs
	}
	for _, t := range f.terms {
		occ := occurrences(f.text, f.folded, t, maxAnchors)
		for _, l := range lines {
			i := sort.SearchInts(occ, l.a-promiseReach)
			if i < len(occ) && occ[i] <= l.a+promiseReach {
				l.keys++
			}
		}
	}
	sort.SliceStable(lines, func(i, j int) bool {
		if lines[i].keys != lines[j].keys {
			return lines[i].keys > lines[j].keys
		}
		return lines[i].a < lines[j].a
	})
	out := make([]int, 0, maxReadLines)
	size = 0
	for _, l := range lines {
		if len(out) == maxReadLines || len(out) > 0 && size+l.b-l.a > maxReadBytes {
			break
		}
		size += l.b - l.a
		out = append(out, l.at)
	}
	return out
}

// rareCount: a loose word found this few times is nearly a key.
const rareCount = 20

// maxExtraAnchors bounds the matches of the other keys that are read.
const maxExtraAnchors = 300

// minScore is the least score of an answer Find returns, minScoreLoose
// when the question has no strong key.
const (
	minScore      = 3.0
	minScoreLoose = 3.5
)

func (f *finder) hasStrong() bool {
	for _, t := range f.terms {
		if t.strong {
			return true
		}
	}
	return false
}

// matches records which keys a record holds.
type matches struct {
	strong []bool // by f.terms index
	loose  []bool
	near   []bool          // loose keys in the text around the record
	words  map[string]bool // the record's word stems
	// phrase is the most of the question's words, in its order, that
	// the record holds as one phrase (GREEK SMALL LETTER LAMDA), less one.
	phrase int
	// missingIn is holds', by key.
	missingIn map[string]bool
}

// nearby is how far around a record its context reaches: a question's
// words that are there ("this pickle module") support the record without
// being on its line.
const nearby = 1500

// match checks a record against the keys: nil when it lacks a strong
// key.
func (f *finder) match(r *record) *matches {
	folded := foldASCII(r.text)
	m := &matches{strong: make([]bool, len(f.terms)), loose: make([]bool, len(f.terms)), near: make([]bool, len(f.terms)), words: map[string]bool{}}
	lo, hi := max(0, r.start-nearby), min(len(f.text), r.start+len(r.text)+nearby)
	around := f.text[lo:hi]
	aroundFolded := f.folded[lo:hi]
	for rest := r.text; rest != ""; {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		for _, st := range f.stemsOf(line) {
			m.words[st] = true
		}
	}
	// A section is about what its heading names: a strong key must be
	// there, not only somewhere in its body.
	strongIn, strongFolded := r.text, folded
	if r.kind == "section" {
		h, _, _ := strings.Cut(r.text, "\n")
		strongIn, strongFolded = h, folded[:len(h)]
	}
	for i, t := range f.terms {
		if t.strong {
			if len(occurrences(strongIn, strongFolded, t, 1)) == 0 {
				return nil
			}
			m.strong[i] = true
			continue
		}
		m.loose[i] = f.looseIn(t, m.words)
		m.near[i] = m.loose[i] || len(occurrences(around, aroundFolded, t, 1)) > 0
	}
	m.phrase = f.phrase(folded)
	return m
}

// onLine reports whether loose key i is on the line that starts at a,
// each line's worked out once.
func (f *finder) onLine(a, i int) bool {
	k := [2]int{a, i}
	if on, ok := f.lineHas[k]; ok {
		return on
	}
	_, b := lineAt(f.text, a)
	words := map[string]bool{}
	for _, st := range f.stemsOf(f.text[a:b]) {
		words[st] = true
	}
	on := f.looseIn(f.terms[i], words)
	if f.lineHas == nil {
		f.lineHas = map[[2]int]bool{}
	}
	f.lineHas[k] = on
	return on
}

// holds reports whether the record holds missing key t as part of a
// word, worked out once per record.
func (m *matches) holds(f *finder, t term) bool {
	if on, ok := m.missingIn[t.text]; ok {
		return on
	}
	if m.missingIn == nil {
		m.missingIn = map[string]bool{}
	}
	on := f.looseIn(t, m.words)
	m.missingIn[t.text] = on
	return on
}

// phrase counts the longest run of the question's consecutive words that
// folded holds one after the other (parted by spaces or punctuation),
// less one: 0 when no two are.
func (f *finder) phrase(folded string) int {
	best, run := 0, 0
	for i := 0; i+1 < len(f.q.terms); i++ {
		if adjacent(folded, f.q.terms[i].fold, f.q.terms[i+1].fold) {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// adjacent reports whether folded holds word a followed by word b, parted
// by one to three spaces or punctuation marks.
func adjacent(folded, a, b string) bool {
	for i := 0; ; {
		j := strings.Index(folded[i:], a)
		if j < 0 {
			return false
		}
		at := i + j + len(a)
		k := at
		for k < len(folded) && k-at < 3 && (folded[k] == ' ' || folded[k] == '_' || folded[k] == '-' || folded[k] == '.' || folded[k] == '\t' || folded[k] == ',') {
			k++
		}
		if k > at && strings.HasPrefix(folded[k:], b) && boundaryBefore(folded, i+j) && boundaryAfter(folded, k+len(b)) {
			return true
		}
		i = at
	}
}

// fits is fits(f.q.want, v), each value's worked out once: a value is
// offered by every reading of its line.
func (f *finder) fits(v string) bool {
	if ok, seen := f.fitted[v]; seen {
		return ok
	}
	if f.fitted == nil {
		f.fitted = map[string]bool{}
	}
	ok := fits(f.q.want, v)
	f.fitted[v] = ok
	return ok
}

// stemsOf returns the stems of a line's words, each line's worked out
// once: the records around many anchors share their lines.
func (f *finder) stemsOf(line string) []string {
	if st, ok := f.lineStems[line]; ok {
		return st
	}
	var st []string
	for _, w := range termRE.FindAllString(line, -1) {
		for _, p := range parts(w) {
			st = append(st, stem(p))
		}
	}
	if f.lineStems == nil {
		f.lineStems = map[string][]string{}
	}
	f.lineStems[line] = st
	return st
}

// looseIn reports whether every stem of loose key t is among words, or
// related to one of them.
func (f *finder) looseIn(t term, words map[string]bool) bool {
	for _, s := range t.stems {
		if words[s] {
			continue
		}
		ok := false
		for w := range words {
			if related(s, w) || compoundOf(w, s) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return len(t.stems) > 0
}

// labelHas reports whether a field's label names loose key t.
func labelHas(label string, t term) bool {
	ls := parts(label)
	for _, s := range t.stems {
		for _, l := range ls {
			if related(s, stem(l)) || compound(l, t.fold) {
				return true
			}
		}
	}
	return false
}

// compound reports whether label part l is word w run together with a
// word that names a setting's kind: "logfile" holds "log", "datadir"
// holds "data", "maxconn" holds "conn".
func compound(l, w string) bool {
	if len(w) < 3 || len(l) <= len(w) {
		return false
	}
	switch {
	case strings.HasPrefix(l, w):
		return compoundParts[l[len(w):]]
	case strings.HasSuffix(l, w):
		return compoundParts[l[:len(l)-len(w)]]
	}
	return false
}

// compoundOf reports whether record word w is stem s, or a word a
// document writes for it, run together with a setting's kind:
// "mintimeout" for "minimum".
func compoundOf(w, s string) bool {
	if compound(w, s) {
		return true
	}
	for _, x := range synonyms[s] {
		if compound(w, x) {
			return true
		}
	}
	return false
}

var compoundParts = setOf(`file files dir path name size max min num level mode time timeout port host user pass id count limit
conn conns addr type log db`)

// candidates lists the values a record offers: its labelled fields, and
// in a line or sentence the values of the kind asked for.
func (f *finder) candidates(r *record, prose bool) []cand {
	var out []cand
	for _, fl := range r.fields {
		if shellRefRE.MatchString(fl.value) {
			continue // another variable's value, or the script's own name ($0): not here
		}
		if d := shellDefault(fl.value); d != "" {
			fl.value = d // ${PERF_DATA_LIMIT_MB:-512}: 512 unless the environment says otherwise
		}
		out = append(out, cand{value: fl.value, label: fl.label, rec: r, at: fl.at})
		// A value of the kind asked for inside a field's value:
		// "Install: lumen-agent:amd64 (2.8.0-1)" holds a version.
		if f.q.want != anyKind && !f.fits(fl.value) {
			var dates [][]int
			if f.q.want != dateKind {
				dates = append(dateRE.FindAllStringIndex(fl.value, -1), timeRE.FindAllStringIndex(fl.value, -1)...)
			}
		fieldTyped:
			for _, loc := range typed(f.q.want, fl.value) {
				if tail(fl.value, loc[0]) {
					continue // "-12" of "g++-12"
				}
				for _, d := range dates {
					if loc[0] < d[1] && loc[1] > d[0] {
						continue fieldTyped // "16" of "Wed, 16 Dec 2026": a piece of a date
					}
				}
				if leads(fl.value, loc[1]) {
					continue // "46" of "id 46B7A6D6F4C"
				}
				if v := clean(fl.value[loc[0]:loc[1]]); v != "" {
					out = append(out, cand{value: v, label: fl.label, rec: r, at: fl.at})
				}
			}
		}
		// A value that is a sentence: "the release date is 18 May".
		if m := isRE.FindStringSubmatch(fl.value); m != nil {
			if v := phrase(m[1]); v != "" && v != fl.value && !mereWords(v) {
				out = append(out, cand{value: v, label: fl.value[:len(fl.value)-len(m[1])], rec: r, at: fl.at})
			}
		}
	}
	if f.q.want == versionKind && f.q.event && r.kind != "section" && r.kind != "changelog" && typed(versionKind, r.text) == nil {
		// "Which release added X?": the release whose notes hold
		// the record, named by their heading.
		if v, at, ok := releaseHeading(f.text, r.start); ok {
			out = append(out, cand{value: v, label: "release", rec: r, at: at})
		}
	}
	if f.q.want == personKind {
		// "reported by Luci Stanescu", "Written by Elrond": whoever
		// did what the verb says, in a record of any kind (a
		// changelog's change reads as prose inside its entry).
		for _, m := range byAgentRE.FindAllStringSubmatchIndex(r.text, -1) {
			if f.strongIn(itemAt(r.text, m[0])) {
				out = append(out, cand{value: r.text[m[4]:m[5]], label: r.text[m[2]:m[3]], rec: r, at: r.start + m[4]})
			}
		}
	}
	if prose && (r.kind == "line" || r.kind == "prose" || r.kind == "term") {
		// A man page's reference, groff_font(5), markup (</entry>) and a
		// log's source location ((gw_backend.c.238)) hold no value.
		masked := append(manRefRE.FindAllStringIndex(r.text, -1), markupRE.FindAllStringIndex(r.text, -1)...)
		masked = append(masked, sourceRE.FindAllStringIndex(r.text, -1)...)
		if f.q.want != dateKind {
			masked = append(masked, dateRE.FindAllStringIndex(r.text, -1)...)
			masked = append(masked, timeRE.FindAllStringIndex(r.text, -1)...)
		}
		var days [][]int // "Thursday 20 March": a time after one is that day's
		if f.q.want == dateKind {
			days = append(dateRE.FindAllStringIndex(r.text, -1), dayMonthRE.FindAllStringIndex(r.text, -1)...)
		}
	typedLoop:
		for _, loc := range typed(f.q.want, r.text) {
			if clockRE.MatchString(r.text[loc[0]:loc[1]]) && !dateRE.MatchString(r.text[loc[0]:loc[1]]) {
				for _, d := range days {
					if d[1] <= loc[0] && loc[0]-d[1] <= dayReach {
						continue typedLoop // "on Thursday 20 March, starting at 02:00 UTC": when is the day
					}
				}
			}
			for _, m := range masked {
				if loc[0] < m[1] && loc[1] > m[0] && !(loc[0] <= m[0] && loc[1] >= m[1]) {
					continue typedLoop // a piece of a date or time
				}
			}
			if loc[0] > 0 && r.text[loc[0]] == '-' && r.text[loc[0]-1] == ':' {
				loc[0]++ // ${NAME:-512}: a default, not a negative number
			}
			if loc[0] > 0 {
				if tail(r.text, loc[0]) {
					continue // the tail of a longer token: "/hinting_style" of "fontconfig/hinting_style"
				}
				if r.text[loc[0]-1] == '[' && loc[1] < len(r.text) && r.text[loc[1]] == ']' && isDigits(r.text[loc[0]:loc[1]]) &&
					!f.asksProcess() {
					continue // a log entry's process id: "[812]"
				}
			}
			if f.q.want == numberKind || f.q.want == quantityKind || f.q.want == anyKind {
				loc = withUnit(r.text, loc)
			} else if f.q.want == versionKind && withUnit(r.text, loc) != loc {
				continue // a quantity, not a version: "1376.354 ms"
			}
			if leads(r.text, loc[1]) {
				continue // "0" of "0x1000"
			}
			v := clean(r.text[loc[0]:loc[1]])
			if m := countRE.FindStringSubmatch(v); m != nil && f.asksIn(m[2]) {
				// "How many items": the count alone, the question
				// names its unit.
				v = m[1]
			}
			if v != "" {
				out = append(out, cand{value: v, rec: r, at: r.start + loc[0]})
			}
		}
		// "X is V", "X: V", "X = V" after a key word.
		for _, m := range isRE.FindAllStringSubmatchIndex(r.text, -1) {
			v := phrase(r.text[m[2]:m[3]])
			if passiveRE.MatchString(v) {
				continue // "is saved", "is used": a verb, not a value
			}
			if mereWords(v) {
				continue // "are necessarily infringed by this": words, not a value
			}
			if v != "" && utf8.RuneCountInString(v) <= 60 {
				out = append(out, cand{value: v, label: "\x00is", rec: r, at: r.start + m[2]})
			}
		}
	}
	return out
}

// itemAt returns the item of a list, or the paragraph, that holds s[i]:
// the lines from the one that starts it (a bullet, or after a blank line)
// to the next one's start.
func itemAt(s string, i int) string {
	a, b := lineAt(s, i)
	for a > 0 && !bulletRE.MatchString(strings.TrimLeft(s[a:b], " \t")) {
		pa, pb, ok := prevLine(s, a)
		if !ok || blank(s[pa:pb]) {
			break
		}
		a, b = pa, pb
	}
	_, e := lineAt(s, i)
	for {
		na, nb, ok := nextLine(s, e)
		if !ok || blank(s[na:nb]) || bulletRE.MatchString(strings.TrimLeft(s[na:nb], " \t")) {
			break
		}
		e = nb
	}
	return s[a:e]
}

// strongIn reports whether s holds every strong key.
func (f *finder) strongIn(s string) bool {
	folded := foldASCII(s)
	for _, t := range f.terms {
		if t.strong && len(occurrences(s, folded, t, 1)) == 0 {
			return false
		}
	}
	return true
}

// byAgentRE is a passive verb and who did it: "reported by Luci
// Stanescu", "written by Elrond <elrond@example.org>".
var byAgentRE = regexp.MustCompile(`\b(\pL+ed by)[ \t]+(\p{Lu}[\pL\pM'’-]+(?:[ \t]+\p{Lu}[\pL\pM'’.-]*){0,3}(?:[ \t]+<[^>\s]+@[^>\s]+>)?)`)

// dayReach is how far after a day a time of day is that day's.
const dayReach = 40

// mereWords reports whether phrase v, read after "is", is words rather
// than a value: more than two, lower case, no digit, quote, path or
// address ("compatible with Go's").
func mereWords(v string) bool {
	return !hasDigit(v) && !capitalized(v) && !strings.ContainsAny(v, "@/\"'") && len(strings.Fields(v)) > 2
}

// shellRefRE is a shell variable's reference, or a special parameter
// ($0, $@): a value set elsewhere.
var shellRefRE = regexp.MustCompile(`^"?\$(?:[0-9@*#?$!-]|\{?[A-Za-z_]\w*\}?)"?$`)

// shellDefaultRE is a shell variable's reference with a default:
// ${VAR:-512}, ${VAR:=512}, ${VAR-512}.
var shellDefaultRE = regexp.MustCompile(`^"?\$\{[A-Za-z_]\w*:?[-=](.+)\}"?$`)

// shellDefault returns the default of a shell variable's reference
// (${NAME:-512}: 512; ${NAME:-${ROOT}/cache}: ${ROOT}/cache), or "".
func shellDefault(v string) string {
	m := shellDefaultRE.FindStringSubmatch(v)
	if m == nil || strings.Count(m[1], "{") != strings.Count(m[1], "}") {
		return "" // ${A:-x}${B}: two references, not one default
	}
	return m[1]
}

// langTag returns the language a field's label tags it with: "ja" of
// GenericName[ja] or label_ja, "" if none.
func langTag(label string) string {
	ps := parts(label)
	if len(ps) < 2 {
		return ""
	}
	last := ps[len(ps)-1]
	if len(ps) >= 3 && len(last) == 2 && len(ps[len(ps)-2]) == 2 {
		last = ps[len(ps)-2] // de_DE
	}
	if knownLanguageCode[last] {
		return last
	}
	return ""
}

// nullValues say that a setting has no value; so does Python's None, but
// not "none" in a config file (compression = none), so it is checked as
// written.
var nullValues = setOf(`undef undefined null nil n/a unset`)

// isNull reports whether value v says that there is none. A null is still
// a reading: one that reads best, or about as well as the best, leaves the
// question without an answer.
func isNull(v string) bool { return nullValues[strings.ToLower(v)] || v == "None" }

// tail reports whether a value found at offset i of s is the tail of a
// longer token: "/hinting_style" of "fontconfig/hinting_style", "-12" of
// "g++-12", "2" of the shell's ">&2".
func tail(s string, i int) bool {
	if i <= 0 {
		return false
	}
	p, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(p) || strings.ContainsRune("/_+&\\^%", p)
}

// leads reports whether a value found ending at offset j of s is the head
// of a longer token: "0" of "0x1000", "46" of "46B7A6D6F4C".
func leads(s string, j int) bool {
	n, _ := utf8.DecodeRuneInString(s[j:])
	return j < len(s) && isWordRune(n)
}

var sourceRE = regexp.MustCompile(`\(?\b[\w/.-]+\.(?:c|cc|cpp|cxx|h|go|py|rs|java|js|ts)[.:]\d+\)?`)

var markupRE = regexp.MustCompile(`</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>`)

var manRefRE = regexp.MustCompile(`[\pL\pN_.-]+\s?\(\d[a-z]*\)`)

var timeRE = regexp.MustCompile(`\b\d{1,2}:\d{2}(?::\d{2})?\b`)

var passiveRE = regexp.MustCompile(`^(?:[a-z]+(?:ed|en|ing)|not|also|only|always|never|usually|often|then|now|used|done|set)\b`)

var isRE = regexp.MustCompile(`(?i)\b(?:is|are|was|were|be|equals|reads|defaults\s+to|default\s+to|becomes|set\s+to)\s*:?\s+(?:set\s+to\s+|now\s+|currently\s+)?([^\n]+)`)

var byRE = regexp.MustCompile(`(?i)\b(?:by|from|to|at|in|on|of|every|is|:)\s*$`)

// score rates a value: the keys its record holds, whether its label names
// what is asked, whether it is the kind of value asked for.
func (f *finder) score(c cand, m *matches, anchor int) float64 {
	v := c.value
	if v == "" || utf8.RuneCountInString(v) > 200 {
		return -1e9
	}
	if strings.HasPrefix(v, "//") {
		return -1e9 // a URL cut at its scheme's colon
	}
	if !hasWordRune(v) || !f.couldBe(v) || strings.Count(v, "[") > strings.Count(v, "]") || strings.Count(v, "(") > strings.Count(v, ")") {
		return -1e9
	}
	lv := strings.ToLower(v)
	s := 0.0
	labelHit, keyLabel := false, false
	isProse := c.label == "" || c.label == "\x00is"
	strongKey := f.hasStrong()
	// The value's own line, in a record of several lines.
	valueLine := -1
	if !isProse && strings.Contains(c.rec.text, "\n") && c.at >= 0 && c.at < len(f.text) {
		valueLine, _ = lineAt(f.text, c.at)
	}
	for i, t := range f.terms {
		if t.strong {
			s += 3
			if lt := strings.ToLower(t.text); strings.Contains(lv, lt) {
				if 2*len(lt) >= len(lv) && (isProse || lv == lt || !f.namesField(lastKey(c.label))) && !f.namesOwn(c) {
					// The value is the key itself (but pp.Person is
					// Person's expr, a field the question names, and
					// '__pycache__' _PYCACHE's, a name's value).
					return -1e9
				}
				s -= 1 // a value that names the key: "OpenSSL 3.0.19"
			}
			if lp, tp := " "+strings.Join(parts(c.label), " ")+" ", " "+strings.Join(parts(t.text), " ")+" "; !isProse && !labelHit && strings.Contains(lp, tp) {
				// The key names the field: price_eur, gc.auto, <entry
				// key="k">; exactly, better than as a part of a longer
				// name (HandleLidSwitch, not HandleLidSwitchDocked).
				s += 2
				if lp == tp {
					s += 3
				}
				labelHit, keyLabel = true, true
			}
			continue
		}
		switch {
		case t.topic:
			switch {
			case !isProse && labelHas(c.label, t):
				s += 3 // a topic can still name the field
				labelHit = true
			case m.loose[i]:
				s++
				if c.rec.kind == "table" && cellHolds(c.rec, t) {
					// A name the text is full of still picks the
					// row that holds it as a cell: the
					// riscv64gc-unknown-linux-gnu row of a table
					// of targets.
					s += 1.5
				}
			}
			continue
		case !isProse && labelHas(c.label, t):
			s += 3
			switch {
			case strings.EqualFold(strings.Join(parts(c.label), " "), strings.Join(parts(t.text), " ")):
				s++ // the field's very name: birthplace, not born
			case strings.EqualFold(lastKey(c.label), t.text):
				s += 0.5 // the field's own key, not one above it: info.version
			case slices.ContainsFunc(strings.Split(c.label, "."), func(k string) bool { return strings.EqualFold(k, t.text) }):
				s += 0.25 // a key above it as written: parameters, not parameter
			}
			labelHit = true
		case m.loose[i]:
			s++
			if f.counts[i] <= rareCount {
				s += 0.5
			}
			if valueLine >= 0 && f.onLine(valueLine, i) {
				s += 0.5 // on the field's own line: "default_days = 365  # how long to certify for"
			}
		case strongKey && genericAttr(t):
			// "the code of X": said of X's value, whatever it is called
		case f.q.want != anyKind && kindWords[strings.ToLower(t.text)]:
			// "the IP address": the kind of value, which fits checks
		case m.near[i]:
			s -= 0.25
		case f.counts[i] <= rareCount:
			s -= 3 // a rare word, a key by another name (postgresql)
		default:
			s -= 1.5
		}
		if lv == strings.ToLower(t.text) {
			s -= 3
		}
	}
	s += 0.75 * float64(m.phrase)
	// A record whose field is the question's key, whole (Package: tar,
	// name: Norway), is about that key; one that only mentions it
	// (Depends: tar) is not.
	if !isProse {
		s += f.subject(c) + f.section(c)
		if f.pathIs(c.label) || c.rec.name != "" && (f.pathIs(c.rec.name+"."+c.label) || f.isStrong(c.rec.name) && f.isStrong(c.label)) {
			// The very path asked for: properties.Tags.maxProperties,
			// connector's request_id_field ("the api_field of
			// network_config" under network_config:).
			s += 2
		}
		if len(f.terms) == 1 && strings.EqualFold(c.label, f.terms[0].text) && c.rec.name == "" && (c.rec.kind == "json" || c.rec.kind == "yaml") {
			s += 1.5 // "What is the title?": the document's own, not a nested one's
		}
	}
	// A label that names another entity ("the code for calm-walrus is:")
	// is about that one; one that holds the question's key names the
	// field asked for (EPSG_PCS_CODE for "the EPSG code").
	if !isProse && !keyLabel {
		for _, w := range termRE.FindAllString(c.label, -1) {
			if strings.ContainsAny(w, "-_0123456789") && !f.isTerm(w) && !f.allParts(w) {
				s -= 3
				break
			}
		}
	}
	// A value that holds the question's own words is a sentence about the
	// answer, or a key: "the release date is ...", "diskQuota".
	vwords := map[string]bool{}
	for _, w := range termRE.FindAllString(v, -1) {
		for _, p := range parts(w) {
			vwords[stem(p)] = true
		}
	}
	if f.onlyKeys(v) && !f.namesOwn(c) {
		return -1e9 // the question's own words: "Chidi Okeke" for "where does Chidi Okeke live"
	}
	if n := len(strings.Fields(v)); n > 6 && (isProse || !f.namesField(lastKey(c.label))) {
		s -= 2 // a description, not a value (unless a description is asked for)
	}
	if innerPairRE.MatchString(v) {
		s -= 2 // a setting, not its value: "DSHELL=/bin/bash"
	}
	if f.lang != "" && !isProse {
		if tag := langTag(c.label); tag != "" && tag != f.lang {
			s -= 3 // GenericName[ja] when Russian is asked for
		}
	}
	named := f.namesWhich(v)
	if named {
		// "Which worker ...?": worker-201 is one.
		s += 3
	}
	// A one-word value of a field the question names holds a key word
	// as a name does: host: cache.internal for "the host of the cache".
	oneWord := !strings.ContainsAny(v, " \t")
	if !(strings.ContainsAny(v, "@/") && oneWord) && !named && !(labelHit && !isProse && oneWord) && !(f.q.want == placeKind && oneWord && f.fits(v)) {
		for _, t := range append(f.terms, f.missing...) {
			// (Not a word that names the field or a key above it:
			// "version not set" is a version field's value.)
			if !t.strong && f.looseIn(t, vwords) && (isProse || !labelHas(c.label, t)) {
				s -= 2
			}
		}
	}
	// Key words found nowhere in the text: when none of the question's
	// words names the field, the field asked for may be one the text
	// does not have. Words that only say what kind of value is asked
	// ("e-mail address", "date") are checked by the value's kind.
	missed := 0
	for _, t := range f.missing {
		switch {
		case !isProse && labelHas(c.label, t):
			s += 3
			labelHit = true
		case f.q.want != anyKind && typeWord(t):
		case f.q.want == dateKind && !isProse && dateLabel(c.label):
			// "When was it sent?": the record's Date says when,
			// whatever happened then.
		case strongKey && genericAttr(t):
			// "the secret of X", "the code for X": a word that only
			// says "a value", where X itself matched.
		case m.holds(f, t):
			s++ // in the record as part of a word: "mintimeout" for "minimum"
		default:
			missed++
		}
	}
	switch {
	case labelHit:
		s -= 0.5 * float64(missed)
	case isProse && strongKey:
		s -= 2 * float64(missed)
	case isProse:
		s -= 3 * float64(missed)
	default:
		s -= 2.5 * float64(missed)
	}
	if recipientLabels[strings.ToLower(c.label)] && f.asksAny(senderStems) {
		s -= otherEntity // "who sent it": From, not To
	}
	if c.rec.kind == "changelog" && (strings.HasPrefix(c.label, "maintainer") || strings.HasPrefix(c.label, "author")) && f.asksAny(creditStems) {
		return -1e9 // who made or uploaded the change, not who reported it
	}
	if f.q.want != anyKind {
		if f.fits(v) || f.q.want == personKind && !isProse && personLabel(c.label) && capWordRE.MatchString(v) {
			// A person's name, or one name in a column of people
			// ("Person: Hiroshi").
			s += 2
		} else {
			s -= 4
		}
		if f.q.want == versionKind && (f.namedVersion(c) || !isProse && f.versionKeyed(c.label)) {
			s += 4
		}
		if f.q.duration {
			s += durationFit(c.label, v) // cache_ttl_sec, not cache_size_MB
		}
	} else if !isProse && !labelHit && (hasDigit(v) || strings.ContainsAny(v, "@/")) {
		s += 0.5 // a value, not a word
	}
	if !isProse && !f.namesField(lastKey(c.label)) {
		if slices.ContainsFunc(c.rec.blank, f.namesField) {
			// The field the question names is empty in this row: the
			// row does not say (upstream_contact, not upstream_name).
			return -1e9
		}
		if f.namesSibling(c) {
			s -= 2 // the question names another field of the record: expr, not argNum
		}
	}
	if !isProse && !labelHit {
		// No key word names the field: a label that answers "which X"
		// ("name" for "which language"), else a weak reading.
		lab := parts(c.label)
		switch {
		case f.q.which != "" && len(lab) > 0 && (related(f.q.which, stem(lab[len(lab)-1])) || lab[len(lab)-1] == "name" || lab[len(lab)-1] == "title"):
			s += 1.5
		case len(lab) > 0 && (lab[len(lab)-1] == "name" || lab[len(lab)-1] == "title"):
			s += 0.5
		}
		if f.hasLoose() || f.fieldKey() {
			s -= 2
		}
	}
	if isProse {
		s -= 0.5
		if f.q.which != "" && !genericStems[f.q.which] && !f.whichIn(m.words) {
			s -= 3 // "What port ...?" read from a sentence that says no port
		}
		// Near a key word, and after "by", "is", ":" ...
		rel := c.at - c.rec.start
		if rel >= 0 && rel <= len(c.rec.text) {
			before := c.rec.text[max(0, rel-40):rel]
			if byRE.MatchString(before) {
				s += 1
			}
			s += f.nearKey(c.rec.text, rel, rel+len(v))
		}
		if c.label == "\x00is" && f.q.want == anyKind {
			s += 0.5
		}
	}
	// Prefer values near the match and short ones.
	d := c.at - anchor
	if d < 0 {
		d = -d
	}
	s -= float64(d) / 1e5
	s -= float64(utf8.RuneCountInString(v)) / 500
	return s
}

// subject scores how much c's record is about the question's key: a
// field whose whole value is a key, the record's first field or one
// that names records (Package: tar, name: Norway), is its subject.
//
// A record whose name field names something else, one word that holds
// none of the strong keys (Package: yq beside a Description that names
// jq, "name": "make-fetch-happen" beside a dependency on
// http-cache-semantics), is about that other thing: it costs otherEntity,
// unless a name field is the key.
func (f *finder) subject(c cand) float64 {
	best := 0.0
	other := false
	for i, fl := range c.rec.fields {
		if fl.value == c.value && fl.label == c.label {
			continue
		}
		lab := strings.ToLower(fl.label)
		named := lab == "package" || lab == "name" || lab == "id" || lab == "key" || lab == "title" || lab == "code" || lab == "source"
		v := strings.TrimSpace(fl.value)
		if named && oneObject[c.rec.kind] && strings.IndexFunc(v, unicode.IsLetter) >= 0 && !strings.ContainsAny(v, " \t") && f.namesOther(v) {
			other = true
		}
		for _, t := range f.terms {
			if !strings.EqualFold(v, t.text) {
				continue
			}
			switch {
			case i == 0 || named:
				best = max(best, 2)
			default:
				best = max(best, 0.5)
			}
		}
	}
	if best < 2 && other && !f.labelCovers(c.label) {
		// (Not when the field's name holds every key word: the question
		// names no thing, only the field, "engines.node" of a
		// package.json.)
		return best - otherEntity // Depends: ca-certificates, in another package's stanza
	}
	return best
}

// labelCovers reports whether label holds every one of the question's
// words found in the text.
func (f *finder) labelCovers(label string) bool {
	for _, t := range f.terms {
		if !labelHas(label, t) {
			return false
		}
	}
	return len(f.terms) > 0
}

// section scores an INI field by the section it is in, when its record
// joins several ([Unit], [Service], [Install]): a question that names the
// field's own section ("the type of NoEcho" over [NoEcho] type = boolean)
// picks it out of its neighbours; one that names another section of the
// record is about that section's fields.
func (f *finder) section(c cand) float64 {
	rel := c.at - c.rec.start
	if c.rec.kind != "ini" || rel < 0 || rel > len(c.rec.text) {
		return 0
	}
	own, partly, other := false, false, false
	heads := sectionLineRE.FindAllStringSubmatchIndex(c.rec.text, -1)
	if len(heads) < 2 {
		return 0
	}
	for i, m := range heads {
		mine := m[0] <= rel && (i+1 == len(heads) || heads[i+1][0] > rel)
		whole, part := f.namesSection(c.rec.text[m[2]:m[3]], c.label)
		switch {
		case mine:
			own, partly = whole, part
		case whole:
			other = true
		}
	}
	switch {
	case own:
		return 2
	case other && !partly:
		// Not when the field's own section shares a word with the
		// question: [ CA_default ] under [ ca ] is the ca command's.
		return -otherEntity
	}
	return 0
}

// sectionLineRE finds the section headers of an INI record.
var sectionLineRE = regexp.MustCompile(`(?m)^[ \t]*\[([^\]\n]{1,80})\][ \t]*$`)

// namesSection reports whether one of the question's words is the section
// name, up to case and the marks between its parts (whole), or one of the
// name's parts (part). A word that names the field, label, does not
// name its section too: "the type of NoEcho" is not about a [Type].
func (f *finder) namesSection(name, label string) (whole, part bool) {
	ps := parts(name)
	n := strings.Join(ps, " ")
	for _, t := range f.terms {
		tp := strings.Join(parts(t.text), " ")
		if strings.EqualFold(tp, strings.Join(parts(label), " ")) {
			continue
		}
		whole = whole || strings.EqualFold(tp, n)
		for _, p := range ps {
			part = part || strings.EqualFold(tp, p)
		}
	}
	return whole, whole || part
}

// namesField reports whether the question's words name the field key by
// its head, its last part: "the description of X" for a description
// field, "the EPSG code" for EPSG_PCS_CODE, not "the upstream contact"
// for upstream_name.
//
// Only the question's loose words name fields: a strong key is the thing
// asked about (requestTimeout), whose record says what it is.
func (f *finder) namesField(key string) bool {
	ps := parts(key)
	if len(ps) == 0 {
		return false
	}
	head := stem(ps[len(ps)-1])
	for _, t := range append(f.terms, f.missing...) {
		if t.strong {
			continue
		}
		for _, st := range t.stems {
			if related(st, head) {
				return true
			}
		}
	}
	return false
}

// namesSibling reports whether one of the question's loose words names
// another field of c's record, by its own key, and the question does not
// give that field's value: "the release of April 27" picks the row by its
// Release Date, and asks for another field.
func (f *finder) namesSibling(c cand) bool {
	if !fieldRecord[c.rec.kind] {
		return false
	}
	for _, fl := range c.rec.fields {
		if fl.label != c.label && fl.label != "" && f.namesField(lastKey(fl.label)) && !f.givesValue(fl.value) {
			return true
		}
	}
	return false
}

// fieldRecord are the kinds of record whose fields a question picks by
// name: columns, keys, settings (not the assignments of a script).
var fieldRecord = setOf(`json table sql fixed stanza ini yaml`)

// givesValue reports whether one of the question's strong keys is in v.
func (f *finder) givesValue(v string) bool {
	lv := strings.ToLower(v)
	for _, t := range f.terms {
		if t.strong && strings.Contains(lv, strings.ToLower(t.text)) {
			return true
		}
	}
	return false
}

// pathIs reports whether label is, or ends with, a key path the question
// gives.
//
// A YAML field's label leaves out its block's own key (Tags maxProperties
// under properties:), so a label of two keys or more that ends the path
// is it too.
func (f *finder) pathIs(label string) bool {
	l := strings.ToLower(strings.ReplaceAll(label, ".", " "))
	for _, p := range f.paths {
		p = strings.ReplaceAll(p, ".", " ")
		if l == p || strings.HasSuffix(l, " "+p) || strings.Contains(l, " ") && strings.HasSuffix(p, " "+l) {
			return true
		}
	}
	return false
}

// lastKey is the last key of a dotted label: version of info.version.
func lastKey(label string) string {
	return label[strings.LastIndex(label, ".")+1:]
}

// recordKey tells the readings best has scored apart: by their text, and
// whether they read it as JSON.
type recordKey struct {
	start, len int
	json       bool
}

// otherEntity is what a record named for something else costs.
const otherEntity = 3.0

// oneObject are the kinds of record that describe one thing, whose name
// field names it (an INI run or a Markdown section may hold many).
var oneObject = setOf(`json stanza table sql fixed block entry`)

// namesOther reports whether v, a record's name, holds none of the keys
// that name things: the strong keys, or when there are none the rare
// words (jq). It is false when there are no such keys.
func (f *finder) namesOther(v string) bool {
	strong := f.hasStrong()
	lv, pv := strings.ToLower(v), " "+strings.Join(parts(v), " ")+" "
	keys := 0
	for i, t := range f.terms {
		if strong && !t.strong || !strong && (f.counts[i] > rareCount || t.topic) {
			continue
		}
		keys++
		if strings.Contains(lv, strings.ToLower(t.text)) || strings.Contains(pv, " "+strings.Join(parts(t.text), " ")+" ") {
			return false
		}
	}
	return keys > 0
}

// countRE splits a number from its unit.
var countRE = regexp.MustCompile(`^([-+]?\d[\d.,]*)\s*(\pL+)$`)

// asksIn reports whether unit (" items") is one of the question's words.
func (f *finder) asksIn(unit string) bool {
	u := strings.TrimSpace(unit)
	if u == "" {
		return false
	}
	for _, t := range append(f.terms, f.missing...) {
		for _, st := range t.stems {
			if st == stem(u) {
				return true
			}
		}
	}
	return false
}

// couldBe reports whether v can be the kind of value asked for at all:
// a number, quantity, date or version has a digit, an e-mail address an
// @, a URL a dot or slash. (How well it fits is scored.)
func (f *finder) couldBe(v string) bool {
	switch f.q.want {
	case numberKind, quantityKind:
		return hasDigit(v) || wordQuantityRE.MatchString(v)
	case ipKind:
		return hasDigit(v) && strings.Contains(v, ".")
	case dateKind, versionKind, idKind:
		return hasDigit(v)
	case emailKind:
		return strings.Contains(v, "@")
	case urlKind:
		return strings.ContainsAny(v, "./")
	case personKind:
		// "#1000001" names no one, nor does "when adding keys to"; a
		// login may be lower case (gibfahn), a name is not.
		return !noLetter(v) && (!strings.ContainsAny(v, " \t") || strings.ContainsFunc(v, unicode.IsUpper) || strings.Contains(v, "@"))
	}
	return true
}

func hasWordRune(v string) bool {
	return strings.IndexFunc(v, isWordRune) >= 0
}

// isStrong reports whether w is one of the question's strong keys.
func (f *finder) isStrong(w string) bool {
	for _, t := range f.terms {
		if t.strong && strings.EqualFold(t.text, w) {
			return true
		}
	}
	return false
}

// namesOwn reports whether c is the value of a name the question asks
// as written, other than the name: _PYCACHE = '__pycache__'.
func (f *finder) namesOwn(c cand) bool {
	for _, t := range f.terms {
		if t.strong && c.label == t.text && c.value != t.text {
			return true
		}
	}
	return false
}

// onlyKeys reports whether every word of v is one of the question's
// words.
func (f *finder) onlyKeys(v string) bool {
	var ws []string
	for _, w := range termRE.FindAllString(v, -1) {
		ws = append(ws, parts(w)...) // fontconfig/hinting_style: three words
	}
	// An identifier's part alone is not the identifier: "core" is
	// XFT_CORE's value, not its name.
	have := map[string]bool{}
	for _, w := range ws {
		have[stem(w)] = true
	}
	var whole []term
	for _, t := range append(f.terms, f.missing...) {
		ps := parts(t.text)
		partial := slices.ContainsFunc(ps, func(p string) bool { return !have[stem(p)] })
		if len(ps) > 1 && !strings.ContainsRune(t.text, ' ') && !noLetter(t.text) && partial {
			continue
		}
		whole = append(whole, t)
	}
	keys, other := 0, ""
	for _, w := range ws {
		ok := false
		for _, t := range whole {
			if strings.EqualFold(t.text, w) || slices.Contains(t.stems, stem(w)) {
				ok = true
				break
			}
		}
		switch {
		case ok:
			keys++
		case other != "":
			return false
		default:
			other = w
		}
	}
	// All the question's words, or a name the question gives with a
	// short word more: "BADGER PUMP & VALVE INC" for "Badger Pump &
	// Valve".
	return keys > 0 && (other == "" || keys >= 2 && utf8.RuneCountInString(other) <= 4 && strings.Contains(v, " ") && !strings.ContainsAny(v, "/@.:"))
}

// namesWhich reports whether v is one thing of the kind a "which X"
// question asks for: a single identifier with X as a part and more
// (worker-201, db_replica3), not X itself.
func (f *finder) namesWhich(v string) bool {
	if f.q.which == "" || strings.ContainsAny(v, " \t") {
		return false
	}
	ps := parts(v)
	if len(ps) < 2 {
		return false
	}
	for _, p := range ps {
		if related(f.q.which, stem(p)) {
			return true
		}
	}
	return false
}

// personLabel reports whether a field's label says it holds a person.
func personLabel(label string) bool {
	for _, p := range parts(label) {
		if personLabels[p] {
			return true
		}
	}
	return false
}

var personLabels = setOf(`person people author authors maintainer maintainers owner owners contact reporter reported uploader
assignee reviewer releaser creator committer who by from`)

// whichIn reports whether a record's words hold the noun of a "which X"
// question.
func (f *finder) whichIn(words map[string]bool) bool {
	if words[f.q.which] {
		return true
	}
	for w := range words {
		if related(f.q.which, w) {
			return true
		}
	}
	return false
}

// isTerm reports whether w is one of the question's keys.
func (f *finder) isTerm(w string) bool {
	for _, t := range f.terms {
		if strings.EqualFold(t.text, w) {
			return true
		}
	}
	return false
}

// allParts reports whether every part of identifier w is one of the
// question's words: "cache-ttl" for "the cache ttl".
func (f *finder) allParts(w string) bool {
	for _, p := range parts(w) {
		ok := false
		for _, t := range append(f.terms, f.missing...) {
			for _, st := range t.stems {
				if related(st, stem(p)) {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// genericAttr reports whether a loose key word only says "a value" of
// some kind (a code, a number, a secret) without naming which.
func genericAttr(t term) bool {
	for _, st := range t.stems {
		if !genericStems[st] {
			return false
		}
	}
	return len(t.stems) > 0
}

var genericStems = setOf(`numb cod valu id identifi key token serial referenc ref secret pin passcod ticket str setting
entri field dat inf detail`)

// typeWord reports whether a loose key word only names a kind of value.
func typeWord(t term) bool {
	for _, st := range t.stems {
		if !typeStems[st] {
			return false
		}
	}
	return len(t.stems) > 0
}

var typeStems = setOf(`mail email address url link homepag websit dat day tim path directori folder fil version vers number numer
amount count ip port nam person`)

// sameFact reports whether two labels name one fact told two ways: a
// field and its name, number or text (signal, signal_name).
func sameFact(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if a == "" || !strings.HasPrefix(b, a) {
		return false
	}
	switch strings.TrimLeft(b[len(a):], "_- .") {
	case "name", "id", "str", "text", "code", "num", "number":
		return true
	}
	return false
}

// asksProcess reports whether the question is about a process, whose id
// a log writes in brackets.
func (f *finder) asksProcess() bool {
	for _, t := range append(f.terms, f.missing...) {
		switch strings.ToLower(t.text) {
		case "pid", "pids", "process", "processes", "thread", "tid":
			return true
		}
	}
	return false
}

// dateLabel reports whether a field's label names a time: Date,
// uploaded_at, Timestamp, Start-Date.
func dateLabel(label string) bool {
	for _, p := range parts(label) {
		switch p {
		case "date", "time", "timestamp", "at", "when", "day", "datetime":
			return true
		}
	}
	return false
}

// fieldKey reports whether a strong key may name a field rather than a
// record: a short word in capitals (USB ID, PID, TTL), which a label may
// hold.
func (f *finder) fieldKey() bool {
	for _, t := range f.terms {
		if t.strong && utf8.RuneCountInString(t.text) <= 4 && strings.ToUpper(t.text) == t.text && !hasDigit(t.text) {
			return true
		}
	}
	return false
}

func (f *finder) hasLoose() bool {
	for _, t := range f.terms {
		if !t.strong {
			return true
		}
	}
	return false
}

// nearKey scores how close offset rel of s is to the nearest key word
// before it.
func (f *finder) nearKey(s string, rel, end int) float64 {
	best := 1 << 30
	folded := foldASCII(s)
	for _, t := range f.terms {
		for _, at := range occurrences(s, folded, t, 50) {
			if at >= rel && at < end {
				continue // the key inside the value itself ("CVE" in CVE-2026-1)
			}
			var d int
			if at < rel {
				d = rel - at
				if strings.Contains(s[at:rel], "\n") {
					d += 40 // on another line
				}
				if e := at + len(t.fold); e < rel && sentenceEndRE.MatchString(s[e:rel]) && strings.ContainsAny(s[e:rel], "0123456789") {
					// In another sentence, after a number that is the
					// key's: "(default 76). Use 0 to disable".
					d += 80
				}
			} else {
				d = (at - end) * 3 // the value before the key: weaker
				if strings.Contains(s[end:at], "\n") {
					d += 40
				}
			}
			best = min(best, d)
		}
	}
	switch {
	case best <= 12:
		return 2 // right after it: "(default 76)", "default is 76"
	case best <= 30:
		return 1.5
	case best <= 80:
		return 0.75
	}
	return 0
}
