package lookup

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isWordRune reports whether r can be part of a word.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// foldASCII lowercases ASCII letters only, so that byte offsets stay
// those of the original text.
func foldASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// parts splits an identifier or phrase into lowercase words: snake_case,
// kebab-case, camelCase, dotted.names and spaces all split, so that
// "maxRetries", "max_retries" and "max retries" have the same parts.
func parts(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !isWordRune(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || unicode.IsDigit(cur[len(cur)-1]) ||
			i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(cur[len(cur)-1])):
			// fooBar, HTTPServer -> http server
			flush()
			cur = append(cur, r)
		case unicode.IsDigit(r) != (len(cur) > 0 && unicode.IsDigit(cur[len(cur)-1])) && len(cur) > 0 && unicode.IsLetter(cur[len(cur)-1]) && unicode.IsDigit(r):
			// keep "v2", "ipv6" together
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// stem reduces an English word to a rough stem, enough that "releases",
// "released" and "release", "owns" and "owner", "sectors" and "sector"
// meet.
func stem(w string) string {
	w = strings.ToLower(w)
	if utf8.RuneCountInString(w) <= 3 {
		return w
	}
	if strings.HasSuffix(w, "sses") {
		w = strings.TrimSuffix(w, "es")
	}
	if strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is") {
		return w // address, status, analysis
	}
	for _, suf := range []string{"ations", "ation", "ings", "ing", "ers", "er", "ied", "ies", "ed", "es", "s", "e", "y"} {
		if strings.HasSuffix(w, suf) && utf8.RuneCountInString(w)-utf8.RuneCountInString(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			if suf == "ied" || suf == "ies" {
				w += "i"
			}
			break
		}
	}
	// doubled final consonant: "stopped" -> "stopp" -> "stop"
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiou", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

// synonyms map a stem to the stems a document may use for the same idea.
var synonyms = map[string][]string{
	"email":      {"mail", "e-mail", "address", "contact"},
	"born":       {"birth", "birthplac", "birthday", "born"},
	"mail":       {"email", "address"},
	"address":    {"addr", "email", "mail", "url", "host", "ip", "location"},
	"own":        {"maintain", "responsibl", "contact", "author", "manag", "lead"},
	"maintain":   {"own", "maintainer", "uploader", "author"},
	"releas":     {"date", "publish", "releas"},
	"upload":     {"date", "releas"},
	"homepag":    {"url", "websit", "sit", "homepag"},
	"url":        {"homepag", "link", "address", "endpoint"},
	"websit":     {"url", "homepag"},
	"port":       {"listen", "port"},
	"version":    {"ver", "releas", "vers"},
	"vers":       {"version", "ver"},
	"nam":        {"titl", "label", "nam"},
	"creat":      {"start", "made"},
	"start":      {"begin", "creat"},
	"end":        {"finish", "stop", "expir", "eol"},
	"expir":      {"expiry", "expires", "end", "valid"},
	"ip":         {"address", "addr", "host"},
	"host":       {"hostnam", "server", "machin"},
	"timeout":    {"time", "limit"},
	"wait":       {"delay", "timeout", "sleep"},
	"delay":      {"wait"},
	"siz":        {"size", "length", "bytes"},
	"lead":       {"manag", "own", "head"},
	"manag":      {"lead", "own"},
	"operat":     {"run", "manag", "own"},
	"run":        {"operat", "execut"},
	"phon":       {"tel", "telephon", "mobil"},
	"locat":      {"address", "plac", "city", "offic", "sit"},
	"offic":      {"locat", "sit", "city"},
	"sign":       {"uploader", "maintain", "author"},
	"author":     {"writer", "by", "maintain"},
	"typ":        {"kind", "class", "category"},
	"kind":       {"typ"},
	"default":    {"default"},
	"cod":        {"id", "number", "numeric"},
	"id":         {"identifier", "cod", "number"},
	"numer":      {"number", "cod", "num"},
	"number":     {"numer", "num", "no", "count", "cod"},
	"count":      {"number", "total"},
	"contact":    {"email", "mail", "owner", "maintain"},
	"tel":        {"phon"},
	"descript":   {"summary", "description"},
	"dependenc":  {"depend"},
	"depend":     {"dependenc", "requir"},
	"locatio":    {"locat"},
	"dat":        {"when", "day", "time"},
	"tim":        {"when", "dat"},
	"resolv":     {"fix", "clos"},
	"fix":        {"resolv", "clos"},
	"publish":    {"releas"},
	"priorit":    {"priority"},
	"memor":      {"mem", "ram"},
	"imag":       {"image", "container"},
	"replica":    {"replicas", "instanc"},
	"instanc":    {"replica"},
	"schedul":    {"cron", "when", "calendar"},
	"directori":  {"dir", "path", "folder"},
	"path":       {"dir", "directori", "fil", "location"},
	"fil":        {"path", "file"},
	"passwor":    {"pass", "secret"},
	"usernam":    {"user", "login"},
	"user":       {"usernam", "login", "account"},
	"badg":       {"badge"},
	"reachabl":   {"address", "url"},
	"frequenc":   {"interval", "every", "often"},
	"interval":   {"every", "frequenc"},
	"durat":      {"took", "elaps", "time"},
	"remot":      {"url", "origin"},
	"environ":    {"env"},
	"secret":     {"token", "key", "password"},
	"token":      {"secret", "key"},
	"countr":     {"nation"},
	"capital":    {"city"},
	"language":   {"lang"},
	"currenc":    {"money"},
	"descriptio": {"descript"},
	"liv":        {"city", "address", "locat", "resid", "hom"},
	"spac":       {"siz", "storag", "quota"},
	"disk":       {"siz", "storag"},
	"sent":       {"from", "sender", "author"},
	"send":       {"from", "sender", "author"},
	"wrot":       {"from", "author", "by"},
	"receiv":     {"to", "recipient"},
	"recipient":  {"to"},
	"minimum":    {"min"},
	"maximum":    {"max"},
}

// related reports whether two stems name the same idea.
func related(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) >= 4 && len(b) >= 4 && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)) {
		// A short word starts many longer ones: "skel" is "skeleton",
		// "user" is not "usergroups".
		short, long := min(len(a), len(b)), max(len(a), len(b))
		if short >= 5 || long-short <= 4 {
			return true
		}
	}
	for _, s := range synonyms[a] {
		if s == b || stem(s) == b {
			return true
		}
	}
	for _, s := range synonyms[b] {
		if s == a || stem(s) == a {
			return true
		}
	}
	return false
}

