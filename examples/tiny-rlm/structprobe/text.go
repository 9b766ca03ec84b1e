package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"gopkg.in/yaml.v3"
)

// A textKind is real text read as written (not laid out from JSON): a
// kind of file, where to find it, and a reader of the facts its grammar
// settles. The readers are a few lines each and deliberately strict (a
// line they are unsure of gives no fact), so that every question has the
// answer the file's own grammar gives.
type textKind struct {
	layout string
	roots  []string
	// match reports whether a file of this path is of the kind.
	match func(path string) bool
	// perDir and files, if set, are how many files of one directory and
	// in all are taken (few files of some kinds state a fact).
	perDir, files int
	// split, if set, parts a file into documents of their own.
	split func(text string) []string
	facts func(text string, r *rand.Rand) []fact
}

// fact is one question a text settles and its answer as written.
type fact struct {
	form, question, value string
	also                  []string // other ways to write value
	// owner is what the fact is about (a package): the value may occur
	// again, on lines that name it.
	owner string
	// told: the reader has checked that the value occurs once in the
	// text as read (a man page as rendered, not its markup).
	told bool
}

var (
	// #define NAME VALUE, VALUE a number or a string literal.
	defineLine = regexp.MustCompile(`^#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(-?(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?)[uUlL]*|"[^"\\]*")\s*(?:/\*.*\*/|//.*)?$`)
	// NAME = number, inside an enum.
	enumLine = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(-?(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*)\s*,?\s*(?:/\*.*\*/|//.*)?$`)
	// NAME = literal at the start of a Python line.
	pyConst = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(-?[0-9][0-9_.eExX]*|"[^"\\]*"|'[^'\\]*')\s*(?:#.*)?$`)
	// Name [Type] = literal in a Go const declaration: "const " starts a
	// line of its own, a tab one in a const block.
	goConst = regexp.MustCompile(`^(?:const\s+|\t)([A-Za-z_][A-Za-z0-9_]*)(?:\s+[A-Za-z_][A-Za-z0-9_.]*)?\s*=\s*(-?[0-9][0-9_.eExXa-fA-F]*|"[^"\\]*"|` + "`[^`]*`" + `)\s*(?://.*)?$`)
	// key=value or key: value of a properties file, key = value of an
	// INI file or unit.
	settingLine = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.-]*)\s*[=:]\s*(\S(?:.*\S)?)\s*$`)
	sectionLine = regexp.MustCompile(`^\[([^\]]+)\]\s*$`)
)

// textKinds are the kinds read as written. Their roots hold files that
// no lookup set reads (see excluded).
var textKinds = []textKind{
	{
		layout: "c header",
		roots:  []string{"/usr/include"},
		match:  func(p string) bool { return strings.HasSuffix(p, ".h") },
		facts:  headerFacts,
	},
	{
		layout: "python source",
		roots:  []string{"/root/.pyenv/versions/3.11.7/lib/python3.11"},
		match:  func(p string) bool { return strings.HasSuffix(p, ".py") },
		facts: func(text string, r *rand.Rand) []fact {
			return constFacts(text, pyConst, r)
		},
	},
	{
		layout: "go source",
		roots:  []string{"/usr/local/go/src", "/root/go/pkg/mod"},
		match:  func(p string) bool { return strings.HasSuffix(p, ".go") },
		facts:  goFacts,
	},
	{
		layout: "settings",
		roots:  []string{"/usr/lib/jvm", "/usr/lib/systemd/system", "/etc", "/usr/share/doc"},
		match: func(p string) bool {
			for _, s := range []string{".properties", ".service", ".socket", ".timer", ".conf", ".ini", ".cfg", ".security"} {
				if strings.HasSuffix(p, s) {
					return true
				}
			}
			return false
		},
		facts: settingFacts,
	},
	{
		layout: "yaml as written",
		roots:  []string{"/root/go/pkg/mod", "/usr/local/go/src", "/usr/lib/google-cloud-sdk", "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages"},
		match:  func(p string) bool { return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") },
		facts:  yamlFacts,
	},
	{
		layout: "markdown tables",
		roots:  []string{"/root/go/pkg/mod", "/usr/local/go", "/usr/share/doc", "/usr/lib/node_modules", "/root/.rustup", "/usr/lib/google-cloud-sdk", "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages"},
		match:  func(p string) bool { return strings.HasSuffix(p, ".md") },
		facts:  markdownFacts,
	},
	{
		layout: "package logs",
		roots:  []string{"/var/log"},
		match: func(p string) bool {
			return filepath.Base(p) == "dpkg.log" || filepath.Base(p) == "history.log"
		},
		split: func(text string) []string { return chunks(text, 48<<10) },
		facts: packageLogFacts,
	},
	{
		layout: "man page defaults",
		roots:  []string{"/usr/share/man/man1", "/usr/share/man/man5", "/usr/share/man/man7", "/usr/share/man/man8"},
		perDir: 2000, // few pages state a default
		files:  2400,
		match: func(p string) bool {
			return strings.HasSuffix(p, ".gz") && !strings.Contains(filepath.Base(p), "gcloud")
		},
		facts: manFacts,
	},
	{
		layout: "html tables",
		roots:  []string{"/root/.rustup/toolchains", "/usr/share/doc", "/usr/lib/google-cloud-sdk", "/usr/lib/node_modules", "/root/go/pkg/mod", "/root/.pyenv/versions"},
		match:  func(p string) bool { return strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm") },
		perDir: 40, // few pages hold a table
		files:  4000,
		facts:  htmlFacts,
	},
	{
		layout: "csv as written",
		roots:  []string{"/usr/share", "/root/go/pkg/mod", "/usr/local/go/src"},
		match:  func(p string) bool { return strings.HasSuffix(p, ".csv") },
		facts:  csvFacts,
	},
}

func pickOne(r *rand.Rand, forms ...string) string { return forms[r.IntN(len(forms))] }

// headerFacts reads a C header's #defines of a number or string and its
// enum members given a number.
func headerFacts(text string, r *rand.Rand) []fact {
	var out []fact
	inEnum := false
	for _, l := range strings.Split(text, "\n") {
		if m := defineLine.FindStringSubmatch(l); m != nil {
			out = append(out, fact{form: "define", question: fmt.Sprintf(pickOne(r, "What is %s defined as?", "What is the value of %s?"), m[1]), value: m[2]})
			continue
		}
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "enum") || strings.HasPrefix(t, "typedef enum"):
			inEnum = !strings.Contains(t, ";")
		case inEnum && strings.HasPrefix(t, "}"):
			inEnum = false
		case inEnum:
			if m := enumLine.FindStringSubmatch(l); m != nil {
				out = append(out, fact{form: "enum member", question: fmt.Sprintf(pickOne(r, "What is the value of %s?", "What number is %s?"), m[1]), value: m[2]})
			}
		}
	}
	return out
}

// constFacts reads a source file's constants given a literal.
func constFacts(text string, line *regexp.Regexp, r *rand.Rand) []fact {
	var out []fact
	for _, l := range strings.Split(text, "\n") {
		if m := line.FindStringSubmatch(l); m != nil {
			out = append(out, fact{form: "constant", question: fmt.Sprintf(pickOne(r, "What is %s set to?", "What is the value of %s?", "What is %s?"), m[1]), value: m[2]})
		}
	}
	return out
}

// goFacts reads a Go file's constants given a literal, at the top level
// (a const line, or a line of a const block).
func goFacts(text string, r *rand.Rand) []fact {
	var lines []string
	inBlock := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case l == "const (":
			inBlock = true
		case inBlock && l == ")":
			inBlock = false
		case inBlock && strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "const "):
			lines = append(lines, l)
		}
	}
	return constFacts(strings.Join(lines, "\n"), goConst, r)
}

// settingFacts reads the key=value lines of a properties file, an INI
// file or a systemd unit, with the section each is in. A key given twice
// in one section is no fact (which one counts is the program's rule).
func settingFacts(text string, r *rand.Rand) []fact {
	type at struct{ section, key string }
	seen := map[at]int{}
	var keys []at
	values := map[at]string{}
	section := ""
	for _, l := range strings.Split(text, "\n") {
		if m := sectionLine.FindStringSubmatch(l); m != nil {
			section = strings.TrimSpace(m[1])
			continue
		}
		if strings.HasSuffix(l, "\\") {
			continue // continued on the next line
		}
		m := settingLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		k := at{section, m[1]}
		seen[k]++
		if seen[k] == 1 {
			keys = append(keys, k)
		}
		values[k] = m[2]
	}
	var out []fact
	for _, k := range keys {
		if seen[k] > 1 {
			continue
		}
		if k.section == "" {
			out = append(out, fact{form: "setting", question: fmt.Sprintf(pickOne(r, "What is %s set to?", "What is the %s setting?", "What is %s?"), k.key), value: values[k]})
		} else {
			out = append(out, fact{form: "setting in section", question: fmt.Sprintf(pickOne(r, "What is %s set to in the %s section?", "What is %s in [%s]?"), k.key, k.section), value: values[k]})
		}
	}
	return out
}

// csvFacts reads a CSV file with a header.
func csvFacts(text string, r *rand.Rand) []fact {
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(rows) < 3 {
		return nil
	}
	return tableFacts(rows[0], rows[1:])
}

// tableFacts reads a table: the cell of a column in the row named by the
// first column whose cells are all different names.
func tableFacts(head []string, rows [][]string) []fact {
	name := -1
	for c := range head {
		seen := map[string]bool{}
		ok := true
		for _, row := range rows {
			if c >= len(row) || seen[row[c]] || !nameLike(row[c]) || noLetters(row[c]) {
				ok = false
				break
			}
			seen[row[c]] = true
		}
		if ok {
			name = c
			break
		}
	}
	if name < 0 {
		return nil
	}
	var out []fact
	for _, row := range rows {
		for c, v := range row {
			if c == name || c >= len(head) || !nameLike(head[c]) {
				continue
			}
			out = append(out, fact{form: "column of row", question: fmt.Sprintf("What is the %s of %s?", head[c], row[name]), value: v})
		}
	}
	return out
}

// markdownFacts reads the tables of a Markdown file (a header row, a
// |---| row, rows), each on its own; cells with markup (`code`, links,
// emphasis) are no answers, since how the answer is written is unclear.
func markdownFacts(text string, r *rand.Rand) []fact {
	var out []fact
	lines := strings.Split(text, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "|") || !mdRule.MatchString(lines[i+1]) {
			continue
		}
		head := mdCells(lines[i])
		var rows [][]string
		j := i + 2
		for ; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|"); j++ {
			if cells := mdCells(lines[j]); len(cells) == len(head) {
				rows = append(rows, cells)
			}
		}
		if len(rows) >= 2 {
			for _, f := range tableFacts(head, rows) {
				if !strings.ContainsAny(f.value, "*[]<>_\\") {
					out = append(out, f)
				}
			}
		}
		i = j
	}
	return out
}

var mdRule = regexp.MustCompile(`^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`)

// mdCells are a table row's cells, code spans taken as their text
// (`true` is true).
func mdCells(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
	cells := strings.Split(l, "|")
	for i := range cells {
		c := strings.TrimSpace(cells[i])
		if strings.Count(c, "`") == 2 && strings.HasPrefix(c, "`") && strings.HasSuffix(c, "`") {
			c = c[1 : len(c)-1]
		}
		cells[i] = c
	}
	return cells
}

