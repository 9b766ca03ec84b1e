package lookup

import (
	"regexp"
	"strings"
)

// looksRoff reports whether text is mostly man pages in roff (man or
// mdoc macros): a tenth of its first thousand lines are requests.
func looksRoff(text string) bool {
	lines, requests := 0, 0
	for rest := text; rest != "" && lines < 1000; lines++ {
		l, after, _ := strings.Cut(rest, "\n")
		rest = after
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'\\\"") {
			requests++
		}
	}
	return lines >= 20 && requests*10 >= lines &&
		(strings.Contains(text, "\n.TH ") || strings.Contains(text, "\n.Dd ") || strings.Contains(text, "\n.SH ") || strings.HasPrefix(text, ".TH "))
}

// roffText renders man pages as a reader sees them, line for line:
// requests that only lay the page out go, paragraph requests (.PP, .TP,
// .IP, .SH, .It) become blank lines before their text, an item's tag
// keeps its words but not its indent (.IP "default_days" 4), font and
// character escapes go (\fB, \-, \(aq), cross references read name(1),
// and comments keep their words (.\" a packager's note).
func roffText(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for rest := text; rest != ""; {
		l, after, _ := strings.Cut(rest, "\n")
		rest = after
		b.WriteString(roffLine(l))
		b.WriteByte('\n')
	}
	return b.String()
}

// roffLine renders one line (see roffText); "" drops nothing but the
// line's markup, "\n" is a paragraph break before the text.
func roffLine(l string) string {
	if strings.HasPrefix(l, `.\"`) || strings.HasPrefix(l, `'\"`) {
		return strings.TrimSpace(l[3:])
	}
	if !strings.HasPrefix(l, ".") && !strings.HasPrefix(l, "'") {
		return unescape(l)
	}
	name, args, _ := strings.Cut(strings.TrimSpace(l[1:]), " ")
	words := roffArgs(args)
	switch name {
	case "IX", "ds", "de", "nr", "so", "ne", "in", "ti", "ft", "ps", "ll", "na", "ad", "nh", "hy", "fi", "nf", "ta", "ce",
		"br", "..", "if", "ie", "el", "tr", "rm", "Dd", "Os", "Bl", "El", "Bd", "Ed", "RS", "RE", "UC", "PD", "TH", "Dt", "ig", "cs", "bp", "EX", "EE":
		return ""
	case "PP", "LP", "P", "Pp", "sp", "TP", "TQ":
		return "\n"
	case "IP":
		if len(words) > 0 {
			return "\n" + unescape(words[0])
		}
		return "\n"
	case "SH", "SS", "Sh", "Ss", "It":
		return "\n" + unescape(joinMdoc(words))
	case "Xr":
		if len(words) >= 2 {
			return words[0] + "(" + words[1] + ")" + strings.Join(words[2:], "")
		}
	case "BR", "RB", "IR", "RI", "BI", "IB":
		return unescape(strings.Join(words, ""))
	case "Fl", "Ns":
		words = append([]string{name}, words...)
	}
	return unescape(joinMdoc(words))
}

// roffArgs splits a request's arguments: words, or "quoted words".
func roffArgs(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				out = append(out, s[1:])
				break
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		w, after, _ := strings.Cut(s, " ")
		out = append(out, w)
		s = after
	}
	return out
}

// joinMdoc joins an mdoc line's words, reading its inline macros: Fl x is
// -x, Ns joins its neighbours, and the macro names themselves go.
func joinMdoc(words []string) string {
	var out []string
	glue := false
	flag := false
	for _, w := range words {
		switch w {
		case "Cm", "Ar", "Pa", "Ev", "Sy", "Li", "Ic", "Va", "Dv", "Er", "Em", "Ql", "Dq", "Sq", "Pq", "Op", "Oo", "Oc",
			"Nm", "No", "Xo", "Xc", "Fn", "Fa", "Ft", "Vt", "Tn", "Aq", "Ao", "Ac", "Do", "Dc", "Qq", "Qo", "Qc", "Bq", "Brq":
			continue
		case "Ns":
			glue = true
			continue
		case "Fl":
			flag = true
			continue
		}
		if flag {
			w, flag = "-"+w, false
		}
		if glue && len(out) > 0 {
			out[len(out)-1] += w
			glue = false
			continue
		}
		out = append(out, w)
	}
	if flag {
		out = append(out, "-")
	}
	return strings.Join(out, " ")
}

// escapeRE matches roff's font, size, string and character escapes.
var escapeRE = regexp.MustCompile(`\\f(?:\(..|\[[^\]]*\]|.)|\\s[-+]?\d+|\\\*(?:\(..|\[[^\]]*\]|.)|\\\((?:..)|\\\[[^\]]*\]|\\[&|^%c:e\- ~]`)

var roffChars = map[string]string{
	`\(aq`: "'", `\(cq`: "'", `\(oq`: "'", `\(dq`: `"`, `\(lq`: `"`, `\(rq`: `"`, `\(em`: "—", `\(en`: "–",
	`\(bu`: "•", `\(co`: "©", `\(hy`: "-", `\(mi`: "-", `\(ti`: "~", `\(ha`: "^", `\(rs`: `\`, `\(at`: "@",
	`\e`: `\`, `\-`: "-", `\ `: " ", `\~`: " ",
}

// unescape removes a text line's escapes, keeping the characters they
// stand for.
func unescape(l string) string {
	if !strings.Contains(l, `\`) {
		return l
	}
	return escapeRE.ReplaceAllStringFunc(l, func(m string) string { return roffChars[m] })
}
