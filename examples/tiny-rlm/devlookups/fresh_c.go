package main

// The fresh set's third part (fresh_c.go): questions over text this
// machine holds (source code, man pages, changelogs, package databases,
// Markdown, JSON lines and CSV built from real files) and over database
// server logs generated here, deterministic per case through seeded.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

func init() { fresh = append(fresh, freshC) }

// cExcluded are packages whose files another held-out set reads: nothing
// of theirs goes into this part's documents.
var cExcluded = map[string]bool{}

func init() {
	for _, p := range strings.Fields(`apt bash coreutils dbus debianutils distro-info-data dpkg
		e2fsprogs ghostscript git git-man gzip iso-codes libc6 libc6-dev libgnutls30
		libpython3.11-minimal libpython3.11-stdlib linux-libc-dev perl-modules-5.36
		python3-dev python3-pip python3-torch python3.11 redis-server systemd tar tzdata
		ucf util-linux valgrind xz-utils zstd`) {
		cExcluded[p] = true
	}
}

// cRun runs a command and returns what it wrote.
func cRun(name string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return out.String(), nil
}

// cStanzas splits RFC 822 stanzas, dropping those of excluded packages.
func cStanzas(text string) []string {
	var out []string
	for _, s := range strings.Split(strings.TrimSpace(text), "\n\n") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		name := ""
		if strings.HasPrefix(s, "Package: ") {
			name, _, _ = strings.Cut(strings.TrimPrefix(s, "Package: "), "\n")
		}
		if cExcluded[name] {
			continue
		}
		out = append(out, s)
	}
	return out
}