// yamlFacts reads a YAML file's scalars as written (the text of the
// scalar, not the value a parser makes of it: 1.10 stays 1.10), asked by
// their key paths, and its named lists' fields, as the JSON layouts are.
func yamlFacts(text string, r *rand.Rand) []fact {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil || len(n.Content) == 0 {
		return nil
	}
	v := asWritten(n.Content[0])
	var leaves []leaf
	walk(v, nil, &leaves)
	for _, c := range collections(v, nil) {
		for _, m := range c {
			for _, f := range slices.Sorted(maps.Keys(m.fields)) {
				leaves = append(leaves, leaf{path: []string{f}, owner: m.name, value: m.fields[f]})
			}
		}
		break
	}
	var out []fact
	for _, l := range leaves {
		if form, q, ok := leafQuestion(l, r); ok {
			out = append(out, fact{form: form, question: q, value: l.value})
		}
	}
	return out
}

// asWritten turns a YAML node into maps, slices and strings as written.
func asWritten(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = asWritten(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		var s []any
		for _, c := range n.Content {
			s = append(s, asWritten(c))
		}
		return s
	case yaml.ScalarNode:
		if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return nil // a block of text, not a value
		}
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
			return nil // !REF x: the tag or not, either is the value as written
		}
		return n.Value
	case yaml.AliasNode:
		return nil
	}
	return nil
}

