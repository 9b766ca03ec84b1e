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
	return lines >= 20 && requests*10 >= lines && (pageStart(text) || strings.Contains(text, "\n.SH ") || strings.Contains(text, "\n.Sh "))
}

// pageStart reports whether a man page (.TH, or mdoc's .Dd) starts in
// text.
func pageStart(text string) bool {
	// One pass over the lines that start with a dot, not one a request.
	for at := 0; at < len(text); {
		if rest := text[at:]; strings.HasPrefix(rest, ".TH ") || strings.HasPrefix(rest, ".Dd ") {
			return true
		}
		i := strings.Index(text[at:], "\n.")
		if i < 0 {
			return false
		}
		at += i + 1
	}
	return false
}

// renderRoff renders the man pages in text: all of it when it is mostly
// man pages, else each page that starts inside it (a man page attached
// after a README: files are joined one after another), from its .TH or
// .Dd line to where the text stops being roff.
func renderRoff(text string) string {
	if looksRoff(text) {
		return roffText(text)
	}
	if !pageStart(text) {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	request := func(l string) bool { return strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") }
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], ".TH ") && !strings.HasPrefix(lines[i], ".Dd ") {
			b.WriteString(lines[i])
			i++
			continue
		}
		end := roffEnd(lines, i, request)
		if n := 0; end-i >= 20 {
			for _, l := range lines[i:end] {
				if request(l) {
					n++
				}
			}
			if n*10 < end-i {
				end = i // a page header quoted in prose, not a page
			}
		} else {
			end = i
		}
		if end == i {
			b.WriteString(lines[i])
			i++
			continue
		}
		b.WriteString(roffText(strings.Join(lines[i:end], "")))
		i = end
	}
	return b.String()
}

// roffEnd is the line where a man page that starts at line i ends: the
// next page's start, or a blank line after which roffPlain lines in a row
// hold no request.
func roffEnd(lines []string, i int, request func(string) bool) int {
	for j := i + 1; j < len(lines); j++ {
		if strings.HasPrefix(lines[j], ".TH ") || strings.HasPrefix(lines[j], ".Dd ") {
			return j
		}
		if strings.TrimSpace(lines[j]) != "" {
			continue
		}
		plain := 0
		for k := j + 1; k < len(lines) && plain < roffPlain; k++ {
			if request(lines[k]) {
				break
			}
			if strings.TrimSpace(lines[k]) != "" {
				plain++
			}
		}
		if plain == roffPlain || j+1+plain >= len(lines) && plain > 0 {
			return j
		}
	}
	return len(lines)
}

// roffPlain: this many lines without a request after a blank line end a
// man page: the next file has begun.
const roffPlain = 20

// roffText renders man pages as a reader sees them, line for line:
// requests that only lay the page out go, paragraph requests (.PP, .TP,
// .IP, .SH, .It) become blank lines before their text, an item's tag
// keeps its words but not its indent (.IP "default_days" 4), font and
// character escapes go (\fB, \-, \(aq), cross references read name(1),
// mdoc's .Nm alone reads as the page's name, and comments keep their
// words (.\" a packager's note).
func roffText(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	page := "" // mdoc's .Nm alone stands for the page's name
	for rest := text; rest != ""; {
		l, after, _ := strings.Cut(rest, "\n")
		rest = after
		if page == "" && (strings.HasPrefix(l, ".Nm ") || strings.HasPrefix(l, ".Dt ")) {
			if ws := roffArgs(l[4:]); len(ws) > 0 {
				page = strings.ToLower(ws[0])
			}
		}
		if strings.TrimSpace(l) == ".Nm" && page != "" {
			l = ".Nm " + page
		}
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
var escapeRE = regexp.MustCompile(`\\f(?:\(..|\[[^\]]*\]|.)|\\s[-+]?\d+|\\\*(?:\(..|\[[^\]]*\]|.)|\\\((?:..)|\\\[[^\]]*\]|\\[&|^%c:e\- ~,/0]`)

var roffChars = map[string]string{
	`\(aq`: "'", `\(cq`: "'", `\(oq`: "'", `\(dq`: `"`, `\(lq`: `"`, `\(rq`: `"`, `\(em`: "—", `\(en`: "–",
	`\(bu`: "•", `\(co`: "©", `\(hy`: "-", `\(mi`: "-", `\(ti`: "~", `\(ha`: "^", `\(rs`: `\`, `\(at`: "@",
	`\e`: `\`, `\-`: "-", `\ `: " ", `\~`: " ", `\0`: " ", // \, and \/ (italic corrections) stand for nothing
}

// unescape removes a text line's escapes, keeping the characters they
// stand for.
func unescape(l string) string {
	if !strings.Contains(l, `\`) {
		return l
	}
	return escapeRE.ReplaceAllStringFunc(l, func(m string) string { return roffChars[m] })
}
