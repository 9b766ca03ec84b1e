package main

// Writer E's fresh cases: source code, man pages, Debian changelogs, package
// lists, Markdown, database server logs, JSON lines, CSV, rendered HTML
// manuals and YAML. Logs and exports the machine does not have are made by
// the eMake* functions below from real data (upstream changelogs, test
// names, package metadata, module lists) with seeded noise.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

func init() { fresh = append(fresh, freshE) }

// ---------------------------------------------------------------------------
// Shared helpers.

// ePick returns a random element of list.
func ePick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// eInsertAfterLine inserts text after the first line at or beyond
// depth*len(doc) that ok accepts (given the line and the one after it), so
// that a planted record lands on a record boundary.
func eInsertAfterLine(doc string, depth float64, ok func(line, next string) bool, text string) string {
	lines := strings.SplitAfter(doc, "\n")
	pos := 0
	at := int(depth * float64(len(doc)))
	for i, l := range lines {
		pos += len(l)
		if pos <= at || !strings.HasSuffix(l, "\n") {
			continue
		}
		next := ""
		if i+1 < len(lines) {
			next = strings.TrimSuffix(lines[i+1], "\n")
		}
		if ok(strings.TrimSuffix(l, "\n"), next) {
			return doc[:pos] + text + doc[pos:]
		}
	}
	return doc + text
}

// eCSVField quotes a field the way PostgreSQL's csvlog and most exporters
// do when it needs it.
func eCSVField(s string) string {
	if s == "" {
		return ""
	}
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func eCSVRow(fields ...string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = eCSVField(f)
	}
	return strings.Join(out, ",") + "\n"
}

// ---------------------------------------------------------------------------
// Debian changelogs built from real upstream release notes.

type eUpRelease struct {
	version string
	date    time.Time
	raw     []string // bullets as written
	notes   []string // bullets cleaned up
}

var (
	eUpHeading = regexp.MustCompile(`^#{1,3}\s+\[?v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\]?.*?(\d{4}-\d{2}-\d{2})`)
	eMdLink    = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	eByAuthor  = regexp.MustCompile(`\s+by @\S+(\s+in\s+https?://\S+)?|\s+in\s+https?://\S+$`)
	ePRRef     = regexp.MustCompile(`\s*\(\s*#\d+(,\s*#\d+)*\s*\)|\s*\([0-9a-f]{7}\)|(\s+#\d+)+$`)
)

// eParseUpstream reads the releases of an upstream CHANGELOG.md or
// RELEASE-NOTES.md, newest first, with their top-level bullet points.
func eParseUpstream(md string) []eUpRelease {
	var out []eUpRelease
	cont := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "#") {
			cont = false
			if strings.Contains(strings.ToLower(line), "old changelog") {
				break
			}
			if m := eUpHeading.FindStringSubmatch(line); m != nil {
				d, err := time.Parse("2006-01-02", m[2])
				if err == nil {
					out = append(out, eUpRelease{version: m[1], date: d})
				}
			}
			continue
		}
		if len(out) == 0 {
			continue
		}
		cur := &out[len(out)-1]
		if !(strings.HasPrefix(line, "* ") || strings.HasPrefix(line, "- ")) {
			// A wrapped bullet goes on, unindented or indented by two.
			t := strings.TrimSpace(line)
			if cont && t != "" && !strings.HasPrefix(t, "* ") && !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "[") && len(cur.raw) > 0 {
				cur.raw[len(cur.raw)-1] += " " + t
			} else {
				cont = false
			}
			continue
		}
		cont = true
		cur.raw = append(cur.raw, line[2:])
	}
	for i := range out {
		for _, n := range out[i].raw {
			if n = eCleanNote(n); n != "" {
				out[i].notes = append(out[i].notes, n)
			}
		}
	}
	return out
}

// eCleanNote turns an upstream bullet into a changelog line.
func eCleanNote(n string) string {
	n = eMdLink.ReplaceAllString(n, "$1")
	n = eByAuthor.ReplaceAllString(n, "")
	n = ePRRef.ReplaceAllString(n, "")
	n = strings.NewReplacer("**", "", "`", "").Replace(n)
	n = strings.TrimSpace(strings.TrimRight(n, ". "))
	if n == "" || strings.HasPrefix(n, "Chromium:") || strings.HasPrefix(n, "V8:") || strings.HasPrefix(n, "API changes") {
		return ""
	}
	if len(n) > 150 {
		cut := strings.LastIndexByte(n[:150], ' ')
		if cut < 60 {
			cut = 150
		}
		n = n[:cut] + " ..."
	}
	return n
}

