package lookup

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// field is one labelled value of a record: a table cell under its column,
// a key's value.
type field struct {
	label string
	value string
	at    int // offset of the value (or its line) in the text
}

// record is one reading of the text around a match: the line, the table
// row with its header, the stanza, the section, the JSON object, the
// sentence. text is what the question's words are matched against.
type record struct {
	kind   string
	text   string
	start  int // offset of text in the document
	fields []field
	// blank are the labels of the record's empty fields: a table's
	// columns this row leaves empty.
	blank []string
	// name is the key a YAML block is under (its fields' labels leave
	// it out), "" for other records.
	name string
}

// lineAt returns the bounds of the line holding offset i.
func lineAt(s string, i int) (int, int) {
	a := strings.LastIndexByte(s[:i], '\n') + 1
	b := strings.IndexByte(s[i:], '\n')
	if b < 0 {
		return a, len(s)
	}
	return a, i + b
}

// prevLine and nextLine step over lines: the bounds of the line before
// the one starting at a, or after the one ending at b; ok false at the
// ends of s.
func prevLine(s string, a int) (int, int, bool) {
	if a <= 0 {
		return 0, 0, false
	}
	e := a - 1
	return strings.LastIndexByte(s[:e], '\n') + 1, e, true
}

func nextLine(s string, b int) (int, int, bool) {
	if b >= len(s) {
		return 0, 0, false
	}
	a := b + 1
	e := strings.IndexByte(s[a:], '\n')
	if e < 0 {
		return a, len(s), true
	}
	return a, a + e, true
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// maxRecordLines bounds how far a record reaches from its match.
const maxRecordLines = 400

// maxShapedLine is the longest line read as a row, a field or a setting.
const maxShapedLine = 4096

// records returns the readings of the text around offset at: the line
// itself, each record shape that holds it (in this order: ties between
// equal scores go to the earlier), and the sentence.
func records(s string, at int, memo *recordMemo) []record {
	a, b := lineAt(s, at)
	readers := []func(s string, a, b int) (record, bool){
		func(s string, a, b int) (record, bool) { return tableRecord(s, a, b, memo) }, fixedRecord, alignedRecord,
		func(s string, a, b int) (record, bool) { return jsonRecord(s, a, b, at, memo) },
		func(s string, a, b int) (record, bool) { return sqlRecord(s, a, b, at, memo) },
		func(s string, a, b int) (record, bool) { return copyRecord(s, a, b, memo) },
		changelogRecord, func(s string, a, b int) (record, bool) { return stanzaRecord(s, a, b, memo) }, iniRecord, yamlRecord, func(s string, a, b int) (record, bool) { return entryRecord(s, a, b, memo) }, settingRecord, listRecord, termRecord, blockRecord,
		func(s string, a, b int) (record, bool) { return sectionRecord(s, a, b, memo) },
		func(s string, a, b int) (record, bool) { return htmlRowRecord(s, at) },
	}
	if b-a > maxShapedLine {
		// A line this long is a JSON object or an SQL statement, not a
		// table row, a field of a stanza or a setting; walking its
		// neighbours as those would cost a pass over megabytes.
		readers = []func(s string, a, b int) (record, bool){
			func(s string, a, b int) (record, bool) { return jsonRecord(s, a, b, at, memo) },
			func(s string, a, b int) (record, bool) { return sqlRecord(s, a, b, at, memo) },
		}
	}
	out := []record{lineRecord(s, a, b)}
	for _, read := range readers {
		if r, ok := read(s, a, b); ok {
			out = append(out, r)
		}
	}
	if memo.jsonLine(s, a, b) && slices.ContainsFunc(out, func(r record) bool { return r.kind == "json" }) {
		// A line that is one JSON object, read as JSON: its pairs read
		// as the line's would lose their parents (node for
		// engines.node).
		out = out[1:]
	}
	return append(out, proseRecord(s, a, b, at))
}

// kvRE finds key: value, key = value, key=value, "key": "value",
// key => value and Markdown's **key:** value on a line; a key may carry a
// tag (GenericName[ru]=).
var kvRE = regexp.MustCompile(`(?:^|[\s,{;(|#*])["']?-{0,2}([\pL_][\pL\pN_.\-]*(?:\[[\pL\pN_@.-]+\])?(?:\s[\pL][\pL\pN_.\-]*){0,3})["']?\*{0,2}\s*(?::|=>|=|:=)\*{0,2}\s*("[^"]*"|'[^']*'|[^\s,;|}{]+(?:\s+[^\s,;|}{#=:]+)*)`)

var tagRE = regexp.MustCompile(`<([A-Za-z][\w:.-]*)([^<>]*)>([^<>]+)</([A-Za-z][\w:.-]*)>`)

// defineRE: #define NAME value, and NAME value in a config file.
var defineRE = regexp.MustCompile(`^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(.+)$`)

// keywords are words of code before a declared name, not names.
var keywords = setOf(`export const var let static final public private protected readonly val constexpr return if else`)

// literalRE is a name declared with a literal in code: Go's const X = 1
// and X Type = "a" (in a const block), Python's X = 'a', C's static
// const int X = 5;, JavaScript's export const X = "a". Of two names
// before '=', one is a type: Go writes it second, C first.
var literalRE = regexp.MustCompile(`^\s*(?:(?:export|const|var|let|static|final|public|private|protected|readonly|val|constexpr)\s+)*(?:([A-Za-z_][\w.]*)\s+)?([A-Za-z_]\w*)\s*(?::\s*[\w.]+\s*)?=\s*(-?(?:0[xX][0-9a-fA-F]+|[0-9][0-9_]*(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)[uUlLfF]*|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`" + `|true|false|True|False|None|nil|null)\s*[;,]?\s*(?:(?://|#|/\*).*)?$`)

var bareKVRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_.-]*)\s+([^\s=:].*)$`)

// archRE is a Debian architecture after a package's name and a colon.
var archRE = regexp.MustCompile(`^(?:amd64|i386|arm64|armhf|armel|mips64el|mipsel|ppc64el|s390x|riscv64|all|any)(?:\s|$)`)

// shellAssignRE is a shell assignment of a variable with a default:
// name=${NAME:-512}, : "${NAME:=512}".
var shellAssignRE = regexp.MustCompile(`^\s*(?:(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=|:\s+)"?\$\{([A-Za-z_]\w*):?[-=]([^}$]*)\}`)

// lineRecord reads the line: its key-value pairs.
func lineRecord(s string, a, b int) record {
	line := s[a:b]
	r := record{kind: "line", text: line, start: a}
	if m := defineRE.FindStringSubmatch(line); m != nil {
		// A macro's definition is one value, whatever its string
		// holds ("platform: BSD-x86").
		r.kind = "define"
		r.fields = append(r.fields, field{m[1], clean(m[2]), a})
		return r
	}
	if m := literalRE.FindStringSubmatchIndex(line); m != nil {
		r.kind = "define"
		v := clean(line[m[6]:m[7]])
		for _, g := range [][2]int{{m[4], m[5]}, {m[2], m[3]}} {
			if g[0] >= 0 && !keywords[line[g[0]:g[1]]] {
				r.fields = append(r.fields, field{line[g[0]:g[1]], v, a + m[6]})
			}
		}
		return r
	}
	// <tag attr="...">value</tag>: the value labelled by the tag and its
	// attributes.
	for _, m := range tagRE.FindAllStringSubmatchIndex(line, -1) {
		if v := clean(line[m[6]:m[7]]); v != "" {
			r.fields = append(r.fields, field{line[m[2]:m[3]] + " " + line[m[4]:m[5]], v, a + m[6]})
		}
	}
	if len(r.fields) > 0 {
		return r
	}
	// A shell variable with a default, name=${NAME:-512}: the
	// default is its value, and no other reading of the line is.
	if m := shellAssignRE.FindStringSubmatchIndex(line); m != nil {
		name := line[m[4]:m[5]] // : "${NAME:=512}"
		if m[2] >= 0 {
			name = line[m[2]:m[3]]
		}
		if v := clean(line[m[6]:m[7]]); v != "" {
			r.fields = append(r.fields, field{name, v, a + m[6]})
		}
		return r
	}
	// Pairs may overlap: "host-7: diskQuota = 67 MiB" is host-7's
	// "diskQuota = 67 MiB" and diskQuota's "67 MiB".
	for pos := 0; pos < len(line); {
		m := kvRE.FindStringSubmatchIndex(line[pos:])
		if m == nil {
			break
		}
		k, v := line[pos+m[2]:pos+m[3]], line[pos+m[4]:pos+m[5]]
		if line[pos+m[4]-1] == ':' && archRE.MatchString(v) {
			// libnspr4:amd64 is a package and its architecture, not a
			// key and its value.
			v = ""
		}
		if ks := pos + m[2]; ks > 0 && line[ks-1] == '-' && placeholder(v) {
			v = "" // --max-http-header-size=size, --pattern-length-limit=<N>: what to give, not a value
		}
		if end := pos + m[5]; end < len(line) && line[end] == '=' && line[pos+m[4]-1] == '=' {
			// KEY=538 DEFAULT CHARSET=binary: pairs parted by spaces,
			// the words before the next '=' its key.
			v, _, _ = strings.Cut(v, " ")
		}
		if i := sentenceEndRE.FindStringIndex(v); i != nil {
			v = v[:i[0]] // "is: 123. The sky is blue."
		}
		if strings.HasPrefix(v, "//") {
			v = "" // a URL's scheme, not a key
		}
		if v = clean(v); v != "" {
			r.fields = append(r.fields, field{k, v, a + pos + m[4]})
		}
		if m[4] > 0 {
			pos += m[4]
		} else {
			pos += m[1]
		}
	}
	// "key: k = v": the rest of the line after the key may itself be a
	// pair; kvRE's value stops at '=' and ':'.
	for _, m := range kvRE.FindAllStringSubmatchIndex(line, -1) {
		rest := line[m[4]:]
		if km := kvRE.FindStringSubmatchIndex(" " + rest); km != nil {
			k, v := (" " + rest)[km[2]:km[3]], clean((" " + rest)[km[4]:km[5]])
			if v != "" && !strings.HasPrefix(v, "//") && !hasPair(r.fields, k, v) {
				r.fields = append(r.fields, field{k, v, a + m[4] + km[4] - 1})
			}
		}
	}
	if len(r.fields) == 0 {
		// "Ingrid Solberg" under a mail is a name, not Ingrid's
		// value.
		if m := bareKVRE.FindStringSubmatch(line); m != nil && len(strings.Fields(line)) <= 4 && !wholeName(line) && !placeholders[strings.TrimSpace(m[2])] {
			r.fields = append(r.fields, field{m[1], clean(m[2]), a})
		}
	}
	return r
}

// wholeName reports whether line is a person's name and nothing more.
func wholeName(line string) bool {
	t := strings.TrimSpace(line)
	loc := nameRE.FindStringIndex(t)
	return loc != nil && loc[0] == 0 && loc[1] == len(t)
}

func hasPair(fs []field, k, v string) bool {
	for _, f := range fs {
		if f.label == k && f.value == v {
			return true
		}
	}
	return false
}

// splitRow splits a table row on sep, honouring CSV quotes.
func splitRow(line, sep string) []string {
	if sep == "|" {
		t := strings.TrimSpace(line)
		t = strings.TrimPrefix(strings.TrimSuffix(t, "|"), "|")
		// A pipe escaped in a cell ("a \| b", as GitHub's tables write
		// one) is the cell's text.
		escaped := strings.Contains(t, `\|`)
		if escaped {
			t = strings.ReplaceAll(t, `\|`, "\x00")
		}
		cells := strings.Split(t, "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
			if escaped {
				cells[i] = strings.ReplaceAll(cells[i], "\x00", "|")
			}
		}
		return cells
	}
	if sep == "," && strings.Contains(line, `"`) {
		var cells []string
		var cur strings.Builder
		q := false
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case c == '"' && q && i+1 < len(line) && line[i+1] == '"':
				cur.WriteByte('"')
				i++
			case c == '"':
				q = !q
			case c == ',' && !q:
				cells = append(cells, cur.String())
				cur.Reset()
			default:
				cur.WriteByte(c)
			}
		}
		return append(cells, cur.String())
	}
	cells := strings.Split(line, sep)
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