// packageLogFacts reads dpkg's log (install P:arch <none> V, upgrade
// P:arch OLD NEW) and apt's history (Install: P:arch (V), ...): which
// version of a package was installed, or upgraded from and to.
func packageLogFacts(text string, r *rand.Rand) []fact {
	var out []fact
	for _, l := range strings.Split(text, "\n") {
		if m := dpkgAction.FindStringSubmatch(l); m != nil {
			pkg := m[2]
			switch {
			case m[1] == "install" && m[3] == "<none>":
				out = append(out, fact{form: "version installed", question: fmt.Sprintf(pickOne(r, "Which version of %s was installed?", "What version of %s got installed?"), pkg), value: m[4], owner: pkg})
			case m[1] == "upgrade" && r.IntN(2) == 0:
				out = append(out, fact{form: "version upgraded to", question: fmt.Sprintf(pickOne(r, "What version was %s upgraded to?", "To which version was %s upgraded?"), pkg), value: m[4], owner: pkg})
			case m[1] == "upgrade":
				out = append(out, fact{form: "version upgraded from", question: fmt.Sprintf("Which version of %s was upgraded from?", pkg), value: m[3], owner: pkg})
			}
			continue
		}
		if rest, ok := strings.CutPrefix(l, "Install: "); ok {
			for _, m := range aptItem.FindAllStringSubmatch(rest, -1) {
				out = append(out, fact{form: "version apt installed", question: fmt.Sprintf(pickOne(r, "Which version of %s did apt install?", "What version of %s was pulled in?"), m[1]), value: m[2], owner: m[1]})
			}
		}
	}
	return out
}