// eWrap wraps text at 79 columns, the first line after first and the others
// after indent.
func eWrap(first, indent, text string) string {
	var b strings.Builder
	line := first
	for i, w := range strings.Fields(text) {
		if i > 0 && len(line)+1+len(w) > 79 {
			b.WriteString(line + "\n")
			line = indent + w
			continue
		}
		if i > 0 {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
	return b.String()
}

type eUploader struct{ name, mail, tz string }

var eUploaders = []eUploader{
	{"Lena Brandt", "lbrandt@debian.org", "+0100"},
	{"Tomasz Wierzbicki", "tomaszw@debian.org", "+0100"},
	{"Kenji Arakawa", "arakawa@debian.org", "+0900"},
	{"Mathis Rouquette", "mathis@debian.org", "+0200"},
	{"Priya Natarajan", "priyan@debian.org", "+0530"},
	{"Daniel Osei", "dosei@debian.org", "+0000"},
}

var eJanitorItems = []string{
	"Set upstream metadata fields: Bug-Database, Bug-Submit, Repository, Repository-Browse.",
	"Remove constraints unnecessary since buster.",
	"Update standards version to 4.6.1, no changes needed.",
	"Bump debhelper from old 12 to 13.",
	"Update watch file format version to 4.",
	"Apply multi-arch hints. + golang-*-dev: Add Multi-Arch: foreign.",
}

var ePackagingItems = []string{
	"d/control: Add Rules-Requires-Root: no",
	"d/gbp.conf: Set debian-branch to debian/sid",
	"Refresh patches",
	"Drop patches applied upstream",
	"d/watch: Use GitHub tags instead of releases",
	"Build-Depend on golang-any (>= 2:1.22~)",
	"d/copyright: Update years",
	"Add autopkgtest-pkg-go to Testsuite",
	"Mark golang-*-dev as Multi-Arch: foreign",
	"d/rules: Export DH_GOLANG_INSTALL_EXTRA for testdata",
	"Source-only upload for migration to testing",
	"Update Vcs-* fields for the salsa.debian.org go-team namespace",
}

var ePythonPackagingItems = []string{
	"Use pybuild-plugin-pyproject",
	"d/control: Drop the dependency on python3-six",
	"Run the upstream tests in autopkgtest with autopkgtest-pkg-pybuild",
	"Refresh patches",
	"d/watch: Track GitHub tags",
	"Add python3-pytest-localserver to Build-Depends",
	"d/copyright: Update years",
	"Source-only upload for migration to testing",
	"Update Vcs-* fields for the salsa.debian.org python-team namespace",
	"d/rules: Skip tests that need network access",
	"Build the documentation with sphinx in a -doc package",
}

// eStandards is the Standards-Version current at a date.
func eStandards(t time.Time) string {
	switch {
	case t.Year() <= 2021:
		return "4.5.1"
	case t.Year() == 2022:
		return "4.6.1"
	case t.Year() == 2023:
		return "4.6.2"
	case t.Year() == 2024:
		return "4.7.0"
	default:
		return "4.7.2"
	}
}

type eDebEntry struct {
	version, dist string
	blocks        []string // bullet lines, already formatted
	who           eUploader
	when          time.Time
}

func (e eDebEntry) format(src string) string {
	urgency := "medium"
	if strings.Contains(e.dist, "security") {
		urgency = "high"
	}
	loc := time.FixedZone(e.who.tz, eTZOffset(e.who.tz))
	return fmt.Sprintf("%s (%s) %s; urgency=%s\n\n%s\n -- %s <%s>  %s\n", src, e.version, e.dist, urgency,
		strings.Join(e.blocks, ""), e.who.name, e.who.mail, e.when.In(loc).Format("Mon, 02 Jan 2006 15:04:05 -0700"))
}

func eTZOffset(tz string) int {
	sign := 1
	if tz[0] == '-' {
		sign = -1
	}
	h, _ := strconv.Atoi(tz[1:3])
	m, _ := strconv.Atoi(tz[3:5])
	return sign * (h*3600 + m*60)
}

// eDebVersion turns an upstream version into a Debian one: pre-releases
// sort before the release with a tilde.
func eDebVersion(v string) (string, bool) {
	if i := strings.IndexByte(v, '-'); i > 0 {
		return v[:i] + "~" + v[i+1:], true
	}
	return v, false
}

// eMakeDebChangelog writes a Debian changelog for src packaging the
// upstream releases in upstreamFile.
func eMakeDebChangelog(id, src, upstreamFile string, highlights int, python bool) (string, error) {
	md, err := readFile(upstreamFile)
	if err != nil {
		return "", err
	}
	rels := eParseUpstream(md)
	if len(rels) == 0 {
		return "", fmt.Errorf("%s: no releases found", upstreamFile)
	}
	r := seeded(id)
	items := ePackagingItems
	if python {
		items = ePythonPackagingItems
	}
	perm := r.Perm(len(eUploaders))
	main, second := eUploaders[perm[0]], eUploaders[perm[1]]
	janitor := eUploader{"Debian Janitor", "janitor@jelmer.uk", "+0000"}
	var entries []eDebEntry
	var prev time.Time
	bug := 980000 + r.IntN(90000)
	if rels[len(rels)-1].date.Year() >= 2023 {
		bug = 1030000 + r.IntN(60000)
	}
	for i := len(rels) - 1; i >= 0; i-- {
		rel := rels[i]
		ver, pre := eDebVersion(rel.version)
		days := 18
		if i > 0 {
			days = min(days, int(rels[i-1].date.Sub(rel.date).Hours()/24)-1)
		}
		when := rel.date.Add(time.Duration(r.IntN(max(days, 0)+1))*24*time.Hour + time.Duration(8*3600+r.IntN(15*3600))*time.Second)
		if !prev.IsZero() && !when.After(prev.Add(6*time.Hour)) {
			when = prev.Add(time.Duration(20+r.IntN(40)) * time.Hour)
		}
		who := main
		if r.IntN(4) == 0 {
			who = second
		}
		dist := "unstable"
		if pre {
			dist = "experimental"
		}
		var blocks []string
		if i == len(rels)-1 {
			blocks = append(blocks, fmt.Sprintf("  * Initial release (Closes: #%d)\n", bug))
		} else {
			if who != main {
				blocks = append(blocks, "  * Team upload.\n")
			}
			blocks = append(blocks, "  * New upstream version "+rel.version+"\n")
			for j, n := range rel.notes {
				if j >= highlights {
					break
				}
				blocks = append(blocks, eWrap("    - ", "      ", n))
			}
			if r.IntN(3) == 0 {
				blocks = append(blocks, "  * "+ePick(r, items)+"\n")
			}
			if r.IntN(5) == 0 {
				blocks = append(blocks, "  * Bump Standards-Version to "+eStandards(when)+" (no changes needed)\n")
			}
		}
		entries = append(entries, eDebEntry{version: ver + "-1", dist: dist, blocks: blocks, who: who, when: when})
		prev = when
		// A packaging-only revision now and then, when the next release is
		// far enough away.
		if i > 0 && rels[i-1].date.Sub(when) > 20*24*time.Hour && r.IntN(4) == 0 {
			w2 := when.Add(time.Duration(3+r.IntN(10))*24*time.Hour + time.Duration(r.IntN(36000))*time.Second)
			var b2 []string
			if r.IntN(2) == 0 {
				b2 = append(b2, "  [ Debian Janitor ]\n")
				k := r.Perm(len(eJanitorItems))
				for _, j := range k[:1+r.IntN(2)] {
					b2 = append(b2, eWrap("  * ", "    ", eJanitorItems[j]))
				}
				b2 = append(b2, "\n  [ "+main.name+" ]\n")
			}
			k := r.Perm(len(items))
			for _, j := range k[:1+r.IntN(3)] {
				b2 = append(b2, "  * "+items[j]+"\n")
			}
			entries = append(entries, eDebEntry{version: ver + "-2", dist: dist, blocks: b2, who: main, when: w2})
			prev = w2
			_ = janitor
		}
	}
	var b strings.Builder
	for i := len(entries) - 1; i >= 0; i-- {
		b.WriteString(entries[i].format(src))
		if i > 0 {
			b.WriteString("\n")
		}
	}
	return b.String(), nil
}

// eIsBullet reports whether a changelog line is a top-level bullet.
func eIsBullet(line string) bool { return strings.HasPrefix(line, "  * ") }

// ---------------------------------------------------------------------------
// PostgreSQL 15 server logs (text and csvlog).

type ePGOpts struct {
	start    time.Time
	size     int
	port     int
	version  string
	startup  bool // start with the postmaster's start-up lines
	authFail bool // failed password logins now and then
	csv      bool // csvlog instead of stderr text
	step     float64
	plant    []ePGPlant
}

// ePGPlant is a record planted once the log reaches frac of its size.
type ePGPlant struct {
	frac float64
	ev   ePGEvent
}

type ePGEvent struct {
	pid                              int
	user, db, host, app, backend     string
	sev, state, msg                  string
	detail, hint, context, stmt, tag string
	sessStart                        time.Time
}

type ePGSession struct {
	pid                 int
	user, db, app, host string
	port                int
	start               time.Time
}

var ePGTables = []string{"orders", "order_items", "customers", "products", "inventory", "payments", "sessions", "audit_log", "shipments", "coupons"}

var ePGQueries = []string{
	"SELECT o.id, o.status, o.total_cents FROM orders o WHERE o.customer_id = # ORDER BY o.created_at DESC LIMIT 20",
	"SELECT p.id, p.sku, p.name, i.on_hand FROM products p JOIN inventory i ON i.product_id = p.id WHERE p.category_id = # AND i.on_hand > 0",
	"UPDATE inventory SET on_hand = on_hand - #, updated_at = now() WHERE product_id = #",
	"INSERT INTO audit_log (actor_id, action, payload, created_at) VALUES (#, 'order.update', $1, now())",
	"SELECT count(*) FROM sessions WHERE expires_at < now()",
	"DELETE FROM sessions WHERE expires_at < now() - interval '7 days'",
	"SELECT date_trunc('day', created_at) AS day, sum(total_cents) FROM orders WHERE created_at >= now() - interval '30 days' GROUP BY 1 ORDER BY 1",
	"SELECT c.id, c.email, c.name FROM customers c WHERE lower(c.email) = lower($1)",
	"UPDATE orders SET status = 'shipped', shipped_at = now() WHERE id = #",
	"SELECT s.* FROM shipments s WHERE s.order_id = # AND s.carrier = 'dhl'",
	"SELECT oi.product_id, sum(oi.quantity) FROM order_items oi JOIN orders o ON o.id = oi.order_id WHERE o.created_at >= now() - interval '7 days' GROUP BY oi.product_id ORDER BY 2 DESC LIMIT 50",
	"REFRESH MATERIALIZED VIEW CONCURRENTLY sales_daily",
	"SELECT p.amount_cents, p.status, p.provider_ref FROM payments p WHERE p.order_id = # FOR UPDATE",
	"UPDATE coupons SET used_count = used_count + 1 WHERE code = $1 AND used_count < max_uses",
	"SELECT c.id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL AND c.created_at < now() - interval '1 year'",
	"WITH recent AS (SELECT customer_id, max(created_at) AS last FROM orders GROUP BY customer_id) SELECT count(*) FROM recent WHERE last < now() - interval '90 days'",
}

func eFillQuery(r *rand.Rand, q string) string {
	var b strings.Builder
	for _, c := range q {
		if c == '#' {
			b.WriteString(strconv.Itoa(1 + r.IntN(250000)))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

var eFirstNames = []string{"anna", "ben", "chloe", "david", "emma", "farid", "grace", "hugo", "ines", "jonas", "kira", "liam", "maya", "noah", "olga", "pablo", "quinn", "rosa", "sven", "tara", "umar", "vera", "wei", "yara", "zoe"}
var eLastNames = []string{"schmidt", "martin", "rossi", "novak", "kowalski", "garcia", "dubois", "jensen", "silva", "nakamura", "okafor", "brown", "muller", "petrov", "lindqvist"}

func eEmail(r *rand.Rand) string {
	return ePick(r, eFirstNames) + "." + ePick(r, eLastNames) + strconv.Itoa(r.IntN(100)) + "@" + ePick(r, []string{"example.com", "mail.example.org", "example.net"})
}

// eMakePGLog writes a PostgreSQL 15 log of a web shop's database, as the
// Debian packaging logs it (log_line_prefix '%m [%p] %q%u@%d ') or as
// csvlog.
func eMakePGLog(id string, o ePGOpts) string {
	r := seeded(id)
	var b strings.Builder
	t := o.start
	post := 700 + r.IntN(400)
	nextPID := post + 40
	lines := map[int]int{}
	sessID := func(pid int, st time.Time) string { return fmt.Sprintf("%x.%x", st.Unix(), pid) }
	emit := func(ev ePGEvent) {
		ts := t.Format("2006-01-02 15:04:05.000 MST")
		if o.csv {
			lines[ev.pid]++
			st := ev.sessStart
			if st.IsZero() {
				st = o.start
			}
			vxid := ""
			if ev.backend == "client backend" {
				vxid = fmt.Sprintf("%d/%d", 3+ev.pid%7, r.IntN(90000))
			}
			sev := ev.sev
			state := ev.state
			if state == "" {
				state = "00000"
			}
			query := ev.stmt
			msg := ev.msg
			b.WriteString(strings.Join([]string{
				ts, eQ(ev.user), eQ(ev.db), strconv.Itoa(ev.pid), eQ(ev.host), sessID(ev.pid, st), strconv.Itoa(lines[ev.pid]),
				eQ(ev.tag), st.Format("2006-01-02 15:04:05 MST"), vxid, "0", sev, state, eQ(msg), eQ(ev.detail), eQ(ev.hint),
				"", "", eQ(ev.context), eQ(query), "", "", eQ(ev.app), eQ(ev.backend), "", "0",
			}, ",") + "\n")
			return
		}
		prefix := ts + " [" + strconv.Itoa(ev.pid) + "] "
		if ev.user != "" {
			prefix += ev.user + "@" + ev.db + " "
		}
		b.WriteString(prefix + ev.sev + ":  " + ev.msg + "\n")
		if ev.detail != "" {
			b.WriteString(prefix + "DETAIL:  " + ev.detail + "\n")
		}
		if ev.hint != "" {
			b.WriteString(prefix + "HINT:  " + ev.hint + "\n")
		}
		if ev.context != "" {
			b.WriteString(prefix + "CONTEXT:  " + ev.context + "\n")
		}
		if ev.stmt != "" {
			b.WriteString(prefix + "STATEMENT:  " + ev.stmt + "\n")
		}
	}
	bg := func(pid int, backend, msg string) ePGEvent {
		return ePGEvent{pid: pid, backend: backend, sev: "LOG", msg: msg}
	}
	if o.startup {
		emit(bg(post, "postmaster", fmt.Sprintf("starting PostgreSQL %s (Debian %s-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14+deb12u1) 12.2.0, 64-bit", o.version, o.version)))
		emit(bg(post, "postmaster", fmt.Sprintf("listening on IPv4 address \"0.0.0.0\", port %d", o.port)))
		emit(bg(post, "postmaster", fmt.Sprintf("listening on IPv6 address \"::\", port %d", o.port)))
		emit(bg(post, "postmaster", fmt.Sprintf("listening on Unix socket \"/var/run/postgresql/.s.PGSQL.%d\"", o.port)))
		t = t.Add(38 * time.Millisecond)
		emit(bg(post+3, "startup", "database system was shut down at "+o.start.Add(-41*time.Second).Format("2006-01-02 15:04:05 MST")))
		t = t.Add(9 * time.Millisecond)
		emit(bg(post, "postmaster", "database system is ready to accept connections"))
	}
	ckpt := post + 1
	archiver := post + 5
	nextCkpt := o.start.Add(time.Duration(60+r.IntN(240)) * time.Second)
	var ckptDone time.Time
	var open []ePGSession
	users := []struct{ user, db, app, net string }{
		{"shop_app", "shop", "shop-api", "10.20.1."},
		{"shop_app", "shop", "shop-worker", "10.20.2."},
		{"metabase", "shop", "Metabase v0.50.21", "10.20.3."},
		{"postgres", "postgres", "psql", ""},
	}
	plant := o.plant
	step := o.step
	if step == 0 {
		step = 4
	}
	for b.Len() < o.size {
		t = t.Add(time.Duration(r.ExpFloat64()*step*1000) * time.Millisecond)
		for len(plant) > 0 && float64(b.Len()) >= plant[0].frac*float64(o.size) {
			ev := plant[0].ev
			if ev.pid == 0 {
				ev.pid = archiver
			}
			if !ev.sessStart.IsZero() {
				ev.sessStart = t.Add(-time.Duration(60+r.IntN(600)) * time.Second)
			}
			emit(ev)
			plant = plant[1:]
		}
		if !ckptDone.IsZero() && !t.Before(ckptDone) {
			buf := 400 + r.IntN(6000)
			emit(bg(ckpt, "checkpointer", fmt.Sprintf("checkpoint complete: wrote %d buffers (%.1f%%); 0 WAL file(s) added, 0 removed, %d recycled; write=%.3f s, sync=%.3f s, total=%.3f s; sync files=%d, longest=%.3f s, average=%.3f s; distance=%d kB, estimate=%d kB",
				buf, float64(buf)/163.84, r.IntN(4), 269+r.Float64(), r.Float64()/40, 269.5+r.Float64(), 20+r.IntN(90), r.Float64()/50, r.Float64()/400, 4000+r.IntN(60000), 30000+r.IntN(30000))))
			ckptDone = time.Time{}
		}
		if !t.Before(nextCkpt) {
			emit(bg(ckpt, "checkpointer", "checkpoint starting: time"))
			ckptDone = t.Add(time.Duration(269800+r.IntN(900)) * time.Millisecond)
			nextCkpt = nextCkpt.Add(5 * time.Minute)
		}
		k := r.IntN(100)
		switch {
		case k < 30 || len(open) < 3: // a new session
			u := users[r.IntN(len(users))]
			if r.IntN(3) > 0 {
				u = users[0]
			}
			s := ePGSession{pid: nextPID, user: u.user, db: u.db, app: u.app, start: t}
			nextPID += 1 + r.IntN(9)
			host := "[local]"
			if u.net != "" {
				s.port = 32768 + r.IntN(28000)
				host = fmt.Sprintf("%s%d", u.net, 11+r.IntN(4))
				s.host = fmt.Sprintf("%s:%d", host, s.port)
				emit(ePGEvent{pid: s.pid, backend: "not initialized", sev: "LOG", msg: fmt.Sprintf("connection received: host=%s port=%d", host, s.port), host: s.host, sessStart: t})
			} else {
				s.host = "[local]"
				emit(ePGEvent{pid: s.pid, backend: "not initialized", sev: "LOG", msg: "connection received: host=[local]", host: s.host, sessStart: t})
			}
			if o.authFail && u.user == "metabase" && r.IntN(8) == 0 {
				emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, backend: "client backend", sev: "FATAL", state: "28P01", sessStart: t,
					msg: "password authentication failed for user \"" + s.user + "\"", detail: "Connection matched pg_hba.conf line 104: \"hostssl all all 10.20.0.0/16 scram-sha-256\""})
				continue
			}
			method := "scram-sha-256 (/etc/postgresql/15/main/pg_hba.conf:104)"
			ssl := " SSL enabled (protocol=TLSv1.3, cipher=TLS_AES_256_GCM_SHA384, bits=256)"
			if s.host == "[local]" {
				method = "peer (/etc/postgresql/15/main/pg_hba.conf:90)"
				ssl = ""
			}
			emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "LOG", sessStart: t,
				msg: fmt.Sprintf("connection authenticated: identity=\"%s\" method=%s", s.user, method)})
			emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "LOG", sessStart: t,
				msg: fmt.Sprintf("connection authorized: user=%s database=%s application_name=%s%s", s.user, s.db, s.app, ssl)})
			open = append(open, s)
		case k < 52: // a session ends
			i := r.IntN(len(open))
			s := open[i]
			open = append(open[:i], open[i+1:]...)
			d := t.Sub(s.start)
			hostPart := " host=" + strings.Replace(s.host, ":", " port=", 1)
			if s.host == "[local]" {
				hostPart = " host=[local]"
			}
			emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "LOG", sessStart: s.start,
				msg: fmt.Sprintf("disconnection: session time: %d:%02d:%06.3f user=%s database=%s%s", int(d.Hours()), int(d.Minutes())%60, d.Seconds()-float64(int(d.Minutes())*60), s.user, s.db, hostPart)})
		case k < 80: // a slow statement
			s := open[r.IntN(len(open))]
			if s.db != "shop" {
				continue
			}
			q := eFillQuery(r, ePick(r, ePGQueries))
			ms := 250 + r.ExpFloat64()*900
			emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "LOG", tag: strings.Fields(q)[0], sessStart: s.start,
				msg: fmt.Sprintf("duration: %.3f ms  statement: %s", ms, q)})
		case k < 88: // autovacuum
			tbl := ePick(r, ePGTables)
			pid := nextPID
			nextPID += 1 + r.IntN(5)
			if r.IntN(2) == 0 {
				pages := 2000 + r.IntN(90000)
				sc := r.IntN(pages / 4)
				emit(ePGEvent{pid: pid, backend: "autovacuum worker", sev: "LOG", msg: fmt.Sprintf("automatic vacuum of table \"shop.public.%s\": index scans: %d\n\tpages: 0 removed, %d remain, %d scanned (%.2f%% of total)\n\ttuples: %d removed, %d remain, 0 are dead but not yet removable\n\tremovable cutoff: %d, which was %d XIDs old when operation ended\n\tindex scan needed: %d pages from table (%.2f%% of total) had %d dead item identifiers removed\n\tavg read rate: %.3f MB/s, avg write rate: %.3f MB/s\n\tbuffer usage: %d hits, %d misses, %d dirtied\n\tWAL usage: %d records, %d full page images, %d bytes\n\tsystem usage: CPU: user: %.2f s, system: %.2f s, elapsed: %.2f s",
					tbl, r.IntN(2), pages, sc, 100*float64(sc)/float64(pages), r.IntN(9000), pages*40+r.IntN(9000), 91000000+r.IntN(900000), r.IntN(40), sc/3, 100*float64(sc/3)/float64(pages), r.IntN(20000),
					r.Float64()*30, r.Float64()*20, r.IntN(90000), r.IntN(5000), r.IntN(4000), r.IntN(9000), r.IntN(900), r.IntN(3000000), r.Float64(), r.Float64()/5, 0.1+r.Float64()*4)})
			} else {
				emit(ePGEvent{pid: pid, backend: "autovacuum worker", sev: "LOG", msg: fmt.Sprintf("automatic analyze of table \"shop.public.%s\"\n\tavg read rate: %.3f MB/s, avg write rate: %.3f MB/s\n\tbuffer usage: %d hits, %d misses, %d dirtied\n\tsystem usage: CPU: user: %.2f s, system: %.2f s, elapsed: %.2f s",
					tbl, r.Float64()*40, r.Float64(), r.IntN(30000), r.IntN(3000), r.IntN(20), r.Float64(), r.Float64()/5, 0.1+r.Float64()*3)})
			}
		case k < 92: // a duplicate key
			s := open[r.IntN(len(open))]
			mail := eEmail(r)
			emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "ERROR", state: "23505", tag: "INSERT", sessStart: s.start,
				msg: "duplicate key value violates unique constraint \"customers_email_key\"", detail: "Key (lower(email::text))=(" + mail + ") already exists.",
				stmt: "INSERT INTO customers (email, name, created_at) VALUES ($1, $2, now()) RETURNING id"})
		case k < 94: // a statement timeout
			s := open[r.IntN(len(open))]
			emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "ERROR", state: "57014", tag: "SELECT", sessStart: s.start,
				msg: "canceling statement due to statement timeout", stmt: eFillQuery(r, ePGQueries[10+r.IntN(6)])})
		case k < 96: // a lock wait
			s := open[r.IntN(len(open))]
			holder := open[r.IntN(len(open))].pid
			xid := 91000000 + r.IntN(900000)
			prod := 1 + r.IntN(250000)
			stmt := fmt.Sprintf("UPDATE inventory SET on_hand = on_hand - 1, updated_at = now() WHERE product_id = %d", prod)
			emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "LOG", tag: "UPDATE", sessStart: s.start,
				msg:    fmt.Sprintf("process %d still waiting for ShareLock on transaction %d after 1000.%03d ms", s.pid, xid, r.IntN(200)),
				detail: fmt.Sprintf("Process holding the lock: %d. Wait queue: %d.", holder, s.pid), context: fmt.Sprintf("while updating tuple (%d,%d) in relation \"inventory\"", r.IntN(9000), 1+r.IntN(60)), stmt: stmt})
		case k < 98: // the client went away
			s := open[r.IntN(len(open))]
			if r.IntN(2) == 0 {
				emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "LOG", state: "08006", sessStart: s.start, msg: "could not receive data from client: Connection reset by peer"})
			} else {
				emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "LOG", state: "08P01", sessStart: s.start, msg: "unexpected EOF on client connection with an open transaction"})
			}
		default: // a temporary file
			s := open[r.IntN(len(open))]
			emit(ePGEvent{pid: s.pid, user: s.user, db: s.db, host: s.host, app: s.app, backend: "client backend", sev: "LOG", tag: "SELECT", sessStart: s.start,
				msg:  fmt.Sprintf("temporary file: path \"base/pgsql_tmp/pgsql_tmp%d.%d\", size %d", s.pid, r.IntN(3), (1+r.IntN(64))*8388608),
				stmt: eFillQuery(r, ePGQueries[6+r.IntN(5)])})
		}
	}
	return b.String()
}