var mdRuleRE = regexp.MustCompile(`^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$`)

// maxUnquotedCells bounds the rows whose last column is looked for with
// commas of its own.
const maxUnquotedCells = 40

// tableRecord reads the line as a row of a delimited table (Markdown,
// TSV, CSV, ';' or '|' separated) and labels its cells with the header's
// column names: for Markdown, the row above the |---| rule; otherwise the
// nearest line above, within the lines split the same way, that looks
// like column names and has as many cells (CSV rows may leave trailing
// fields out), so that a table is found anywhere in a document and
// tables laid end to end keep their own headers.
func tableRecord(s string, a, b int, memo *recordMemo) (record, bool) {
	line := s[a:b]
	var sep string
	switch {
	case strings.Count(line, "|") >= 2:
		sep = "|"
	case strings.Count(line, "\t") >= 1:
		sep = "\t"
	case strings.Count(line, ",") >= 1 && !jsonLine(line) && !optionList(strings.TrimSpace(line)):
		sep = "," // (a JSON line's commas part no cells, nor a man page's "-w, --wrap")
	case strings.Count(line, ";") >= 2:
		sep = ";"
	default:
		return record{}, false
	}
	cells := splitRow(line, sep)
	n := len(cells)
	if n < 2 {
		return record{}, false
	}
	var header []string
	var ha, hb int
	if sep == "|" {
		for pa, i := a, 0; i < 20000; i++ {
			qa, qb, ok := prevLine(s, pa)
			if !ok {
				break
			}
			if pl := s[qa:qb]; mdRuleRE.MatchString(pl) {
				if ra, rb, ok := prevLine(s, qa); ok {
					header, ha, hb = splitRow(s[ra:rb], sep), ra, rb
				}
				break
			} else if !strings.Contains(pl, "|") {
				break
			}
			pa = qa
		}
	} else if h, ok := memo.head(s, a, sep, headState{n: n}); ok {
		header, ha, hb = h.cells, h.a, h.b
	} else if sep == "," && n <= maxUnquotedCells {
		// A last column with commas of its own, unquoted
		// ("Geodatastyrelsen Grønland, Greenland"): the header has
		// fewer cells, and the row's last ones are one.
		for m := n - 1; m >= max(2, n-2); m-- {
			if h, ok := memo.head(s, a, sep, headState{n: m}); ok && len(h.cells) == m {
				header, ha, hb = h.cells, h.a, h.b
				cells = append(cells[:m-1], strings.Join(cells[m-1:], ", "))
				n = m
				break
			}
		}
	}
	if header == nil || len(header) < n {
		return record{}, false
	}
	r := record{kind: "table", text: s[ha:hb] + "\n" + line, start: a}
	for i, c := range cells {
		label := strings.TrimSpace(strings.TrimLeft(header[i], "#"))
		if c = clean(c); c != "" {
			r.fields = append(r.fields, field{label, c, a})
		} else {
			r.blank = append(r.blank, label)
		}
	}
	return r, true
}

// maxHTMLRow and maxHTMLTable bound how far htmlRowRecord looks for the
// row around a match and for its table's header row.
const (
	maxHTMLRow   = 8 << 10
	maxHTMLTable = 256 << 10
)

var (
	htmlCellRE = regexp.MustCompile(`(?is)<t([hd])\b[^>]*>(.*?)</t[hd]\s*>`)
	htmlTagRE  = regexp.MustCompile(`(?s)<[^>]*>`)
)

// htmlRowRecord reads the HTML table row (<tr>) around offset at as a
// table row under its table's header row (the first row of <th> cells):
// each cell's text as a browser shows it, labelled by its column.
func htmlRowRecord(s string, at int) (record, bool) {
	near := s[max(0, at-400):min(len(s), at+400)]
	if indexFold(near, "<td") < 0 && indexFold(near, "<th") < 0 {
		return record{}, false // not in a table's cell (most text is not HTML)
	}
	lo := max(0, at-maxHTMLRow)
	ra := lastIndexFold(s[lo:at], "<tr")
	if ra < 0 {
		return record{}, false
	}
	ra += lo
	re := indexFold(s[at:min(len(s), at+maxHTMLRow)], "</tr")
	if re < 0 || indexFold(s[ra:at], "</tr") >= 0 {
		return record{}, false
	}
	re += at
	tlo := max(0, ra-maxHTMLTable)
	ta := lastIndexFold(s[tlo:ra], "<table")
	if ta < 0 || indexFold(s[tlo+ta:ra], "</table") >= 0 {
		return record{}, false
	}
	ta += tlo
	head, _ := htmlCells(s, ta, ra)
	if !head.th {
		return record{}, false // no header row, or the row is the header
	}
	row, offs := htmlCells(s, ra, re)
	if row.th || len(row.cells) != len(head.cells) || len(row.cells) < 2 {
		return record{}, false
	}
	r := record{kind: "table", text: strings.Join(head.cells, " | ") + "\n" + strings.Join(row.cells, " | "), start: ra}
	for i, c := range row.cells {
		if c != "" {
			r.fields = append(r.fields, field{head.cells[i], c, offs[i]})
		} else {
			r.blank = append(r.blank, head.cells[i])
		}
	}
	return r, len(r.fields) > 0
}

type htmlRow struct {
	cells []string
	th    bool // a header row: its cells are <th>
}

// htmlCells reads the cells of the first row in s[a:b] that has any, with
// the offset of each cell's text.
func htmlCells(s string, a, b int) (htmlRow, []int) {
	var row htmlRow
	var offs []int
	end := b
	if i := indexFold(s[a:b], "</tr"); i >= 0 {
		end = a + i // the first row only
	}
	for _, m := range htmlCellRE.FindAllStringSubmatchIndex(s[a:end], -1) {
		row.th = row.th || s[a+m[2]] == 'h' || s[a+m[2]] == 'H'
		row.cells = append(row.cells, strings.Join(strings.Fields(html.UnescapeString(htmlTagRE.ReplaceAllString(s[a+m[4]:a+m[5]], " "))), " "))
		offs = append(offs, a+m[4])
	}
	return row, offs
}

// indexFold and lastIndexFold are strings.Index and strings.LastIndex of
// a tag, sub, ignoring case: only where sub's first byte ('<') is.
func indexFold(s, sub string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], sub[0])
		if j < 0 {
			return -1
		}
		if j += i; j+len(sub) <= len(s) && strings.EqualFold(s[j:j+len(sub)], sub) {
			return j
		}
		i = j + 1
	}
}

func lastIndexFold(s, sub string) int {
	for i := len(s); ; {
		j := strings.LastIndexByte(s[:i], sub[0])
		if j < 0 {
			return -1
		}
		if j+len(sub) <= len(s) && strings.EqualFold(s[j:j+len(sub)], sub) {
			return j
		}
		i = j
	}
}