var (
	dpkgAction = regexp.MustCompile(`^\S+ \S+ (install|upgrade) ([a-z0-9][a-z0-9.+-]+):\w+ (\S+) (\S+)$`)
	aptItem    = regexp.MustCompile(`([a-z0-9][a-z0-9.+-]+):\w+ \(([^,)]+)(?:, automatic)?\)`)
)

// chunks cuts text at line ends into parts of about size bytes.
func chunks(text string, size int) []string {
	var out []string
	for len(text) > size {
		i := strings.IndexByte(text[size:], '\n')
		if i < 0 {
			break
		}
		out = append(out, text[:size+i+1])
		text = text[size+i+1:]
	}
	return append(out, text)
}

// manFacts reads a man page's options (.TP or .IP tags, mdoc's .It) and
// the default each one's paragraph states ("The default is 10.",
// "(default: 5)", "Defaults to yes."), in the page as rendered.
func manFacts(text string, r *rand.Rand) []fact {
	lines := strings.Split(text, "\n")
	var rendered []string
	type para struct {
		option string
		text   []string
	}
	var paras []para
	cur := -1
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, ".TP") || strings.HasPrefix(l, ".IP") && strings.TrimSpace(l) == ".IP":
			if i+1 < len(lines) {
				i++
				paras = append(paras, para{option: optionOf(deroff(lines[i]))})
				cur = len(paras) - 1
				rendered = append(rendered, deroff(lines[i]))
			}
			continue
		case strings.HasPrefix(l, ".It "):
			paras = append(paras, para{option: optionOf(deroff(l))})
			cur = len(paras) - 1
			rendered = append(rendered, deroff(l))
			continue
		case strings.HasPrefix(l, ".SH") || strings.HasPrefix(l, ".Sh") || strings.HasPrefix(l, ".PP") || strings.HasPrefix(l, ".El"):
			cur = -1
		}
		t := deroff(l)
		rendered = append(rendered, t)
		if cur >= 0 && t != "" {
			paras[cur].text = append(paras[cur].text, t)
		}
	}
	all := strings.ToLower(strings.Join(rendered, "\n"))
	tags := map[string]int{}
	for _, p := range paras {
		tags[p.option]++
	}
	var out []fact
	for _, p := range paras {
		if p.option == "" || tags[p.option] > 1 {
			continue // (an option told of twice, as zstd's -B is, has two defaults)
		}
		body := strings.Join(p.text, " ")
		if strings.Count(strings.ToLower(body), "default") != 1 {
			continue // no default, or several: which one is the option's is a reading, not the grammar's
		}
		for _, re := range manDefault {
			m := re.FindStringSubmatch(body)
			if m == nil {
				continue
			}
			v := strings.TrimSpace(m[1])
			if n := len(strings.Fields(v)); n == 0 || n > 4 || len(v) > 40 || strings.ContainsAny(v, "\\`():") || manNotValue.MatchString(v) || strings.Count(all, strings.ToLower(v)) != 1 {
				break
			}
			var also []string
			if first, _, ok := strings.Cut(v, ", "); ok {
				also = append(also, first) // "600, 10 minutes": the value, then restated
			}
			out = append(out, fact{form: "option default", question: fmt.Sprintf(pickOne(r, "What is the default of %s?", "What does %s default to?", "What is the default value for %s?"), p.option), value: v, also: also, told: true})
			break
		}
	}
	return out
}