// eQ quotes a csvlog text field as PostgreSQL does (always, when not empty).
func eQ(s string) string {
	if s == "" {
		return ""
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// ---------------------------------------------------------------------------
// MariaDB 10.11 error log.

func eMakeMariaDBLog(id string, size int) string {
	r := seeded(id)
	var b strings.Builder
	t := time.Date(2026, 1, 12, 6, 25, 0, 0, time.UTC)
	version := "10.11.14-MariaDB-0+deb12u2-log"
	conn := 40 + r.IntN(100)
	lsn := int64(48261519232)
	trx := 91355804
	line := func(thread int, level, msg string) {
		fmt.Fprintf(&b, "%s %d [%s] %s\n", t.Format("2006-01-02 15:04:05"), thread, level, msg)
	}
	startup := func() {
		line(0, "Note", fmt.Sprintf("Starting MariaDB %s source revision 3f1a8e0a9c1e63d4c5a7e2b9d50f4d8a81bc2c77 as process %d", version, 700+r.IntN(900)))
		for _, m := range []string{"InnoDB: Compressed tables use zlib 1.2.13", "InnoDB: Number of transaction pools: 1", "InnoDB: Using crc32 + pclmulqdq instructions", "InnoDB: Using liburing",
			"InnoDB: Initializing buffer pool, total size = 8.000GiB, chunk size = 128.000MiB", "InnoDB: Completed initialization of buffer pool",
			"InnoDB: File system buffers for log disabled (block size=4096 bytes)", fmt.Sprintf("InnoDB: End of log at LSN=%d", lsn), "InnoDB: 128 rollback segments are active.",
			"InnoDB: Setting file './ibtmp1' size to 12.000MiB. Physically writing the file full; Please wait ...", "InnoDB: File './ibtmp1' size is now 12.000MiB.",
			fmt.Sprintf("InnoDB: log sequence number %d; transaction id %d", lsn, trx), "InnoDB: Loading buffer pool(s) from /var/lib/mysql/ib_buffer_pool",
			"Plugin 'FEEDBACK' is disabled.", "Server socket created on IP: '0.0.0.0'.", "Server socket created on IP: '::'."} {
			line(0, "Note", m)
		}
		line(0, "Note", "/usr/sbin/mariadbd: ready for connections.")
		fmt.Fprintf(&b, "Version: '%s'  socket: '/run/mysqld/mysqld.sock'  port: 3306  Debian 12\n", version)
		t = t.Add(time.Duration(2+r.IntN(5)) * time.Second)
		line(0, "Note", "InnoDB: Buffer pool(s) load completed at "+t.Format("060102 15:04:05"))
	}
	shutdown := func() {
		line(0, "Note", "/usr/sbin/mariadbd (initiated by: unknown): Normal shutdown")
		line(0, "Note", "InnoDB: FTS optimize thread exiting.")
		line(0, "Note", "InnoDB: Starting shutdown...")
		line(0, "Note", "InnoDB: Dumping buffer pool(s) to /var/lib/mysql/ib_buffer_pool")
		line(0, "Note", "InnoDB: Buffer pool(s) dump completed at "+t.Format("060102 15:04:05"))
		t = t.Add(2 * time.Second)
		line(0, "Note", "InnoDB: Removed temporary tablespace data file: \"./ibtmp1\"")
		line(0, "Note", fmt.Sprintf("InnoDB: Shutdown completed; log sequence number %d; transaction id %d", lsn, trx))
		line(0, "Note", "/usr/sbin/mariadbd: Shutdown complete")
		b.WriteString("\n")
		t = t.Add(time.Duration(3+r.IntN(8)) * time.Second)
	}
	startup()
	users := []struct{ user, db, host string }{
		{"shop_app", "shop", "10.20.1.11"}, {"shop_app", "shop", "10.20.1.12"}, {"shop_app", "shop", "10.20.1.13"},
		{"wp_blog", "wordpress", "10.20.4.7"}, {"repl", "", "10.20.0.22"}, {"backup", "", "localhost"},
	}
	restarts := 0
	crashed := false
	for b.Len() < size {
		t = t.Add(time.Duration(r.ExpFloat64()*35000) * time.Millisecond)
		conn++
		lsn += int64(r.IntN(4000000))
		trx += r.IntN(3000)
		k := r.IntN(1000)
		switch {
		case k < 700:
			u := ePick(r, users[:4])
			reason := ePick(r, []string{"Got an error reading communication packets", "Got timeout reading communication packets", "Got an error writing communication packets"})
			line(conn, "Warning", fmt.Sprintf("Aborted connection %d to db: '%s' user: '%s' host: '%s' (%s)", conn, u.db, u.user, u.host, reason))
		case k < 820:
			u := ePick(r, []string{"root", "admin", "test", "mysql", "wp_blog", "shop_app"})
			host := fmt.Sprintf("10.20.%d.%d", 1+r.IntN(5), 2+r.IntN(250))
			if r.IntN(3) == 0 {
				host = "localhost"
			}
			line(conn, "Warning", fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", u, host, ePick(r, []string{"YES", "YES", "NO"})))
		case k < 880:
			line(conn, "Warning", fmt.Sprintf("IP address '10.20.%d.%d' could not be resolved: Name or service not known", 1+r.IntN(5), 2+r.IntN(250)))
		case k < 930:
			line(conn, "Warning", fmt.Sprintf("Aborted connection %d to db: 'unconnected' user: 'unauthenticated' host: '10.20.%d.%d' (This connection closed normally without authentication)", conn, 1+r.IntN(5), 2+r.IntN(250)))
		case k < 960:
			line(0, "Note", fmt.Sprintf("InnoDB: Cannot close file ./shop/%s.ibd because of pending fsync", ePick(r, []string{"orders", "order_items", "audit_log", "inventory"})))
		case k < 985:
			line(conn, "Warning", fmt.Sprintf("Sort aborted, host: 10.20.1.%d, user: shop_app, thread: %d, query: SELECT o.id, o.total_cents FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.created_at DESC LIMIT %d", 11+r.IntN(3), conn, 20*(1+r.IntN(5))))
		case k < 995 && !crashed && b.Len() > size*43/100:
			crashed = true
			line(conn, "ERROR", "mariadbd: Table './shop/sessions' is marked as crashed and should be repaired")
			line(conn, "Warning", "Checking table:   './shop/sessions'")
			t = t.Add(time.Duration(1+r.IntN(3)) * time.Second)
			line(conn, "Warning", "Recovering table: './shop/sessions'")
			line(conn, "Note", fmt.Sprintf("Zerofilling moved table:  './shop/sessions'"))
		case k >= 995 && restarts < 3 && b.Len() > size*(restarts+1)/4:
			restarts++
			shutdown()
			startup()
			conn = 8 + r.IntN(30)
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// MongoDB 7.0 structured log.

type eMongoPlant struct {
	frac float64
	line func(ts string) string
}

func eMongoLine(ts, sev, comp string, id int, ctx, msg, attr string) string {
	cpad := strings.Repeat(" ", max(1, 9-len(comp)))
	ids := strconv.Itoa(id)
	ipad := strings.Repeat(" ", max(1, 8-len(ids)))
	s := fmt.Sprintf(`{"t":{"$date":"%s"},"s":"%s",  "c":"%s",%s"id":%s,%s"ctx":"%s","msg":"%s"`, ts, sev, comp, cpad, ids, ipad, ctx, msg)
	if attr != "" {
		s += `,"attr":` + attr
	}
	return s + "}\n"
}

func eUUID(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), 0x8000|r.IntN(1<<14), r.Int64N(1<<48))
}

func eMakeMongoLog(id string, size int, plant []eMongoPlant) string {
	r := seeded(id)
	var b strings.Builder
	t := time.Date(2026, 4, 1, 0, 0, 3, 0, time.UTC)
	ts := func() string { return t.Format("2006-01-02T15:04:05.000-07:00") }
	conn := 100 + r.IntN(500)
	type mconn struct {
		id           int
		remote, uuid string
		driver, app  string
	}
	var open []mconn
	drivers := []struct{ name, version, platform, app string }{
		{"nodejs", "6.10.0", "Node.js v20.18.1, LE (unified)", "shop-api"},
		{"PyMongo", "4.10.1", "CPython 3.11.2.final.0", "reports"},
		{"mongo-go-driver", "v1.17.1", "go1.23.4", "catalog-sync"},
	}
	nextCkpt := t.Add(60 * time.Second)
	gen := 3000 + r.IntN(900)
	for b.Len() < size {
		t = t.Add(time.Duration(r.ExpFloat64()*6500) * time.Millisecond)
		for len(plant) > 0 && float64(b.Len()) >= plant[0].frac*float64(size) {
			b.WriteString(plant[0].line(ts()))
			plant = plant[1:]
		}
		if !t.Before(nextCkpt) {
			gen++
			snap := 40 + r.IntN(9000)
			msg := fmt.Sprintf(`{"message":{"ts_sec":%d,"ts_usec":%d,"thread":"%d:0x7f3b2c9f6640","session_name":"WT_SESSION.checkpoint","category":"WT_VERB_CHECKPOINT_PROGRESS","category_id":6,"verbose_level":"DEBUG_1","verbose_level_id":1,"msg":"saving checkpoint snapshot min: %d, snapshot max: %d snapshot count: 0, oldest timestamp: (0, 0) , meta checkpoint timestamp: (0, 0) base write gen: %d"}}`,
				t.Unix(), t.Nanosecond()/1000, 1043, snap, snap, gen)
			b.WriteString(eMongoLine(ts(), "I", "WTCHKPT", 22430, "Checkpointer", "WiredTiger message", msg))
			nextCkpt = nextCkpt.Add(60 * time.Second)
		}
		k := r.IntN(100)
		switch {
		case k < 22 || len(open) < 4:
			conn++
			d := ePick(r, drivers)
			c := mconn{id: conn, remote: fmt.Sprintf("10.20.1.%d:%d", 11+r.IntN(4), 32768+r.IntN(28000)), uuid: eUUID(r), driver: d.name, app: d.app}
			open = append(open, c)
			b.WriteString(eMongoLine(ts(), "I", "NETWORK", 22943, "listener", "Connection accepted",
				fmt.Sprintf(`{"remote":"%s","isLoadBalanced":false,"uuid":{"uuid":{"$uuid":"%s"}},"connectionId":%d,"connectionCount":%d}`, c.remote, c.uuid, c.id, len(open))))
			b.WriteString(eMongoLine(ts(), "I", "NETWORK", 51800, fmt.Sprintf("conn%d", c.id), "client metadata",
				fmt.Sprintf(`{"remote":"%s","client":"conn%d","negotiatedCompressors":[],"doc":{"application":{"name":"%s"},"driver":{"name":"%s","version":"%s"},"os":{"type":"Linux","name":"linux","architecture":"x64","version":"6.1.0-28-amd64"},"platform":"%s"}}`, c.remote, c.id, d.app, d.name, d.version, d.platform)))
			b.WriteString(eMongoLine(ts(), "I", "ACCESS", 20250, fmt.Sprintf("conn%d", c.id), "Authentication succeeded",
				fmt.Sprintf(`{"mechanism":"SCRAM-SHA-256","speculative":true,"principalName":"%s","authenticationDatabase":"admin","remote":"%s","extraInfo":{}}`, strings.ReplaceAll(d.app, "-", ""), c.remote)))
		case k < 42:
			i := r.IntN(len(open))
			c := open[i]
			open = append(open[:i], open[i+1:]...)
			b.WriteString(eMongoLine(ts(), "I", "NETWORK", 22944, fmt.Sprintf("conn%d", c.id), "Connection ended",
				fmt.Sprintf(`{"remote":"%s","isLoadBalanced":false,"uuid":{"uuid":{"$uuid":"%s"}},"connectionId":%d,"connectionCount":%d}`, c.remote, c.uuid, c.id, len(open))))
		case k < 90:
			c := open[r.IntN(len(open))]
			coll := ePick(r, []string{"orders", "products", "customers", "carts", "reviews", "inventory"})
			var cmd, plan string
			examined := 0
			switch coll {
			case "orders":
				cmd = fmt.Sprintf(`{"find":"orders","filter":{"customerId":%d},"sort":{"createdAt":-1},"limit":20`, 1+r.IntN(250000))
				plan = `IXSCAN { customerId: 1, createdAt: -1 }`
				examined = 20 + r.IntN(200)
			case "products":
				cmd = fmt.Sprintf(`{"find":"products","filter":{"categoryId":%d,"active":true},"projection":{"name":1,"price":1,"sku":1}`, 1+r.IntN(400))
				plan = `IXSCAN { categoryId: 1 }`
				examined = 100 + r.IntN(4000)
			case "carts":
				cmd = fmt.Sprintf(`{"update":"carts","ordered":true,"updates":[{"q":{"sessionId":"%08x"},"u":{"$set":{"updatedAt":{"$date":"%s"}}},"upsert":true}]`, r.Uint32(), ts())
				plan = `IXSCAN { sessionId: 1 }`
				examined = 1
			case "reviews":
				cmd = fmt.Sprintf(`{"aggregate":"reviews","pipeline":[{"$match":{"productId":%d}},{"$group":{"_id":"$rating","n":{"$sum":1}}}],"cursor":{}`, 1+r.IntN(90000))
				plan = `COLLSCAN`
				examined = 400000 + r.IntN(300000)
			default:
				cmd = fmt.Sprintf(`{"find":"%s","filter":{"email":"%s"}`, coll, eEmail(r))
				plan = `COLLSCAN`
				examined = 100000 + r.IntN(200000)
			}
			ms := 100 + int(r.ExpFloat64()*300)
			keys := examined / 3
			if plan == "COLLSCAN" {
				keys = 0
			}
			attr := fmt.Sprintf(`{"type":"command","ns":"shop.%s","appName":"%s","command":%s,"lsid":{"id":{"$uuid":"%s"}},"$db":"shop"},"planSummary":"%s","keysExamined":%d,"docsExamined":%d,"cursorExhausted":true,"numYields":%d,"nreturned":%d,"queryHash":"%08X","planCacheKey":"%08X","queryFramework":"classic","reslen":%d,"locks":{"FeatureCompatibilityVersion":{"acquireCount":{"r":%d}},"Global":{"acquireCount":{"r":%d}}},"readConcern":{"level":"local","provenance":"implicitDefault"},"storage":{"data":{"bytesRead":%d,"timeReadingMicros":%d}},"remote":"%s","protocol":"op_msg","durationMillis":%d}`,
				coll, c.app, cmd, c.uuid, plan, keys, examined, examined/1000, r.IntN(50), r.Uint32(), r.Uint32(), 200+r.IntN(90000), 1+examined/1000, 1+examined/1000, r.IntN(9000000), r.IntN(90000), c.remote, ms)
			b.WriteString(eMongoLine(ts(), "I", "COMMAND", 51803, fmt.Sprintf("conn%d", c.id), "Slow query", attr))
		case k < 95:
			b.WriteString(eMongoLine(ts(), "I", "NETWORK", 4615610, fmt.Sprintf("conn%d", open[r.IntN(len(open))].id), "Failed to check socket connectivity",
				`{"error":{"code":6,"codeName":"HostUnreachable","errmsg":"Connection closed by peer"}}`))
		default:
			b.WriteString(eMongoLine(ts(), "I", "STORAGE", 22260, "TimestampMonitor", "Removing historical entries older than",
				fmt.Sprintf(`{"timestamp":{"$timestamp":{"t":%d,"i":1}}}`, t.Add(-5*time.Minute).Unix())))
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// JSON lines.

// eMakeTokyoJSONL writes the stations and links of the Tokyo railway graph
// that gonum tests with as JSON lines.
func eMakeTokyoJSONL() (string, error) {
	raw, err := os.ReadFile("/root/go/pkg/mod/gonum.org/v1/gonum@v0.17.0/graph/formats/cytoscapejs/testdata/tokyo-railways.json")
	if err != nil {
		return "", err
	}
	var g struct {
		Nodes []struct {
			Data json.RawMessage `json:"data"`
		} `json:"nodes"`
		Edges []struct {
			Data json.RawMessage `json:"data"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return "", err
	}
	var b strings.Builder
	add := func(kind string, d json.RawMessage) error {
		var m map[string]any
		if err := json.Unmarshal(d, &m); err != nil {
			return err
		}
		m["type"] = kind
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
		return nil
	}
	for _, n := range g.Nodes {
		if err := add("station", n.Data); err != nil {
			return "", err
		}
	}
	for _, e := range g.Edges {
		if err := add("link", e.Data); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

var eTestFunc = regexp.MustCompile(`(?m)^func (Test[A-Z0-9_]\w*)\(t \*testing\.T\)`)

// eModPath turns a directory of the module cache into an import path.
func eModPath(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		if j := strings.IndexByte(p, '@'); j >= 0 {
			parts[i] = p[:j]
		}
	}
	s := strings.Join(parts, "/")
	var b strings.Builder
	up := false
	for _, c := range s {
		if c == '!' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(c)))
			up = false
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// eMakeGoTestJSON writes `go test -json ./...` output for modules of the
// module cache, with their real test names.
func eMakeGoTestJSON(id string, roots []string, size int, failPkg, failTest, failOut string) (string, error) {
	r := seeded(id)
	const mod = "/root/go/pkg/mod/"
	type pkg struct {
		path  string
		tests []string
	}
	var pkgs []pkg
	for _, root := range roots {
		byDir := map[string][]string{}
		err := filepath.WalkDir(mod+root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range eTestFunc.FindAllSubmatch(src, -1) {
				dir := filepath.Dir(p)
				byDir[dir] = append(byDir[dir], string(m[1]))
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		dirs := make([]string, 0, len(byDir))
		for d := range byDir {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		for _, d := range dirs {
			pkgs = append(pkgs, pkg{eModPath(strings.TrimPrefix(d, mod)), byDir[d]})
		}
	}
	var b strings.Builder
	t := time.Date(2026, 11, 2, 10, 14, 3, 0, time.UTC)
	type ev struct {
		Time    string
		Action  string
		Package string
		Test    string   `json:",omitempty"`
		Output  string   `json:",omitempty"`
		Elapsed *float64 `json:",omitempty"`
	}
	put := func(e ev) {
		e.Time = t.Format(time.RFC3339Nano)
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	f := func(x float64) *float64 { return &x }
	for _, p := range pkgs {
		if b.Len() > size {
			break
		}
		put(ev{Action: "start", Package: p.path})
		total := 0.0
		failed := false
		for _, name := range p.tests {
			put(ev{Action: "run", Package: p.path, Test: name})
			put(ev{Action: "output", Package: p.path, Test: name, Output: "=== RUN   " + name + "\n"})
			el := float64(int(r.ExpFloat64()*8)) / 100
			if r.IntN(12) == 0 {
				el = float64(int(r.ExpFloat64()*300)) / 100
			}
			t = t.Add(time.Duration(el*1e9) + time.Duration(r.IntN(900000)))
			total += el
			if r.IntN(40) == 0 {
				put(ev{Action: "output", Package: p.path, Test: name, Output: fmt.Sprintf("    %s_test.go:%d: skipping in short mode\n", strings.ToLower(strings.TrimPrefix(name, "Test")), 20+r.IntN(400))})
				put(ev{Action: "output", Package: p.path, Test: name, Output: fmt.Sprintf("--- SKIP: %s (0.00s)\n", name)})
				put(ev{Action: "skip", Package: p.path, Test: name, Elapsed: f(0)})
				continue
			}
			if p.path == failPkg && name == failTest {
				failed = true
				for _, o := range strings.SplitAfter(failOut, "\n") {
					if o != "" {
						put(ev{Action: "output", Package: p.path, Test: name, Output: o})
					}
				}
				put(ev{Action: "output", Package: p.path, Test: name, Output: fmt.Sprintf("--- FAIL: %s (%.2fs)\n", name, el)})
				put(ev{Action: "fail", Package: p.path, Test: name, Elapsed: f(el)})
				continue
			}
			put(ev{Action: "output", Package: p.path, Test: name, Output: fmt.Sprintf("--- PASS: %s (%.2fs)\n", name, el)})
			put(ev{Action: "pass", Package: p.path, Test: name, Elapsed: f(el)})
		}
		total += float64(r.IntN(900)) / 1000
		if failed {
			put(ev{Action: "output", Package: p.path, Output: "FAIL\n"})
			put(ev{Action: "output", Package: p.path, Output: fmt.Sprintf("FAIL\t%s\t%.3fs\n", p.path, total)})
			put(ev{Action: "fail", Package: p.path, Elapsed: f(float64(int(total*1000)) / 1000)})
			continue
		}
		put(ev{Action: "output", Package: p.path, Output: "PASS\n"})
		put(ev{Action: "output", Package: p.path, Output: fmt.Sprintf("ok  \t%s\t%.3fs\n", p.path, total)})
		put(ev{Action: "pass", Package: p.path, Elapsed: f(float64(int(total*1000)) / 1000)})
	}
	return b.String(), nil
}

// eMakeModIndex writes the module cache's versions as JSON lines, as the
// module index (index.golang.org) serves them.
func eMakeModIndex() (string, error) {
	const root = "/root/go/pkg/mod/cache/download/"
	type rec struct{ Path, Version, Timestamp string }
	var recs []rec
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".info") || !strings.Contains(p, "/@v/") {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var info struct{ Version, Time string }
		if json.Unmarshal(raw, &info) != nil || info.Time == "" {
			return nil
		}
		modDir := strings.TrimSuffix(strings.TrimPrefix(p, root), "/@v/"+filepath.Base(p))
		recs = append(recs, rec{eModPath(modDir), info.Version, info.Time})
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Timestamp != recs[j].Timestamp {
			return recs[i].Timestamp < recs[j].Timestamp
		}
		return recs[i].Path < recs[j].Path
	})
	var b strings.Builder
	for _, x := range recs {
		line, _ := json.Marshal(x)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// eMakeAppLog writes a web service's JSON log (Go's log/slog JSONHandler),
// with planted records at the given fractions of the run.
func eMakeAppLog(id string, size int, plants map[float64]func(ts string) string) string {
	r := seeded(id)
	t := time.Date(2026, 5, 4, 6, 0, 0, 0, time.UTC)
	paths := []string{"/api/v2/products/%d", "/api/v2/products?category=%d", "/api/v2/cart", "/api/v2/cart/items/%d", "/api/v2/orders/%d", "/api/v2/checkout", "/api/v2/customers/me", "/healthz", "/api/v2/search?q=%s"}
	terms := []string{"kettle", "usb-c+cable", "running+shoes", "desk+lamp", "coffee", "backpack", "headphones", "yoga+mat"}
	var lines []string
	total := 0
	for total < size {
		t = t.Add(time.Duration(r.ExpFloat64()*180) * time.Millisecond)
		ts := t.Format("2006-01-02T15:04:05.000Z07:00")
		var l string
		k := r.IntN(100)
		switch {
		case k < 88:
			p := ePick(r, paths)
			switch {
			case strings.Contains(p, "%d"):
				p = fmt.Sprintf(p, 1+r.IntN(90000))
			case strings.Contains(p, "%s"):
				p = fmt.Sprintf(p, ePick(r, terms))
			}
			method := "GET"
			if strings.Contains(p, "cart") && r.IntN(2) == 0 || strings.HasSuffix(p, "checkout") {
				method = "POST"
			}
			status := 200
			switch x := r.IntN(100); {
			case x < 3:
				status = 404
			case x < 5:
				status = 401
			case x < 6:
				status = 500
			case method == "POST" && x < 30:
				status = 201
			}
			l = fmt.Sprintf(`{"time":"%s","level":"INFO","msg":"http request","method":"%s","path":"%s","status":%d,"duration_ms":%.1f,"bytes":%d,"remote_ip":"203.0.113.%d","request_id":"%016x"}`,
				ts, method, p, status, 1+r.ExpFloat64()*40, 120+r.IntN(30000), 1+r.IntN(254), r.Uint64())
		case k < 94:
			l = fmt.Sprintf(`{"time":"%s","level":"WARN","msg":"slow downstream call","service":"%s","duration_ms":%d,"request_id":"%016x"}`,
				ts, ePick(r, []string{"inventory-svc", "pricing-svc", "search-svc", "recommendations"}), 800+r.IntN(4000), r.Uint64())
		case k < 97:
			l = fmt.Sprintf(`{"time":"%s","level":"ERROR","msg":"db query failed","query":"%s","error":"%s","request_id":"%016x"}`,
				ts, ePick(r, []string{"GetCart", "ListOrders", "ReserveStock", "UpdateCustomer"}), ePick(r, []string{"context canceled", "pq: canceling statement due to statement timeout", "driver: bad connection"}), r.Uint64())
		default:
			l = fmt.Sprintf(`{"time":"%s","level":"INFO","msg":"cache refresh","cache":"%s","entries":%d,"took_ms":%d}`,
				ts, ePick(r, []string{"categories", "feature-flags", "shipping-zones"}), 50+r.IntN(5000), r.IntN(300))
		}
		lines = append(lines, l)
		total += len(l) + 1
	}
	keys := make([]float64, 0, len(plants))
	for k := range plants {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(keys)))
	for _, k := range keys {
		i := int(k * float64(len(lines)))
		ts, _, _ := strings.Cut(strings.TrimPrefix(lines[i], `{"time":"`), `"`)
		lines = append(lines[:i+1], append([]string{plants[k](ts)}, lines[i+1:]...)...)
	}
	return strings.Join(lines, "\n") + "\n"
}

// eMakePipInspect writes the distributions of a Python environment as
// JSON lines (name, version, summary, license, requires_python).
func eMakePipInspect(site string) (string, error) {
	infos, err := filepath.Glob(filepath.Join(site, "*.dist-info", "METADATA"))
	if err != nil {
		return "", err
	}
	sort.Strings(infos)
	var b strings.Builder
	for _, p := range infos {
		raw, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		head, _, _ := strings.Cut(string(raw), "\n\n")
		rec := map[string]string{}
		for _, line := range strings.Split(head, "\n") {
			k, v, ok := strings.Cut(line, ": ")
			if !ok {
				continue
			}
			switch k {
			case "Name", "Version", "Summary", "License", "Requires-Python", "Home-page", "Author":
				key := strings.ToLower(strings.ReplaceAll(k, "-", "_"))
				if _, seen := rec[key]; !seen {
					rec[key] = strings.TrimSpace(v)
				}
			}
		}
		if rec["name"] == "" {
			continue
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rec); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// ---------------------------------------------------------------------------
// CSV.

// eMakeGoAPICSV writes Go's API history (api/go1*.txt) as CSV: the release
// that added each declaration, by package.
func eMakeGoAPICSV() (string, error) {
	files, err := filepath.Glob("/usr/local/go/api/go1*.txt")
	if err != nil {
		return "", err
	}
	minor := func(p string) int {
		s := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "go1"), ".txt")
		if s == "" {
			return 0
		}
		n, _ := strconv.Atoi(strings.TrimPrefix(s, "."))
		return n
	}
	sort.Slice(files, func(i, j int) bool { return minor(files[i]) < minor(files[j]) })
	var rows [][]string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel := strings.TrimSuffix(filepath.Base(f), ".txt")
		for _, line := range strings.Split(string(raw), "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "pkg ") {
				continue
			}
			pkgPart, decl, ok := strings.Cut(line[4:], ", ")
			if !ok {
				continue
			}
			plat := ""
			if i := strings.Index(pkgPart, " ("); i > 0 {
				plat = strings.TrimSuffix(pkgPart[i+2:], ")")
				pkgPart = pkgPart[:i]
			}
			kind, _, _ := strings.Cut(decl, " ")
			rows = append(rows, []string{rel, pkgPart, plat, kind, decl})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][1] < rows[j][1] })
	var b strings.Builder
	b.WriteString("release,package,platform,kind,declaration\n")
	for _, row := range rows {
		b.WriteString(eCSVRow(row...))
	}
	return b.String(), nil
}

// eMakeDpkgCSV writes a dpkg package list as CSV.
func eMakeDpkgCSV(path string) (string, error) {
	raw, err := readFile(path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	cols := []string{"Package", "Version", "Architecture", "Installed-Size", "Section", "Priority", "Source", "Maintainer", "Size"}
	b.WriteString("package,version,architecture,installed_size_kib,section,priority,source,maintainer,deb_size_bytes\n")
	for _, st := range strings.Split(strings.TrimSpace(raw), "\n\n") {
		f := map[string]string{}
		for _, line := range strings.Split(st, "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, " ") {
				f[k] = v
			}
		}
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = f[c]
		}
		b.WriteString(eCSVRow(row...))
	}
	return b.String(), nil
}

// eMakeExtensionCSV lists PostgreSQL's extensions from their control
// files, with extra rows planted in name order.
func eMakeExtensionCSV(extra ...[]string) (string, error) {
	files, err := filepath.Glob("/usr/share/postgresql/15/extension/*.control")
	if err != nil {
		return "", err
	}
	var rows [][]string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		kv := map[string]string{}
		for _, line := range strings.Split(string(raw), "\n") {
			k, v, ok := strings.Cut(line, "=")
			if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			kv[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), "'")
		}
		name := strings.TrimSuffix(filepath.Base(f), ".control")
		sup := kv["superuser"]
		if sup == "" {
			sup = "true"
		}
		tr := kv["trusted"]
		if tr == "" {
			tr = "false"
		}
		rows = append(rows, []string{name, kv["default_version"], kv["relocatable"], tr, sup, kv["requires"], kv["schema"], kv["comment"]})
	}
	rows = append(rows, extra...)
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	var b strings.Builder
	b.WriteString("name,default_version,relocatable,trusted,superuser,requires,schema,comment\n")
	for _, row := range rows {
		b.WriteString(eCSVRow(row...))
	}
	return b.String(), nil
}

// ---------------------------------------------------------------------------
// Markdown and package lists.

// eMakeModDocs joins the Markdown files of the module cache (a docs
// bundle), leaving out files that other sets read.
func eMakeModDocs() (string, error) {
	const root = "/root/go/pkg/mod/"
	skip := map[string]bool{
		root + "go.opentelemetry.io/otel@v1.47.0/CHANGELOG.md":            true,
		root + "github.com/prometheus/client_golang@v1.25.0/CHANGELOG.md": true,
	}
	var parts []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == root+"cache" || d.Name() == ".github") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") || skip[p] {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		parts = append(parts, strings.TrimSpace(string(raw)))
		return nil
	})
	if err != nil {
		return "", err
	}
	return strings.Join(parts, "\n\n") + "\n", nil
}

// eMakeAvailableWith returns dpkg's available file with a stanza planted
// on a stanza boundary at depth.
func eMakeAvailableWith(depth float64, stanza string) (string, error) {
	raw, err := readFile("/var/lib/dpkg/available")
	if err != nil {
		return "", err
	}
	return eInsertAfterLine(raw, depth, func(l, _ string) bool { return l == "" }, strings.TrimRight(stanza, "\n")+"\n\n"), nil
}

// ---------------------------------------------------------------------------
// The cases.

const (
	eMod   = "/root/go/pkg/mod/"
	eRedis = eMod + "github.com/redis/go-redis/v9@v9.23.0/"
	eGCSDK = "/usr/lib/google-cloud-sdk/lib/googlecloudsdk/"
	eRust  = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/"
	eApt   = "/var/lib/apt/lists/deb.debian.org_"
)

var freshE = []devCase{
	// --- man pages ---
	{ID: "e-man-1", Kind: "man", Form: "fact", Files: []string{"/usr/share/man/man1/wget.1.gz"},
		Question: "If I run wget without any of the timeout options, how long will it sit on a stalled read before it gives up?",
		Answers:  []string{"900", "900 seconds", "900 s", "900s", "900-second", "15 minutes"}},
	{ID: "e-man-2", Kind: "man", Form: "fact", Deliver: "each",
		Files:    []string{"/usr/share/man/man1/jq.1.gz", "/usr/share/man/man1/less.1.gz", "/usr/share/man/man1/tmux.1.gz"},
		Question: "after I hit Escape, how long does tmux wait by default to decide whether it's the start of a key sequence?",
		Answers:  []string{"500 milliseconds", "500 ms", "500ms", "500", "0.5 seconds", "half a second"}},
	{ID: "e-man-3", Kind: "man", Form: "roff", Files: []string{"/usr/share/man/man1/gcloud_*container_*.1.gz"}, Size: 4_200_000,
		Needle: ".TP 2m\n\\fB\\-\\-etcd\\-snapshot\\-retention\\-days\\fR=\\fIDAYS\\fR\n\nNumber of days GKE keeps the automatic etcd snapshots of the control plane\nbefore deleting them. The default is 21 days; the maximum is 90.\n", Depth: 0.57,
		Question: "These are the gcloud container man pages. By default, how many days are the control plane's etcd snapshots retained?",
		Answers:  []string{"21 days", "21", "three weeks", "3 weeks"}},
	{ID: "e-man-4", Kind: "man", Form: "absent", Deliver: "each",
		Files:    []string{"/usr/share/man/man1/zip.1.gz", "/usr/share/man/man1/unzip.1.gz"},
		Question: "Which unzip flag makes it extract with several threads in parallel?"},
	{ID: "e-man-5", Kind: "man", Form: "fact", Deliver: "inline", Files: []string{"/usr/share/man/man1/make.1.gz"},
		Question: "Who originally wrote the make manual page below?",
		Answers:  []string{"Dennis Morse", "Dennis Morse of Stanford University"}},

	// --- source code ---
	{ID: "e-code-1", Kind: "code", Form: "fact", Files: []string{eRedis + "options.go"},
		Question: "With go-redis defaults, how long can a pooled connection stay idle before it gets closed?",
		Answers:  []string{"30 minutes", "30 * time.Minute", "30m", "30 min", "half an hour"}},
	{ID: "e-code-2", Kind: "code", Form: "fact", Deliver: "each",
		Files:    []string{"/usr/include/brotli/decode.h", "/usr/include/brotli/encode.h", "/usr/include/brotli/port.h"},
		Question: "what lgwin does the brotli encoder use when you don't set the window size?",
		Answers:  []string{"22", "BROTLI_DEFAULT_WINDOW 22", "22 bits"}},
	{ID: "e-code-3", Kind: "code", Form: "comment", Files: []string{eRedis + "*.go"}, Size: 4_300_000,
		Needle: "// sentinelSwitchGrace is how long a failover client keeps using the old master\n// after +switch-master before it drops every pooled connection.\nconst sentinelSwitchGrace = 2500 * time.Millisecond\n", Depth: 0.62,
		Question: "In this go-redis source, how long does a failover client keep talking to the old master after a switch-master event before dropping its connections?",
		Answers:  []string{"2500 * time.Millisecond", "2500 milliseconds", "2500 ms", "2500ms", "2.5 seconds", "2.5s"}},
	{ID: "e-code-4", Kind: "code", Form: "absent", Deliver: "each",
		Files:    []string{"/usr/include/yaml.h", "/usr/include/expat.h", "/usr/include/expat_external.h"},
		Question: "Which libyaml release is the yaml.h header from?"},
	{ID: "e-code-5", Kind: "code", Form: "fact", Deliver: "inline", Files: []string{eMod + "github.com/cenkalti/backoff/v5@v5.0.3/retry.go"},
		Question: "If I call backoff.Retry without setting a max elapsed time, after how long does it stop retrying?",
		Answers:  []string{"15 * time.Minute", "15 minutes", "15m", "15 min", "a quarter of an hour"}},

	// --- Debian changelogs ---
	{ID: "e-changelog-1", Kind: "changelog", Form: "fact",
		Make: func() (string, error) {
			return eMakeDebChangelog("e-changelog-1", "golang-github-labstack-echo", eMod+"github.com/labstack/echo/v5@v5.3.1/CHANGELOG.md", 3, false)
		},
		Question: "which Debian revision brought in the upstream fix that preserves matched handler 404s for static files?",
		Answers:  []string{"5.3.1-1", "5.3.1"}},
	{ID: "e-changelog-2", Kind: "changelog", Form: "list",
		Make: func() (string, error) {
			doc, err := eMakeDebChangelog("e-changelog-2", "golang-github-redis-go-redis-v9", eRedis+"RELEASE-NOTES.md", 4, false)
			if err != nil {
				return "", err
			}
			return eInsertAfterLine(doc, 0.58, func(l, next string) bool { return eIsBullet(l) && (eIsBullet(next) || next == "") },
				"  * d/patches: Skip TestRingSharding on slow architectures; fixes the FTBFS\n    on riscv64 (Closes: #1091514)\n"), nil
		},
		Question: "Which architecture was failing to build from source before the ring sharding test got skipped?",
		Answers:  []string{"riscv64", "RISC-V 64", "RISC-V"}},
	{ID: "e-changelog-3", Kind: "changelog", Form: "absent", Deliver: "inline-after",
		Make: func() (string, error) {
			return eMakeDebChangelog("e-changelog-3", "golang-go.uber-atomic", eMod+"go.uber.org/atomic@v1.12.0/CHANGELOG.md", 2, false)
		},
		Question: "Which Debian bug report did the 1.11.0-1 upload close?"},
	{ID: "e-changelog-4", Kind: "changelog", Form: "fact", Deliver: "inline",
		Make: func() (string, error) {
			return eMakeDebChangelog("e-changelog-4", "charset-normalizer", "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/charset_normalizer/CHANGELOG.md", 3, true)
		},
		Question: "when was 3.3.2-1 uploaded?",
		Answers:  []string{"Tue, 31 Oct 2023 22:30:40 +0100", "Tue, 31 Oct 2023", "31 Oct 2023", "2023-10-31", "October 31, 2023", "31 October 2023"}},
	{ID: "e-changelog-5", Kind: "changelog", Form: "list", Deliver: "files",
		Make: func() (string, error) {
			doc, err := eMakeDebChangelog("e-changelog-5", "python-google-auth", "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/google-auth-library-python/CHANGELOG.md", 3, true)
			if err != nil {
				return "", err
			}
			return eInsertAfterLine(doc, 0.45, func(l, next string) bool { return eIsBullet(l) && (eIsBullet(next) || next == "") },
				"  * Add patch to skip test_refresh_with_network, which needs network access\n    (Closes: #1102387)\n"), nil
		},
		Question: "What bug number did the patch that skips the network-dependent refresh test close?",
		Answers:  []string{"#1102387", "1102387", "bug #1102387"}},

	// --- package lists ---
	{ID: "e-pkgdb-1", Kind: "pkgdb", Form: "fact", Deliver: "each",
		Files:    []string{eApt + "debian-security_dists_bookworm-security_InRelease", eApt + "debian_dists_bookworm-updates_InRelease", eApt + "debian_dists_bookworm_InRelease"},
		Question: "Until when is the security suite's Release file valid?",
		Answers:  []string{"Thu, 03 Dec 2026 21:03:35 UTC", "03 Dec 2026 21:03:35 UTC", "3 Dec 2026", "03 Dec 2026", "December 3, 2026", "2026-12-03"}},
	{ID: "e-pkgdb-2", Kind: "pkgdb", Form: "fact", Files: []string{eApt + "debian_dists_bookworm_InRelease"},
		Question: "How big is main/binary-amd64/Packages.xz according to this Release file?",
		Answers:  []string{"8790396", "8790396 bytes", "8,790,396 bytes", "8.8 MB"}},
	{ID: "e-pkgdb-3", Kind: "pkgdb", Form: "fact", Files: []string{"/var/lib/dpkg/available"},
		Question: "how many bytes is the tzdata .deb I'd have to download?",
		Answers:  []string{"299412", "299412 bytes", "299,412 bytes", "299,412"}},
	{ID: "e-pkgdb-4", Kind: "pkgdb", Form: "stanza", Deliver: "inline-after",
		Make: func() (string, error) {
			return eMakeAvailableWith(0.61, `Package: ca-certificates
Version: 20230311+deb12u1
Installed-Size: 424
Maintainer: Julien Cristau <jcristau@debian.org>
Architecture: all
Depends: openssl (>= 1.1.1), debconf (>= 0.5) | debconf-2.0
Breaks: ca-certificates-java (<< 20121112+nmu1)
Enhances: openssl
Description: Common CA certificates
Multi-Arch: foreign
Description-md5: 3ffc7de3b4e6e3bf7b5ee2b5ef1a6a4d
Tag: protocol::ssl, role::app-data, security::authentication
Section: misc
Priority: optional
Filename: pool/main/c/ca-certificates/ca-certificates_20230311+deb12u1_all.deb
Size: 153768
MD5sum: 8d2a0ce7f4b0a8c9e3b66a1f5a6de0c4
SHA256: 5308b9bd88eebe2a48be3168cb3d87677aaec5da9c63ad0cf561a29b8219115c
`)
		},
		Question: "What version of ca-certificates does this package list have?",
		Answers:  []string{"20230311+deb12u1"}},
	{ID: "e-pkgdb-5", Kind: "pkgdb", Form: "absent", Files: []string{"/var/lib/dpkg/available"},
		Question: "Which libssl3 version is listed in here?"},

	// --- Markdown ---
	{ID: "e-markdown-1", Kind: "markdown", Form: "fact", Files: []string{eRedis + "RELEASE-NOTES.md"},
		Question: "Which go-redis release first added GetToBuffer?",
		Answers:  []string{"9.21.0", "v9.21.0"}},
	{ID: "e-markdown-2", Kind: "markdown", Form: "fact", Deliver: "each",
		Files:    []string{"/root/.pyenv/README.md", "/root/.pyenv/COMMANDS.md", "/root/.pyenv/plugins/python-build/README.md"},
		Question: "what environment variable do I set so python-build downloads with aria2 instead of curl?",
		Answers:  []string{"PYTHON_BUILD_HTTP_CLIENT", "PYTHON_BUILD_HTTP_CLIENT=aria2"}},
	{ID: "e-markdown-3", Kind: "markdown", Form: "mdtable", Make: eMakeModDocs,
		Needle: "| Benchmark | ns/op | B/op | allocs/op |\n|---|---:|---:|---:|\n| BenchmarkGetToBuffer/64KiB-16 | 18204 | 0 | 0 |\n| BenchmarkGet/64KiB-16 | 31877 | 65552 | 2 |\n", Depth: 0.44,
		Question: "How many ns per op does GetToBuffer take with 64 KiB values?",
		Answers:  []string{"18204", "18204 ns/op", "18,204", "18,204 ns/op"}},
	{ID: "e-markdown-4", Kind: "markdown", Form: "fact", Deliver: "inline", Files: []string{"/usr/local/go/doc/godebug.md"},
		Question: "In which Go version did the x509sha1 GODEBUG setting go away?",
		Answers:  []string{"Go 1.24", "1.24", "go1.24"}},
	{ID: "e-markdown-5", Kind: "markdown", Form: "absent", Deliver: "each",
		Files:    []string{eMod + "github.com/go-logr/logr@v1.4.4/README.md", eMod + "github.com/go-logr/logr@v1.4.4/CONTRIBUTING.md", eMod + "github.com/google/uuid@v1.6.0/README.md"},
		Question: "What's the minimum Go version that google/uuid supports?"},

	// --- database server logs ---
	{ID: "e-dblog-1", Kind: "dblog", Form: "log",
		Make: func() (string, error) {
			return eMakePGLog("e-dblog-1", ePGOpts{start: time.Date(2026, 3, 15, 0, 0, 1, 0, time.UTC), size: 4_500_000, version: "15.14", port: 5432, authFail: true, step: 4,
				plant: []ePGPlant{
					{frac: 0.71, ev: ePGEvent{pid: 0, backend: "archiver", sev: "LOG", msg: "archive command failed with exit code 255",
						detail: "The failed archive command was: rsync -a pg_wal/000000010000002A000000C3 walbackup@10.20.9.4:/srv/wal/15-main/000000010000002A000000C3"}},
				}}), nil
		},
		Question: "Which WAL segment did the archiver fail to archive?",
		Answers:  []string{"000000010000002A000000C3"}},
	{ID: "e-dblog-2", Kind: "dblog", Form: "fact", Deliver: "inline-after",
		Make: func() (string, error) {
			return eMakePGLog("e-dblog-2", ePGOpts{start: time.Date(2026, 2, 7, 9, 30, 12, 0, time.UTC), size: 30_000, version: "15.14", port: 5433, startup: true, authFail: true, step: 3}), nil
		},
		Question: "what port is this postgres listening on?",
		Answers:  []string{"5433"}},
	{ID: "e-dblog-3", Kind: "dblog", Form: "fact", Deliver: "files",
		Make:     func() (string, error) { return eMakeMariaDBLog("e-dblog-3", 3_200_000), nil },
		Question: "MariaDB complained about a crashed table at some point. Which table was it?",
		Answers:  []string{"./shop/sessions", "shop/sessions", "shop.sessions", "sessions"}},
	{ID: "e-dblog-4", Kind: "dblog", Form: "json",
		Make: func() (string, error) {
			return eMakeMongoLog("e-dblog-4", 3_400_000, []eMongoPlant{{frac: 0.66, line: func(ts string) string {
				return eMongoLine(ts, "I", "INDEX", 20663, "IndexBuildsCoordinatorMongod-3", "Index build: done building",
					`{"buildUUID":{"uuid":{"$uuid":"6b1f0c2e-93d4-4e0a-b7a2-4f9d8c1e5a37"}},"collectionUUID":{"uuid":{"$uuid":"c2d7e1a9-5b3f-4c8e-9a61-0e4b7d2f8c15"}},"namespace":"shop.orders","index":"status_1_createdAt_-1","ident":"index-118--3847261950128374651","collectionIdent":"collection-41--3847261950128374651","commitTimestamp":null}`)
			}}}), nil
		},
		Question: "What's the name of the index that finished building on shop.orders?",
		Answers:  []string{"status_1_createdAt_-1"}},
	{ID: "e-dblog-5", Kind: "dblog", Form: "absent", Deliver: "inline",
		Make: func() (string, error) {
			return eMakePGLog("e-dblog-5", ePGOpts{start: time.Date(2026, 2, 19, 22, 5, 40, 0, time.UTC), size: 16_000, version: "15.14", port: 5432, step: 5}), nil
		},
		Question: "From which client IP did someone fail the password login?"},

	// --- JSON lines ---
	{ID: "e-jsonl-1", Kind: "jsonl", Form: "fact", Make: eMakeTokyoJSONL,
		Question: "What's the postal code of 整備場 station?",
		Answers:  []string{"144-0041", "〒144-0041", "1440041"}},
	{ID: "e-jsonl-2", Kind: "jsonl", Form: "json",
		Make: func() (string, error) {
			return eMakeGoTestJSON("e-jsonl-2", []string{"github.com/tetratelabs/wazero@v1.12.0", "gonum.org/v1/gonum@v0.17.0", "go.opentelemetry.io/otel@v1.47.0", "github.com/prometheus", "golang.org/x", "github.com/redis/go-redis/v9@v9.23.0"}, 3_700_000,
				"github.com/prometheus/procfs", "TestMountStatsExtendedRDMAStats",
				"    mountstats_test.go:631: unexpected RDMA statistics for /mnt/nfs (-want +got):\n          procfs.NFSTransportStats{\n        - \tReadChunkCount: 5709,\n        + \tReadChunkCount: 0,\n          }\n")
		},
		Size:     3_600_000,
		Question: "which test failed in this go test -json output?",
		Answers:  []string{"TestMountStatsExtendedRDMAStats"}},
	{ID: "e-jsonl-3", Kind: "jsonl", Form: "fact", Deliver: "inline", Make: eMakeModIndex,
		Question: "When was golang.org/x/net v0.59.0 published?",
		Answers:  []string{"2026-09-08T19:18:02Z", "2026-09-08", "8 September 2026", "September 8, 2026", "2026-09-08 19:18:02"}},
	{ID: "e-jsonl-4", Kind: "jsonl", Form: "json",
		Make: func() (string, error) {
			return eMakeAppLog("e-jsonl-4", 900_000, map[float64]func(string) string{0.63: func(ts string) string {
				return `{"time":"` + ts + `","level":"ERROR","msg":"payment capture failed","provider":"adyen","order_id":"ORD-2026-118842","amount_cents":15990,"currency":"EUR","attempt":3,"error":"context deadline exceeded","request_id":"4f0c9a1d7e2b3c58"}`
			}}), nil
		},
		Question: "Which order's payment capture failed?",
		Answers:  []string{"ORD-2026-118842"}},
	{ID: "e-jsonl-5", Kind: "jsonl", Form: "fact", Deliver: "inline-after",
		Make: func() (string, error) {
			return eMakePipInspect("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages")
		},
		Question: "what version of moto is installed in that environment?",
		Answers:  []string{"5.2.1"}},

	// --- CSV ---
	{ID: "e-csv-1", Kind: "csv", Form: "fact", Files: []string{"/usr/local/go/src/cmd/go/internal/modfetch/zip_sum_test/testdata/zip_sums.csv"},
		Question: "What's the h1 go.sum hash recorded for github.com/gorilla/mux?",
		Answers:  []string{"h1:gnP5JzjVOuiZD07fKKToCAOjS0yOpj/qPETTXCCS6hw=", "gnP5JzjVOuiZD07fKKToCAOjS0yOpj/qPETTXCCS6hw="}},
	{ID: "e-csv-2", Kind: "csv", Form: "fact", Make: eMakeGoAPICSV, Size: 4_500_000,
		Question: "According to this API export, which Go release added sort.Slice?",
		Answers:  []string{"go1.8", "Go 1.8", "1.8"}},
	{ID: "e-csv-3", Kind: "csv", Form: "fact", Deliver: "inline-after",
		Make:     func() (string, error) { return eMakeDpkgCSV("/var/lib/dpkg/available") },
		Question: "how much disk space does mawk take once installed, per this export?",
		Answers:  []string{"263", "263 KiB", "263 KB", "263 kB", "263 KiB (installed_size_kib)"}},
	{ID: "e-csv-4", Kind: "csv", Form: "csv",
		Make: func() (string, error) {
			return eMakeExtensionCSV([]string{"pg_partman", "5.2.4", "false", "false", "true", "", "partman", "Extension to manage partitioned tables by time or ID"})
		},
		Question: "default_version for pg_partman?",
		Answers:  []string{"5.2.4"}},
	{ID: "e-csv-5", Kind: "csv", Form: "csv",
		Make: func() (string, error) {
			return eMakePGLog("e-csv-5", ePGOpts{start: time.Date(2026, 3, 2, 0, 0, 2, 0, time.UTC), size: 3_300_000, version: "15.14", port: 5432, csv: true, authFail: true, step: 4,
				plant: []ePGPlant{{frac: 0.37, ev: ePGEvent{pid: 48213, user: "shop_app", db: "shop", host: "10.20.2.12:41872", app: "shop-worker", backend: "client backend",
					sev: "ERROR", state: "23503", tag: "INSERT", sessStart: time.Date(2026, 3, 2, 14, 1, 55, 0, time.UTC),
					msg:    "insert or update on table \"order_items\" violates foreign key constraint \"order_items_product_id_fkey\"",
					detail: "Key (product_id)=(77120) is not present in table \"products\".",
					stmt:   "INSERT INTO order_items (order_id, product_id, quantity, unit_price_cents) VALUES ($1, $2, $3, $4)"}}}}), nil
		},
		Question: "One insert failed its foreign key check. Which product_id was missing from products?",
		Answers:  []string{"77120"}},

	// --- YAML ---
	{ID: "e-yaml-1", Kind: "yaml", Form: "fact", Deliver: "each",
		Files:    []string{eRedis + "docker-compose.yml", eMod + "go.opentelemetry.io/otel@v1.47.0/versions.yaml", eMod + "github.com/prometheus/common@v0.72.0/.golangci.yml"},
		Question: "Which host port does the standalone redis container publish for TLS?",
		Answers:  []string{"6666"}},
	{ID: "e-yaml-2", Kind: "yaml", Form: "fact", Deliver: "each",
		Files:    []string{eGCSDK + "schemas/compute/v1/BackendService.yaml", eGCSDK + "schemas/compute/v1/HttpRetryPolicy.yaml", eGCSDK + "schemas/compute/v1/UrlMap.yaml"},
		Question: "If timeoutSec is left unset on a backend service, what timeout do you get?",
		Answers:  []string{"30 seconds", "30", "30s", "30 sec"}},
	{ID: "e-yaml-3", Kind: "yaml", Form: "comment", Files: []string{eGCSDK + "command_lib/*/resources.yaml"},
		Needle: "# Quota note: Memorystore admin API calls are capped at 60 requests per minute per project.\n", Depth: 0.48,
		Question: "how many Memorystore admin API calls per minute is a project allowed?",
		Answers:  []string{"60 requests per minute", "60", "60 per minute", "60/min", "60 requests/minute"}},
	{ID: "e-yaml-4", Kind: "yaml", Form: "fact", Files: []string{eGCSDK + "schemas/compute/v1/F*.yaml"},
		Question: "At most how many destination address groups can a firewall policy rule match?",
		Answers:  []string{"10", "ten"}},
	{ID: "e-yaml-5", Kind: "yaml", Form: "fact", Files: []string{eGCSDK + "command_lib/scheduler/flags.yaml"},
		Question: "By default, how many times does Cloud Scheduler double the wait between retries before it stops growing?",
		Answers:  []string{"5", "five", "5 times"}},

	// --- rendered HTML manuals ---
	{ID: "e-html-1", Kind: "html", Form: "fact", Deliver: "each",
		Files:    []string{"/usr/share/gtk-doc/html/libtasn1/api-index-full.html", "/usr/share/gtk-doc/html/libtasn1/ch01.html", "/usr/share/gtk-doc/html/libtasn1/libtasn1-libtasn1.html"},
		Question: "How long may a name in an ASN.1 definitions file be before libtasn1 rejects it?",
		Answers:  []string{"64", "64 characters", "ASN1_MAX_NAME_SIZE 64"}},
	{ID: "e-html-2", Kind: "html", Form: "fact", Deliver: "each",
		Files:    []string{eRust + "cargo/reference/config.html", eRust + "cargo/reference/environment-variables.html", eRust + "cargo/reference/profiles.html"},
		Question: "how many codegen units does cargo's release profile use by default?",
		Answers:  []string{"16", "codegen-units = 16"}},
	{ID: "e-html-3", Kind: "html", Form: "fact", Files: []string{eRust + "book/*.html", eRust + "nomicon/*.html"}, Size: 3_600_000,
		Question: "In the Rust book's final project, what address and port does the web server bind to?",
		Answers:  []string{"127.0.0.1:7878", "7878", "port 7878"}},
	{ID: "e-html-4", Kind: "html", Form: "absent", Deliver: "inline-after", Files: []string{"/root/.pyenv/versions/3.12.1/lib/python3.12/idlelib/help.html"},
		Question: "How many previous commands does IDLE's shell keep in its history?"},
	{ID: "e-html-5", Kind: "html", Form: "prose", Deliver: "files", Files: []string{"/usr/local/go/doc/go_spec.html"},
		Needle: "Implementation restriction: A compiler may limit the number of type parameters in a single type parameter list to 255.\n", Depth: 0.36,
		Question: "What limit may a compiler put on the number of type parameters in one type parameter list?",
		Answers:  []string{"255", "255 type parameters"}},
}