// jsonLine reports whether line is a JSON object or array.
func jsonLine(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

// headState is the search for a table's header partway up: before a
// header is found, rows of n cells are looked for; after, rows as long
// as the header (have).
type headState struct {
	n    int
	have bool
}

// head is a header line found: its cells and bounds.
type head struct {
	cells []string
	a, b  int
}

// recordMemo remembers what reading the records around one anchor found
// that the records around other anchors share: a table's header, by line
// and search state (the rows of one table share one walk up to it), and
// an indented entry, by its head line (parsed once).
// createTable is a CREATE TABLE statement: where it is, the table and
// its columns.
type createTable struct {
	at    int
	table string
	cols  []string
}

// creates returns the text's CREATE TABLE statements in order, read once
// per lookup (a dump's every INSERT line looks for its table's).
func (m *recordMemo) creates(s string) []createTable {
	if m.createsRead {
		return m.createList
	}
	m.createsRead = true
	for _, loc := range createRE.FindAllStringSubmatchIndex(s, -1) {
		c := createTable{at: loc[0], table: strings.Trim(s[loc[2]:loc[3]], "`\"")}
		for _, d := range strings.Split(s[loc[4]:loc[5]], "\n") {
			d = strings.TrimSpace(d)
			if f := strings.Fields(d); len(f) > 0 && !strings.HasPrefix(strings.ToUpper(d), "PRIMARY") &&
				!strings.HasPrefix(strings.ToUpper(d), "KEY") && !strings.HasPrefix(strings.ToUpper(d), "CONSTRAINT") &&
				!strings.HasPrefix(strings.ToUpper(d), "UNIQUE") {
				c.cols = append(c.cols, strings.Trim(f[0], "`\","))
			}
		}
		m.createList = append(m.createList, c)
	}
	return m.createList
}

// copies returns where the text's COPY lines and its "\." lines start.
func (m *recordMemo) copies(s string) (heads, ends []int) {
	if !m.copiesRead {
		m.copiesRead = true
		for at := 0; ; {
			i := strings.Index(s[at:], "COPY ")
			if i < 0 {
				break
			}
			if at+i == 0 || s[at+i-1] == '\n' {
				m.copyHeads = append(m.copyHeads, at+i)
			}
			at += i + 5
		}
		if len(m.copyHeads) > 0 {
			for at := m.copyHeads[0]; ; {
				i := strings.Index(s[at:], "\n\\.\n")
				if i < 0 {
					break
				}
				m.copyEnds = append(m.copyEnds, at+i+1)
				at += i + 3
			}
		}
	}
	return m.copyHeads, m.copyEnds
}

type recordMemo struct {
	createList  []createTable
	createsRead bool
	// copyHeads and copyEnds are where a dump's COPY blocks start and
	// end ("\."), read once.
	copyHeads, copyEnds []int
	copiesRead          bool
	found               map[headKey]head
	none                map[headKey]bool
	entries             map[int]record
	sections            map[int]record // by heading offset; a zero record: none
	// jsonObjects are the objects of a JSON value, by the offset it
	// starts at (a line's or the document's); jsonRecords the readings
	// of those objects, by their starts.
	jsonObjects map[int][]span
	jsonRecords map[int]record
	// roots are jsonRoots', read once.
	roots     []int
	rootsRead bool
	// mails are the messages read around a mail's body paragraphs, by
	// the paragraph's start; a zero record: none.
	mails map[int]record
}

// span is the bounds of a JSON object in the text, and the keys it is
// found under, dotted (spec.template, "" for the value's own object).
type span struct {
	start, end int
	path       string
}

type headKey struct {
	line int
	sep  string
	st   headState
}

func newRecordMemo() *recordMemo {
	return &recordMemo{found: map[headKey]head{}, none: map[headKey]bool{}, entries: map[int]record{},
		jsonObjects: map[int][]span{}, jsonRecords: map[int]record{}, mails: map[int]record{}}
}

// head finds the header of the table row at line a: the topmost line
// above it, within the lines split by sep the same way, that looks like
// column names (CSV rows may leave trailing fields out); a row with more
// cells than the header ends the table above. A row of words
// ("kaul,quinga,ok") may look like column names too, hence the topmost.
func (m *recordMemo) head(s string, a int, sep string, st headState) (head, bool) {
	type step struct {
		key     headKey
		matched *head
	}
	var path []step
	var res head
	found := false
	pa := a
	for {
		qa, qb, ok := prevLine(s, pa)
		key := headKey{qa, sep, st}
		if !ok {
			break
		}
		if h, ok := m.found[key]; ok {
			res, found = h, true
			break
		}
		if m.none[key] {
			break
		}
		pl := s[qa:qb]
		if blank(pl) && !st.have {
			// A table goes on over a blank line or two when the row
			// above them is split as this one is (files joined, or
			// one file cut in parts, part their rows so).
			ra, rb, ok := qa, qb, true
			for i := 0; ok && i < 2 && blank(s[ra:rb]); i++ {
				ra, rb, ok = prevLine(s, ra)
			}
			if ok && !blank(s[ra:rb]) && strings.Contains(s[ra:rb], sep) && len(splitRow(s[ra:rb], sep)) == st.n {
				pa = rb + 1
				continue
			}
		}
		if blank(pl) || !strings.Contains(pl, sep) {
			break
		}
		h := splitRow(pl, sep)
		k := len(h)
		if st.have && k > st.n {
			break
		}
		var matched *head
		if !st.have && k >= st.n && k <= st.n+4 && (k == st.n || sep == ",") && headerLike(h) ||
			st.have && k == st.n && headerLike(h) {
			matched = &head{h, qa, qb}
		}
		path = append(path, step{key, matched})
		if matched != nil {
			st = headState{n: k, have: true}
		}
		pa = qa
	}
	for i := len(path) - 1; i >= 0; i-- {
		if p := path[i]; p.matched != nil && !found {
			res, found = *p.matched, true
		}
		if found {
			m.found[path[i].key] = res
		} else {
			m.none[path[i].key] = true
		}
	}
	return res, found
}

// headerLike reports whether cells look like column names: no empty
// cell, none a number or a date, none long, none a sentence (a comment
// line with a comma in it is no header).
func headerLike(cells []string) bool {
	if !slices.ContainsFunc(cells, func(c string) bool { return !strings.HasPrefix(strings.TrimSpace(c), "-") }) {
		return false // a man page's options, "-i, --ignore-garbage"
	}
	for _, c := range cells {
		c = strings.Trim(strings.TrimSpace(c), "#\"'`")
		if c == "" || len(c) > 160 || utf8.RuneCountInString(c) > 40 || hasDigit(c) && (isNumber(c) || dateRE.MatchString(c)) ||
			strings.HasPrefix(c, "//") || strings.HasSuffix(c, ".") && strings.Count(c, " ") >= 2 {
			return false
		}
	}
	return true
}

// fullRuleRE is a rule of dashes or equals signs across a page, not
// parted into columns.
var fullRuleRE = regexp.MustCompile(`^\s*(?:-{10,}|={10,})\s*$`)

// cellsRE finds the cells of a fixed-width line: runs of text parted by
// two or more spaces.
var cellsRE = regexp.MustCompile(`\S+(?: \S+)*`)

// alignedRecord reads line a..b as a row of a table laid out with spaces
// and no rule: the heads are the nearest line above (past blank lines and
// commented rows) whose cells, parted by two or more spaces, are words
// that start where the row's cells start ("#<domain>  <type>  <item>
// <value>" over "@builders  hard  nofile  65536").
func alignedRecord(s string, a, b int) (record, bool) {
	row := s[a:b]
	if !strings.Contains(row, "  ") {
		return record{}, false
	}
	rc := cellsRE.FindAllStringIndex(row, -1)
	if len(rc) < 3 {
		return record{}, false
	}
	pa := a
	for i := 0; i < 40; i++ {
		qa, qb, ok := prevLine(s, pa)
		if !ok {
			break
		}
		pa = qa
		l := s[qa:qb]
		if blank(commentRE.ReplaceAllString(l, "")) {
			continue
		}
		// The comment marker is a column: "#<domain>" starts at 0.
		head := strings.Replace(l, "#", " ", 1)
		hc := cellsRE.FindAllStringIndex(head, -1)
		if len(hc) != len(rc) {
			continue
		}
		cells := make([]string, len(hc))
		aligned := 0
		for j, h := range hc {
			cells[j] = strings.Trim(head[h[0]:h[1]], "<> ")
			if d := h[0] - rc[j][0]; d >= -2 && d <= 2 {
				aligned++
			}
		}
		if aligned < len(hc)-1 || !headerLike(cells) || !allNames(cells) {
			continue // not aligned, or a commented row ("#ftp  -  chroot  /ftp")
		}
		r := record{kind: "fixed", text: l + "\n" + row, start: a}
		for j, c := range rc {
			r.fields = append(r.fields, field{cells[j], clean(row[c[0]:c[1]]), a + c[0]})
		}
		return r, true
	}
	return record{}, false
}

// columnNameRE is a column's name: a word, maybe several.
var columnNameRE = regexp.MustCompile(`^[\pL][\pL\pN_ .()-]*$`)

func allNames(cells []string) bool {
	for _, c := range cells {
		if !columnNameRE.MatchString(c) {
			return false
		}
	}
	return true
}

// spacedRecord reads line a..b as a row under the column heads of line
// ha..hb, both laid out in columns parted by two or more spaces: each
// cell of the row goes under the head it overlaps most (a number is
// right-aligned under its head, a cell may be empty).
func spacedRecord(s string, ha, hb, a, b int) (record, bool) {
	head, line := []rune(s[ha:hb]), []rune(s[a:b])
	heads := cellsRE.FindAllStringIndex(string(head), -1)
	if len(heads) < 2 {
		return record{}, false
	}
	// In runes: the heads' starts, each head's column up to the next.
	hs := make([][2]int, len(heads))
	for i, h := range heads {
		hs[i][0] = utf8.RuneCountInString(string(head)[:h[0]])
	}
	for i := range hs {
		hs[i][1] = 1 << 30
		if i+1 < len(hs) {
			hs[i][1] = hs[i+1][0]
		}
	}
	r := record{kind: "fixed", text: s[ha:hb] + "\n" + s[a:b], start: a}
	for _, c := range cellsRE.FindAllStringIndex(string(line), -1) {
		cs := utf8.RuneCountInString(string(line)[:c[0]])
		ce := cs + utf8.RuneCountInString(string(line)[c[0]:c[1]])
		best, most := -1, 0
		for i, h := range hs {
			if o := min(ce, h[1]) - max(cs, h[0]); o > most {
				best, most = i, o
			}
		}
		if best < 0 {
			continue
		}
		label := strings.TrimSpace(string(head)[heads[best][0]:heads[best][1]])
		r.fields = append(r.fields, field{label, clean(string(line)[c[0]:c[1]]), a + c[0]})
	}
	return r, len(r.fields) > 1
}

var ruleRE = regexp.MustCompile(`^\s*-{3,}(?:\s+-{2,})+\s*$`)

// fixedRecord reads the line as a row of a fixed-width report: the column
// heads are the line above a rule of dashes (---- ----- ---), and the
// columns are where the rule's dashes are.
func fixedRecord(s string, a, b int) (record, bool) {
	pa := a
	for i := 0; i < 200; i++ {
		qa, qb, ok := prevLine(s, pa)
		if !ok {
			return record{}, false
		}
		if fullRuleRE.MatchString(s[qa:qb]) {
			// One rule across the page: the columns are the heads'.
			if ha, hb, ok := prevLine(s, qa); ok && !blank(s[ha:hb]) {
				return spacedRecord(s, ha, hb, a, b)
			}
			return record{}, false
		}
		if ruleRE.MatchString(s[qa:qb]) {
			ha, hb, ok := prevLine(s, qa)
			if !ok {
				return record{}, false
			}
			rule, head, line := []rune(s[qa:qb]), []rune(s[ha:hb]), []rune(s[a:b])
			var cols [][2]int
			for j := 0; j < len(rule); {
				if rule[j] != '-' {
					j++
					continue
				}
				k := j
				for k < len(rule) && rule[k] == '-' {
					k++
				}
				cols = append(cols, [2]int{j, k})
				j = k
			}
			r := record{kind: "fixed", text: s[ha:hb] + "\n" + s[a:b], start: a}
			for c, col := range cols {
				end := len(line)
				if c+1 < len(cols) {
					end = min(len(line), cols[c+1][0])
				}
				if col[0] >= len(line) {
					break
				}
				v := strings.TrimSpace(string(line[col[0]:end]))
				hEnd := len(head)
				if c+1 < len(cols) {
					hEnd = min(len(head), cols[c+1][0])
				}
				h := ""
				if col[0] < len(head) {
					h = strings.TrimSpace(string(head[col[0]:hEnd]))
				}
				if v != "" && h != "" {
					r.fields = append(r.fields, field{h, v, a})
				}
			}
			return r, len(r.fields) > 1
		}
		if blank(s[qa:qb]) || strings.ContainsRune(s[qa:qb], '\f') {
			return record{}, false
		}
		pa = qa
	}
	return record{}, false
}

// jsonRecord reads the JSON object around offset at (one line of JSON
// lines, or an object of a pretty-printed document), its fields flattened
// to dotted keys.
//
// When the line a..b, or else the whole text, starts a JSON value, the
// objects are found by reading that value from its start, once per
// lookup, so that an object of any length is found and a brace or quote
// inside a string is read as the string's; else by walking back from at.
func jsonRecord(s string, a, b, at int, memo *recordMemo) (record, bool) {
	roots := memo.jsonRoots(s)
	if l := strings.TrimLeft(s[a:b], " \t"); strings.HasPrefix(l, "{") || strings.HasPrefix(l, "[") {
		roots = []int{b - len(l)} // a line of JSON lines
	}
	// The value that holds at starts at the last root before it that
	// is JSON (a few tries: a Markdown link also starts with "[").
	i := sort.SearchInts(roots, at+1) - 1
	for tries := 0; i >= 0 && tries < 8; i, tries = i-1, tries+1 {
		objs := memo.objectsAt(s, roots[i])
		if objs == nil {
			continue
		}
		sp, ok := innermost(objs, at)
		if !ok {
			break
		}
		if r, ok := memo.jsonRecords[sp.start]; ok {
			return r, r.kind != ""
		}
		r, ok := jsonObject(s, sp)
		memo.jsonRecords[sp.start] = r
		return r, ok
	}
	return jsonRecordBack(s, at)
}

// jsonRoots returns where the text's lines that start with "{" or "["
// at their first column begin (and where the text's first such character
// is, after blanks): where a JSON document, or one embedded in other
// text, may start. Read once per lookup.
func (m *recordMemo) jsonRoots(s string) []int {
	if m.rootsRead {
		return m.roots
	}
	m.rootsRead = true
	if d := strings.TrimLeft(s, " \t\r\n"); strings.HasPrefix(d, "{") || strings.HasPrefix(d, "[") {
		m.roots = append(m.roots, len(s)-len(d))
	}
	for at := 0; ; {
		i := strings.IndexByte(s[at:], '\n')
		if i < 0 {
			break
		}
		at += i + 1
		if at < len(s) && (s[at] == '{' || s[at] == '[') && (len(m.roots) == 0 || m.roots[len(m.roots)-1] != at) {
			m.roots = append(m.roots, at)
		}
	}
	return m.roots
}

// jsonLine reports whether line a..b is one JSON object.
func (m *recordMemo) jsonLine(s string, a, b int) bool {
	l := strings.TrimSpace(s[a:b])
	if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") {
		return false
	}
	root := a + strings.Index(s[a:b], "{")
	objs := m.objectsAt(s, root)
	return len(objs) > 0 && objs[0].start == root && objs[0].end == root+len(l)
}

