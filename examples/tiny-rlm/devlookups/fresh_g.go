package main

// fresh_g.go: a held-out lookup set written from files no other set
// reads (the Rust toolchain's man pages and rendered books, pyenv and its
// Python builds, the Go tree's scripts and notes, a few /etc files, Go
// module test data), plus documents made from real data on this machine.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

func init() { fresh = append(fresh, freshG) }

const (
	gRust      = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu"
	gRustNight = "/root/.rustup/toolchains/nightly-x86_64-unknown-linux-gnu"
	gRustHTML  = gRust + "/share/doc/rust/html"
	gRustMan   = gRust + "/share/man/man1"
	gPyLib     = "/root/.pyenv/versions/3.12.1/lib/python3.12"
	gPyBuild   = "/root/.pyenv/plugins/python-build/share/python-build"
	gGonum     = "/root/go/pkg/mod/gonum.org/v1/gonum@v0.17.0/graph/formats"
)

// gBuildDef is one package a python-build definition installs.
type gBuildDef struct {
	def, pkg, url, sum string
}

var gInstallRe = regexp.MustCompile(`install_package "([^"]+)" "([^"#]+)(?:#([0-9a-f]+))?"`)

// gBuildDefs reads python-build's definitions: each package each one
// installs, in the order of the definitions' names.
func gBuildDefs() ([]gBuildDef, error) {
	names, err := filepath.Glob(gPyBuild + "/*")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []gBuildDef
	for _, n := range names {
		if fi, err := os.Stat(n); err != nil || fi.IsDir() {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		for _, m := range gInstallRe.FindAllStringSubmatch(string(b), -1) {
			out = append(out, gBuildDef{filepath.Base(n), m[1], m[2], m[3]})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no python-build definitions in %s", gPyBuild)
	}
	return out, nil
}

// gMakeBuildCSV writes the definitions as a CSV export.
func gMakeBuildCSV() (string, error) {
	defs, err := gBuildDefs()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("definition,package,source_url,sha256\n")
	for _, d := range defs {
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", d.def, d.pkg, d.url, d.sum)
	}
	return b.String(), nil
}

// gMakeBuildList writes the definitions as a Markdown list, one item per
// definition with the packages it builds.
func gMakeBuildList() (string, error) {
	defs, err := gBuildDefs()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Python builds we can install\n\nGenerated from the python-build definitions on the build host. Each item names the definition, then what it downloads and builds, in order.\n\n")
	for i := 0; i < len(defs); {
		j := i
		var pkgs []string
		for j < len(defs) && defs[j].def == defs[i].def {
			pkgs = append(pkgs, "`"+defs[j].pkg+"`")
			j++
		}
		fmt.Fprintf(&b, "- **%s**: %s\n", defs[i].def, strings.Join(pkgs, ", "))
		i = j
	}
	return b.String(), nil
}

// gMakeManifestTSV turns the stable and nightly Rust channel manifests
// into one TSV row per package and target.
func gMakeManifestTSV() (string, error) {
	var b strings.Builder
	b.WriteString("channel\tpackage\ttarget\tavailable\turl\tsha256\n")
	head := regexp.MustCompile(`^\[pkg\.([^.\]]+)\.target\.([^\]]+)\]$`)
	for _, tc := range []struct{ name, dir string }{{"stable", gRust}, {"nightly", gRustNight}} {
		raw, err := os.ReadFile(tc.dir + "/lib/rustlib/multirust-channel-manifest.toml")
		if err != nil {
			return "", err
		}
		var pkg, target, avail, url, hash string
		flush := func() {
			if pkg != "" {
				fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", tc.name, pkg, target, avail, url, hash)
			}
			pkg, target, avail, url, hash = "", "", "", "", ""
		}
		for _, l := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(l, "[") {
				flush()
				if m := head.FindStringSubmatch(l); m != nil {
					pkg, target = m[1], m[2]
				}
				continue
			}
			k, v, ok := strings.Cut(l, " = ")
			if !ok || pkg == "" {
				continue
			}
			v = strings.Trim(v, `"`)
			switch k {
			case "available":
				avail = v
			case "url":
				url = v
			case "hash":
				hash = v
			}
		}
		flush()
	}
	return b.String(), nil
}

// gMakeSrcReport is a fixed-width listing of the Go tree's files with
// their sizes, as a disk usage report prints it.
func gMakeSrcReport() (string, error) {
	var rows []string
	var total int64
	err := filepath.Walk("/usr/local/go", func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		rel := strings.TrimPrefix(p, "/usr/local/go/")
		ext := filepath.Ext(rel)
		if ext == "" {
			ext = "-"
		}
		total += fi.Size()
		rows = append(rows, fmt.Sprintf("%-88s %-8s %12d %s", rel, ext, fi.Size(), fi.Mode().Perm()))
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(rows)
	var b strings.Builder
	b.WriteString("FILE USAGE REPORT  /usr/local/go\n")
	fmt.Fprintf(&b, "%-88s %-8s %12s %s\n", "PATH", "TYPE", "BYTES", "MODE")
	b.WriteString(strings.Repeat("-", 122) + "\n")
	for i, r := range rows {
		b.WriteString(r + "\n")
		if (i+1)%60 == 0 {
			fmt.Fprintf(&b, "\n%-88s %-8s %12s %s\n", "PATH", "TYPE", "BYTES", "MODE")
			b.WriteString(strings.Repeat("-", 122) + "\n")
		}
	}
	fmt.Fprintf(&b, "%s\n%-88s %-8s %12d\n", strings.Repeat("-", 122), "TOTAL", "", total)
	return b.String(), nil
}

// gTokyo is the Tokyo railway graph from gonum's test data.
type gTokyo struct {
	Nodes []struct {
		Data map[string]any `json:"data"`
	} `json:"nodes"`
	Edges []struct {
		Data map[string]any `json:"data"`
	} `json:"edges"`
}

func gLoadTokyo() (*gTokyo, error) {
	raw, err := os.ReadFile(gGonum + "/cytoscapejs/testdata/tokyo-railways.json")
	if err != nil {
		return nil, err
	}
	var t gTokyo
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// gMakeStationsJSONL writes the railway graph as JSON lines: stations,
// then the links between them.
func gMakeStationsJSONL() (string, error) {
	t, err := gLoadTokyo()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, n := range t.Nodes {
		d := n.Data
		if err := enc.Encode(map[string]any{"type": "station", "id": d["id"], "code": d["name"], "station_name": d["station_name"], "group_cd": d["station_g_cd"], "line_cd": d["line_cd"], "prefecture": d["pref_name"], "address": d["add"], "lat": d["lat"], "lon": d["lon"]}); err != nil {
			return "", err
		}
	}
	for _, e := range t.Edges {
		d := e.Data
		if err := enc.Encode(map[string]any{"type": "link", "id": d["id"], "from": d["source"], "to": d["target"], "line": d["line_name"], "company": d["company_name"], "company_url": d["company_url"], "bullet": d["is_bullet"]}); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func gSQLQuote(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return fmt.Sprint(x)
	}
	return gSQLQuote(fmt.Sprint(v))
}

// gMakeArcticSQL writes gonum's Arctic concept graph as a PostgreSQL
// dump.
func gMakeArcticSQL() (string, error) {
	raw, err := os.ReadFile(gGonum + "/sigmajs/testdata/arctic.json")
	if err != nil {
		return "", err
	}
	var g struct {
		Nodes []map[string]any `json:"nodes"`
		Edges []map[string]any `json:"edges"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("--\n-- PostgreSQL database dump\n--\n\n-- Dumped from database version 15.8 (Debian 15.8-0+deb12u1)\n-- Dumped by pg_dump version 15.8 (Debian 15.8-0+deb12u1)\n\nSET statement_timeout = 0;\nSET lock_timeout = 0;\nSET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\nSET check_function_bodies = false;\n\n")
	b.WriteString("CREATE TABLE public.concepts (\n    id integer NOT NULL,\n    label text NOT NULL,\n    x double precision,\n    y double precision,\n    color text,\n    size double precision\n);\n\nALTER TABLE public.concepts OWNER TO thesaurus;\n\n")
	b.WriteString("CREATE TABLE public.concept_links (\n    id integer NOT NULL,\n    source_id integer NOT NULL,\n    target_id integer NOT NULL\n);\n\nALTER TABLE public.concept_links OWNER TO thesaurus;\n\n")
	b.WriteString("--\n-- Data for Name: concepts; Type: TABLE DATA; Schema: public; Owner: thesaurus\n--\n\n")
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "INSERT INTO public.concepts (id, label, x, y, color, size) VALUES (%v, %s, %s, %s, %s, %s);\n", n["id"], gSQLQuote(n["label"]), gSQLQuote(n["x"]), gSQLQuote(n["y"]), gSQLQuote(n["color"]), gSQLQuote(n["size"]))
	}
	b.WriteString("\n--\n-- Data for Name: concept_links; Type: TABLE DATA; Schema: public; Owner: thesaurus\n--\n\n")
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "INSERT INTO public.concept_links (id, source_id, target_id) VALUES (%v, %v, %v);\n", e["id"], e["source"], e["target"])
	}
	b.WriteString("\nALTER TABLE ONLY public.concepts\n    ADD CONSTRAINT concepts_pkey PRIMARY KEY (id);\n\nALTER TABLE ONLY public.concept_links\n    ADD CONSTRAINT concept_links_pkey PRIMARY KEY (id);\n\n--\n-- PostgreSQL database dump complete\n--\n")
	return b.String(), nil
}

// gMakeMbox joins the email package's test messages into one mailbox.
func gMakeMbox() (string, error) {
	names, err := filepath.Glob(gPyLib + "/test/test_email/data/msg_*.txt")
	if err != nil || len(names) == 0 {
		return "", fmt.Errorf("no test messages: %v", err)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			return "", err
		}
		msg := strings.ReplaceAll(string(raw), "\r\n", "\n")
		if !strings.HasPrefix(msg, "From ") {
			from := "MAILER-DAEMON"
			for _, l := range strings.Split(msg, "\n") {
				if l == "" {
					break
				}
				if strings.HasPrefix(strings.ToLower(l), "from:") {
					if m := regexp.MustCompile(`[\w.+-]+@[\w.-]+`).FindString(l); m != "" {
						from = m
					}
					break
				}
			}
			b.WriteString("From " + from + " Thu Jan  1 00:00:00 2004\n")
		}
		for _, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
			if strings.HasPrefix(l, "From ") {
				l = ">" + l
			}
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

// gStationRows are real station names and codes for made-up logs.
func gStationRows() ([][2]string, error) {
	t, err := gLoadTokyo()
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for _, n := range t.Nodes {
		out = append(out, [2]string{fmt.Sprint(n.Data["name"]), fmt.Sprint(n.Data["station_name"])})
	}
	return out, nil
}

// gMakePGLog is a PostgreSQL server log of an app querying the railway
// tables, about 4 MB.
func gMakePGLog() (string, error) {
	st, err := gStationRows()
	if err != nil {
		return "", err
	}
	r := rand.New(rand.NewPCG(7, 1207))
	var b strings.Builder
	sec := int64(1741939200) // 2025-03-14 08:00 UTC
	users := []string{"app@railway", "app@railway", "app@railway", "etl@railway", "grafana@railway"}
	for b.Len() < 4_100_000 {
		sec += int64(r.IntN(4))
		ts := gStamp(sec, "2006-01-02 15:04:05") + fmt.Sprintf(".%03d UTC", r.IntN(1000))
		pid := 20000 + r.IntN(9000)
		s := st[r.IntN(len(st))]
		u := users[r.IntN(len(users))]
		switch k := r.IntN(100); {
		case k < 55:
			fmt.Fprintf(&b, "%s [%d] %s LOG:  duration: %d.%03d ms  statement: SELECT s.station_cd, s.station_name, l.line_name FROM stations s JOIN lines l USING (line_cd) WHERE s.station_cd = %s\n", ts, pid, u, 1+r.IntN(900), r.IntN(1000), s[0])
		case k < 75:
			fmt.Fprintf(&b, "%s [%d] %s LOG:  duration: %d.%03d ms  execute <unnamed>: SELECT count(*) FROM timetable WHERE station_name = $1\n%s [%d] %s DETAIL:  parameters: $1 = '%s'\n", ts, pid, u, 1+r.IntN(3000), r.IntN(1000), ts, pid, u, s[1])
		case k < 83:
			fmt.Fprintf(&b, "%s [%d] %s ERROR:  duplicate key value violates unique constraint \"stations_pkey\"\n%s [%d] %s DETAIL:  Key (station_cd)=(%s) already exists.\n%s [%d] %s STATEMENT:  INSERT INTO stations (station_cd, station_name) VALUES (%s, '%s')\n", ts, pid, u, ts, pid, u, s[0], ts, pid, u, s[0], s[1])
		case k < 88:
			fmt.Fprintf(&b, "%s [%d] LOG:  checkpoint starting: time\n%s [%d] LOG:  checkpoint complete: wrote %d buffers (%d.%d%%); 0 WAL file(s) added, 0 removed, %d recycled; write=%d.%03d s, sync=0.%03d s, total=%d.%03d s; sync files=%d, longest=0.%03d s, average=0.%03d s; distance=%d kB, estimate=%d kB\n", ts, 80, ts, 80, 100+r.IntN(5000), r.IntN(30), r.IntN(10), r.IntN(4), r.IntN(270), r.IntN(1000), r.IntN(100), r.IntN(270), r.IntN(1000), 10+r.IntN(90), r.IntN(50), r.IntN(10), 1000+r.IntN(90000), 20000+r.IntN(90000))
		case k < 94:
			fmt.Fprintf(&b, "%s [%d] %s LOG:  connection authorized: user=%s database=railway application_name=%s\n", ts, pid, "[unknown]@[unknown]", strings.Split(u, "@")[0], []string{"psql", "railway-api", "etl-loader", "Grafana"}[r.IntN(4)])
		case k < 97:
			fmt.Fprintf(&b, "%s [%d] %s LOG:  automatic vacuum of table \"railway.public.%s\": index scans: %d\n", ts, pid, "[unknown]@[unknown]", []string{"stations", "timetable", "lines", "links"}[r.IntN(4)], r.IntN(3))
		default:
			fmt.Fprintf(&b, "%s [%d] %s ERROR:  canceling statement due to statement timeout\n%s [%d] %s STATEMENT:  SELECT * FROM timetable t JOIN stations s USING (station_cd) WHERE s.station_name LIKE '%%%s%%'\n", ts, pid, u, ts, pid, u, s[1])
		}
	}
	return b.String(), nil
}

func gStamp(sec int64, layout string) string {
	return gTime(sec).Format(layout)
}

// gMakeJournal is `journalctl -o short-iso` of a build host that builds
// every python-build definition in turn, with the usual noise between.
func gMakeJournal() (string, error) {
	defs, err := gBuildDefs()
	if err != nil {
		return "", err
	}
	r := rand.New(rand.NewPCG(11, 2024))
	var b strings.Builder
	sec := int64(1735718400) // 2025-01-01 08:00 UTC
	line := func(unit, msg string) {
		fmt.Fprintf(&b, "%s pybuilder %s: %s\n", gStamp(sec, "2006-01-02T15:04:05-0700"), unit, msg)
	}
	for round := 0; b.Len() < 3_600_000; round++ {
		for i := 0; i < len(defs) && b.Len() < 3_600_000; i++ {
			d := defs[i]
			pid := 3000 + r.IntN(60000)
			sec += int64(5 + r.IntN(40))
			if round == 0 || !strings.HasPrefix(d.pkg, "Python-") {
				line("systemd[1]", fmt.Sprintf("Starting pybuild@%s.service - Build %s...", d.def, d.def))
			}
			u := fmt.Sprintf("python-build[%d]", pid)
			line(u, "Downloading "+d.pkg+"...")
			line(u, "-> "+d.url)
			if d.sum != "" {
				line(u, "checksum ok: sha256 "+d.sum+"  "+filepath.Base(d.url))
			}
			sec += int64(20 + r.IntN(300))
			line(u, "Installing "+d.pkg+"...")
			line(u, fmt.Sprintf("Installed %s to /opt/pythons/%s", d.pkg, d.def))
			line("systemd[1]", fmt.Sprintf("pybuild@%s.service: Deactivated successfully.", d.def))
			line("systemd[1]", fmt.Sprintf("pybuild@%s.service: Consumed %dmin %d.%03ds CPU time.", d.def, r.IntN(12), r.IntN(60), r.IntN(1000)))
			switch r.IntN(6) {
			case 0:
				line(fmt.Sprintf("CRON[%d]", pid+7), "(root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)")
			case 1:
				line(fmt.Sprintf("sshd[%d]", pid+3), fmt.Sprintf("Accepted publickey for builder from 10.40.%d.%d port %d ssh2: ED25519 SHA256:%s", r.IntN(255), r.IntN(255), 30000+r.IntN(30000), gRandB64(r, 43)))
			case 2:
				line("systemd-timesyncd[412]", fmt.Sprintf("Contacted time server 10.40.0.%d:123 (ntp.internal).", 1+r.IntN(3)))
			case 3:
				line("kernel", fmt.Sprintf("EXT4-fs (nvme0n1p3): re-mounted %08x-%04x-%04x-%04x-%012x r/w. Quota mode: none.", r.Uint32(), r.IntN(65536), r.IntN(65536), r.IntN(65536), r.Uint64()&0xffffffffffff))
			}
		}
	}
	return b.String(), nil
}

func gRandB64(r *rand.Rand, n int) string {
	const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	s := make([]byte, n)
	for i := range s {
		s[i] = a[r.IntN(len(a))]
	}
	return string(s)
}

// gDocPaths are the rendered std docs' page paths, for made-up requests.
func gDocPaths() ([]string, error) {
	var out []string
	err := filepath.Walk(gRustHTML+"/std", func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".html") {
			out = append(out, strings.TrimPrefix(p, gRustHTML))
		}
		return nil
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("no std docs: %v", err)
	}
	sort.Strings(out)
	return out, nil
}

// gMakeNginxErr is the error log of an nginx serving the Rust docs, about
// 3 MB.
func gMakeNginxErr() (string, error) {
	paths, err := gDocPaths()
	if err != nil {
		return "", err
	}
	r := rand.New(rand.NewPCG(3, 33))
	var b strings.Builder
	sec := int64(1740787200) // 2025-03-01 00:00 UTC
	for b.Len() < 3_100_000 {
		sec += int64(r.IntN(30))
		ts := gStamp(sec, "2006/01/02 15:04:05")
		p := paths[r.IntN(len(paths))]
		client := fmt.Sprintf("10.%d.%d.%d", 1+r.IntN(3), r.IntN(255), 1+r.IntN(254))
		conn := 100000 + r.IntN(900000)
		w := 1800 + r.IntN(8)
		switch k := r.IntN(100); {
		case k < 50:
			bad := strings.Replace(p, ".html", "_old.html", 1)
			fmt.Fprintf(&b, "%s [error] %d#%d: *%d open() \"/srv/docs/rust%s\" failed (2: No such file or directory), client: %s, server: docs.internal, request: \"GET %s HTTP/1.1\", host: \"docs.internal\", referrer: \"https://docs.internal%s\"\n", ts, w, w, conn, bad, client, bad, p)
		case k < 70:
			fmt.Fprintf(&b, "%s [error] %d#%d: *%d upstream timed out (110: Connection timed out) while reading response header from upstream, client: %s, server: docs.internal, request: \"GET /search?q=%s HTTP/1.1\", upstream: \"http://127.0.0.1:8088/search?q=%s\", host: \"docs.internal\"\n", ts, w, w, conn, client, filepath.Base(strings.TrimSuffix(p, ".html")), filepath.Base(strings.TrimSuffix(p, ".html")))
		case k < 82:
			fmt.Fprintf(&b, "%s [warn] %d#%d: *%d an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/%d/%02d/%010d while reading upstream, client: %s, server: docs.internal, request: \"GET %s HTTP/1.1\", upstream: \"http://127.0.0.1:8088%s\", host: \"docs.internal\"\n", ts, w, w, conn, r.IntN(10), r.IntN(100), r.IntN(1000000000), client, p, p)
		case k < 92:
			fmt.Fprintf(&b, "%s [info] %d#%d: *%d client %s closed keepalive connection\n", ts, w, w, conn, client)
		case k < 97:
			fmt.Fprintf(&b, "%s [error] %d#%d: *%d access forbidden by rule, client: %s, server: docs.internal, request: \"GET /static.files/.git/config HTTP/1.1\", host: \"docs.internal\"\n", ts, w, w, conn, client)
		default:
			fmt.Fprintf(&b, "%s [notice] 1790#1790: signal process started\n%s [notice] 1790#1790: signal 1 (SIGHUP) received from %d, reconfiguring\n", ts, ts, 40000+r.IntN(20000))
		}
	}
	return b.String(), nil
}

func gTime(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

// gPyHeaders are the C headers of every pyenv Python but 3.13.
var gPyHeaders = func() []string {
	var out []string
	for _, v := range []string{"2.7.18/include/python2.7", "3.6.15/include/python3.6m", "3.7.16/include/python3.7m", "3.8.18/include/python3.8", "3.9.18/include/python3.9", "3.10.13/include/python3.10", "3.11.7/include/python3.11", "3.12.1/include/python3.12"} {
		out = append(out, "/root/.pyenv/versions/"+v+"/*.h")
		if !strings.HasPrefix(v, "2.") && !strings.HasPrefix(v, "3.6") {
			out = append(out, "/root/.pyenv/versions/"+v+"/*/*.h")
		}
	}
	return out
}()

// gEtcBundle is the handful of small /etc files a user pastes when asking
// about logins, log rotation and database access.
var gEtcBundle = []string{"/etc/pam.d/*", "/etc/logrotate.d/*", "/etc/default/*", "/etc/postgresql/15/main/pg_hba.conf", "/etc/postgresql/15/main/pg_ident.conf", "/etc/postgresql/15/main/start.conf", "/etc/postgresql/15/main/environment", "/etc/sysctl.d/*", "/etc/inputrc", "/etc/bash.bashrc", "/etc/ethertypes"}

var freshG = []devCase{
	// --- man pages (roff as installed) ---
	{ID: "g-man-1", Kind: "man", Form: "fact", Files: []string{gRustMan + "/rustc.1", gRustMan + "/rustdoc.1", gRustMan + "/cargo*.1"},
		Question: "When I pass -O to rustc, which optimization level does that actually turn on?",
		Answers:  []string{"2", "opt-level=2", "-C opt-level=2", "opt-level 2", "level 2"}, Deliver: "files"},
	{ID: "g-man-2", Kind: "man", Form: "fact", Files: []string{gRustNight + "/share/man/man1/cargo-search.1", gRustNight + "/share/man/man1/cargo-install.1", gRustNight + "/share/man/man1/cargo-publish.1"},
		Question: "what's the most results cargo search will ever give back, no matter what limit I ask for?",
		Answers:  []string{"100", "100 results"}, Deliver: "each"},
	{ID: "g-man-3", Kind: "man", Form: "fact", Files: []string{"/root/.pyenv/man/man1/pyenv.1", gRustNight + "/share/man/man1/rustc.1", gRustNight + "/share/man/man1/rustdoc.1", gRustNight + "/share/man/man1/cargo.1"},
		Question: "I need to hand some extra ./configure flags to pyenv when it compiles a Python. Which environment variable do I set?",
		Answers:  []string{"CONFIGURE_OPTS", "$CONFIGURE_OPTS"}, Deliver: "inline-after"},
	{ID: "g-man-4", Kind: "man", Form: "stanza", Files: []string{gRustMan + "/cargo*.1"},
		Needle: ".TP\n\\fB\\-\\-mirror\\-wait\\fR \\fIseconds\\fR\nHow long to wait for the company registry mirror to answer before\nfalling back to crates.io. Defaults to 45 seconds; 0 disables the fallback.", Depth: 0.58,
		Question: "How long does cargo hang on our internal registry mirror before it gives up and goes to crates.io?",
		Answers:  []string{"45 seconds", "45", "45s", "45 secs"}},
	{ID: "g-man-5", Kind: "man", Form: "absent", Files: []string{gRustMan + "/cargo*.1"},
		Question: "How many times does cargo retry a failed network request by default? Looking for the number in these pages."},

	// --- rendered HTML manuals ---
	{ID: "g-html-1", Kind: "html", Form: "fact", Files: []string{gRustHTML + "/reference/*.html", gRustHTML + "/reference/*/*.html", gRustHTML + "/rust-by-example/*.html"}, Size: 6_000_000,
		Question: "If I don't set the recursion_limit attribute, how deep can macro expansion go before the compiler stops?",
		Answers:  []string{"128"}},
	{ID: "g-html-2", Kind: "html", Form: "fact", Files: []string{gRustHTML + "/error_codes/*.html"}, Size: 5_000_000,
		Question: "rustc is yelling that I forgot a lifetime specifier on a reference in my struct. Which error code is that?",
		Answers:  []string{"E0106"}},
	{ID: "g-html-3", Kind: "html", Form: "fact", Files: []string{gRustHTML + "/rustc/*.html"},
		Question: "For a normal non-incremental build, how many codegen units does rustc split a crate into when I don't specify any?",
		Answers:  []string{"16", "16 codegen units", "16 units"}, Deliver: "files"},
	{ID: "g-html-4", Kind: "html", Form: "fact", Files: []string{gRustHTML + "/style-guide/*.html"},
		Question: "what line length does the official Rust style say you shouldn't go past?",
		Answers:  []string{"100", "100 characters", "100 chars", "100 columns"}, Deliver: "inline-after"},
	{ID: "g-html-5", Kind: "html", Form: "fact", Files: []string{gRustHTML + "/clippy/*.html"},
		Question: "Clippy complains my function takes too many parameters. What's the default cap before that lint fires?",
		Answers:  []string{"7", "7 arguments", "seven", "7 parameters"}},

	// --- source code ---
	{ID: "g-src-1", Kind: "source", Form: "fact", Files: []string{gPyLib + "/*.py"}, Size: 4_500_000,
		Question: "Which port does Python's SMTP client default to when it talks SSL from the start (not STARTTLS)?",
		Answers:  []string{"465", "port 465"}},
	{ID: "g-src-2", Kind: "source", Form: "fact", Files: []string{gPyLib + "/selectors.py", gPyLib + "/socketserver.py", gPyLib + "/socket.py"},
		Question: "In socketserver, what backlog does a TCP server pass to listen() unless I override it?",
		Answers:  []string{"5"}, Deliver: "each"},
	{ID: "g-src-3", Kind: "source", Form: "absent", Files: []string{"/root/.pyenv/versions/3.9.18/lib/python3.9/*.py"}, Size: 4_600_000,
		Question: "Which default port does the standard library's LDAP client connect to?"},

	// --- C headers ---
	{ID: "g-hdr-1", Kind: "header", Form: "fact", Files: []string{"/root/.pyenv/versions/3.13.0/include/python3.13/*.h", "/root/.pyenv/versions/3.13.0/include/python3.13/*/*.h"},
		Question: "How many small non-negative integers does CPython 3.13 keep preallocated? I want the constant's value.",
		Answers:  []string{"257"}},
	{ID: "g-hdr-2", Kind: "header", Form: "comment", Files: gPyHeaders, Size: 6_200_000,
		Needle: "/* Build-farm patch (ticket PKG-4471): the small-object arena is raised to\n * 384 KiB on our hosts; drop this once upstream makes it configurable. */", Depth: 0.63,
		Question: "Somebody patched the arena size in our Python headers for the build farm. What ticket was that under?",
		Answers:  []string{"PKG-4471"}},

	// --- shell scripts ---
	{ID: "g-sh-1", Kind: "shell", Form: "fact", Files: []string{"/usr/local/go/src/*.bash", "/root/.pyenv/plugins/python-build/bin/pyenv-*"},
		Question: "What's the oldest Go I can use as the bootstrap toolchain to build this Go tree from source?",
		Answers:  []string{"1.24.6", "Go 1.24.6", "go1.24.6"}, Deliver: "inline"},
	{ID: "g-sh-2", Kind: "shell", Form: "fact", Files: []string{"/root/.pyenv/libexec/*"},
		Question: "pyenv rehash keeps waiting on a lock. What's the time limit before it gives up, if I haven't changed anything?",
		Answers:  []string{"60", "60 seconds", "60s", "1 minute", "one minute"}},

	// --- Markdown docs ---
	{ID: "g-md-1", Kind: "markdown", Form: "fact", Files: []string{"/usr/local/go/src/cmd/compile/abi-internal.md"},
		Question: "On amd64, which register does Go's internal ABI use for the closure context pointer?",
		Answers:  []string{"RDX", "%rdx"}, Deliver: "inline"},
	{ID: "g-md-2", Kind: "markdown", Form: "fact", Files: []string{"/usr/local/go/src/cmd/compile/README.md", "/usr/local/go/src/runtime/HACKING.md", "/usr/local/go/doc/README.md"},
		Question: "tell me which GOTRACEBACK setting the output of a runtime throw is equivalent to",
		Answers:  []string{"system", "GOTRACEBACK=system"}, Deliver: "each"},
	{ID: "g-md-3", Kind: "markdown", Form: "mdtable", Files: []string{"/root/go/pkg/mod/go.opentelemetry.io/otel/log@v1.47.0/DESIGN.md"},
		Needle: "\n| Exporter (our deployment) | Max batch | Flush interval |\n|---|---|---|\n| OTLP/gRPC to collector-eu | 512 records | 5s |\n| OTLP/HTTP to vendor | 2048 records | 30s |\n", Depth: 0.4,
		Question: "In our setup, how often does the OTLP exporter that ships logs over HTTP to the vendor flush?",
		Answers:  []string{"30s", "30 seconds", "every 30 seconds", "30"}},

	// --- YAML ---
	{ID: "g-yaml-1", Kind: "yaml", Form: "fact", Files: []string{"/root/go/pkg/mod/github.com/tetratelabs/wazero@v1.12.0/.github/workflows/commit.yaml", "/root/go/pkg/mod/github.com/ebitengine/purego@v0.11.3/.github/workflows/test.yml", "/root/go/pkg/mod/github.com/tetratelabs/wazero@v1.12.0/.github/workflows/integration.yaml"},
		Question: "Which major version of QEMU does the purego test workflow pin?",
		Answers:  []string{"10", "QEMU 10"}, Deliver: "each"},
	{ID: "g-yaml-2", Kind: "yaml", Form: "yaml", Files: []string{"/root/go/pkg/mod/github.com/ebitengine/purego@v0.11.3/.github/workflows/test.yml", "/root/go/pkg/mod/github.com/tetratelabs/wazero@v1.12.0/.github/workflows/*.yaml", "/root/go/pkg/mod/github.com/klippa-app/go-pdfium@v1.20.0/.github/workflows/go.yml"},
		Needle: "  nightly-soak:\n    name: Soak test against the staging registry\n    runs-on: ubuntu-latest\n    timeout-minutes: 47\n    steps:\n      - uses: actions/checkout@v5\n      - run: make soak\n", Depth: 0.35,
		Question: "How long is the soak test job allowed to run before CI kills it?",
		Answers:  []string{"47", "47 minutes", "47 min", "47m"}},
	{ID: "g-yaml-3", Kind: "yaml", Form: "fact", Files: []string{"/usr/local/go/src/simd/archsimd/_gen/simdgen/types.yaml", "/usr/local/go/src/simd/archsimd/_gen/simdgen/ops/*/categories.yaml", "/usr/local/go/src/simd/archsimd/_gen/simdgen/ops/*/go.yaml"},
		Question: "Which reduction polynomial does the GF(2^8) element-wise multiply use?",
		Answers:  []string{"x^8 + x^4 + x^3 + x + 1", "x^8+x^4+x^3+x+1", "0x11b"}},

	// --- system config ---
	{ID: "g-conf-1", Kind: "config", Form: "fact", Files: gEtcBundle,
		Question: "After a wrong password at the console login, how long does the system make you wait? Give me the configured value.",
		Answers:  []string{"3000000", "3 seconds", "3000000 microseconds", "3s", "delay=3000000", "3 s"}, Deliver: "inline"},
	{ID: "g-conf-2", Kind: "config", Form: "fact", Files: gEtcBundle,
		Question: "How many old PostgreSQL log files does logrotate hang on to?",
		Answers:  []string{"10", "ten", "10 files", "rotate 10"}},
	{ID: "g-conf-3", Kind: "config", Form: "fact", Files: []string{"/etc/init.d/redis-server", "/etc/default/redis-server", "/etc/logrotate.d/redis-server"},
		Question: "What open-files limit gets applied before redis is started on this box?",
		Answers:  []string{"65536", "ulimit -n 65536", "ULIMIT=65536"}, Deliver: "each"},
	{ID: "g-conf-4", Kind: "config", Form: "config", Files: gEtcBundle,
		Needle: "host    billing         report_ro       10.8.0.0/16             md5", Depth: 0.47,
		Question: "The report_ro account connecting from the VPN range: which auth method does Postgres use for it?",
		Answers:  []string{"md5"}, Deliver: "inline"},
	{ID: "g-conf-5", Kind: "config", Form: "absent", Files: gEtcBundle,
		Question: "After how many failed login attempts does this machine lock an account?", Deliver: "inline-after"},

	// --- changelogs ---
	{ID: "g-chlog-1", Kind: "changelog", Form: "fact", Files: []string{"/root/.pyenv/plugins/pyenv-virtualenv/CHANGELOG.md"},
		Question: "Which pyenv-virtualenv release fixed pyenv-virtualenv-init under dash?",
		Answers:  []string{"v1.4.0", "1.4.0"}, Deliver: "inline"},
	{ID: "g-chlog-2", Kind: "changelog", Form: "fact", Files: []string{gPyLib + "/idlelib/ChangeLog"},
		Question: "On what date was IDLEFORK.html swapped out for IDLEFORK-index.html?",
		Answers:  []string{"2001-07-19", "2001-07-19 16:40", "July 19, 2001", "19 July 2001"}},

	// --- package database ---
	{ID: "g-pkg-1", Kind: "dpkg", Form: "fact", Files: []string{"/var/lib/dpkg/status-old"},
		Question: "which exact version of the OpenSSL shared library package (libssl3) is on this system?",
		Answers:  []string{"3.0.19-1~deb12u2"}},
	{ID: "g-pkg-2", Kind: "dpkg", Form: "absent", Files: []string{"/var/lib/dpkg/status-old"},
		Question: "What version of nginx is installed here?"},

	// --- JSON lines ---
	{ID: "g-jsonl-1", Kind: "jsonl", Form: "fact", Make: gMakeStationsJSONL,
		Question: "What address is on file for 新柴又 station?",
		Answers:  []string{"葛飾区柴又５-７-１", "葛飾区柴又5-7-1"}},
	{ID: "g-jsonl-2", Kind: "jsonl", Form: "json", Make: gMakeStationsJSONL, Size: 300_000,
		Needle: `{"type":"maintenance","line":"北総鉄道北総線","from":"2025-02-08","to":"2025-02-09","note":"overnight track renewal, buses replace trains"}`, Depth: 0.55,
		Question: "When does the overnight track renewal on the Hokuso line wrap up (last day)?",
		Answers:  []string{"2025-02-09", "February 9, 2025", "9 February 2025", "Feb 9, 2025"}, Deliver: "inline"},
	{ID: "g-jsonl-3", Kind: "jsonl", Form: "absent", Make: gMakeStationsJSONL,
		Question: "What's the phone number listed for 京成高砂 station?"},

	// --- CSV ---
	{ID: "g-csv-1", Kind: "csv", Form: "fact", Make: gMakeBuildCSV,
		Question: "Which readline version gets built along with the 3.12.1 definition?",
		Answers:  []string{"8.2", "readline-8.2"}, Deliver: "files"},
	{ID: "g-csv-2", Kind: "csv", Form: "csv", Make: gMakeBuildCSV,
		Needle: "3.11.7-corp,Python-3.11.7,https://artifacts.corp.example/mirror/python/Python-3.11.7.tar.xz,18e1aa7e66ff3a58423d59ed22815a6954e53342122c45df20c96877c062b9b7", Depth: 0.71,
		Question: "Where does our 3.11.7-corp build pull its source tarball from?",
		Answers:  []string{"https://artifacts.corp.example/mirror/python/Python-3.11.7.tar.xz"}},
	{ID: "g-csv-3", Kind: "csv", Form: "absent", Make: gMakeBuildCSV,
		Question: "I need the SHA-256 of the Python 3.5.11 source tarball from this list."},

	// --- TSV ---
	{ID: "g-tsv-1", Kind: "tsv", Form: "fact", Make: gMakeManifestTSV,
		Question: "On the stable channel, what's the download link for the clippy tarball for riscv64gc-unknown-linux-gnu?",
		Answers:  []string{"https://static.rust-lang.org/dist/2026-04-16/clippy-1.95.0-riscv64gc-unknown-linux-gnu.tar.gz"}},
	{ID: "g-tsv-2", Kind: "tsv", Form: "tsv", Make: gMakeManifestTSV,
		Needle: "beta\tcargo\tx86_64-unknown-linux-gnu\ttrue\thttps://rust-mirror.corp.example/dist/2026-04-10/cargo-beta-x86_64-unknown-linux-gnu.tar.gz\t5d0c3f1e2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d", Depth: 0.52,
		Question: "Where do we fetch the beta cargo for x86_64 Linux from? I need the URL.",
		Answers:  []string{"https://rust-mirror.corp.example/dist/2026-04-10/cargo-beta-x86_64-unknown-linux-gnu.tar.gz"}, Deliver: "files"},

	// --- fixed-width report ---
	{ID: "g-fixed-1", Kind: "fixed", Form: "fact", Make: gMakeSrcReport,
		Question: "According to the usage report, how many bytes is src/net/http/server.go?",
		Answers:  []string{"131179", "131179 bytes", "131,179", "131,179 bytes"}},
	{ID: "g-fixed-2", Kind: "fixed", Form: "fixed", Make: gMakeSrcReport,
		Needle: fmt.Sprintf("%-88s %-8s %12d %s", "src/internal/corpaudit/audit.go", ".go", 48213, "-rw-r--r--"), Depth: 0.61,
		Question: "how large is the corpaudit audit.go file in that listing?",
		Answers:  []string{"48213", "48213 bytes", "48,213", "48,213 bytes"}},

	// --- SQL dump ---
	{ID: "g-sql-1", Kind: "sql", Form: "fact", Make: gMakeArcticSQL,
		Question: "What color is stored for the concept labelled 'Chaîne Trophique'?",
		Answers:  []string{"rgb(153,255,0)"}},
	{ID: "g-sql-2", Kind: "sql", Form: "sql", Make: gMakeArcticSQL,
		Needle: "INSERT INTO public.concepts (id, label, x, y, color, size) VALUES (90417, 'Pergélisol Discontinu', 812.5, -1203.25, 'rgb(51,102,204)', 6.75);", Depth: 0.2,
		Question: "I'm looking at the thesaurus dump. What id did the 'Pergélisol Discontinu' concept get?",
		Answers:  []string{"90417"}},

	// --- mailbox ---
	{ID: "g-mail-1", Kind: "mbox", Form: "mail", Make: gMakeMbox,
		Needle: "From dba@zzz.org Mon Mar 10 09:12:44 2025\nFrom: Ines Okafor <dba@zzz.org>\nTo: ppp@zzz.org\nSubject: staging database move\nDate: Mon, 10 Mar 2025 09:12:44 +0000\n\nHi all,\n\nThe staging database moves to the new host on Thursday 20 March, starting at 02:00 UTC.\nExpect about forty minutes of read-only mode.\n\nInes\n", Depth: 0.5,
		Question: "When is the staging database being moved to the new host?",
		Answers:  []string{"Thursday 20 March", "20 March", "March 20", "Thursday 20 March, 02:00 UTC", "20 March 2025", "March 20, 2025", "Thursday 20 March at 02:00 UTC", "20 March at 02:00 UTC"}, Deliver: "inline-after"},

	// --- database server log ---
	{ID: "g-dblog-1", Kind: "dblog", Form: "log", Make: gMakePGLog,
		Needle: "2025-03-14 11:16:48.007 UTC [48213] replicator@[unknown] FATAL:  no pg_hba.conf entry for replication connection from host \"10.20.4.77\", user \"replicator\", no encryption", Depth: 0.44,
		Question: "A replica got refused by the primary for a replication connection. Which host was it?",
		Answers:  []string{"10.20.4.77"}},

	// --- journal ---
	{ID: "g-jrnl-1", Kind: "journal", Form: "journal", Make: gMakeJournal,
		Needle: "2025-01-06T21:09:25+0000 pybuilder systemd[1]: pg-backup.service: Main process exited, code=exited, status=28/n/a\n2025-01-06T21:09:25+0000 pybuilder systemd[1]: pg-backup.service: Failed with result 'exit-code'.", Depth: 0.66,
		Question: "The postgres backup unit on the build box died. What exit status did it return?",
		Answers:  []string{"28", "status=28", "28/n/a", "exit status 28"}},
	{ID: "g-jrnl-2", Kind: "journal", Form: "fact", Make: gMakeJournal, Size: 3_000_000,
		Question: "What sha256 did the build host verify for the Python-3.10.13.tar.xz download?",
		Answers:  []string{"5c88848668640d3e152b35b4536ef1c23b2ca4bd2c957ef1ecbb053f571dd3f6"}},
	{ID: "g-jrnl-3", Kind: "journal", Form: "absent", Make: gMakeJournal,
		Question: "Which process did the kernel's OOM killer take out on the build host?"},

	// --- web server error log ---
	{ID: "g-web-1", Kind: "weblog", Form: "log", Make: gMakeNginxErr,
		Needle: "2025/03/01 15:08:01 [emerg] 1790#1790: bind() to 0.0.0.0:8443 failed (98: Address already in use)", Depth: 0.37,
		Question: "nginx couldn't start at one point because some port was already taken. Which port?",
		Answers:  []string{"8443"}, Deliver: "files"},
	{ID: "g-web-2", Kind: "weblog", Form: "absent", Make: gMakeNginxErr,
		Question: "When did nginx first warn that worker_connections weren't enough?"},

	// --- Markdown list ---
	{ID: "g-list-1", Kind: "mdlist", Form: "list", Make: gMakeBuildList,
		Needle: "- **3.12.8-hardened** (kept up by Priya Raman, rebuilt monthly): `openssl-3.0.15`, `Python-3.12.8`", Depth: 0.48,
		Question: "Who maintains the hardened 3.12.8 build?",
		Answers:  []string{"Priya Raman"}},
	{ID: "g-list-2", Kind: "mdlist", Form: "fact", Make: gMakeBuildList,
		Question: "I'm on the 3.9.18 build. Which OpenSSL release does it compile along with Python?",
		Answers:  []string{"openssl-1.1.1u", "1.1.1u", "OpenSSL 1.1.1u"}, Deliver: "inline"},

	// --- a new user's own documents ---
	{ID: "g-user-1", Kind: "userdocs", Form: "fact", Files: []string{"/root/.pyenv/plugins/pyenv-virtualenv/CHANGELOG.md", gPyLib + "/idlelib/ChangeLog", gRustHTML + "/cargo/CHANGELOG.html"}, Size: 1_500_000,
		Question: "Which pull request number added prompt customization to pyenv-virtualenv?",
		Answers:  []string{"476", "#476", "PR 476", "pull/476"}, Deliver: "files"},
	{ID: "g-user-2", Kind: "userdocs", Form: "fact", Files: []string{"/root/go/pkg/mod/golang.org/x/telemetry@v0.0.0-20261009151841-97e8ea77aa2a/package-lock.json"},
		Question: "Which TypeScript version does this project pin as a dev dependency?",
		Answers:  []string{"5.0.4"}, Deliver: "inline-after"},
	{ID: "g-user-3", Kind: "userdocs", Form: "fact", Files: []string{"/root/.pyenv/versions/3.12.1/lib/python3.12/site-packages/pip/_internal/*.py", "/root/.pyenv/versions/3.12.1/lib/python3.12/site-packages/pip/_internal/*/*.py"},
		Question: "What socket timeout does pip use when I don't pass --timeout?",
		Answers:  []string{"15", "15 seconds", "15s", "15.0"}},
}
