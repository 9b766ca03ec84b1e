package lookup

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A valueKind is the kind of value a question asks for.
type valueKind int

const (
	anyKind valueKind = iota
	personKind
	dateKind
	numberKind
	quantityKind // a number with its unit, or "every N minutes"
	placeKind    // a path, URL, host or place
	emailKind
	urlKind
	versionKind
	ipKind
	idKind // an identifier: one token with a digit (a machine ID, a UUID)
)

// term is one key word of a question.
type term struct {
	text  string // as written
	fold  string // ASCII-folded, for searching
	stems []string
	// strong terms are identifiers, numbers and names: the record that
	// answers must hold them.
	strong bool
	// name: a capitalized word (not an identifier); a name that occurs
	// nowhere in the document is taken for context ("Debian", the
	// document's subject) rather than a key.
	name bool
	// topic: a strong key the whole text is about, looked for again
	// as a loose word when no record held every key.
	topic bool
	// dates are the ways a text may write the date the key is.
	dates []string
}

// query is what Find understood of a question.
type query struct {
	terms []term
	want  valueKind
	// text is the question as asked (its asking paragraph); the line
	// that holds it is the question, not an answer.
	text string
	// which is the noun of "which X ..." / "what X ...", the thing asked
	// for when no field of the record is named by the question.
	which string
	// duration: "how long", a time and not a size.
	duration bool
	// event: the question asks when something happened ("which
	// release added X"), not what is so now ("which version is
	// installed").
	event bool
}

// eventRE is a verb of something done, in a question: "added",
// "deprecated", "gave", "first".
var eventRE = regexp.MustCompile(`\b(?:(?:is|are|was|were|be|been)\s+)?(?:\pL+ed|first|since|gave|got|began|became|brought|made|took)\b`)

// termRE finds the words of a question: identifiers may hold - _ . / : @
// + # between word characters, and may start with / or --.
var termRE = regexp.MustCompile(`(?:--?|/)?[\pL\pN\pM]+(?:(?:[-_./:@+#'’]|::)[\pL\pN\pM]+)*`)

// questionPart is the part of a request that asks: the paragraph with a
// question mark, else the first paragraph. "What is X?\n\nThe text this
// question is about is the attached document context.txt." asks only in
// its first paragraph.
func questionPart(q string) string {
	paras := strings.Split(strings.ReplaceAll(q, "\r\n", "\n"), "\n\n")
	for i := len(paras) - 1; i >= 0; i-- {
		if strings.Contains(paras[i], "?") {
			return strings.TrimSpace(paras[i])
		}
	}
	return strings.TrimSpace(paras[0])
}

// whatOfRE asks for a field of a thing: "what is the X of Y".
var whatOfRE = regexp.MustCompile(`^what(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:the\s+|a\s+|an\s+)?[\w-]+(?:\s+[\w-]+)?\s+of\s`)

// whichReleaseRE asks for a release: a version.
var whichReleaseRE = regexp.MustCompile(`\b(?:which|what)\s+(?:[\w.+-]+\s+){0,2}releases?\b`)