// lineObjectAt returns where the innermost object that holds offset at
// starts, when line a..b is one JSON value.
func (m *recordMemo) lineObjectAt(s string, a, b, at int) (int, bool) {
	l := strings.TrimLeft(s[a:b], " \t")
	if !strings.HasPrefix(l, "{") && !strings.HasPrefix(l, "[") {
		return 0, false
	}
	root := b - len(l)
	objs := m.objectsAt(s, root)
	sp, ok := innermost(objs, at)
	return sp.start, ok
}

// objectsAt is jsonObjectsAt, read once per root.
func (m *recordMemo) objectsAt(s string, root int) []span {
	objs, ok := m.jsonObjects[root]
	if !ok {
		objs = jsonObjectsAt(s, root)
		m.jsonObjects[root] = objs
	}
	return objs
}

// maxJSONObject bounds the object read as one record.
const maxJSONObject = 1 << 20

// jsonObjectsAt returns the objects of the JSON value that starts at
// root, sorted by start, each with the keys it is found under; nil when
// the text there is not JSON (a bracket left open, a stray closing one).
func jsonObjectsAt(s string, root int) []span {
	type open struct {
		at   int
		obj  bool
		path string // the keys above and its own, dotted
	}
	var objs []span
	var stack []open
	inStr, strAt, key := false, 0, ""
	for i := root; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
				if len(stack) > 0 && stack[len(stack)-1].obj {
					if j := strings.IndexFunc(s[i+1:], func(r rune) bool { return !unicode.IsSpace(r) }); j >= 0 && s[i+1+j] == ':' {
						key = s[strAt+1 : i]
					}
				}
			}
			continue
		}
		if i > root && s[i-1] == '\n' && !strings.ContainsRune("{}[]\",-0123456789tfn \t\r\n", rune(c)) {
			// A line that starts with what no JSON line can: the text
			// around a brace (code, a Markdown link), not JSON.
			return nil
		}
		switch c {
		case '"':
			inStr, strAt = true, i
		case '{', '[':
			path := ""
			if n := len(stack); n > 0 {
				path = stack[n-1].path
				if stack[n-1].obj && key != "" {
					path = strings.TrimPrefix(path+"."+key, ".")
				}
			}
			stack = append(stack, open{i, c == '{', path})
			key = ""
		case '}', ']':
			n := len(stack)
			if n == 0 || stack[n-1].obj != (c == '}') {
				return nil
			}
			if c == '}' {
				objs = append(objs, span{stack[n-1].at, i + 1, stack[n-1].path})
			}
			stack = stack[:n-1]
			if len(stack) == 0 {
				sort.Slice(objs, func(i, j int) bool { return objs[i].start < objs[j].start })
				return objs
			}
		case ',':
			key = ""
		}
	}
	return nil
}

// innermost returns the innermost of objs (sorted by start) that holds
// offset at.
func innermost(objs []span, at int) (span, bool) {
	i := sort.Search(len(objs), func(i int) bool { return objs[i].start > at }) - 1
	for ; i >= 0; i-- {
		if objs[i].end > at {
			return objs[i], true
		}
	}
	return span{}, false
}

// jsonRecordBack reads the JSON object around offset at by walking back
// from it to the brace that opens it, within reach.
func jsonRecordBack(s string, at int) (record, bool) {
	const reach = 4096
	depth := 0
	start := -1
	inStr := false
	for i := at; i >= max(0, at-reach); i-- {
		c := s[i]
		if c == '"' && (i == 0 || s[i-1] != '\\') {
			inStr = !inStr
		}
		if inStr && i != at {
			continue
		}
		if c == '}' && i != at {
			depth++
		}
		if c == '{' {
			if depth == 0 {
				start = i
				break
			}
			depth--
		}
	}
	if start < 0 {
		return record{}, false
	}
	dec := json.NewDecoder(strings.NewReader(s[start:min(len(s), start+4*reach)]))
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return record{}, false
	}
	end := start + int(dec.InputOffset())
	if end < at {
		return record{}, false
	}
	return jsonFields(s, start, end, v, "")
}

// jsonObject reads the object at sp: its fields are labelled by the keys
// above it too, and its text starts with them, as a YAML block's (the
// title of definitions.parameter is "definitions.parameter.title", not
// the document's title).
func jsonObject(s string, sp span) (record, bool) {
	if sp.end-sp.start > maxJSONObject {
		return record{}, false
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(s[sp.start:sp.end]), &v); err != nil {
		return record{}, false
	}
	r, ok := jsonFields(s, sp.start, sp.end, v, sp.path)
	if sp.path != "" {
		r.text = strings.ReplaceAll(sp.path, ".", " ") + "\n" + r.text
	}
	return r, ok
}

// jsonFields is the record of object v, read from s[start:end]: its
// fields flattened to dotted keys, under path.
func jsonFields(s string, start, end int, v map[string]any, path string) (record, bool) {
	r := record{kind: "json", text: s[start:end], start: start}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		switch x := x.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, x[k])
			}
		case []any:
			for _, e := range x {
				walk(prefix, e)
			}
		case nil:
		case string:
			r.fields = append(r.fields, field{prefix, x, start})
		default:
			r.fields = append(r.fields, field{prefix, fmt.Sprint(x), start})
		}
	}
	walk(path, v)
	return r, len(r.fields) > 0
}