var (
	// manDefault: a default stated in one to three words that end the
	// sentence, or in parentheses.
	manDefault = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:the default\b(?: [a-z-]+){0,2} is|defaults? (?:to|is)) ([^\s:()]+(?: [^\s:()]+){0,2}?)\.(?:\s|$)`),
		regexp.MustCompile(`(?i)\(default\b\s*(?::|is|=)?\s*([^)]+)\)`),
	}
	// manNotValue: a clause, not a value ("to disable", "that of",
	// "used").
	manNotValue = regexp.MustCompile(`(?i)^(?:to|that|not|the|used|set|whatever|taken|determined|specified|given|based|system|platform|compiled|none of)\b`)
	optionTag   = regexp.MustCompile(`^(-{0,2}[A-Za-z][\w.-]*)`)
	roffEscape  = regexp.MustCompile(`\\f(?:\[[^\]]*\]|\(..|.)|\\\(..|\\[&|^%]|\\s[-+]?\d`)
)

// deroff renders a line of roff as text: requests' arguments kept, fonts
// and escapes dropped, \- as -.
func deroff(l string) string {
	if strings.HasPrefix(l, ".\\\"") || strings.HasPrefix(l, "'\\\"") {
		return "" // a comment
	}
	if strings.HasPrefix(l, ".") {
		req, rest, _ := strings.Cut(l, " ")
		switch req {
		case ".B", ".I", ".BR", ".BI", ".IB", ".IR", ".RB", ".RI", ".It", ".Nm", ".Fl", ".Ar", ".Cm", ".Ic", ".Pa", ".Dq", ".Ql", ".Sy", ".Em", ".Li":
			l = strings.ReplaceAll(rest, "\"", "")
			for _, mac := range []string{"Fl ", "Ar ", "Cm ", "Ic ", "Pa ", "Op ", "Ns ", "Dq ", "Ql "} {
				l = strings.ReplaceAll(l, mac, map[bool]string{true: "-", false: ""}[mac == "Fl "])
			}
		default:
			return ""
		}
	}
	l = strings.ReplaceAll(l, "\\-", "-")
	l = strings.ReplaceAll(l, "\\e", "\\")
	l = roffEscape.ReplaceAllString(l, "")
	return strings.TrimSpace(l)
}

// optionOf is the option or keyword a tag names: -z, --timeout,
// ServerAliveInterval.
func optionOf(tag string) string {
	m := optionTag.FindStringSubmatch(tag)
	if m == nil || len(m[1]) < 2 || len(m[1]) > 40 {
		return ""
	}
	return strings.TrimRight(m[1], ".-")
}

// htmlFacts reads an HTML page's tables: a row of <th> cells, then rows
// of as many <td> cells, each cell's text as a browser shows it.
func htmlFacts(text string, r *rand.Rand) []fact {
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return nil
	}
	var out []fact
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			var head []string
			var rows [][]string
			for _, tr := range elements(n, atom.Tr) {
				var cells []string
				th := false
				for c := tr.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && (c.DataAtom == atom.Th || c.DataAtom == atom.Td) {
						th = th || c.DataAtom == atom.Th
						cells = append(cells, strings.Join(strings.Fields(textOf(c)), " "))
					}
				}
				switch {
				case head == nil && th:
					head = cells
				case head != nil && !th && len(cells) == len(head):
					rows = append(rows, cells)
				}
			}
			if len(rows) >= 2 {
				out = append(out, tableFacts(head, rows)...)
			}
			return // a table inside a table is the outer one's cell
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	// Once in the page as shown (entities read, tags gone): the page as
	// written spells "rv32e" as &quot;rv32e&quot;.
	shown := strings.ToLower(strings.Join(strings.Fields(textOf(doc)), " "))
	kept := out[:0]
	for _, f := range out {
		if strings.Count(shown, strings.ToLower(f.value)) == 1 {
			f.told = true
			kept = append(kept, f)
		}
	}
	return kept
}

// elements are the elements of kind a under n, not under a nested table.
func elements(n *html.Node, a atom.Atom) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch {
		case c.DataAtom == a:
			out = append(out, c)
		case c.DataAtom != atom.Table:
			out = append(out, elements(c, a)...)
		}
	}
	return out
}

// textOf is the text under n.
func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(" " + textOf(c) + " ")
	}
	return b.String()
}

func noLetters(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' })
}

// textProbes builds the questions over one file of kind k, or over each
// of its parts when the kind splits it (a log of months): a part is
// named file#N, and halves are drawn by that name.
func textProbes(k textKind, file string, perFile int, seed uint64) ([]probe, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(file, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, 4<<20)); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	text := string(raw)
	if strings.ContainsRune(text, 0) {
		return nil, fmt.Errorf("%s: binary", file)
	}
	docs, names := []string{text}, []string{file}
	if k.split != nil {
		docs, names = k.split(text), nil
		for i := range docs {
			names = append(names, fmt.Sprintf("%s#%d", file, i+1))
		}
	}
	var out []probe
	for i, doc := range docs {
		h := fnv.New64a()
		h.Write([]byte(names[i]))
		r := rand.New(rand.NewPCG(seed, h.Sum64()))
		lower := strings.ToLower(doc)
		var kept []probe
		for _, f := range k.facts(doc, r) {
			if v := f.value; len(strings.Trim(v, "\"'`")) < 2 || len(v) > 80 || !f.told && !told(lower, strings.ToLower(v), strings.ToLower(f.owner)) {
				continue
			}
			kept = append(kept, probe{file: names[i], layout: k.layout, form: f.form, doc: doc, question: f.question, want: f.value, also: f.also})
		}
		r.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
		out = append(out, kept[:min(perFile, len(kept))]...)
	}
	return out, nil
}