// cDpkgStanzas is the installed packages as Packages-style stanzas,
// without the fields a package leaves empty.
func cDpkgStanzas() (string, error) {
	text, err := cRun("dpkg-query", "-W", "-f=Package: ${Package}\nStatus: ${Status}\nPriority: ${Priority}\nSection: ${Section}\nInstalled-Size: ${Installed-Size}\nMaintainer: ${Maintainer}\nArchitecture: ${Architecture}\nSource: ${Source}\nVersion: ${Version}\nReplaces: ${Replaces}\nProvides: ${Provides}\nDepends: ${Depends}\nPre-Depends: ${Pre-Depends}\nRecommends: ${Recommends}\nSuggests: ${Suggests}\nBreaks: ${Breaks}\nConflicts: ${Conflicts}\nDescription: ${Description}\nHomepage: ${Homepage}\n\n")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range cStanzas(text) {
		for _, line := range strings.Split(s, "\n") {
			if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
				continue
			}
			if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, " ") && strings.TrimSpace(v) == "" && k != "" {
				continue
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// cDpkgCSV is the installed packages as a CSV table.
func cDpkgCSV() (string, error) {
	text, err := cRun("dpkg-query", "-W", "-f=${Package}\t${Version}\t${Architecture}\t${Installed-Size}\t${Section}\t${Priority}\t${Maintainer}\t${Homepage}\n")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("package,version,architecture,installed_size_kib,section,priority,maintainer,homepage\n")
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 8 || cExcluded[f[0]] {
			continue
		}
		for i, v := range f {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(cCSVField(v))
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

func cCSVField(v string) string {
	if strings.ContainsAny(v, ",\"\n") {
		return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
	}
	return v
}

// cUpdatesStanzas is the bookworm-updates Packages index apt fetched.
func cUpdatesStanzas() (string, error) {
	text, err := cRun("lz4cat", "/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm-updates_main_binary-amd64_Packages.lz4")
	if err != nil {
		return "", err
	}
	return strings.Join(cStanzas(text), "\n\n") + "\n", nil
}

// cMD5CSV is the installed files' MD5 sums dpkg keeps, as a CSV table,
// cut at limit bytes.
func cMD5CSV(limit int) (string, error) {
	names, err := filepath.Glob("/var/lib/dpkg/info/*.md5sums")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("package,path,md5\n")
	for _, n := range names {
		pkg := strings.TrimSuffix(filepath.Base(n), ".md5sums")
		pkg, _, _ = strings.Cut(pkg, ":")
		if cExcluded[pkg] {
			continue
		}
		data, err := os.ReadFile(n)
		if err != nil {
			return "", err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			sum, path, ok := strings.Cut(line, "  ")
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "%s,%s,%s\n", pkg, cCSVField("/"+path), sum)
		}
		if b.Len() > limit {
			break
		}
	}
	return b.String(), nil
}

// cSBOMLines is the components of the Jetty home CycloneDX bill of
// materials the Cloud SDK ships, one JSON object a line.
func cSBOMLines() (string, error) {
	data, err := os.ReadFile("/usr/lib/google-cloud-sdk/platform/google_appengine/google/appengine/tools/java/jetty12/jetty-home/jetty-home-12.0.20-cyclonedx.json")
	if err != nil {
		return "", err
	}
	var bom struct {
		Components []json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(data, &bom); err != nil {
		return "", err
	}
	var b bytes.Buffer
	for _, c := range bom.Components {
		if err := json.Compact(&b, c); err != nil {
			return "", err
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// cMimeLines is the shared MIME-info database as JSON lines.
func cMimeLines() (string, error) {
	data, err := os.ReadFile("/usr/share/mime/packages/freedesktop.org.xml")
	if err != nil {
		return "", err
	}
	type text struct {
		Lang string `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
		Text string `xml:",chardata"`
	}
	type ref struct {
		Type    string `xml:"type,attr"`
		Pattern string `xml:"pattern,attr"`
		Name    string `xml:"name,attr"`
	}
	var db struct {
		Types []struct {
			Type     string `xml:"type,attr"`
			Comments []text `xml:"comment"`
			Acronym  []text `xml:"acronym"`
			Expanded []text `xml:"expanded-acronym"`
			Icon     []ref  `xml:"generic-icon"`
			Sub      []ref  `xml:"sub-class-of"`
			Alias    []ref  `xml:"alias"`
			Globs    []ref  `xml:"glob"`
		} `xml:"mime-type"`
	}
	if err := xml.Unmarshal(data, &db); err != nil {
		return "", err
	}
	type line struct {
		Type        string            `json:"type"`
		Comment     string            `json:"comment"`
		Acronym     string            `json:"acronym,omitempty"`
		Expanded    string            `json:"expanded_acronym,omitempty"`
		Icon        string            `json:"generic_icon,omitempty"`
		SubClassOf  []string          `json:"sub_class_of,omitempty"`
		Aliases     []string          `json:"aliases,omitempty"`
		Globs       []string          `json:"globs,omitempty"`
		Translation map[string]string `json:"comment_l10n,omitempty"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, t := range db.Types {
		l := line{Type: t.Type, Translation: map[string]string{}}
		for _, c := range t.Comments {
			if c.Lang == "" {
				l.Comment = c.Text
			} else {
				l.Translation[c.Lang] = c.Text
			}
		}
		for _, c := range t.Acronym {
			if c.Lang == "" {
				l.Acronym = c.Text
			}
		}
		for _, c := range t.Expanded {
			if c.Lang == "" {
				l.Expanded = c.Text
			}
		}
		if len(t.Icon) > 0 {
			l.Icon = t.Icon[0].Name
		}
		for _, s := range t.Sub {
			l.SubClassOf = append(l.SubClassOf, s.Type)
		}
		for _, s := range t.Alias {
			l.Aliases = append(l.Aliases, s.Type)
		}
		for _, s := range t.Globs {
			l.Globs = append(l.Globs, s.Pattern)
		}
		if err := enc.Encode(l); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// cPyMetaLines is the metadata of the Python distributions Debian
// installed, one JSON object a line.
func cPyMetaLines() (string, error) {
	var files []string
	for _, g := range []string{"/usr/lib/python3/dist-packages/*.dist-info/METADATA", "/usr/lib/python3/dist-packages/*.egg-info/PKG-INFO", "/usr/lib/python3/dist-packages/*.egg-info"} {
		m, err := filepath.Glob(g)
		if err != nil {
			return "", err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			continue
		}
		if strings.Contains(f, "/pip-") || strings.Contains(f, "/torch-") {
			continue // python3-pip, python3-torch
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		head, body, _ := strings.Cut(string(data), "\n\n")
		m := map[string]any{}
		var key string
		for _, line := range strings.Split(head, "\n") {
			if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "        ") {
				if s, ok := m[key].(string); ok {
					m[key] = s + "\n" + strings.TrimSpace(line)
				}
				continue
			}
			k, v, ok := strings.Cut(line, ": ")
			if !ok {
				continue
			}
			key = strings.ToLower(strings.ReplaceAll(k, "-", "_"))
			switch key {
			case "classifier", "requires_dist", "provides_extra", "project_url", "platform":
				l, _ := m[key].([]string)
				m[key] = append(l, v)
			default:
				m[key] = v
			}
		}
		if body = strings.TrimSpace(body); body != "" && m["description"] == nil {
			if len(body) > 1500 {
				body = body[:1500] + "..."
			}
			m["description"] = body
		}
		if s, ok := m["description"].(string); ok && len(s) > 1500 {
			m["description"] = s[:1500] + "..."
		}
		if err := enc.Encode(m); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// cDep11 is the AppStream (DEP-11) components of bookworm main as JSON
// lines, read until about limit bytes are written.
func cDep11(limit int) (string, error) {
	f, err := os.Open("/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_dep11_Components-amd64.yml.gz")
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", err
	}
	dec := yaml.NewDecoder(bufio.NewReader(zr))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for first := true; b.Len() < limit; first = false {
		var doc map[string]any
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			return "", err
		}
		if first {
			continue // the file's header
		}
		if err := enc.Encode(doc); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// cClock is a log's clock: it moves on by a random step for each line.
type cClock struct {
	r *rand.Rand
	t time.Time
}

func (c *cClock) tick(maxMillis int) time.Time {
	c.t = c.t.Add(time.Duration(c.r.IntN(maxMillis)+1) * time.Millisecond)
	return c.t
}

func cPick[T any](r *rand.Rand, l []T) T { return l[r.IntN(len(l))] }

func cIP(r *rand.Rand) string {
	return fmt.Sprintf("10.%d.%d.%d", cPick(r, []int{0, 1, 2, 4, 8}), r.IntN(16), 2+r.IntN(250))
}

// cPGOpts says what a PostgreSQL log holds.
type cPGOpts struct {
	Start    time.Time
	Version  string
	Port     int
	Users    []string // who connects
	DBs      []string
	BadUsers []string // whose password logins fail now and then
	Size     int
}

var cPGTables = []string{"orders", "order_items", "customers", "payments", "inventory", "shipments", "audit_log", "sessions", "invoices_2023", "product_prices", "events", "user_prefs"}

var cPGStatements = []string{
	"SELECT o.id, o.total, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.created_at > $1 ORDER BY o.created_at DESC LIMIT 500",
	"UPDATE inventory SET quantity = quantity - $1 WHERE sku = $2 AND warehouse_id = $3",
	"SELECT count(*) FROM events WHERE kind = $1 AND occurred_at BETWEEN $2 AND $3",
	"INSERT INTO audit_log (actor, action, target, at) SELECT actor, action, target, now() FROM staging_audit",
	"DELETE FROM sessions WHERE last_seen < now() - interval '30 days'",
	"SELECT p.sku, avg(p.price) FROM product_prices p GROUP BY p.sku HAVING count(*) > 3",
	"COPY shipments (id, order_id, carrier, tracking_no, shipped_at) FROM STDIN WITH (FORMAT csv)",
	"WITH recent AS (SELECT customer_id, sum(total) s FROM orders WHERE created_at > now() - interval '7 days' GROUP BY 1) SELECT * FROM recent ORDER BY s DESC LIMIT 20",
	"REFRESH MATERIALIZED VIEW CONCURRENTLY daily_revenue",
	"SELECT * FROM payments WHERE status = 'pending' AND updated_at < now() - interval '1 hour' FOR UPDATE SKIP LOCKED",
}

// cPGLog is a PostgreSQL server log (log_line_prefix '%m [%p] %q%u@%d ').
func cPGLog(id string, o cPGOpts) string {
	r := seeded(id)
	clk := &cClock{r, o.Start}
	var b strings.Builder
	ts := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000 UTC") }
	pid := 1000 + r.IntN(2000)
	line := func(p int, who, msg string) {
		fmt.Fprintf(&b, "%s [%d] %s%s\n", ts(clk.tick(1800)), p, who, msg)
	}
	line(pid, "", fmt.Sprintf("LOG:  starting PostgreSQL %s (Debian %s-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit", o.Version, o.Version))
	line(pid, "", fmt.Sprintf("LOG:  listening on IPv4 address \"0.0.0.0\", port %d", o.Port))
	line(pid, "", fmt.Sprintf("LOG:  listening on IPv6 address \"::\", port %d", o.Port))
	line(pid, "", fmt.Sprintf("LOG:  listening on Unix socket \"/var/run/postgresql/.s.PGSQL.%d\"", o.Port))
	line(pid+3, "", fmt.Sprintf("LOG:  database system was shut down at %s", o.Start.Add(-37*time.Second).UTC().Format("2006-01-02 15:04:05 UTC")))
	line(pid, "", "LOG:  database system is ready to accept connections")
	next := pid + 20
	for b.Len() < o.Size {
		next += 1 + r.IntN(7)
		p := next
		u, db := cPick(r, o.Users), cPick(r, o.DBs)
		who := u + "@" + db + " "
		switch k := r.IntN(100); {
		case k < 30:
			host, port := cIP(r), 32768+r.IntN(28000)
			line(p, "[unknown]@[unknown] ", fmt.Sprintf("LOG:  connection received: host=%s port=%d", host, port))
			line(p, who, fmt.Sprintf("LOG:  connection authorized: user=%s database=%s application_name=%s", u, db, cPick(r, []string{"psql", "pgbouncer", "orders-api", "etl", "metabase", "PostgreSQL JDBC Driver"})))
			line(p, who, fmt.Sprintf("LOG:  disconnection: session time: 0:%02d:%02d.%03d user=%s database=%s host=%s port=%d", r.IntN(20), r.IntN(60), r.IntN(1000), u, db, host, port))
		case k < 62:
			line(p, who, fmt.Sprintf("LOG:  duration: %d.%03d ms  statement: %s", 250+r.IntN(9000), r.IntN(1000), cPick(r, cPGStatements)))
		case k < 70:
			line(pid+1, "", "LOG:  checkpoint starting: time")
			w := 200 + r.IntN(9000)
			line(pid+1, "", fmt.Sprintf("LOG:  checkpoint complete: wrote %d buffers (%.1f%%); 0 WAL file(s) added, 0 removed, %d recycled; write=%d.%03d s, sync=0.%03d s, total=%d.%03d s; sync files=%d, longest=0.%03d s, average=0.%03d s; distance=%d kB, estimate=%d kB", w, float64(w)/1638.4, r.IntN(4), 20+r.IntN(250), r.IntN(1000), r.IntN(60), 20+r.IntN(250), r.IntN(1000), 5+r.IntN(80), r.IntN(30), r.IntN(5), 1000+r.IntN(90000), 1000+r.IntN(90000)))
		case k < 78:
			t := cPick(r, cPGTables)
			line(p, "", fmt.Sprintf("LOG:  automatic analyze of table \"%s.public.%s\"", db, t))
			fmt.Fprintf(&b, "\tavg read rate: %d.%03d MB/s, avg write rate: %d.%03d MB/s\n", r.IntN(40), r.IntN(1000), r.IntN(5), r.IntN(1000))
			fmt.Fprintf(&b, "\tbuffer usage: %d hits, %d misses, %d dirtied\n", r.IntN(20000), r.IntN(3000), r.IntN(200))
			fmt.Fprintf(&b, "\tsystem usage: CPU: user: 0.%02d s, system: 0.%02d s, elapsed: %d.%02d s\n", r.IntN(100), r.IntN(100), r.IntN(3), r.IntN(100))
		case k < 84:
			t := cPick(r, cPGTables)
			line(p, who, fmt.Sprintf("ERROR:  duplicate key value violates unique constraint \"%s_pkey\"", t))
			line(p, who, fmt.Sprintf("DETAIL:  Key (id)=(%d) already exists.", 1000+r.IntN(900000)))
			line(p, who, fmt.Sprintf("STATEMENT:  INSERT INTO %s VALUES ($1, $2, $3, $4)", t))
		case k < 88:
			line(p, who, "ERROR:  canceling statement due to statement timeout")
			line(p, who, "STATEMENT:  "+cPick(r, cPGStatements))
		case k < 91 && len(o.BadUsers) > 0:
			bu := cPick(r, o.BadUsers)
			line(p, bu+"@"+db+" ", fmt.Sprintf("FATAL:  password authentication failed for user \"%s\"", bu))
			line(p, bu+"@"+db+" ", "DETAIL:  Connection matched pg_hba.conf line 98: \"host    all             all             10.0.0.0/8              scram-sha-256\"")
		case k < 94:
			line(p, who, fmt.Sprintf("LOG:  temporary file: path \"base/pgsql_tmp/pgsql_tmp%d.%d\", size %d", p, r.IntN(3), (1+r.IntN(400))*1048576))
			line(p, who, "STATEMENT:  "+cPick(r, cPGStatements))
		case k < 97:
			line(p, who, "LOG:  could not receive data from client: Connection reset by peer")
		default:
			line(p, who, "WARNING:  there is no transaction in progress")
		}
	}
	return b.String()
}

// cMySQLLog is a MySQL 8.0 error log.
func cMySQLLog(id string, start time.Time, version string, users []string, size int) string {
	r := seeded(id)
	clk := &cClock{r, start}
	var b strings.Builder
	line := func(thread int, prio, code, sub, msg string) {
		t := clk.tick(2500).Add(time.Duration(r.IntN(1000)) * time.Microsecond)
		fmt.Fprintf(&b, "%s %d [%s] [%s] [%s] %s\n", t.UTC().Format("2006-01-02T15:04:05.000000Z"), thread, prio, code, sub, msg)
	}
	line(0, "System", "MY-010116", "Server", fmt.Sprintf("/usr/sbin/mysqld (mysqld %s) starting as process %d", version, 800+r.IntN(900)))
	line(1, "System", "MY-013576", "InnoDB", "InnoDB initialization has started.")
	line(1, "System", "MY-013577", "InnoDB", "InnoDB initialization has ended.")
	line(0, "Warning", "MY-010068", "Server", "CA certificate ca.pem is self signed.")
	line(0, "System", "MY-013602", "Server", "Channel mysql_main configured to support TLS. Encrypted connections are now supported for this channel.")
	line(0, "System", "MY-011323", "Server", "X Plugin ready for connections. Bind-address: '::' port: 33060, socket: /var/run/mysqld/mysqlx.sock")
	line(0, "System", "MY-010931", "Server", fmt.Sprintf("/usr/sbin/mysqld: ready for connections. Version: '%s'  socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL.", version))
	conn := 8
	dbs := []string{"shop", "billing", "analytics", "crm", "warehouse"}
	for b.Len() < size {
		conn += 1 + r.IntN(9)
		switch k := r.IntN(100); {
		case k < 40:
			line(conn, "Note", "MY-010914", "Server", fmt.Sprintf("Aborted connection %d to db: '%s' user: '%s' host: '%s' (Got an error reading communication packets).", conn, cPick(r, dbs), cPick(r, users), cIP(r)))
		case k < 55:
			line(conn, "Note", "MY-010914", "Server", fmt.Sprintf("Aborted connection %d to db: '%s' user: '%s' host: '%s' (Got timeout reading communication packets).", conn, cPick(r, dbs), cPick(r, users), cIP(r)))
		case k < 65:
			line(0, "Warning", "MY-010055", "Server", fmt.Sprintf("IP address '%s' could not be resolved: Name or service not known", cIP(r)))
		case k < 72:
			line(conn, "Warning", "MY-013360", "Server", "Plugin mysql_native_password reported: ''mysql_native_password' is deprecated and will be removed in a future release. Please use caching_sha2_password instead'")
		case k < 80:
			line(0, "Note", "MY-012468", "InnoDB", "Transactions deadlock detected, dumping detailed information. (lock0lock.cc:6482)")
			line(0, "Note", "MY-012469", "InnoDB", fmt.Sprintf("*** WE ROLL BACK TRANSACTION (%d)", 1+r.IntN(2)))
		case k < 88:
			line(0, "Warning", "MY-012111", "InnoDB", fmt.Sprintf("A long semaphore wait: --Thread %d has waited at buf0flu.cc line 1340 for %d seconds the semaphore", 139800000000000+r.Int64N(9000000000), 241+r.IntN(300)))
		case k < 94:
			line(0, "Note", "MY-011953", "InnoDB", fmt.Sprintf("Page cleaner took %dms to flush %d and evict 0 pages", 4000+r.IntN(9000), 100+r.IntN(3000)))
		default:
			line(conn, "Warning", "MY-010957", "Server", fmt.Sprintf("Access denied for user '%s'@'%s' (using password: YES)", cPick(r, users), cIP(r)))
		}
	}
	return b.String()
}

// cMongoLog is a MongoDB 6.0 structured (JSON) log.
func cMongoLog(id string, start time.Time, colls []string, size int) string {
	r := seeded(id)
	clk := &cClock{r, start}
	var b strings.Builder
	ts := func() string { return clk.tick(900).UTC().Format("2006-01-02T15:04:05.000+00:00") }
	fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"I",  "c":"CONTROL",  "id":23285,   "ctx":"-","msg":"Automatically disabling TLS 1.0, to force-enable TLS 1.0 specify --sslDisabledProtocols 'none'"}`+"\n", ts())
	fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"I",  "c":"CONTROL",  "id":4615611, "ctx":"initandlisten","msg":"MongoDB starting","attr":{"pid":%d,"port":27017,"dbPath":"/var/lib/mongodb","architecture":"64-bit","host":"db-prod-2"}}`+"\n", ts(), 700+r.IntN(900))
	fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"I",  "c":"CONTROL",  "id":23403,   "ctx":"initandlisten","msg":"Build Info","attr":{"buildInfo":{"version":"6.0.14","gitVersion":"25225db95574916fecab3af75b184409f8713aef","openSSLVersion":"OpenSSL 3.0.11 19 Sep 2023","modules":[],"allocator":"tcmalloc","environment":{"distmod":"debian12","distarch":"x86_64","target_arch":"x86_64"}}}}`+"\n", ts())
	fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"I",  "c":"NETWORK",  "id":23016,   "ctx":"listener","msg":"Waiting for connections","attr":{"port":27017,"ssl":"off"}}`+"\n", ts())
	conn := 1
	for b.Len() < size {
		switch k := r.IntN(100); {
		case k < 30:
			conn++
			fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"I",  "c":"NETWORK",  "id":22943,   "ctx":"listener","msg":"Connection accepted","attr":{"remote":"%s:%d","uuid":"%08x-%04x-4%03x-a%03x-%012x","connectionId":%d,"connectionCount":%d}}`+"\n", ts(), cIP(r), 32768+r.IntN(28000), r.Uint32(), r.IntN(65536), r.IntN(4096), r.IntN(4096), r.Int64N(1<<48), conn, 5+r.IntN(60))
		case k < 50:
			fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"I",  "c":"NETWORK",  "id":22944,   "ctx":"conn%d","msg":"Connection ended","attr":{"remote":"%s:%d","uuid":"%08x-%04x-4%03x-b%03x-%012x","connectionId":%d,"connectionCount":%d}}`+"\n", ts(), conn, cIP(r), 32768+r.IntN(28000), r.Uint32(), r.IntN(65536), r.IntN(4096), r.IntN(4096), r.Int64N(1<<48), conn, 5+r.IntN(60))
		case k < 80:
			coll := cPick(r, colls)
			plan := cPick(r, []string{"IXSCAN { customerId: 1 }", "IXSCAN { status: 1, createdAt: -1 }", "IXSCAN { sku: 1 }", "COLLSCAN", "IDHACK"})
			n := r.IntN(500)
			fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn%d","msg":"Slow query","attr":{"type":"command","ns":"%s","command":{"find":"%s","filter":{"status":"%s"},"limit":%d,"$db":"%s"},"planSummary":"%s","keysExamined":%d,"docsExamined":%d,"nreturned":%d,"queryHash":"%08X","reslen":%d,"locks":{"Global":{"acquireCount":{"r":1}}},"protocol":"op_msg","durationMillis":%d}}`+"\n",
				ts(), 2+r.IntN(conn), coll, coll[strings.IndexByte(coll, '.')+1:], cPick(r, []string{"pending", "shipped", "cancelled", "active"}), 50+r.IntN(450), coll[:strings.IndexByte(coll, '.')], plan, n, n+r.IntN(2000), r.IntN(n+1), r.Uint32(), 200+r.IntN(90000), 100+r.IntN(2400))
		case k < 90:
			fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"I",  "c":"STORAGE",  "id":22430,   "ctx":"Checkpointer","msg":"WiredTiger message","attr":{"message":{"ts_sec":%d,"ts_usec":%d,"thread":"%d:0x7f%010x","session_name":"WT_SESSION.checkpoint","category":"WT_VERB_CHECKPOINT_PROGRESS","category_id":6,"verbose_level":"DEBUG_1","verbose_level_id":1,"msg":"saving checkpoint snapshot min: %d, snapshot max: %d snapshot count: 0, oldest timestamp: (0, 0) , meta checkpoint timestamp: (0, 0) base write gen: %d"}}}`+"\n",
				ts(), clk.t.Unix(), r.IntN(1000000), 700+r.IntN(900), r.Int64N(1<<40), 1000+r.IntN(90000), 1000+r.IntN(90000), 100000+r.IntN(900000))
		default:
			fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"W",  "c":"NETWORK",  "id":4615610, "ctx":"conn%d","msg":"Failed to check socket connectivity","attr":{"error":{"code":6,"codeName":"HostUnreachable","errmsg":"Connection reset by peer"}}}`+"\n", ts(), 2+r.IntN(conn))
		}
	}
	return b.String()
}

// cRedisLog is a Redis server log.
func cRedisLog(id string, start time.Time, version string, size int) string {
	r := seeded(id)
	clk := &cClock{r, start}
	var b strings.Builder
	pid := 700 + r.IntN(900)
	line := func(p int, role, mark, msg string) {
		fmt.Fprintf(&b, "%d:%s %s %s %s\n", p, role, clk.tick(4000).UTC().Format("02 Jan 2006 15:04:05.000"), mark, msg)
	}
	line(pid, "C", "#", "oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo")
	line(pid, "C", "#", fmt.Sprintf("Redis version=%s, bits=64, commit=00000000, modified=0, pid=%d, just started", version, pid))
	line(pid, "C", "#", "Configuration loaded")
	line(pid, "M", "*", "monotonic clock: POSIX clock_gettime")
	line(pid, "M", "*", "Running mode=standalone, port=6379.")
	line(pid, "M", "#", "Server initialized")
	line(pid, "M", "*", "Loading RDB produced by version "+version)
	line(pid, "M", "*", fmt.Sprintf("RDB age %d seconds", 30+r.IntN(300)))
	line(pid, "M", "*", "RDB memory usage when created 41.27 Mb")
	line(pid, "M", "*", "Done loading RDB, keys loaded: 182044, keys expired: 311.")
	line(pid, "M", "*", "DB loaded from disk: 0.846 seconds")
	line(pid, "M", "*", "Ready to accept connections tcp")
	child := pid + 10
	for b.Len() < size {
		switch k := r.IntN(100); {
		case k < 70:
			child += 1 + r.IntN(40)
			save := cPick(r, [][2]int{{1, 3600}, {100, 300}, {10000, 60}})
			line(pid, "M", "*", fmt.Sprintf("%d changes in %d seconds. Saving...", save[0], save[1]))
			line(pid, "M", "*", fmt.Sprintf("Background saving started by pid %d", child))
			line(child, "C", "*", "DB saved on disk")
			line(child, "C", "*", fmt.Sprintf("Fork CoW for RDB: current %d MB, peak %d MB, average %d MB", r.IntN(9), 2+r.IntN(12), r.IntN(6)))
			line(pid, "M", "*", "Background saving terminated with success")
		case k < 85:
			line(pid, "M", "#", fmt.Sprintf("Client id=%d addr=%s:%d laddr=10.0.0.5:6379 fd=%d name= age=%d idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=1024 rbp=0 obl=0 oll=%d omem=%d tot-mem=%d events=r cmd=psync user=default redir=-1 resp=2 scheduled to be closed ASAP for overcoming of output buffer limits.", 1000+r.IntN(90000), cIP(r), 32768+r.IntN(28000), 8+r.IntN(200), r.IntN(5000), 100+r.IntN(4000), 1<<20+r.IntN(1<<26), 1<<20+r.IntN(1<<26)))
		default:
			rep := fmt.Sprintf("10.0.1.%d:6379", 7+r.IntN(3))
			line(pid, "M", "#", "Connection with replica "+rep+" lost.")
			line(pid, "M", "*", "Replica "+rep+" asks for synchronization")
			line(pid, "M", "*", fmt.Sprintf("Partial resynchronization request from %s accepted. Sending %d bytes of backlog starting from offset %d.", rep, r.IntN(90000), 1000000+r.Int64N(900000000)))
		}
	}
	return b.String()
}

var (
	cPyDist     = "/usr/lib/python3/dist-packages/"
	cNodeDoc    = "/usr/share/doc/nodejs/"
	cGdal       = "/usr/share/gdal/"
	cMan        = "/usr/share/man/"
	cNodeContrb = []string{cNodeDoc + "contributing/*.md", cNodeDoc + "contributing/maintaining/*.md"}
)

var freshC = []devCase{
	// code: Python, Perl and C sources.
	{ID: "c-code-requests-redirects", Kind: "code", Form: "fact",
		Files:    []string{cPyDist + "requests/*.py"},
		Question: "How many redirects will a requests Session follow before it gives up with TooManyRedirects?",
		Answers:  []string{"30", "30 redirects", "thirty"}},
	{ID: "c-code-dpkg-compressor", Kind: "code", Form: "fact",
		Files:    []string{"/usr/share/perl5/Dpkg/*.pm", "/usr/share/perl5/Dpkg/Compression/*.pm"},
		Question: "When nothing else is asked for, which compressor does the Dpkg Perl library pick by default?",
		Answers:  []string{"xz"}},
	{ID: "c-code-zlib-vernum", Kind: "code", Form: "fact", Deliver: "files",
		Files:    []string{"/usr/include/zlib.h", "/usr/include/zconf.h"},
		Question: "I need this zlib's version as the hexadecimal number the header defines for compile-time checks. What is it?",
		Answers:  []string{"0x12d0", "12d0"}},
	{ID: "c-code-jpeg-scanlines", Kind: "code", Form: "code",
		Files:    []string{"/usr/include/jpeglib.h", "/usr/include/jmorecfg.h", "/usr/include/jerror.h"},
		Needle:   "#define JPEG_MAX_SCANLINES_PER_CALL  4096  /* cap on rows jpeg_read_scanlines() returns per call */",
		Depth:    0.602351,
		Question: "What's the most rows a single jpeg_read_scanlines() call will hand back, per these headers?",
		Answers:  []string{"4096", "4096 rows", "4096 scanlines"}},
	{ID: "c-code-sympy-recursion", Kind: "code", Form: "comment",
		Files: []string{cPyDist + "sympy/core/*.py", cPyDist + "sympy/core/tests/*.py", cPyDist + "sympy/printing/*.py",
			cPyDist + "sympy/printing/tests/*.py", cPyDist + "sympy/simplify/*.py", cPyDist + "sympy/solvers/*.py"},
		Needle:   "# NOTE: the recursion limit is raised to 6500 while expanding deeply nested Add trees (see gh-24839)",
		Depth:    0.133299,
		Question: "To what value is the recursion limit raised while expanding deeply nested Add trees?",
		Answers:  []string{"6500"}},
	{ID: "c-code-pygments-zig", Kind: "code", Form: "fact",
		Files:    []string{cPyDist + "pygments/lexers/*.py"},
		Question: "Which MIME type do these lexer definitions register for Zig source code?",
		Answers:  []string{"text/zig"}},
	{ID: "c-code-dpkg-zstd-level", Kind: "code", Form: "absent",
		Files:    []string{"/usr/share/perl5/Dpkg/*.pm", "/usr/share/perl5/Dpkg/Compression/*.pm"},
		Question: "What default compression level does the Dpkg library use for zstd?"},
	{ID: "c-code-dateutil-registry", Kind: "code", Form: "code",
		Files:    []string{cPyDist + "dateutil/*.py", cPyDist + "dateutil/tz/*.py", cPyDist + "dateutil/parser/*.py"},
		Needle:   "\n_REG_QUERY_TIMEOUT_MS = 750  # give up on a slow Windows registry time zone lookup after this long",
		Depth:    0.684463,
		Question: "How long does dateutil wait on a Windows registry time zone lookup before giving up?",
		Answers:  []string{"750", "750 ms", "750 milliseconds", "0.75 seconds", "0.75 s"}},

	// man: roff sources of manual pages.
	{ID: "c-man-curl-redirs", Kind: "man", Form: "fact",
		Files:    []string{cMan + "man1/curl.1.gz"},
		Question: "Out of the box, how many redirects will curl follow when I use -L?",
		Answers:  []string{"50", "50 redirects", "50 redirections", "fifty"}},
	{ID: "c-man-tmux-escape", Kind: "man", Form: "fact", Deliver: "inline-after",
		Files:    []string{cMan + "man1/tmux.1.gz"},
		Question: "If I haven't changed anything, how long does tmux wait after an Escape key press to decide whether it starts a key sequence?",
		Answers:  []string{"500 milliseconds", "500", "500 ms", "0.5 seconds", "0.5 s", "half a second"}},
	{ID: "c-man-tcp-fin", Kind: "man", Form: "fact",
		Files:    []string{cMan + "man7/tcp.7.gz", cMan + "man7/udp.7.gz", cMan + "man7/ip.7.gz", cMan + "man7/socket.7.gz"},
		Question: "On today's kernels, how long does Linux wait for the final FIN packet before it forcibly closes the socket, by default?",
		Answers:  []string{"60", "60 seconds", "60 s", "one minute", "1 minute"}},
	{ID: "c-man-gcloud-serial", Kind: "man", Form: "prose",
		Files:    []string{cMan + "man1/gcloud_compute_*.1.gz"},
		Needle:   "\nInteractive serial console sessions opened with \\fBgcloud compute connect\\-to\\-serial\\-port\\fR are closed\nautomatically after 6 hours without input.",
		Depth:    0.083942,
		Question: "After how long without input does a serial console session opened through gcloud get closed on its own?",
		Answers:  []string{"6 hours", "six hours", "6h", "6 h", "360 minutes"}},
	{ID: "c-man-wget-waitretry", Kind: "man", Form: "fact", Deliver: "files",
		Files:    []string{cMan + "man1/wget.1.gz"},
		Question: "Without --waitretry, what's the longest wget waits between retries of a failed download?",
		Answers:  []string{"10 seconds", "10", "10 s", "ten seconds"}},
	{ID: "c-man-less-idle", Kind: "man", Form: "prose", Deliver: "inline",
		Files:    []string{cMan + "man1/less.1.gz"},
		Needle:   ".IP \"\\-\\-idle\\-exit[=\\fIn\\fP]\"\nCauses\n.B less\nto exit by itself after \\fIn\\fP minutes without keyboard input.\nIf the option is given without a number, less exits after 45 minutes.",
		Depth:    0.469683,
		Question: "If I give less its idle-exit option without a number, after how long does it quit by itself?",
		Answers:  []string{"45 minutes", "45", "45 min", "three quarters of an hour"}},
	{ID: "c-man-jq-depth", Kind: "man", Form: "absent",
		Files:    []string{cMan + "man1/jq.1.gz"},
		Question: "How deeply can JSON input be nested before jq refuses to parse it?"},
	{ID: "c-man-proc-autogroup", Kind: "man", Form: "prose",
		Files: []string{cMan + "man5/proc.5.gz", cMan + "man7/cgroups.7.gz", cMan + "man7/capabilities.7.gz",
			cMan + "man7/user_namespaces.7.gz", cMan + "man7/cpuset.7.gz"},
		Needle:   ".TP\n.IR /proc/sys/kernel/sched_autogroup_grace_ms \" (since Linux 6.9)\"\nThe grace period, in milliseconds, before the scheduler reaps an idle autogroup.\nThe default value is 1500.",
		Depth:    0.379655,
		Question: "By default, how long is the grace period before the scheduler reaps an idle autogroup?",
		Answers:  []string{"1500", "1500 milliseconds", "1500 ms", "1.5 seconds", "1.5 s"}},

	// changelog: upstream changelogs and release notes.
	{ID: "c-chg-node12-date", Kind: "changelog", Form: "fact",
		Files:    []string{cNodeDoc + "changelogs/CHANGELOG_V12.md"},
		Question: "When did Node.js 12.22.10 come out?",
		Answers:  []string{"2022-02-01", "February 1, 2022", "1 February 2022", "Feb 1, 2022", "2022-02-01 (Feb 1, 2022)"}},
	{ID: "c-chg-node-releaser", Kind: "changelog", Form: "fact",
		Files: []string{cNodeDoc + "changelogs/CHANGELOG_V6.md", cNodeDoc + "changelogs/CHANGELOG_V8.md", cNodeDoc + "changelogs/CHANGELOG_V10.md",
			cNodeDoc + "changelogs/CHANGELOG_V11.md", cNodeDoc + "changelogs/CHANGELOG_V13.md"},
		Question: "Who cut the Node.js 8.9.0 release?",
		Answers:  []string{"gibfahn", "@gibfahn", "Gibson Fahnestock"}},
	{ID: "c-chg-gcloud-version", Kind: "changelog", Form: "fact", Deliver: "inline",
		Files:    []string{"/usr/lib/google-cloud-sdk/RELEASE_NOTES"},
		Question: "Which version of the Google Cloud CLI was released on June 3, 2025?",
		Answers:  []string{"525.0.0", "525"}},
	{ID: "c-chg-gsutil-reporter", Kind: "changelog", Form: "list",
		Files:    []string{"/usr/lib/google-cloud-sdk/platform/gsutil/CHANGES.md"},
		Needle:   "- Fixed a crash in `gsutil rsync` when the destination bucket has a locked retention policy; thanks to Ingrid Løvås for the report (#1869).",
		Depth:    0.005556,
		Question: "Can you find who reported the rsync crash on buckets with a locked retention policy?",
		Answers:  []string{"Ingrid Løvås", "Ingrid Lovas", "Løvås"}},
	{ID: "c-chg-pyparsing-315", Kind: "changelog", Form: "absent",
		Files:    []string{"/usr/lib/google-cloud-sdk/platform/gsutil/third_party/pyparsing/CHANGES"},
		Question: "When was pyparsing 3.1.5 released?"},
	{ID: "c-chg-gcc-mold", Kind: "changelog", Form: "fact",
		Files:    []string{"/usr/share/doc/gcc-12-base/gomp/changelog.gz", "/usr/share/doc/gcc-12-base/itm/changelog.gz", "/usr/share/doc/gcc-12-base/quadmath/changelog.gz"},
		Question: "What's the e-mail address of the person who fixed the typo in the mold linker detection?",
		Answers:  []string{"mliska@suse.cz", "<mliska@suse.cz>"}},
	{ID: "c-chg-node-ticket-commit", Kind: "changelog", Form: "list",
		Files: []string{cNodeDoc + "changelogs/CHANGELOG_V4.md", cNodeDoc + "changelogs/CHANGELOG_V5.md", cNodeDoc + "changelogs/CHANGELOG_V7.md",
			cNodeDoc + "changelogs/CHANGELOG_V9.md", cNodeDoc + "changelogs/CHANGELOG_V12.md", cNodeDoc + "changelogs/CHANGELOG_IOJS.md", cNodeDoc + "changelogs/CHANGELOG_V14.md"},
		Needle:   "* \\[[`3f9a1c2e7b`](https://github.com/nodejs/node/commit/3f9a1c2e7b)] - **tls**: raise default session ticket lifetime to 7200 seconds (Ada Okafor) [#18517](https://github.com/nodejs/node/pull/18517)",
		Depth:    0.36,
		Question: "Which commit raised the default TLS session ticket lifetime to two hours?",
		Answers:  []string{"3f9a1c2e7b"}},
	{ID: "c-chg-urllib3-issue", Kind: "changelog", Form: "list", Deliver: "inline-after",
		Files:    []string{"/usr/lib/google-cloud-sdk/platform/gsutil/third_party/urllib3/CHANGES.rst"},
		Needle:   "- Fixed ``HTTPResponse.read()`` hanging when a server sent more than 2 GiB over TLS 1.3 without a ``Content-Length``. (`#3412 <https://github.com/urllib3/urllib3/issues/3412>`__)",
		Depth:    0.007686,
		Question: "What issue number tracks the fix for reads hanging when a server sends over 2 GiB via TLS 1.3?",
		Answers:  []string{"#3412", "3412", "issue 3412"}},

	// pkgdb: package databases as RFC 822 stanzas.
	{ID: "c-pkg-jq-maintainer", Kind: "pkgdb", Form: "fact",
		Make:     cDpkgStanzas,
		Question: "Who maintains the jq package?",
		Answers:  []string{"ChangZhuo Chen (陳昌倬) <czchen@debian.org>", "ChangZhuo Chen", "czchen@debian.org", "ChangZhuo Chen <czchen@debian.org>", "ChangZhuo Chen (陳昌倬)", "陳昌倬"}},
	{ID: "c-pkg-strace-size", Kind: "pkgdb", Form: "fact",
		Make:     cDpkgStanzas,
		Question: "How much disk space does strace take up once installed?",
		Answers:  []string{"2839", "2839 KiB", "2839 kB", "2839 KB", "2,839 KiB", "2839 kilobytes"}},
	{ID: "c-pkg-exporter-version", Kind: "pkgdb", Form: "stanza",
		Make: cDpkgStanzas,
		Needle: `
Package: pgbackrest-exporter
Status: install ok installed
Priority: optional
Section: database
Installed-Size: 18432
Maintainer: Oskar Lindqvist <oskar.lindqvist@dataops.example.se>
Architecture: amd64
Version: 0.17.0-2~bpo12+1
Depends: libc6 (>= 2.34), pgbackrest (>= 2.48)
Description: Prometheus exporter for pgBackRest backup status
 Exposes the state of pgBackRest stanzas, backups and WAL archiving
 as Prometheus metrics, by default on port 9854.
Homepage: https://github.com/woblerr/pgbackrest_exporter
`,
		Depth:    0.860709,
		Question: "Which version of the pgBackRest Prometheus exporter is installed?",
		Answers:  []string{"0.17.0-2~bpo12+1", "0.17.0-2", "0.17.0"}},
	{ID: "c-pkg-nginx-absent", Kind: "pkgdb", Form: "absent",
		Make:     cDpkgStanzas,
		Question: "How big is the nginx package once installed?"},
	{ID: "c-pkg-smbclient-sha", Kind: "pkgdb", Form: "fact", Deliver: "files",
		Make:     cUpdatesStanzas,
		Question: "I need the SHA-256 checksum of the smbclient .deb in this index.",
		Answers:  []string{"d5ec281d1c9e969a3e0e6f0072d06c56e017b2662594b14262e203adca3f530f"}},
	{ID: "c-pkg-tileforge-maint", Kind: "pkgdb", Form: "stanza", Deliver: "inline-after",
		Make: cDpkgStanzas,
		Needle: `
Package: osm-tileforge
Status: install ok installed
Priority: optional
Section: science
Installed-Size: 5214
Maintainer: Þórunn Sigurðardóttir <thorunn@geo.example.is>
Architecture: amd64
Version: 2.3.1-1
Depends: libboost-program-options1.74.0, libc6 (>= 2.34), libgcc-s1 (>= 3.0), liblua5.3-0, libprotobuf32 (>= 3.21.12), libshp4 (>= 1.4.1), libsqlite3-0 (>= 3.7.15), libstdc++6 (>= 12), zlib1g (>= 1:1.2.0)
Description: build vector tiles from OpenStreetMap extracts
 osm-tileforge reads .osm.pbf extracts and writes Mapbox vector tiles
 into an MBTiles file or a directory tree, driven by a Lua profile.
Homepage: https://tileforge.example.is/
`,
		Depth:    0.848342,
		Question: "Who is listed as maintaining osm-tileforge?",
		Answers:  []string{"Þórunn Sigurðardóttir <thorunn@geo.example.is>", "Þórunn Sigurðardóttir", "thorunn@geo.example.is"}},
	{ID: "c-pkg-libpq-pool", Kind: "pkgdb", Form: "stanza",
		Make: cUpdatesStanzas,
		Needle: `
Package: libpq5
Source: postgresql-15
Version: 15.13-0+deb12u1
Installed-Size: 929
Maintainer: Debian PostgreSQL Maintainers <team+postgresql@tracker.debian.org>
Architecture: amd64
Depends: libc6 (>= 2.34), libgssapi-krb5-2 (>= 1.17), libldap-2.5-0 (>= 2.5.4), libssl3 (>= 3.0.0)
Description: PostgreSQL C client library
Multi-Arch: same
Homepage: http://www.postgresql.org/
Description-md5: 0f8a3bb6a5ce8ca6f2b7e5c1e28a3c1e
Tag: devel::lang:c, devel::library, implemented-in::c, role::shared-lib
Section: libs
Priority: optional
Filename: pool/main/p/postgresql-15/libpq5_15.13-0+deb12u1_amd64.deb
Size: 193876
SHA256: 7b0c2f4d9e81a5f63c2d7e8a90b14f5c6d3e2a1b0f9e8d7c6b5a4f3e2d1c0b9a
`,
		Depth:    0.285936,
		Question: "Where in the archive pool does the libpq5 update live?",
		Answers:  []string{"pool/main/p/postgresql-15/libpq5_15.13-0+deb12u1_amd64.deb"}},
	{ID: "c-pkg-fakeroot-homepage", Kind: "pkgdb", Form: "absent",
		Make:     cDpkgStanzas,
		Question: "What's the upstream homepage of fakeroot?"},

	// markdown: Node.js contributor and API documentation, JDK legal notices.
	{ID: "c-md-snapshot-champion", Kind: "markdown", Form: "fact",
		Files:    cNodeContrb,
		Question: "Who is championing the Startup Snapshot initiative?",
		Answers:  []string{"Joyee Cheung", "joyeecheung", "[Joyee Cheung][joyeecheung]"}},
	{ID: "c-md-perf-tier", Kind: "markdown", Form: "fact", Deliver: "inline",
		Files: []string{cNodeDoc + "contributing/diagnostic-tooling-support-tiers.md", cNodeDoc + "contributing/node-postmortem-support.md",
			cNodeDoc + "contributing/investigating-native-memory-leaks.md"},
		Question: "Which support tier is Linux perf targeted at?",
		Answers:  []string{"2", "Tier 2", "tier 2"}},
	{ID: "c-md-asyncid-pool", Kind: "markdown", Form: "prose",
		Files:    []string{cNodeDoc + "api/a*.md"},
		Needle:   "\nBy default the async ID pool holds 4096 entries; raise it with `--async-id-pool-size` when an\napplication keeps more resources alive at the same time.",
		Depth:    0.976636,
		Question: "How many entries does the async ID pool hold by default?",
		Answers:  []string{"4096", "4096 entries"}},
	{ID: "c-md-steward-april", Kind: "markdown", Form: "mdtable",
		Files:    cNodeContrb,
		Needle:   "| Vercel       | Hiroshi         | 2023-Apr-27  |",
		Depth:    0.643358,
		Question: "Who was the security steward for the release of April 27, 2023?",
		Answers:  []string{"Hiroshi"}},
	{ID: "c-md-temporal-champion", Kind: "markdown", Form: "mdtable",
		Files: append(append([]string{}, cNodeContrb...), cNodeDoc+"api/a*.md", cNodeDoc+"changelogs/CHANGELOG_V15.md", cNodeDoc+"changelogs/CHANGELOG_V17.md",
			cNodeDoc+"changelogs/CHANGELOG_V19.md", cNodeDoc+"changelogs/CHANGELOG_V21.md", cNodeDoc+"changelogs/CHANGELOG_ARCHIVE.md",
			cNodeDoc+"changelogs/CHANGELOG_V010.md", cNodeDoc+"changelogs/CHANGELOG_V012.md", cNodeDoc+"changelogs/CHANGELOG_V5.md",
			cNodeDoc+"changelogs/CHANGELOG_V7.md", cNodeDoc+"changelogs/CHANGELOG_V9.md", cNodeDoc+"changelogs/CHANGELOG_V11.md"),
		Needle:   "| Temporal API           | [Ingrid Sæther][isaether]        | <https://github.com/nodejs/node/issues/51984>     |",
		Depth:    0.091304,
		Question: "Who's the champion for the Temporal API initiative?",
		Answers:  []string{"Ingrid Sæther", "isaether", "[Ingrid Sæther][isaether]", "Ingrid Saether"}},
	{ID: "c-md-wasm-champion", Kind: "markdown", Form: "absent",
		Files:    cNodeContrb,
		Question: "Who champions the WebAssembly strategic initiative?"},
	{ID: "c-md-jdk-mesa", Kind: "markdown", Form: "fact", Deliver: "files",
		Files:    []string{"/usr/lib/jvm/java-17-openjdk-amd64/legal/*/*.md"},
		Question: "Which Mesa 3-D version does the JDK's desktop module bundle?",
		Answers:  []string{"21.0.3", "v21.0.3", "Mesa 21.0.3", "Mesa 3-D Graphics Library v21.0.3"}},
	{ID: "c-md-quic-team", Kind: "markdown", Form: "mdtable", Deliver: "inline-after",
		Files:    []string{cNodeDoc + "contributing/collaborator-guide.md"},
		Needle:   "| `lib/internal/quic`, `src/quic`                                            | @nodejs/quic                                                                  |",
		Depth:    0.822583,
		Question: "Which team should I ping to review changes to the QUIC code?",
		Answers:  []string{"@nodejs/quic", "nodejs/quic"}},

	// dblog: database server logs generated here.
	{ID: "c-db-pg-port", Kind: "dblog", Form: "fact",
		Make: func() (string, error) {
			return cPGLog("c-db-pg-port", cPGOpts{Start: time.Date(2024, 3, 11, 8, 14, 2, 0, time.UTC), Version: "15.6", Port: 5433,
				Users: []string{"app", "reporting", "postgres"}, DBs: []string{"orders", "inventory"}, BadUsers: []string{"legacy_app"}, Size: 300000}), nil
		},
		Question: "Which TCP port does this Postgres instance accept connections on?",
		Answers:  []string{"5433"}},
	{ID: "c-db-pg-authfail", Kind: "dblog", Form: "log",
		Make: func() (string, error) {
			return cPGLog("c-db-pg-authfail", cPGOpts{Start: time.Date(2024, 2, 19, 23, 2, 41, 0, time.UTC), Version: "15.5", Port: 5432,
				Users: []string{"app", "reporting", "etl_loader", "postgres"}, DBs: []string{"orders", "billing", "analytics"}, BadUsers: []string{"legacy_app", "grafana"}, Size: 5000000}), nil
		},
		Needle: "2024-02-20 02:06:57.498 UTC [26947] svc_billing_ro@billing FATAL:  password authentication failed for user \"svc_billing_ro\"\n" +
			"2024-02-20 02:06:57.498 UTC [26947] svc_billing_ro@billing DETAIL:  Connection matched pg_hba.conf line 98: \"host    all             all             10.0.0.0/8              scram-sha-256\"",
		Depth:    0.37,
		Question: "At what time did the password login for svc_billing_ro fail?",
		Answers: []string{"2024-02-20 02:06:57.498 UTC", "2024-02-20 02:06:57.498", "02:06:57.498", "02:06:57.498 UTC", "2024-02-20 02:06:57",
			"2024-02-20 02:06:57 UTC", "02:06:57", "2024-02-20T02:06:57.498Z", "February 20, 2024 at 02:06:57.498 UTC"}},
	{ID: "c-db-mysql-tablefull", Kind: "dblog", Form: "log",
		Make: func() (string, error) {
			return cMySQLLog("c-db-mysql-tablefull", time.Date(2024, 5, 2, 9, 14, 33, 0, time.UTC), "8.0.36", []string{"app", "etl", "report"}, 400000), nil
		},
		Needle:   "2024-05-02T09:50:01.118204Z 7641 [ERROR] [MY-013132] [Server] The table 'shipment_events' is full!",
		Depth:    0.66,
		Question: "Which table ran out of space according to the MySQL log?",
		Answers:  []string{"shipment_events", "'shipment_events'"}},
	{ID: "c-db-mongo-invoices", Kind: "dblog", Form: "log", Deliver: "files",
		Make: func() (string, error) {
			return cMongoLog("c-db-mongo-invoices", time.Date(2024, 6, 3, 11, 0, 0, 0, time.UTC), []string{"shop.orders", "shop.carts", "shop.customers", "shop.products"}, 600000), nil
		},
		Needle: `{"t":{"$date":"2024-06-03T11:06:48.531+00:00"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn268","msg":"Slow query","attr":{"type":"command","ns":"shop.invoices",` +
			`"command":{"aggregate":"invoices","pipeline":[{"$match":{"issuedAt":{"$gte":{"$date":"2024-01-01T00:00:00.000Z"}}}},{"$group":{"_id":"$customerId","total":{"$sum":"$amount"}}}],"cursor":{},"$db":"shop"},` +
			`"planSummary":"COLLSCAN","keysExamined":0,"docsExamined":4182231,"cursorExhausted":true,"numYields":4171,"nreturned":101,"queryHash":"5E1D07A3","reslen":9876,` +
			`"locks":{"Global":{"acquireCount":{"r":4173}}},"protocol":"op_msg","durationMillis":48213}}`,
		Depth:    0.52,
		Question: "How long did the slow query against the invoices collection run?",
		Answers:  []string{"48213", "48213 ms", "48213 milliseconds", "48.213 seconds", "48.2 seconds", "48.213 s"}},
	{ID: "c-db-redis-version", Kind: "dblog", Form: "fact", Deliver: "inline",
		Make: func() (string, error) {
			return cRedisLog("c-db-redis-version", time.Date(2024, 9, 17, 4, 30, 0, 0, time.UTC), "7.2.4", 50000), nil
		},
		Question: "Tell me which Redis version this server runs.",
		Answers:  []string{"7.2.4", "Redis 7.2.4"}},
	{ID: "c-db-pg-audit-absent", Kind: "dblog", Form: "absent",
		Make: func() (string, error) {
			return cPGLog("c-db-pg-audit-absent", cPGOpts{Start: time.Date(2024, 4, 2, 6, 0, 9, 0, time.UTC), Version: "15.6", Port: 5432,
				Users: []string{"app", "reporting", "postgres"}, DBs: []string{"orders", "billing"}, BadUsers: []string{"legacy_app", "grafana"}, Size: 800000}), nil
		},
		Question: "When did the password authentication for user svc_audit fail?"},
	{ID: "c-db-pg-workmem", Kind: "dblog", Form: "log", Deliver: "inline-after",
		Make: func() (string, error) {
			return cPGLog("c-db-pg-workmem", cPGOpts{Start: time.Date(2024, 1, 8, 14, 21, 55, 0, time.UTC), Version: "15.5", Port: 5432,
				Users: []string{"app", "metabase"}, DBs: []string{"analytics"}, Size: 40000}), nil
		},
		Needle: "2024-01-08 14:24:21.004 UTC [1477] LOG:  received SIGHUP, reloading configuration files\n" +
			"2024-01-08 14:24:21.006 UTC [1477] LOG:  parameter \"work_mem\" changed to \"64MB\"",
		Depth:    0.58,
		Question: "What was work_mem set to when the configuration got reloaded?",
		Answers:  []string{"64MB", "64 MB"}},
	{ID: "c-db-mysql-etl-host", Kind: "dblog", Form: "log",
		Make: func() (string, error) {
			return cMySQLLog("c-db-mysql-etl-host", time.Date(2024, 7, 21, 0, 5, 12, 0, time.UTC), "8.0.37", []string{"app", "etl", "report", "backup"}, 3500000), nil
		},
		Needle:   "2024-07-21T06:08:02.652310Z 80419 [Note] [MY-010914] [Server] Aborted connection 80419 to db: 'warehouse' user: 'etl_nightly' host: '10.20.7.41' (Got timeout reading communication packets).",
		Depth:    0.81,
		Question: "From which host did the aborted etl_nightly connection come?",
		Answers:  []string{"10.20.7.41"}},

	// jsonl: JSON lines made from JSON, XML and YAML the machine holds.
	{ID: "c-json-hazelcast-sha1", Kind: "jsonl", Form: "fact",
		Make:     cSBOMLines,
		Question: "Tell me the SHA-1 hash recorded for the hazelcast artifact.",
		Answers:  []string{"e838d3f54dc1900310b5caff87ff25a5d3ed0d4b"}},
	{ID: "c-json-kafka-absent", Kind: "jsonl", Form: "absent", Deliver: "inline",
		Make:     cSBOMLines,
		Question: "Under which license is the Apache Kafka client library in this bill of materials distributed?"},
	{ID: "c-json-session-vault", Kind: "jsonl", Form: "json",
		Make: cSBOMLines,
		Needle: `{"group":"com.example.platform","name":"session-vault","version":"3.7.2","description":"Encrypted HTTP session store for Jetty","scope":"required",` +
			`"hashes":[{"alg":"MD5","content":"5d0c1e7a9b3f24e6c8a1d2f0b7e49c31"},{"alg":"SHA-1","content":"a41f09c2d7e85b36f1c0e9d84b2a7c5e6f3d1b08"}],` +
			`"licenses":[{"license":{"id":"Apache-2.0"}}],"purl":"pkg:maven/com.example.platform/session-vault@3.7.2?type=jar",` +
			`"externalReferences":[{"type":"vcs","url":"https://git.example.com/platform/session-vault"}],"type":"library","bom-ref":"pkg:maven/com.example.platform/session-vault@3.7.2?type=jar"}`,
		Depth:    0.44,
		Question: "Which version of session-vault does the bill of materials list?",
		Answers:  []string{"3.7.2"}},
	{ID: "c-json-gnukem-license", Kind: "jsonl", Form: "fact",
		Make:     func() (string, error) { return cDep11(5000000) },
		Question: "Under what license terms is the Dave Gnukem game released?",
		Answers:  []string{"GPL-2.0-only OR GPL-3.0-only OR MIT"}},
	{ID: "c-json-mime-ukrainian", Kind: "jsonl", Form: "fact",
		Make:     cMimeLines,
		Question: "What's the Ukrainian description for Zstandard-compressed tar archives?",
		Answers:  []string{"архів tar archive (стиснений Zstandard)"}},
	{ID: "c-json-parquet-absent", Kind: "jsonl", Form: "absent",
		Make:     cMimeLines,
		Question: "Which file name pattern is registered for Apache Parquet files?"},
	{ID: "c-json-crcmod-email", Kind: "jsonl", Form: "fact",
		Make:     cPyMetaLines,
		Question: "What's the contact e-mail of the person who wrote crcmod?",
		Answers:  []string{"rlbuvel@gmail.com"}},
	{ID: "c-json-pqstream-author", Kind: "jsonl", Form: "json", Deliver: "files",
		Make: cPyMetaLines,
		Needle: `{"author":"Małgorzata Wiśniewska","author_email":"m.wisniewska@pqstream.dev","classifier":["Development Status :: 4 - Beta","License :: OSI Approved :: BSD License",` +
			`"Programming Language :: Python :: 3","Topic :: Database"],"description":"pqstream streams rows in and out of PostgreSQL with COPY, in batches, without loading whole tables into memory.",` +
			`"home_page":"https://github.com/pqstream/pqstream","license":"BSD-3-Clause","metadata_version":"2.1","name":"pqstream","requires_dist":["psycopg (>=3.1)"],` +
			`"requires_python":">=3.8","summary":"Streaming COPY helpers for PostgreSQL","version":"2.4.1"}`,
		Depth:    0.63,
		Question: "Who is the author of the pqstream package?",
		Answers:  []string{"Małgorzata Wiśniewska", "Malgorzata Wisniewska"}},

	// csv: GDAL's data tables, NumPy's test data, dpkg's records.
	{ID: "c-csv-grib-nhc", Kind: "csv", Form: "fact",
		Files:    []string{cGdal + "grib2_center.csv", cGdal + "grib2_subcenter.csv", cGdal + "grib2_process.csv"},
		Question: "What's the originating-centre code of the hurricane center in Miami?",
		Answers:  []string{"52"}},
	{ID: "c-csv-s57-turbine", Kind: "csv", Form: "csv",
		Files:    []string{cGdal + "s57objectclasses.csv", cGdal + "s57attributes.csv"},
		Needle:   "164,Tidal energy turbine,TIDTRB,CATTRB;CONDTN;HEIGHT;NOBJNM;OBJNAM;STATUS;VERLEN;,INFORM;NINFOM;NTXTDS;PICREP;SCAMAX;SCAMIN;TXTDSC;,RECDAT;RECIND;SORDAT;SORIND;,G,Point;Area;",
		Depth:    0.395391,
		Question: "What acronym is used for the tidal energy turbine object class?",
		Answers:  []string{"TIDTRB"}},
	{ID: "c-csv-nzgd-chatham", Kind: "csv", Form: "csv",
		Files:    []string{cGdal + "gt_datum.csv", cGdal + "gt_ellips.csv"},
		Needle:   `NZG-C,"NZGD2000, Chatham Islands",RF,-174,3,39,3,412,3,-45,-43,-177,-175`,
		Depth:    0.567133,
		Question: "How large is the Z translation for the Chatham Islands variant of NZGD2000?",
		Answers:  []string{"412", "412 m", "412 metres", "412 meters", "+412"}},
	{ID: "c-csv-curl-md5", Kind: "csv", Form: "fact",
		Make:     func() (string, error) { return cMD5CSV(6000000) },
		Size:     6000000,
		Question: "Can you look up the MD5 checksum of /usr/share/man/man1/curl.1.gz?",
		Answers:  []string{"44ba31c9dceb262766e093e2bfd9f539"}},
	{ID: "c-csv-etrs89-absent", Kind: "csv", Form: "absent",
		Files:    []string{cGdal + "ozi_datum.csv", cGdal + "ozi_ellips.csv", cGdal + "gt_ellips.csv"},
		Question: "What's the Z shift listed for the ETRS89 datum?"},
	{ID: "c-csv-numpy-cos", Kind: "csv", Form: "csv", Deliver: "inline",
		Files:    []string{cPyDist + "numpy/core/tests/data/umath-validation-set-cos.csv"},
		Needle:   "np.float64,0x3fe921fb54442d18,0x3fe6a09e667f3bcd,4",
		Depth:    0.676939,
		Question: "What output is expected for the float64 input 0x3fe921fb54442d18?",
		Answers:  []string{"0x3fe6a09e667f3bcd"}},
	{ID: "c-csv-libonig-version", Kind: "csv", Form: "fact", Deliver: "files",
		Make:     cDpkgCSV,
		Question: "Which version of libonig5 is installed?",
		Answers:  []string{"6.9.8-1", "6.9.8"}},
	{ID: "c-csv-greenland-agency", Kind: "csv", Form: "csv", Deliver: "inline-after",
		Files:    []string{cGdal + "s57agencies.csv"},
		Needle:   "249,6G,35871,Geodatastyrelsen Grønland, Greenland",
		Depth:    0.9999,
		Question: "What producer code does the Greenland geodata office have?",
		Answers:  []string{"35871"}},
}