var (
	insertRE = regexp.MustCompile(`(?i)^\s*INSERT\s+INTO\s+([\w."` + "`" + `]+)\s*(?:\(([^)]*)\))?\s*VALUES\s*`)
	createRE = regexp.MustCompile(`(?is)CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w."` + "`" + `]+)\s*\((.*?)\n\)`)
)

// sqlRecord reads an INSERT statement's row that holds offset at, its
// values labelled by the statement's column list or the table's CREATE
// TABLE.
func sqlRecord(s string, a, b, at int, memo *recordMemo) (record, bool) {
	line := s[a:b]
	m := insertRE.FindStringSubmatchIndex(line)
	if m == nil {
		return record{}, false
	}
	table := strings.Trim(line[m[2]:m[3]], "`\"")
	var cols []string
	if m[4] >= 0 {
		for _, c := range strings.Split(line[m[4]:m[5]], ",") {
			cols = append(cols, strings.Trim(strings.TrimSpace(c), "`\""))
		}
	} else {
		// The columns of the table's last CREATE TABLE above the row.
		for _, c := range memo.creates(s) {
			if c.at >= a {
				break
			}
			if c.table == table {
				cols = c.cols
			}
		}
	}
	// The tuples after VALUES; the one holding at.
	rest := line[m[1]:]
	off := a + m[1]
	var tuple []string
	for i := 0; i < len(rest); {
		if rest[i] != '(' {
			i++
			continue
		}
		vals, n := sqlTuple(rest[i:])
		if n == 0 {
			break
		}
		if off+i <= at && at <= off+i+n || tuple == nil {
			tuple = vals
		}
		if off+i <= at && at <= off+i+n {
			break
		}
		i += n
	}
	if tuple == nil || len(cols) != len(tuple) {
		return record{}, false
	}
	r := record{kind: "sql", text: table + " " + strings.Join(cols, " ") + "\n" + line, start: a}
	for i, v := range tuple {
		if v != "" && !strings.EqualFold(v, "NULL") {
			r.fields = append(r.fields, field{cols[i], v, a})
		}
	}
	return r, true
}

// copyRE is the head of a PostgreSQL dump's COPY block: its rows follow,
// one a line, their columns parted by tabs, up to a line "\.".
var copyRE = regexp.MustCompile(`(?m)^COPY\s+([\w."]+)\s*\(([^)]*)\)\s+FROM\s+stdin;$`)

// copyRecord reads a row of a COPY block, its values labelled by the
// COPY line's columns.
func copyRecord(s string, a, b int, memo *recordMemo) (record, bool) {
	line := s[a:b]
	if !strings.Contains(line, "\t") {
		return record{}, false
	}
	// The block's head: the last COPY line above, with no block's end
	// ("\.") between.
	heads, ends := memo.copies(s)
	i := sort.SearchInts(heads, a) - 1
	if i < 0 {
		return record{}, false
	}
	if j := sort.SearchInts(ends, heads[i]); j < len(ends) && ends[j] < a {
		return record{}, false
	}
	ha := heads[i]
	_, hb := lineAt(s, ha)
	m := copyRE.FindStringSubmatch(s[ha:hb])
	if m == nil {
		return record{}, false
	}
	var cols []string
	for _, c := range strings.Split(m[2], ",") {
		cols = append(cols, strings.Trim(strings.TrimSpace(c), `"`))
	}
	vals := strings.Split(line, "\t")
	if len(vals) != len(cols) {
		return record{}, false
	}
	r := record{kind: "sql", text: m[1] + " " + strings.Join(cols, " ") + "\n" + line, start: a}
	off := a
	for i, v := range vals {
		if v != "" && v != `\N` {
			r.fields = append(r.fields, field{cols[i], v, off})
		}
		off += len(v) + 1
	}
	return r, true
}

// sqlTuple parses "('a', 1, NULL)" at the start of s: the values and the
// tuple's length in bytes.
func sqlTuple(s string) ([]string, int) {
	var vals []string
	var cur strings.Builder
	q := false
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case q && c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case c == '\'':
			q = !q
		case !q && c == ',':
			vals = append(vals, strings.TrimSpace(cur.String()))
			cur.Reset()
		case !q && c == ')':
			return append(vals, strings.TrimSpace(cur.String())), i + 1
		default:
			cur.WriteByte(c)
		}
	}
	return nil, 0
}

var (
	clHeadRE    = regexp.MustCompile(`^([a-z0-9][a-z0-9+.-]+) \(([^)\s]+)\) ([^;]+);\s*(.*)$`)
	clTrailerRE = regexp.MustCompile(`^ -- (.+?) <([^>]+)>\s+(.+)$`)
)

// changelogRecord reads a Debian changelog entry: "pkg (version) dist;
// urgency=..." through " -- Name <mail>  date".
func changelogRecord(s string, a, b int) (record, bool) {
	ha, hb := a, b
	for i := 0; i < maxRecordLines && !clHeadRE.MatchString(s[ha:hb]); i++ {
		var ok bool
		if ha, hb, ok = prevLine(s, ha); !ok || clTrailerRE.MatchString(s[ha:hb]) && ha != a {
			return record{}, false
		}
	}
	h := clHeadRE.FindStringSubmatch(s[ha:hb])
	if h == nil {
		return record{}, false
	}
	ta, tb := ha, hb
	for i := 0; i < maxRecordLines && !clTrailerRE.MatchString(s[ta:tb]); i++ {
		var ok bool
		if ta, tb, ok = nextLine(s, tb); !ok || ta != ha && clHeadRE.MatchString(s[ta:tb]) {
			return record{}, false
		}
	}
	t := clTrailerRE.FindStringSubmatch(s[ta:tb])
	if t == nil || tb < b {
		return record{}, false
	}
	// In an entry of several hands, "[ Name ]" heads the changes Name
	// made; the trailer names who uploaded them.
	uploader := "maintainer uploader signed by changed by"
	var author *field
	for qa, qb := a, b; qa > ha; {
		if m := clAuthorRE.FindStringSubmatch(s[qa:qb]); m != nil {
			author = &field{"author changed by added by fixed by made by", m[1], qa}
			uploader = "maintainer uploader signed by"
			break
		}
		var ok bool
		if qa, qb, ok = prevLine(s, qa); !ok {
			break
		}
	}
	r := record{kind: "changelog", text: s[ha:tb], start: ha, fields: []field{
		{"package", h[1], ha}, {"version", h[2], ha}, {"distribution", h[3], ha},
		{uploader, t[1] + " <" + t[2] + ">", ta},
		{"date uploaded released", strings.TrimSpace(t[3]), ta},
	}}
	if author != nil {
		r.fields = append(r.fields, *author)
	}
	if u := strings.TrimPrefix(h[4], "urgency="); u != h[4] {
		r.fields = append(r.fields, field{"urgency", u, ha})
	}
	return r, true
}

// clAuthorRE heads a changelog entry's changes by one of its hands:
// "  [ Émilie Fournier ]".
var clAuthorRE = regexp.MustCompile(`^\s+\[ ([^\]\[]+?) \]\s*$`)

var stanzaLineRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+){0,2}):[ \t]+(\S.*)$`)

// stanzaRecord reads the paragraph of "Field: value" lines around the line
// (an RFC 822 stanza: a package database entry, a mail's headers), with a
// mail's body when the paragraph is a message's header.
func stanzaRecord(s string, a, b int, memo *recordMemo) (record, bool) {
	isField := func(l string) bool { return stanzaLineRE.MatchString(l) }
	isCont := func(l string) bool { return len(l) > 1 && (l[0] == ' ' || l[0] == '\t') && !blank(l) }
	// The paragraph: up to a blank line either way.
	pa, pb := a, b
	for i := 0; i < maxRecordLines; i++ {
		qa, qb, ok := prevLine(s, pa)
		if !ok || blank(s[qa:qb]) {
			break
		}
		pa = qa
	}
	for i := 0; i < maxRecordLines; i++ {
		qa, qb, ok := nextLine(s, pb)
		if !ok || blank(s[qa:qb]) {
			break
		}
		pb = qb
	}
	para := s[pa:pb]
	lines := strings.Split(para, "\n")
	fieldLines, contLines := 0, 0
	for _, l := range lines {
		switch {
		case isField(l):
			fieldLines++
		case isCont(l):
			contLines++ // a long Description's lines
		}
	}
	if fieldLines < 2 || fieldLines*2 < len(lines) && (fieldLines+contLines)*10 < len(lines)*9 || fieldLines*6 < len(lines) {
		// Not a stanza; the line may be in a mail's body: the header
		// paragraph above it (read once per paragraph: a long message
		// holds many anchors).
		if memo == nil {
			return mailBody(s, pa, pb)
		}
		r, ok := memo.mails[pa]
		if !ok {
			r, ok = mailBody(s, pa, pb)
			if !ok {
				r = record{}
			}
			memo.mails[pa] = r
		}
		return r, r.kind != ""
	}
	r := record{kind: "stanza", text: para, start: pa}
	off := pa
	for i, l := range lines {
		if m := stanzaLineRE.FindStringSubmatch(l); m != nil {
			v := m[2]
			for j := i + 1; j < len(lines) && isCont(lines[j]) && len(v) < 300; j++ {
				if strings.TrimSpace(lines[j]) != "." {
					v += " " + strings.TrimSpace(lines[j])
				}
			}
			r.fields = append(r.fields, field{m[1], strings.TrimSpace(v), off})
		}
		off += len(l) + 1
	}
	// A mail: its body follows the header paragraph.
	if strings.HasPrefix(lines[0], "From ") || hasField(r, "Message-ID") || hasField(r, "Subject") && hasField(r, "From") {
		if ba, bb, ok := nextLine(s, pb); ok {
			end := bb
			for i := 0; i < 60; i++ {
				qa, qb, ok := nextLine(s, end)
				if !ok || strings.HasPrefix(s[qa:qb], "From ") {
					break
				}
				end = qb
			}
			r.text += "\n" + s[ba:end]
		}
	}
	return r, true
}

func hasField(r record, label string) bool {
	for _, f := range r.fields {
		if strings.EqualFold(f.label, label) {
			return true
		}
	}
	return false
}

// mailBody reads a paragraph of a mail's body as part of its message: the
// header stanza above it, within a few paragraphs.
func mailBody(s string, pa, pb int) (record, bool) {
	a := pa
	for p := 0; p < 6; p++ {
		qa, qb, ok := prevLine(s, a)
		if !ok {
			return record{}, false
		}
		if !blank(s[qa:qb]) {
			// Find the start of that paragraph.
			for i := 0; i < 60; i++ {
				ra, rb, ok := prevLine(s, qa)
				if !ok || blank(s[ra:rb]) {
					break
				}
				qa = ra
			}
			head := s[qa:a]
			if strings.HasPrefix(head, "From ") || strings.Contains(head, "\nMessage-ID: ") || strings.Contains(head, "\nSubject: ") {
				r, ok := stanzaRecord(s, qa, qa+strings.IndexByte(s[qa:], '\n'), nil)
				if !ok || r.kind != "stanza" {
					return record{}, false
				}
				r.kind = "mail"
				r.text = s[qa:pb]
				// The paragraph's own pairs ("Endpoint =
				// vpn-gw2.example:51820") are the message's too.
				for la := pa; la < pb; {
					_, lb := lineAt(s, la)
					r.fields = append(r.fields, lineRecord(s, la, lb).fields...)
					la = lb + 1
				}
				return r, true
			}
			if strings.HasPrefix(head, "From ") {
				break
			}
		}
		a = qa
	}
	return record{}, false
}

var (
	sectionRE = regexp.MustCompile(`^\s*\[([^\]\n]{1,80})\]\s*$`)
	iniKVRE   = regexp.MustCompile(`^\s*([A-Za-z0-9_.\-][A-Za-z0-9_.\- ]*?(?:\[[\w@.-]+\])?)\s*[=:]\s*(.*)$`)
)

// iniRecord reads the INI section around the line, with the sections
// next to it that belong to the same unit (up to a repeated section
// name): a systemd unit's [Unit] and [Service], a config's sections.
func iniRecord(s string, a, b int) (record, bool) {
	// The section header above.
	ha, hb := a, b
	found := false
	for i := 0; i < maxRecordLines; i++ {
		if sectionRE.MatchString(s[ha:hb]) {
			found = true
			break
		}
		var ok bool
		if ha, hb, ok = prevLine(s, ha); !ok {
			break
		}
	}
	if !found {
		return record{}, false
	}
	// Sections before, while their names are new.
	names := map[string]bool{sectionRE.FindStringSubmatch(s[ha:hb])[1]: true}
	start := ha
	for pa, i := ha, 0; i < maxRecordLines; i++ {
		qa, qb, ok := prevLine(s, pa)
		if !ok {
			break
		}
		l := s[qa:qb]
		if m := sectionRE.FindStringSubmatch(l); m != nil {
			if names[m[1]] {
				break
			}
			names[m[1]] = true
			start = qa
		} else if !blank(l) && !iniKVRE.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(l), "#") && !strings.HasPrefix(strings.TrimSpace(l), ";") {
			break
		}
		pa = qa
	}
	end := hb
	for pb, i := hb, 0; i < maxRecordLines; i++ {
		qa, qb, ok := nextLine(s, pb)
		if !ok {
			break
		}
		l := s[qa:qb]
		if m := sectionRE.FindStringSubmatch(l); m != nil {
			if names[m[1]] && qa > b {
				break
			}
			names[m[1]] = true
		} else if !blank(l) && !iniKVRE.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(l), "#") && !strings.HasPrefix(strings.TrimSpace(l), ";") {
			break
		}
		end, pb = qb, qb
	}
	if end < b {
		return record{}, false
	}
	r := record{kind: "ini", text: s[start:end], start: start}
	off := start
	for _, l := range strings.Split(s[start:end], "\n") {
		if !sectionRE.MatchString(l) {
			// "#Storage=auto": a commented setting is its default.
			t := strings.TrimLeft(strings.TrimSpace(l), "#;")
			if m := iniKVRE.FindStringSubmatch(t); m != nil && (t == strings.TrimSpace(l) || !strings.Contains(t, " ") || strings.Index(t, "=") < strings.Index(t, " ")) {
				if v := clean(m[2]); v != "" {
					r.fields = append(r.fields, field{m[1], v, off})
				}
			}
		}
		off += len(l) + 1
	}
	return r, len(r.fields) > 0
}

var yamlKeyRE = regexp.MustCompile(`^(\s*)(?:-\s+)?([^\s:#][^:#]*?):(?:\s+(.*))?$`)

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// yamlRecord reads the YAML mapping around the line: the block of its
// parent key (of the line itself when it is a parent), each leaf labelled
// by its key, with the names of the keys above it as context.
func yamlRecord(s string, a, b int) (record, bool) {
	line := s[a:b]
	m := yamlKeyRE.FindStringSubmatch(line)
	if m == nil {
		return record{}, false
	}
	ra, rb := a, b
	if m[3] != "" {
		// A leaf: the block is its parent's.
		ind := indentOf(line)
		found := ind == 0
		for pa, i := a, 0; i < maxRecordLines && ind > 0; i++ {
			qa, qb, ok := prevLine(s, pa)
			if !ok || blank(s[qa:qb]) {
				break
			}
			if yamlKeyRE.MatchString(s[qa:qb]) && indentOf(s[qa:qb]) < ind {
				ra, rb, found = qa, qb, true
				break
			}
			pa = qa
		}
		if !found {
			return record{}, false
		}
	}
	base := indentOf(s[ra:rb])
	end := rb
	for pb, i := rb, 0; i < maxRecordLines; i++ {
		qa, qb, ok := nextLine(s, pb)
		if !ok || blank(s[qa:qb]) || indentOf(s[qa:qb]) <= base {
			break
		}
		end, pb = qb, qb
	}
	if end < b {
		return record{}, false
	}
	// The keys above the block, for context.
	var ctx []string
	ind := base
	for pa, i := ra, 0; i < maxRecordLines && ind > 0; i++ {
		qa, qb, ok := prevLine(s, pa)
		if !ok || blank(s[qa:qb]) {
			break
		}
		if km := yamlKeyRE.FindStringSubmatch(s[qa:qb]); km != nil && indentOf(s[qa:qb]) < ind {
			ctx = append(ctx, km[2])
			ind = indentOf(s[qa:qb])
		}
		pa = qa
	}
	r := record{kind: "yaml", text: s[ra:end], start: ra}
	if km := yamlKeyRE.FindStringSubmatch(s[ra:rb]); km != nil && km[3] == "" {
		r.name = strings.TrimSpace(km[2])
	}
	if len(ctx) > 0 {
		r.text = strings.Join(ctx, " ") + "\n" + r.text
	}
	// Each leaf is labelled by its key and the keys above it within the
	// block: production's soak_time is "production soak_time".
	type parent struct {
		indent int
		key    string
	}
	var path []parent
	off := ra
	for _, l := range strings.Split(s[ra:end], "\n") {
		if km := yamlKeyRE.FindStringSubmatch(l); km != nil {
			ind := indentOf(l)
			for len(path) > 0 && path[len(path)-1].indent >= ind {
				path = path[:len(path)-1]
			}
			key := strings.TrimSpace(km[2])
			if km[3] == "" {
				path = append(path, parent{ind, key})
			} else {
				label := key
				if len(path) > 1 {
					// The block's own key is the record's, not a leaf's.
					var above []string
					for _, p := range path[1:] {
						above = append(above, p.key)
					}
					label = strings.Join(above, " ") + " " + key
				}
				r.fields = append(r.fields, field{label, clean(km[3]), off})
			}
		}
		off += len(l) + 1
	}
	return r, len(r.fields) > 0
}

var listItemRE = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(?:\*\*)?([^:*\n]{1,60}?)(?:\*\*)?\s*:\s*(.+)$`)

// listRecord reads a list of "label: value" items, with the heading or
// paragraph above it as context.
func listRecord(s string, a, b int) (record, bool) {
	if !listItemRE.MatchString(s[a:b]) {
		// The list's heading: "#### `fetch-retry-mintimeout`", a blank
		// line, "* Default: 10000 (10 seconds)".
		if blank(s[a:b]) {
			return record{}, false
		}
		pb, found := b, false
		for i := 0; i < 3 && !found; i++ {
			qa, qb, ok := nextLine(s, pb)
			if !ok || !blank(s[qa:qb]) && !listItemRE.MatchString(s[qa:qb]) {
				break
			}
			pb, found = qb, !blank(s[qa:qb])
		}
		if !found {
			return record{}, false
		}
		a, b = lineAt(s, pb-1)
	}
	pa, pb := a, b
	for i := 0; i < 60; i++ {
		qa, qb, ok := prevLine(s, pa)
		if !ok || !listItemRE.MatchString(s[qa:qb]) {
			break
		}
		pa = qa
	}
	for i := 0; i < 60; i++ {
		qa, qb, ok := nextLine(s, pb)
		if !ok || !listItemRE.MatchString(s[qa:qb]) {
			break
		}
		pb = qb
	}
	// The heading or lead-in line above the list.
	start := pa
	for i := 0; i < 3; i++ {
		qa, qb, ok := prevLine(s, start)
		if !ok {
			break
		}
		start = qa
		if !blank(s[qa:qb]) {
			break
		}
	}
	r := record{kind: "list", text: s[start:pb], start: start}
	off := pa
	for _, l := range strings.Split(s[pa:pb], "\n") {
		if m := listItemRE.FindStringSubmatch(l); m != nil {
			r.fields = append(r.fields, field{m[1], clean(m[2]), off})
		}
		off += len(l) + 1
	}
	return r, true
}

// roffRE matches a man page's markup: macros at a line's start and font
// and character escapes.
var roffRE = regexp.MustCompile(`^\.(?:[A-Za-z]{1,2})\b\s*|\\f[BIRPC]|\\f\(..|\\&|\\\(..|\\[-e]`)

// deroff removes roff markup from a line, keeping its text; "\-" becomes
// "-".
func deroff(l string) string {
	l = strings.ReplaceAll(l, `\-`, "-")
	l = strings.ReplaceAll(l, `\(cq`, "'")
	return roffRE.ReplaceAllString(l, "")
}

// termRecord reads a term and its description: a short line that names
// a key (a man page's ".B HISTSIZE", ".TP" item, a heading, "key:" alone)
// and the lines of text after it, up to a blank line or the next item.
func termRecord(s string, a, b int) (record, bool) {
	raw := strings.TrimSpace(s[a:b])
	head := strings.TrimSpace(deroff(s[a:b]))
	// An option's "=<value>" is part of its name: "--stacksize=<number>".
	if head == "" || len(head) > 80 || strings.ContainsAny(head, ",|\t;") && !optionList(head) || strings.Contains(head, "=") && !strings.HasPrefix(head, "-") ||
		len(strings.Fields(head)) > 4 && !strings.HasPrefix(raw, ".") && !strings.HasPrefix(raw, "#") && !strings.HasSuffix(raw, ":") {
		return record{}, false // a sentence, not a term
	}
	var body []string
	end := b
	indented := false // the description is indented under the term
	for pb, i := b, 0; i < 30; i++ {
		qa, qb, ok := nextLine(s, pb)
		if !ok {
			break
		}
		l := s[qa:qb]
		t := strings.TrimSpace(l)
		if blank(l) && len(body) > 0 || strings.HasPrefix(t, ".TP") || strings.HasPrefix(t, ".IP") || strings.HasPrefix(t, ".SH") ||
			strings.HasPrefix(t, ".SS") || strings.HasPrefix(t, "#") || len(body) > 0 && strings.HasPrefix(t, ".PP") ||
			len(body) > 0 && indented && indentOf(l) <= indentOf(s[a:b]) {
			break // a blank line, the next item, or the end of an indented description
		}
		if len(body) == 0 && !blank(l) {
			indented = indentOf(l) > indentOf(s[a:b])
		}
		d := strings.TrimSpace(deroff(l))
		if d != "" && !proseLine(d) && !strings.HasPrefix(t, ".") && len(body) == 0 && !(qa == b+1 && isLetters(strings.ReplaceAll(d, " ", "")) && proseLine(d+" "+followingLines(s, qb, 3))) {
			// Not text: a table row, code (but a man page breaks its
			// sentences anywhere: words alone, "Specifies how", right
			// under the term start one).
			break
		}
		if d != "" {
			body = append(body, d)
		}
		end, pb = qb, qb
	}
	if len(body) == 0 || len(strings.Fields(strings.Join(body, " "))) < 4 {
		return record{}, false
	}
	_ = end
	return record{kind: "term", text: head + "\n" + strings.Join(body, " "), start: a}, true
}

// followingLines is the text of the (at most) n lines after the one
// ending at b, up to a blank line.
func followingLines(s string, b, n int) string {
	var out []string
	for i := 0; i < n; i++ {
		a, e, ok := nextLine(s, b)
		if !ok || blank(s[a:e]) {
			break
		}
		out = append(out, strings.TrimSpace(deroff(s[a:e])))
		b = e
	}
	return strings.Join(out, " ")
}

// placeholders are the words a man page names an option's argument by
// ("escape-time time", "--output file"): what to give, not a value.
var placeholders = setOf(`time file filename path name number num n seconds size string command shell-command value arg args count
level mode format dir directory pattern expression flags option options template target key keys bytes lines columns cols width
height percent limit seed timeout interval`)

// placeholder reports whether an option's v names what to give: a
// placeholder word, or one in angle brackets (<N>, <path>).
func placeholder(v string) bool {
	v = strings.TrimSpace(v)
	return placeholders[v] || len(v) > 2 && v[0] == '<' && v[len(v)-1] == '>' && !strings.ContainsAny(v[1:len(v)-1], "<> ")
}

// optionList reports whether head names one option several ways:
// "-w, --wrap=COLS".
func optionList(head string) bool {
	for _, p := range strings.Split(head, ",") {
		if !strings.HasPrefix(strings.TrimSpace(p), "-") {
			return false
		}
	}
	return strings.HasPrefix(head, "-")
}

// assignRE is a line that sets a name: "our $VERSION = '0.23';",
// "export PATH=...", "timeout: 30".
var assignRE = regexp.MustCompile(`^\s*(?:(?:our|my|var|const|let|local|export|readonly|static|final|public|private|set)\s+)*[$@%]?([A-Za-z_][\w.:-]*(?:\[[\w@.-]+\])?)\s*(?:=|:=|=>|:)\s*(\S.*)$`)

var declRE = regexp.MustCompile(`^\s*(?:package|class|module|namespace|struct|interface|program|library)\s+[\w:.]+`)

// blockRecord reads the lines from the line to the next blank line (at
// most 12) as one record of key-value lines: a module's header ("package
// File::Temp;" then "our $VERSION = '0.2311';"), a block of settings.
func blockRecord(s string, a, b int) (record, bool) {
	end := b
	var fields []field
	blanks, childIndent := 0, 0
	for pb, i := a-1, 0; i < 12; i++ {
		var qa, qb int
		var ok bool
		if i == 0 {
			qa, qb, ok = a, b, true
		} else {
			qa, qb, ok = nextLine(s, pb)
		}
		if !ok {
			break
		}
		if blank(s[qa:qb]) {
			// One blank line may part a declaration from its settings
			// ("package File::Temp;", blank, "our $VERSION = ...").
			if blanks++; blanks > 1 || !declRE.MatchString(s[a:b]) {
				break
			}
			pb = qb
			continue
		}
		blanks = 0
		if ind := indentOf(s[qa:qb]); i == 1 {
			childIndent = ind
		} else if i > 1 && ind < childIndent {
			break // the block's end: a line less indented than its first
		}
		if m := assignRE.FindStringSubmatch(s[qa:qb]); i > 0 && m != nil {
			if v := clean(m[2]); v != "" {
				fields = append(fields, field{m[1], v, qa})
			}
		}
		end, pb = qb, qb
	}
	if len(fields) == 0 || end == b {
		return record{}, false
	}
	r := record{kind: "block", text: s[a:end], start: a, fields: fields}
	return r, true
}

// entryRecord reads an entry laid out by indentation: a line and the
// more indented lines under it (a journal record's fields under its
// stamp, a log entry's continuation lines, a block of settings under its
// name), each key=value or key: value labelled by its key. The line read
// is the entry's head when lines under it are indented, else one of the
// lines under the nearest less indented line above.
func entryRecord(s string, a, b int, memo *recordMemo) (record, bool) {
	ind := indentOf(s[a:b])
	ha, hb := a, b
	if na, nb, ok := nextLine(s, b); !ok || blank(s[na:nb]) || indentOf(s[na:nb]) <= ind {
		if ind == 0 {
			return record{}, false
		}
		found := false
		for pa, i := a, 0; i < maxRecordLines; i++ {
			qa, qb, ok := prevLine(s, pa)
			if !ok || blank(s[qa:qb]) {
				break
			}
			if indentOf(s[qa:qb]) < ind {
				ha, hb, found = qa, qb, true
				break
			}
			pa = qa
		}
		if !found {
			return record{}, false
		}
	}
	if r, ok := memo.entries[ha]; ok {
		return r, r.fields != nil
	}
	base := indentOf(s[ha:hb])
	end, lines := hb, 0
	var fields []field
	for pb, i := hb, 0; i < maxRecordLines; i++ {
		qa, qb, ok := nextLine(s, pb)
		if !ok || blank(s[qa:qb]) || indentOf(s[qa:qb]) <= base {
			break
		}
		fields = append(fields, lineRecord(s, qa, qb).fields...)
		end, pb, lines = qb, qb, lines+1
	}
	r := record{kind: "entry", text: s[ha:end], start: ha, fields: fields}
	if lines < 2 || len(fields) == 0 {
		r = record{}
	}
	memo.entries[ha] = r
	return r, r.fields != nil
}

// commentRE is a comment's marker at a line's start (SQL's "--" with a
// space: --max-http-header-size is an option).
var commentRE = regexp.MustCompile(`^\s*(?:#+|;+|//+|--(?:\s|$)|%+|!)\s?`)

// innerPairRE is a value that is itself a setting ("DSHELL=/bin/bash").
var innerPairRE = regexp.MustCompile(`^[A-Za-z_][\w.-]*\s*(?:=|:\s)`)

// settingRecord reads a setting with the comment that documents it: the
// paragraph of comment lines around the line and the setting right after
// them, commented out or not ("# The login shell of new users.",
// "#DSHELL=/bin/bash"), each setting labelled by its key and the
// comment's words its context.
func settingRecord(s string, a, b int) (record, bool) {
	if !commentRE.MatchString(s[a:b]) {
		// A setting under its comment.
		qa, qb, ok := prevLine(s, a)
		if !ok || !commentRE.MatchString(s[qa:qb]) {
			return record{}, false
		}
	}
	ra := a
	for i := 0; i < 20; i++ {
		qa, qb, ok := prevLine(s, ra)
		if !ok || !commentRE.MatchString(s[qa:qb]) {
			break
		}
		ra = qa
	}
	end := b
	if commentRE.MatchString(s[a:b]) {
		for i := 0; i < 20; i++ {
			qa, qb, ok := nextLine(s, end)
			if !ok || blank(s[qa:qb]) {
				break
			}
			end = qb
			if !commentRE.MatchString(s[qa:qb]) {
				break // the setting the comment documents
			}
		}
	}
	var fields []field
	for la, i := ra, 0; la <= end && i < 26; i++ {
		_, lb := lineAt(s, la)
		line := s[la:lb]
		commented := false
		if m := commentRE.FindStringIndex(line); m != nil {
			line, la, commented = line[m[1]:], la+m[1], true
		}
		if m := bareKVRE.FindStringSubmatch(line); !commented && m != nil && len(strings.Fields(line)) <= 4 && !assignRE.MatchString(line) {
			// "repl-diskless-sync-delay 5"
			fields = append(fields, field{m[1], clean(m[2]), la + len(line) - len(m[2])})
		} else if assignRE.MatchString(line) {
			for _, fl := range lineRecord(line, 0, len(line)).fields {
				if !innerPairRE.MatchString(fl.value) && !strings.Contains(fl.label, " ") {
					fl.at += la
					fields = append(fields, fl)
				}
			}
		}
		la = lb + 1
	}
	if len(fields) == 0 || len(fields) > 4 {
		return record{}, false // not one setting's comment
	}
	return record{kind: "setting", text: s[ra:end], start: ra, fields: fields}, true
}

// proseRecord is the sentence around offset at, within its line or
// its paragraph's lines of prose.
func proseRecord(s string, a, b, at int) record {
	pa, pb := a, b
	if proseLine(s[a:b]) {
		// A list item or log entry starts the sentence; the lines
		// under it indented deeper continue it ("  * Build-depend on
		// ...", "    problem was reported by ..."), others do not.
		fb := b // the end of the first line, pa's
		for i := 0; i < 8 && !entryStart(s, pa, fb); i++ {
			qa, qb, ok := prevLine(s, pa)
			if !ok || !proseLine(s[qa:qb]) || at-qa > 600 {
				break
			}
			if entryStart(s, qa, qb) && !hangs(s[qa:qb], s[pa:fb]) {
				break
			}
			pa, fb = qa, qb
		}
		item := entryStart(s, pa, fb)
		for i := 0; i < 8; i++ {
			qa, qb, ok := nextLine(s, pb)
			if !ok || !proseLine(s[qa:qb]) || entryStart(s, qa, qb) || qb-at > 600 || item && !hangs(s[pa:fb], s[qa:qb]) {
				break
			}
			pb = qb
		}
	}
	para := s[pa:pb]
	rel := at - pa
	start := 0
	for _, m := range sentenceEndRE.FindAllStringIndex(para[:rel], -1) {
		start = m[1]
	}
	end := len(para)
	if m := sentenceEndRE.FindStringIndex(para[rel:]); m != nil {
		end = rel + m[0] + 1
	}
	return record{kind: "prose", text: para[start:end], start: pa + start}
}

// entryStartRE is the start of a list item, a log entry or other dated
// record (a bullet, a date, a time, a syslog stamp, a bracketed level or
// stamp): such a line
// is an entry of its own, never the wrapped part of its neighbours'
// sentence.
var entryStartRE = regexp.MustCompile(`^\s*(?:[-*+•]\s|\d{1,3}[.)]\s|\d{4}[-/]\d\d[-/]\d\d|\d\d?/\d\d?/\d{4}|\d\d?:\d\d|\[|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d |\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3} |(?:DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|LOG|CRITICAL)\b)`)

// entryStart reports whether line a..b of s starts an entry of its own,
// inside a comment too ("#pod * C<max_redirect> ..."); a block comment's
// " * " continues its sentence.
func entryStart(s string, a, b int) bool {
	l := s[a:b]
	if m := commentLeadRE.FindStringSubmatchIndex(l); m != nil && (m[2] < 0 || inBlockComment(s, a)) {
		l = l[m[1]:]
	}
	return entryStartRE.MatchString(l)
}

// hangs reports whether line l is indented deeper than entry line e,
// past a comment's mark: the wrapped part of a list item.
func hangs(e, l string) bool {
	return indentPast(l) > indentPast(e)
}

// indentPast is a line's indentation, a comment's mark counted as
// indentation ("#pod   scheme" is indented deeper than "#pod * C<x>").
func indentPast(l string) int {
	n := 0
	if m := commentLeadRE.FindStringSubmatchIndex(l); m != nil && m[2] < 0 {
		l, n = l[m[1]:], m[1] // not a bullet's "*"
	}
	return n + len(l) - len(strings.TrimLeft(l, " \t"))
}

// commentLeadRE is a comment's mark at a line's start: "#", "//", ";",
// or (its group) the " * " of a block comment.
var commentLeadRE = regexp.MustCompile(`^\s*(?:/\*+|(\*)(?:\s|$)|//+|#+(?:pod)?(?:\s|$)|;+\s)`)

// inBlockComment reports whether offset a is inside a /* ... */ comment
// that opened at most 4 KB before it.
func inBlockComment(s string, a int) bool {
	before := s[max(0, a-4096):a]
	return strings.LastIndex(before, "/*") > strings.LastIndex(before, "*/")
}

// proseLine reports whether a line reads as running text: several words,
// not a key: value line, a table row or code.
func proseLine(l string) bool {
	t := strings.TrimSpace(l)
	if len(strings.Fields(t)) < 4 || strings.Trim(t, "-=+ \t") == "" || strings.Count(t, "|") >= 2 || strings.Count(t, "\t") >= 1 || strings.HasSuffix(t, "{") ||
		strings.HasSuffix(t, ";") || yamlKeyRE.MatchString(l) && !strings.Contains(t, ". ") || len(columnGapRE.FindAllStringIndex(t, 2)) == 2 {
		return false
	}
	return true
}

// columnGapRE is a gap between a fixed-width table's columns: two of them
// make a line a row, not prose (justified prose spaces by one or two).
var columnGapRE = regexp.MustCompile(`\S {3,}\S`)

// sentenceEndRE ends a sentence: a period, ! or ? followed by white space
// and not inside a number, path or abbreviation.
var sentenceEndRE = regexp.MustCompile(`[.!?]["')\]]?\s+|\n\s*\n`)

// headingRE is a Markdown heading: "### `server.requestTimeout`".
var headingRE = regexp.MustCompile(`^#{1,6}[ \t]+\S`)

// maxSectionLines and maxSectionBytes bound a section's reach from its
// heading.
const (
	maxSectionLines = 40
	maxSectionBytes = 4000
)

// sectionRecord reads the Markdown section around the line: its heading
// (which names what the section is about) and the labelled values of its
// body ("* {number} **Default:** `300000`" under "### `server.requestTimeout`").
// A heading is a "#" line with a blank line (or the text's start) above
// it and one below it, so that a run of shell comments is none.
func sectionRecord(s string, a, b int, memo *recordMemo) (record, bool) {
	ha := -1
	for qa, qb, i := a, b, 0; i < maxSectionLines && a-qa <= maxSectionBytes; i++ {
		if qb-qa <= 100 && heading(s, qa, qb) {
			ha = qa
			break
		}
		var ok bool
		if qa, qb, ok = prevLine(s, qa); !ok {
			break
		}
	}
	if ha < 0 {
		return record{}, false
	}
	if r, ok := memo.sections[ha]; ok {
		return r, r.text != "" && b <= r.start+len(r.text)
	}
	_, hb := lineAt(s, ha)
	end := hb
	var fields []field
	for pb, i := hb, 0; i < maxSectionLines && pb-ha <= maxSectionBytes; i++ {
		qa, qb, ok := nextLine(s, pb)
		if !ok || headingRE.MatchString(s[qa:qb]) {
			break
		}
		for _, fl := range lineRecord(s, qa, qb).fields {
			if !hasPair(fields, fl.label, fl.value) {
				fields = append(fields, fl)
			}
		}
		end, pb = qb, qb
	}
	var r record
	if len(fields) > 0 {
		r = record{kind: "section", text: s[ha:end], start: ha, fields: fields}
	}
	if memo.sections == nil {
		memo.sections = map[int]record{}
	}
	memo.sections[ha] = r
	return r, r.text != "" && b <= end
}

// maxReleaseLines bounds how far above a line its release's heading is
// looked for.
const maxReleaseLines = 300

// releaseHeading returns the version of the release whose notes hold
// the line at: the nearest heading above it that names one ("## 2.3.0",
// "Changes in 2.40:", "v5.4.0 (2024-06-17)"), past the release's items
// (indented or listed lines), prose and the headings of its parts ("##
// New Features" under "# 9.21.0"); a top heading without a version ends
// the search.
func releaseHeading(s string, at int) (value string, pos int, ok bool) {
	a, _ := lineAt(s, at)
	above := 7 // the level of the last heading passed
	for i := 0; i < maxReleaseLines; i++ {
		qa, qb, more := prevLine(s, a)
		if !more {
			break
		}
		a = qa
		l := s[qa:qb]
		t := strings.TrimSpace(l)
		if t == "" || l[0] == ' ' || l[0] == '\t' || bulletRE.MatchString(l) {
			continue // blank, indented, or an item
		}
		level := len(t) - len(strings.TrimLeft(t, "#"))
		if level > 0 && level >= above {
			continue // a heading inside one already passed
		}
		if level > 0 || releaseLineRE.MatchString(t) {
			if loc := versionRE.FindStringIndex(l); loc != nil && len(t) <= 100 {
				return l[loc[0]:loc[1]], qa + loc[0], true
			}
		}
		if level == 1 {
			break
		}
		if level > 0 {
			above = level // "## New Features": the release is further up
		}
	}
	return "", 0, false
}

// releaseLineRE is a line that heads a release's notes: its version
// first, after the project's name or the word "version" or "release"
// ("v5.4.0 (2024-06-17)", "cachetools 5.4.0", "Release 2.1"), or
// "Changes in 2.40:".
var releaseLineRE = regexp.MustCompile(`(?i)^(?:(?:[\pL][\w.+-]*\s+)?(?:version\s+|release\s+)?v?\d+(?:\.\d+)+\S*(?:\s+\(.*\))?:?$|(?:noteworthy\s+)?changes\s+(?:in|for|since)\b.*\d)`)

// bulletRE starts a list's item.
var bulletRE = regexp.MustCompile(`^(?:[-*+•]|\d+[.)])\s`)

// heading reports whether line qa..qb is a Markdown heading.
func heading(s string, qa, qb int) bool {
	if !headingRE.MatchString(s[qa:qb]) || qb-qa > 100 {
		return false
	}
	if pa, pb, ok := prevLine(s, qa); ok && !blank(s[pa:pb]) {
		return false
	}
	na, nb, ok := nextLine(s, qb)
	return ok && blank(s[na:nb])
}