// stopWords are the words of a question that say nothing about where the
// answer is.
var stopWords = setOf(`a an the of for in on at to is are was were be been being am what which who whom whose where when
how why does do did done can could would will shall should may might must you your me my mine i we us our ours please
tell give find get show look up search report quote return just only its it it's this that these those there here
then than and or nor but by from has have had having into onto about as with within without also any some every each
all such same other another one ones value values set sets according say says said stated state states listed list
lists mentioned mention written write given gives give appear appears appearing entry entries document documents text
file files doc attached provided following below above exactly answer answers question need want know like
let see thing things use used uses using get gets got currently current actually please kindly i'm im what's whats
who's whos where's wheres when's whens how's hows which's there's does doesn't isn't
somewhere anywhere once next near beside together shown recorded record's assigns assigned assign stored kept located
found defined specified noted written mentions contains holds associated belongs goes related linked corresponds section page manual script snippet listing excerpt dump
loaded over during through across via whether if`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// languageCodes are the ISO 639-1 codes of languages by their English
// names, as translated fields are tagged: Name[de], label_fr.
var languageCodes = map[string]string{
	"arabic": "ar", "basque": "eu", "bulgarian": "bg", "catalan": "ca", "chinese": "zh", "croatian": "hr",
	"czech": "cs", "danish": "da", "dutch": "nl", "english": "en", "estonian": "et", "finnish": "fi",
	"french": "fr", "galician": "gl", "german": "de", "greek": "el", "hebrew": "he", "hindi": "hi",
	"hungarian": "hu", "icelandic": "is", "indonesian": "id", "irish": "ga", "italian": "it", "japanese": "ja",
	"korean": "ko", "latvian": "lv", "lithuanian": "lt", "norwegian": "nb", "persian": "fa", "polish": "pl",
	"portuguese": "pt", "romanian": "ro", "russian": "ru", "serbian": "sr", "slovak": "sk", "slovenian": "sl",
	"spanish": "es", "swedish": "sv", "thai": "th", "turkish": "tr", "ukrainian": "uk", "vietnamese": "vi",
	"welsh": "cy",
}

// knownLanguageCode holds languageCodes' codes.
var knownLanguageCode = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range languageCodes {
		m[c] = true
	}
	return m
}()
