package lookup

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	emailRE = regexp.MustCompile(`[\pL\pN._%+-]+@[\pL\pN-]+(?:\.[\pL\pN-]+)+`)
	urlRE   = regexp.MustCompile(`[a-z][a-z0-9+.-]*://[^\s<>"'()\[\]{},;]+[^\s<>"'()\[\]{},;.:]`)
	// fileNameTokenRE is a file's name without its directory:
	// icudt72l-trim.dat.
	fileNameTokenRE = regexp.MustCompile(`\b[\pL\pN_][\pL\pN_.+-]*\.[\pL][\pL\pN]{0,5}\b`)
	pathRE          = regexp.MustCompile(`(?:~|\.{1,2})?/[\pL\pN._~+-]+(?:/[\pL\pN._~+$-]*)*`)
	ipPortRE        = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}\b`)
	ipRE            = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?\b`)
	// versionRE: 1.2.3, 2:4.35-1, 7-2, and a Debian version without a
	// dot (20230710~deb12u1).
	versionRE = regexp.MustCompile(`\bv?\d+(?::\d+)?(?:\.\d+)+(?:[-+~][\pL\pN.+~-]*)?\b|\b\d+-\d+[\pL\pN.+~-]*\b|\b\d+[~+][\pN.+~-]*\pL[\pL\pN.+~-]*\b`)
	hexRE     = regexp.MustCompile(`\b0[xX][0-9a-fA-F]+\b`)
	// numberRE: a number that is not the tail of a word ("db-3").
	numberRE      = regexp.MustCompile(`(?:^|[^\pL\pN_.-])([-+]?\d[\d,._]*(?:\.\d+)?)`)
	wholeNumberRE = regexp.MustCompile(`^[-+]?\d[\d,._]*(?:\.\d+)?$`)
	dateRE        = regexp.MustCompile(`(?i)\b(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+\d{4}(?:\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[-+]\d{4}|\s*[A-Z]{2,4}\b)?)?` +
		`|\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[-+]\d{2}(?::?\d{2})?)?)?` +
		`|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}` +
		`|\b\d{1,2}/\d{1,2}/\d{2,4}\b`)
	// dayMonthRE: a day without its year, "Thursday 20 March",
	// "March 20th" (a date the text's reader knows the year of).
	// (Months spelled out or cut to three letters: "3 marks" is none.)
	dayMonthRE = regexp.MustCompile(`(?i)\b(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?\d{1,2}(?:st|nd|rd|th)?\s+` + months + `\b` +
		`|\b(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?` + months + `\.?\s+\d{1,2}(?:st|nd|rd|th)?\b`)
	// quantity: a number and its unit, or "every N unit".
	quantityRE = regexp.MustCompile(`(?i)(?:^|[^\pL\pN_.-])((?:every\s+)?[-+]?\d[\d,.]*(?:[ \t]*(?:` + units + `)|[ \t]+(?:` + shortUnits + `)))\b`)
	// wordQuantityRE: a number written as a word, with its unit:
	// "twenty minutes", "five seconds".
	wordQuantityRE = regexp.MustCompile(`(?i)\b((?:` + numberWords + `)(?:[- ](?:` + numberWords + `))?[ \t]+(?:` + units + `))\b`)
	// nameRE: two to four capitalized words, the way people are named.
	nameRE = regexp.MustCompile(`\p{Lu}[\pL\pM'’-]+(?:\s+(?:(?:de|van|von|der|da|di|du|la|le|bin|al|ter|del)\s+)?\p{Lu}[\pL\pM'’.-]*){1,3}`)
)