func parseQuery(q string) query {
	q = questionPart(q)
	out := query{text: q}
	// "Out of the box", "unless you override it": a user's words for
	// what a text calls the default.
	q = defaultPhraseRE.ReplaceAllString(q, "by default")
	// "Tell me who ...", "I need to know when ...": the question word
	// after the request's lead says what is asked.
	lower := leadRE.ReplaceAllString(strings.ToLower(q), "")
	words := strings.Fields(strings.Map(func(r rune) rune {
		if isWordRune(r) || r == '-' || r == '\'' || r == '_' || r == '.' {
			return unicode.ToLower(r)
		}
		return ' '
	}, q))
	for i, w := range words {
		words[i] = strings.Trim(w, ".")
	}
	// "What is the description of port?": the kind asked for is the
	// description's, not the port's.
	if whatOfRE.MatchString(lower) {
		if i := slices.Index(words, "of"); i > 0 {
			words = words[:i]
		}
	}
	// A word written in capitals (DATE, TIMEOUT) is a name, of a macro
	// or a setting, not the kind of value asked for; acronyms (UUID,
	// URL) still are.
	named := map[string]bool{}
	for _, w := range termRE.FindAllString(q, -1) {
		if lw := strings.ToLower(w); len(w) >= 4 && w == strings.ToUpper(w) && !acronyms[lw] && isLetters(w) {
			named[lw] = true
		}
	}
	has := func(w ...string) bool {
		for _, x := range w {
			for _, y := range words {
				if y == x && !named[x] {
					return true
				}
			}
		}
		return false
	}
	switch {
	case strings.HasPrefix(lower, "who") || has("whom", "whose"):
		out.want = personKind
	case strings.HasPrefix(lower, "when") || has("date", "day", "deadline"):
		out.want = dateKind
	case addressPortRE.MatchString(lower):
		out.want = ipKind // "which address and port": 0.0.0.0:8443
	case strings.Contains(lower, "how many") || strings.Contains(lower, "how much") || has("port", "count", "numeric"):
		out.want = numberKind
	case strings.Contains(lower, "how long") || strings.Contains(lower, "how fast") || strings.Contains(lower, "how often") ||
		strings.Contains(lower, "how big") || strings.Contains(lower, "how large") || strings.Contains(lower, "how far") ||
		has("duration", "timeout", "interval", "frequency", "speed", "size"):
		out.want = quantityKind
	case has("e-mail", "email", "mail") && !has("message-id"):
		out.want = emailKind
	case has("url", "uri", "homepage", "website", "link"):
		out.want = urlKind
	case has("ip", "ipv4"):
		out.want = ipKind
	case has("id", "uuid", "guid", "identifier", "sha256", "sha1", "sha512", "md5", "checksum", "hash", "digest", "fingerprint"):
		out.want = idKind // (a digest is an identifier: one token with digits)
	case has("version") || whichReleaseRE.MatchString(lower):
		out.want = versionKind // "which binutils release": 2.40
	case strings.HasPrefix(lower, "where") || has("path", "directory", "folder", "location", "filename") || strings.Contains(lower, "file name"):
		out.want = placeKind
	}
	for _, m := range eventRE.FindAllString(lower, -1) {
		if !strings.Contains(m, " ") { // not "is bundled": a state
			out.event = true
		}
	}
	out.duration = out.want == quantityKind && strings.Contains(lower, "how long") && !has("string", "name", "line", "file", "list", "key")
	if m := whichFileRE.FindStringSubmatch(lower); m != nil && out.want == anyKind {
		out.want = placeKind // "which certificate file", "what socket": a path
	}
	if m := whichRE.FindStringSubmatch(lower); m != nil {
		// "What section is X in?": the noun says what is asked, even
		// one that is no key ("section", "file").
		if w := m[1]; !functionWords[w] && !auxWords[w] {
			out.which = stem(w)
		}
	}
	// A date is one key, found however the text writes it.
	dates := dateRE.FindAllStringIndex(q, -1)
	for _, d := range dates {
		if vs := dateSpellings(q[d[0]:d[1]]); vs != nil {
			out.terms = append(out.terms, term{text: q[d[0]:d[1]], fold: foldASCII(q[d[0]:d[1]]), strong: true, dates: vs})
		}
	}
	inDate := func(at int) bool {
		for _, d := range dates {
			if at >= d[0] && at < d[1] {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	prev := ""
	// deictic counts the words left of a noun phrase after "this" or
	// "these": the text itself ("these headers", "this PostgreSQL
	// build"), whose everyday words need not be on the answer's line.
	deictic := 0
	for i, loc := range termRE.FindAllStringIndex(q, -1) {
		loc = withUnderscores(q, loc)
		w := strings.TrimRight(q[loc[0]:loc[1]], "'’")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		lw := strings.ToLower(w)
		afterHow := prev == "how"
		prev = lw
		if lw == "this" || lw == "these" {
			deictic = 1
			continue
		}
		pointed := deictic > 0
		deictic--
		if pointed && capitalized(w) {
			deictic = 1 // "this PostgreSQL build": a name and its noun
		}
		if inDate(loc[0]) || stopWords[lw] || auxWords[lw] || seen[lw] || utf8.RuneCountInString(w) < 2 && !isDigits(w) ||
			loc[0] == 0 && imperatives[lw] || afterHow && howWords[lw] {
			continue // "many" of "how many" says what is asked, not where
		}
		seen[lw] = true
		t := term{text: w, fold: foldASCII(w)}
		for _, p := range parts(w) {
			if !stopWords[p] && (utf8.RuneCountInString(p) > 1 || isDigits(p)) {
				t.stems = append(t.stems, stem(p))
			}
		}
		first := loc[0] == 0 || i == 0
		r, _ := utf8.DecodeRuneInString(w)
		switch {
		case allCapsWord(w):
			// VERSION, TIMEOUT: a word in capitals, a field's name
			// rather than a key.
		case strings.ContainsAny(w, "0123456789_/@.:#+") || strings.Contains(strings.Trim(w, "-"), "-") && !commonHyphenated(lw) || hasInnerUpper(w):
			t.strong = true
		case strings.HasPrefix(w, "-") && isLetters(strings.TrimLeft(w, "-")):
			t.strong = true // a command's option: -w, --wrap
		case unicode.IsUpper(r) && !first:
			t.strong, t.name = true, true
		}
		if pointed && !t.strong {
			t.topic = true
		}
		if kindWords[lw] {
			t.strong = false // "the IP address", "the bug tracker URL": the kind asked for, not a key
		}
		out.terms = append(out.terms, t)
	}
	return out
}

// withUnderscores widens a word of q to the underscores that are part of
// a program's name: __version__, _OPT; not _emphasis_.
func withUnderscores(q string, loc []int) []int {
	a, b := loc[0], loc[1]
	for a > 0 && q[a-1] == '_' {
		a--
	}
	for b < len(q) && q[b] == '_' {
		b++
	}
	lead, trail := loc[0]-a, b-loc[1]
	switch {
	case lead == 2 && trail == 2: // a dunder name
		return []int{a, b}
	case lead > 0 && trail == 0:
		return []int{a, loc[1]}
	}
	return loc
}

// defaultPhraseRE is a way of asking for a default without the word.
var defaultPhraseRE = regexp.MustCompile(`(?i)\b(?:out of the box|(?:if|when) (?:i|you|we) (?:haven't|have not|don't|do not|didn't|did not) (?:changed?|set|touch(?:ed)?|configured?) (?:anything|it|them)|unless (?:i|you|we|someone) (?:override|change|set|configure)s? (?:it|them|otherwise)|unless (?:overridden|configured otherwise|told otherwise|set otherwise)|(?:if|when) (?:left )?(?:unset|not set)|with(?:out)? (?:any|no) (?:configuration|options|settings)|factory settings?)\b`)

// addressPortRE asks for an address with its port.
var addressPortRE = regexp.MustCompile(`\b(?:address|host|ip|ipv4)\s*(?:and|&|:|/)\s*port\b`)

// acronyms are kinds of value a question writes in capitals.
var acronyms = setOf(`uuid guid ipv4 ipv6 http https`)

// kindWords name the kind of value asked for; written in capitals they
// are no key the answer's record must hold.
var kindWords = setOf(`ip ipv4 url uri name filename`)

// howWords follow "how" to ask for an amount.
var howWords = setOf(`many much long big large far often fast old soon tall high wide deep small frequently quickly`)

// leadRE is a request's lead before its question word.
var leadRE = regexp.MustCompile(`^(?:(?:please|kindly)\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:(?:tell|show|give|let)\s+me\s+(?:know\s+)?|(?:find|look\s+up|check|figure\s+out|work\s+out|see)\s+(?:me\s+|for\s+me\s+)?)|^i\s+(?:need|want|would like|'d like)\s+(?:to\s+know\s+|to\s+find\s+(?:out\s+)?)?|^do\s+you\s+know\s+`)

var whichFileRE = regexp.MustCompile(`^(?:which|what)\s+(?:[\pL-]+\s+)?(?:file|path|directory|folder|socket|dir)\b`)

var whichRE = regexp.MustCompile(`^(?:which|what)\s+([\pL-]+)`)

// functionWords follow "which" or "what" without naming a thing.
var functionWords = setOf(`is are was were was does do did can could would will should the a an of in on for to it its this that these those
kind sort type`)

// auxWords are verbs and words that carry no key of their own.
var auxWords = setOf(`take takes took taken make makes made go goes went come comes came put puts keep keeps kept hold holds held
contain contains contained include includes included mean means meant call calls called named refer refers belong belongs
happen happens happened according via per onto upon yes no not`)

// allCapsWord reports a word of six or more capital letters and nothing
// else (VERSION, DEFAULT); shorter ones are codes and acronyms (NOK, TZ,
// ECMWF).
func allCapsWord(w string) bool {
	if utf8.RuneCountInString(w) < 6 {
		return false
	}
	for _, r := range w {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// commonHyphenated reports a hyphenated word of everyday English
// (e-mail, built-in, read-only, non-empty), not an identifier.
func commonHyphenated(w string) bool {
	first, _, _ := strings.Cut(w, "-")
	return hyphenPrefixes[first]
}

var hyphenPrefixes = setOf(`e re co non self multi pre post sub anti semi well so end up opt third long short real read write
built back front high low full half one two three four five first second last cross inter intra de un x`)

// imperatives open a request ("Name the owner of ...") without being a key.
var imperatives = setOf(`name list give tell find show quote return report identify state provide fetch look lookup check`)

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// hasInnerUpper reports an uppercase letter past the first: camelCase,
// or an all-caps word of two or more letters (a constant, an acronym).
func hasInnerUpper(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// Question finds the question in a message that holds both a question and
// its document (query was empty because the message was offloaded): the
// last paragraph when it asks (a question mark, or a question word first),
// else the first. It returns the question and the text without it; when
// no paragraph asks, the question is empty and the text is unchanged.
func Question(text string) (question, rest string) {
	const maxQuestion = 1000
	trimmed := strings.TrimRight(text, " \t\r\n")
	if i := strings.LastIndex(trimmed, "\n\n"); i >= 0 && len(trimmed)-i <= maxQuestion {
		if p := strings.TrimSpace(trimmed[i:]); asks(p) {
			return p, trimmed[:i]
		}
	}
	lead := strings.TrimLeft(text, " \t\r\n")
	if i := strings.Index(lead, "\n\n"); i >= 0 && i <= maxQuestion {
		if p := strings.TrimSpace(lead[:i]); asks(p) {
			return p, lead[i:]
		}
	}
	if len(trimmed) <= maxQuestion && asks(trimmed) {
		return trimmed, ""
	}
	return "", text
}

var askRE = regexp.MustCompile(`(?i)^(?:what|which|who|whom|whose|when|where|why|how|is|are|does|do|did|can|could|would|will|find|give|tell|list|show|quote|return|look|search|report|name|identify|i need|i want|i'd like|i would like|please|get|fetch|need|question:|q:)\b`)

func asks(p string) bool {
	if strings.Contains(p, "\n") && strings.Count(p, "\n") > 3 {
		return false
	}
	return strings.HasSuffix(p, "?") || askRE.MatchString(p)
}

// dateLayouts are the ways a date is written, for reading a question's
// and writing the text's.
var dateLayouts = []string{"2006-01-02", "2 January 2006", "2 Jan 2006", "02 Jan 2006", "January 2, 2006", "Jan 2, 2006",
	"January 2 2006", "Jan 2 2006", "2006/01/02", "2006.01.02", "Jan. 2, 2006", "2006-Jan-02", "02-Jan-2006", "2-Jan-2006",
	"02.01.2006"}

// dateSpellings returns the ways of writing the date d, or nil when d
// is not one.
func dateSpellings(d string) []string {
	d = dateOrdinalRE.ReplaceAllString(dateWeekdayRE.ReplaceAllString(strings.TrimSpace(d), ""), "$1")
	for _, l := range dateLayouts {
		t, err := time.Parse(l, d)
		if err != nil {
			continue
		}
		var out []string
		for _, l := range dateLayouts {
			if v := t.Format(l); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	return nil
}

// dateOrdinalRE is a day's ordinal suffix: "April 27th".
var dateOrdinalRE = regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)\b`)

var dateWeekdayRE = regexp.MustCompile(`(?i)^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+`)