// told reports whether a reading of v from the wrong place cannot count
// as right: v occurs once in doc, or (when the fact has an owner, the
// package a version is of) only on lines that name the owner.
func told(doc, v, owner string) bool {
	if owner == "" {
		return strings.Count(doc, v) == 1
	}
	n := 0
	for _, l := range strings.Split(doc, "\n") {
		if strings.Contains(l, v) {
			if !strings.Contains(l, owner) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// excluded reads the absolute file paths and globs that the lookup sets'
// sources in dir name (devlookups' cases read files of this machine), so
// that the probe reads none of those files. A directory they walk is not
// excluded: it is where files come from, not the facts asked about.
func excluded(dir string) (func(path string) bool, error) {
	srcs, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(srcs) == 0 {
		return nil, fmt.Errorf("no lookup sets' sources in %s", dir)
	}
	lit := regexp.MustCompile(`"(/[^"\s]+)"`)
	var pats []string
	for _, s := range srcs {
		b, err := os.ReadFile(s)
		if err != nil {
			return nil, err
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			if p := m[1]; strings.ContainsAny(p, "*?[") || strings.Contains(filepath.Base(p), ".") {
				pats = append(pats, p)
			}
		}
	}
	return func(path string) bool {
		paths := []string{path}
		if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
			paths = append(paths, real)
		}
		for _, p := range pats {
			for _, path := range paths {
				if ok, _ := filepath.Match(p, path); ok || p == path {
					return true
				}
			}
		}
		return false
	}, nil
}