// months are the months' names, whole or cut to three letters.
const months = `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

// units may follow a number directly (90s, 512MiB) or after a space;
// shortUnits, single letters, only after a space ("418 s"), so that a code
// such as 38A-8342 is not a quantity.
const units = `ms|milliseconds?|secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|years?|` +
	`bytes?|kb|kib|mb|mib|gb|gib|tb|tib|kbit/s|mbit/s|gbit/s|kbps|mbps|gbps|hz|khz|mhz|ghz|%|percent|` +
	`px|pt|mm|cm|km|miles?|kg|lbs?|°c|°f|mv|kw|mw|ma|rpm|req/s|rps|qps|ops/s|cores?|cpus?|threads?|connections?|items?|entries|times|s|h|m`

const shortUnits = `s|h|m|k|g|b|v|w|a`

// numberWords are the numbers people write as words before a unit.
const numberWords = `one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|thousand`

var capWordRE = regexp.MustCompile(`^\p{Lu}[\pL\pM'’.-]+$`)

// clockRE is a time of day or a span of them, with its zone: "02:00–02:45
// UTC", "at 14:30 CET" (a "when" a schedule answers).
var clockRE = regexp.MustCompile(`\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*(?:[-–—]|to)\s*\d{1,2}:\d{2}(?::\d{2})?)?(?:\s*(?:UTC|GMT|Z|[A-Z]{3,4}\b))?`)

// fits reports whether v is a value of the kind a question asks for: the
// value is mostly that kind of thing, not a sentence holding one.
func fits(k valueKind, v string) bool {
	v = strings.TrimSpace(v)
	covers := func(re *regexp.Regexp) bool {
		for _, m := range re.FindAllStringSubmatchIndex(v, -1) {
			if re.NumSubexp() > 0 {
				m = m[2:]
			}
			if (m[1]-m[0])*10 >= len(v)*7 {
				return true
			}
		}
		return false
	}
	switch k {
	case personKind:
		return covers(emailRE) || covers(nameRE) && !hasDigit(v) || nameRE.MatchString(v) && emailRE.MatchString(v) && len(strings.Fields(v)) <= 5
	case dateKind:
		return covers(dateRE) || covers(clockRE)
	case numberKind:
		return isNumber(v) || covers(quantityRE) || covers(hexRE) || covers(wordQuantityRE) || goDurationRE.MatchString(v)
	case quantityKind:
		return covers(quantityRE) || isNumber(v) || covers(wordQuantityRE) || goDurationRE.MatchString(v)
	case placeKind:
		return covers(pathRE) || covers(urlRE) || covers(emailRE) || !strings.Contains(v, " ") && strings.Contains(v, ".") || covers(nameRE) || capWordRE.MatchString(v)
	case emailKind:
		return covers(emailRE)
	case urlKind:
		return covers(urlRE)
	case versionKind:
		// A bare number is a size or a count more often than a
		// version ("Installed-Size: 18432").
		return covers(versionRE) || versionLeadRE.MatchString(v) && !strings.Contains(v, " ") && !isDigits(v)
	case ipKind:
		return covers(ipRE) || covers(ipPortRE)
	case idKind:
		return !strings.ContainsAny(v, " \t") && hasDigit(v) && !covers(dateRE) && !covers(timeRE)
	}
	return true
}

// versionLeadRE starts a version that versionRE does not cover: "v7",
// "12", "r1234" (not TLS1_AD_PROTOCOL_VERSION, a name with a digit).
var versionLeadRE = regexp.MustCompile(`^[vVrR]?\d`)

// typed finds the values of kind k in s, in order, with their offsets.
func typed(k valueKind, s string) [][2]int {
	var res []*regexp.Regexp
	switch k {
	case personKind:
		res = []*regexp.Regexp{nameRE, emailRE}
	case dateKind:
		res = []*regexp.Regexp{dateRE, dayMonthRE, clockRE}
	case numberKind:
		res = []*regexp.Regexp{hexRE, quantityRE, wordQuantityRE, numberRE}
	case quantityKind:
		res = []*regexp.Regexp{quantityRE, wordQuantityRE, numberRE}
	case placeKind:
		res = []*regexp.Regexp{urlRE, emailRE, pathRE, fileNameTokenRE}
	case emailKind:
		res = []*regexp.Regexp{emailRE}
	case urlKind:
		res = []*regexp.Regexp{urlRE}
	case versionKind:
		res = []*regexp.Regexp{versionRE}
	case ipKind:
		res = []*regexp.Regexp{ipPortRE, ipRE}
	default:
		res = []*regexp.Regexp{urlRE, emailRE, dateRE, ipRE, hexRE, pathRE, valueTokenRE}
	}
	var out [][2]int
	taken := func(a, b int) bool {
		for _, o := range out {
			if a < o[1] && b > o[0] {
				return true
			}
		}
		return false
	}
	for _, re := range res {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			if re.NumSubexp() > 0 {
				m = m[2:]
			}
			if !taken(m[0], m[1]) {
				out = append(out, [2]int{m[0], m[1]})
			}
		}
	}
	return out
}

// valueTokenRE is a token that looks like a value rather than a word: it
// has a digit (a number, a code, an ID, a version).
var valueTokenRE = regexp.MustCompile(`(?:[\pL\pN]+[-_./:#])*[\pL\pN]*\d[\pL\pN]*(?:[-_./:#+][\pL\pN]+)*#?`)

func hasDigit(s string) bool { return strings.IndexAny(s, "0123456789") >= 0 }

func isNumber(s string) bool {
	s = strings.TrimSpace(s)
	return wholeNumberRE.MatchString(s) && strings.Count(s, ".") < 2 // 7.0.15 is a version
}

// quotedPast reports whether v opens with a quote that closes after i:
// "a // b" is one string, not a value and a comment.
func quotedPast(v string, i int) bool {
	if v == "" || v[0] != '"' && v[0] != '\'' {
		return false
	}
	return strings.IndexByte(v[1:], v[0])+1 > i
}

// clean trims what surrounds a value on its line: quotes, brackets,
// trailing punctuation, a trailing comment.
func clean(v string) string {
	v = strings.TrimSpace(v)
	// A comment after a config value or in code: "45  # raised from 30",
	// "7 ; old", "0x1 // do not print braces".
	for _, c := range []string{"  #", "\t#", " # ", "  //", " // ", "\t//", " /* ", "\t/*", "  ;"} {
		if i := strings.Index(v, c); i > 0 && !quotedPast(v, i) {
			v = strings.TrimSpace(v[:i])
		}
	}
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "*/"))
	for {
		before := v
		v = strings.TrimSpace(v)
		v = strings.TrimRight(v, ",;")
		if len(v) >= 2 {
			f, l := v[0], v[len(v)-1]
			if (f == '"' && l == '"') || (f == '\'' && l == '\'') || (f == '`' && l == '`') || (f == '(' && l == ')') || (f == '[' && l == ']') {
				v = v[1 : len(v)-1]
			}
		}
		if v == before {
			break
		}
	}
	// A closing bracket left from "[default: 12]" or "(Closes: #1045123).".
	if strings.HasSuffix(v, ").") {
		v = v[:len(v)-1]
	}
	for _, p := range []string{"()", "[]", "{}", "<>"} {
		if strings.HasSuffix(v, p[1:]) && strings.Count(v, p[:1]) < strings.Count(v, p[1:]) {
			v = strings.TrimSpace(strings.TrimSuffix(v, p[1:]))
		}
	}
	// A sentence's final period, but not an abbreviation's or a path's.
	if strings.HasSuffix(v, ".") && !strings.HasSuffix(v, "..") {
		last := v[strings.LastIndexAny(v, " /")+1:]
		if utf8.RuneCountInString(last) > 3 || strings.Count(last, ".") == 1 {
			v = strings.TrimSuffix(v, ".")
		}
	}
	return strings.TrimSpace(v)
}

// leadRE is a value at the start of a phrase: a quantity, a date, an
// address, a path, a code or number, or a capitalized name.
var leadREs = []*regexp.Regexp{
	regexp.MustCompile(`^(?i)(?:every\s+)?[-+]?\d[\d,.]*(?:[ \t]*(?:` + units + `)|[ \t]+(?:` + shortUnits + `))\b`),
	regexp.MustCompile(`^(?i:` + dateRE.String()[4:] + `)`),
	regexp.MustCompile(`^` + urlRE.String()), regexp.MustCompile(`^` + emailRE.String()),
	regexp.MustCompile(`^` + pathRE.String()),
	regexp.MustCompile(`^(?:[\pL\pN]+[-_./:#])*[\pL\pN]*\d[\pL\pN]*(?:[-_./:#+][\pL\pN]+)*#?%?`),
	regexp.MustCompile(`^\p{Lu}[\pL\pM'’-]*(?:\s+(?:(?:de|van|von|der|da|di|du|la|le|bin|al|ter|del)\s+)?\p{Lu}[\pL\pM'’.-]*){0,3}`),
}

// phrase cuts a prose value at the end of its clause, or to the value it
// starts with: "GA935 last week" is GA935, "Beatriz Nascimento from the
// São Paulo office" is Beatriz Nascimento.
func phrase(v string) string {
	v = strings.TrimSpace(v)
	for _, re := range leadREs {
		if m := re.FindString(v); m != "" {
			return clean(m)
		}
	}
	end := len(v)
	for _, sep := range []string{". ", "; ", ", ", " (", " -- ", " — ", "! ", "? "} {
		if i := strings.Index(v, sep); i > 0 && i < end {
			end = i
		}
	}
	v = clean(v[:end])
	if words := strings.Fields(v); len(words) > 8 {
		v = strings.Join(words[:8], " ")
	}
	return v
}

// goUnit is the unit of a duration as Go code writes it: "* time.Millisecond".
const goUnit = `\*[ \t]*time\.(?:Nanosecond|Microsecond|Millisecond|Second|Minute|Hour)`

// goDurationRE is a duration as Go code writes it: 2500 * time.Millisecond.
var goDurationRE = regexp.MustCompile(`^\d[\d_]*[ \t]*` + goUnit + `$`)

// unitRE is a unit after a number; it is matched against lower-cased text.
var unitRE = regexp.MustCompile(`^(?:[ \t]*(?:` + units + `)|[ \t]+(?:` + shortUnits + `)|[ \t]*(?i:` + goUnit + `))\b`)

// withUnit keeps a number's unit when it follows directly: "418 s" of
// "completed in 418 s at ...".
func withUnit(s string, loc [2]int) [2]int {
	rest := s[loc[1]:]
	if m := unitRE.FindStringIndex(strings.ToLower(rest)); m != nil {
		loc[1] += m[1]
	} else if strings.HasPrefix(rest, "%") {
		loc[1]++ // "is 5%."
	}
	return loc
}

// boundaryBefore reports whether a word starts at s[i]: after a non-word
// character, or as the next part of a camelCase identifier.
func boundaryBefore(s string, i int) bool {
	if i <= 0 {
		return true
	}
	p, _ := utf8.DecodeLastRuneInString(s[:i])
	if !isWordRune(p) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsUpper(r) && (unicode.IsLower(p) || unicode.IsDigit(p))
}

// boundaryAfter reports whether a word ends at s[j]: before a non-word
// character, or before the next part of a camelCase identifier.
func boundaryAfter(s string, j int) bool {
	if j >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	if !isWordRune(r) {
		return true
	}
	p, _ := utf8.DecodeLastRuneInString(s[:j])
	return unicode.IsUpper(r) && unicode.IsLower(p)
}

// capitalized reports whether s starts with an uppercase letter.
func capitalized(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}
