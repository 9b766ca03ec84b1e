package heldout

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlm-project/rlm/document"
)

// A file is one piece of a kind's pool: a real file's text, or a text made
// from real data (a JSON list as JSON lines, a table as SQL).
type file struct {
	name string // the source path, or a made-up name for derived text
	text string
}

// kind is one kind of document: where its text comes from.
type kind struct {
	name string
	// packages are the Debian packages whose files the pool reads.
	packages []string
	// pool lists the kind's files in a fixed order.
	pool func(e *env) ([]file, error)
	// sep joins two pool files.
	sep string
	// blankOnly: needles go only between paragraphs (after a blank
	// line), as they would in prose or a man page; otherwise after any
	// line (one record a line).
	blankOnly bool
}

// env reads the machine's files, from Root (normally "/").
type env struct {
	root string
	ext  *document.Extractor
	// cache of package file lists
	owned map[string][]string
}

func (e *env) path(p string) string { return filepath.Join(e.root, p) }

// read reads a file, gunzipping names that end in .gz.
func (e *env) read(p string) (string, error) {
	b, err := os.ReadFile(e.path(p))
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(p, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
	}
	return string(b), nil
}

// packageFiles lists the regular files a Debian package installed (dpkg's
// own list, /var/lib/dpkg/info/PKG.list or PKG:ARCH.list), sorted.
func (e *env) packageFiles(pkg string) ([]string, error) {
	if l, ok := e.owned[pkg]; ok {
		return l, nil
	}
	matches, _ := filepath.Glob(e.path("/var/lib/dpkg/info/" + pkg + ".list"))
	more, _ := filepath.Glob(e.path("/var/lib/dpkg/info/" + pkg + ":*.list"))
	matches = append(matches, more...)
	if len(matches) == 0 {
		return nil, fmt.Errorf("package %s is not installed (apt-get install %s)", pkg, pkg)
	}
	var out []string
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l == "" {
				continue
			}
			if fi, err := os.Lstat(e.path(l)); err == nil && fi.Mode().IsRegular() {
				out = append(out, l)
			}
		}
	}
	sort.Strings(out)
	e.owned[pkg] = out
	return out, nil
}

// filesOf reads the files of the packages for which keep is true.
func (e *env) filesOf(pkgs []string, keep func(string) bool) ([]file, error) {
	var out []file
	for _, p := range pkgs {
		l, err := e.packageFiles(p)
		if err != nil {
			return nil, err
		}
		for _, f := range l {
			if !keep(f) {
				continue
			}
			t, err := e.read(f)
			if err != nil {
				return nil, err
			}
			out = append(out, file{f, t})
		}
	}
	return out, nil
}

func (e *env) files(paths ...string) ([]file, error) {
	var out []file
	for _, p := range paths {
		t, err := e.read(p)
		if err != nil {
			return nil, err
		}
		out = append(out, file{p, t})
	}
	return out, nil
}

// isoCodes reads one of iso-codes' JSON lists: {"3166-1": [{...}, ...]}.
func (e *env) isoCodes(name string) ([]map[string]string, error) {
	t, err := e.read("/usr/share/iso-codes/json/iso_" + name + ".json")
	if err != nil {
		return nil, err
	}
	var doc map[string][]map[string]string
	if err := json.Unmarshal([]byte(t), &doc); err != nil {
		return nil, fmt.Errorf("iso_%s.json: %w", name, err)
	}
	for _, v := range doc {
		return v, nil
	}
	return nil, fmt.Errorf("iso_%s.json: empty", name)
}

var isoLists = []string{"3166-1", "3166-2", "3166-3", "4217", "639-2", "639-3", "639-5", "15924"}

func hasPrefix(p string, prefixes ...string) bool {
	for _, x := range prefixes {
		if strings.HasPrefix(p, x) {
			return true
		}
	}
	return false
}

// shellScript reports whether a file starts with a #! line naming a shell.
func (e *env) shellScript(p string) bool {
	f, err := os.Open(e.path(p))
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.HasPrefix(line, "#!") && (strings.Contains(line, "/sh") || strings.Contains(line, "bash"))
}

var (
	manPackages       = []string{"git-man", "coreutils", "tar", "gzip", "systemd", "util-linux", "apt", "dpkg", "e2fsprogs"}
	changelogPackages = []string{"git", "tar", "gzip", "coreutils", "tzdata", "systemd", "redis-server", "python3.11", "libc6"}
)

// kinds are the seventeen kinds of text of the set, in report order.
var kinds = []kind{
	{name: "code", packages: []string{"libpython3.11-minimal", "libpython3.11-stdlib"}, sep: "\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			return e.filesOf([]string{"libpython3.11-minimal", "libpython3.11-stdlib"}, func(p string) bool {
				return strings.HasPrefix(p, "/usr/lib/python3.11/") && strings.HasSuffix(p, ".py") &&
					!hasPrefix(p, "/usr/lib/python3.11/test", "/usr/lib/python3.11/lib2to3/tests", "/usr/lib/python3.11/idlelib/idle_test")
			})
		}},
	{name: "man", packages: manPackages, sep: "\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			return e.filesOf(manPackages, func(p string) bool {
				return strings.HasPrefix(p, "/usr/share/man/man") && strings.HasSuffix(p, ".gz")
			})
		}},
	{name: "changelog", packages: changelogPackages, sep: "\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			return e.filesOf(changelogPackages, func(p string) bool {
				return strings.HasPrefix(p, "/usr/share/doc/git/RelNotes/") || strings.HasSuffix(p, "/changelog.Debian.gz") ||
					strings.HasSuffix(p, "/NEWS.gz") && hasPrefix(p, "/usr/share/doc/systemd/", "/usr/share/doc/python3.11/", "/usr/share/doc/libc6/")
			})
		}},
	{name: "pkgdb", packages: []string{"dpkg"}, sep: "\n", blankOnly: true,
		pool: func(e *env) ([]file, error) { return e.files("/var/lib/dpkg/status") }},
	{name: "markdown", packages: []string{"systemd", "zstd", "python3-pip", "libgnutls30"}, sep: "\n\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			return e.filesOf([]string{"systemd", "zstd", "python3-pip", "libgnutls30"}, func(p string) bool {
				return strings.HasPrefix(p, "/usr/share/doc/") && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".md.gz"))
			})
		}},
	{name: "log", packages: []string{"dpkg", "apt"}, sep: "", blankOnly: false,
		pool: func(e *env) ([]file, error) {
			var out []file
			for _, p := range []string{"/var/log/dpkg.log", "/var/log/alternatives.log", "/var/log/apt/history.log", "/var/log/apt/term.log"} {
				if t, err := e.read(p); err == nil {
					out = append(out, file{p, t})
				}
			}
			if len(out) == 0 {
				return nil, fmt.Errorf("no dpkg or apt logs under /var/log")
			}
			return out, nil
		}},
	{name: "jsonl", packages: []string{"iso-codes"}, sep: "", pool: func(e *env) ([]file, error) {
		var out []file
		for _, n := range isoLists {
			l, err := e.isoCodes(n)
			if err != nil {
				return nil, err
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			for _, r := range l {
				r2 := map[string]string{"standard": "ISO " + n}
				for k, v := range r {
					r2[k] = v
				}
				enc.Encode(r2)
			}
			out = append(out, file{"iso_" + n + ".jsonl", b.String()})
		}
		return out, nil
	}},
	{name: "csv", packages: []string{"distro-info-data", "iso-codes"}, sep: "", pool: func(e *env) ([]file, error) {
		out, err := e.files("/usr/share/distro-info/debian.csv", "/usr/share/distro-info/ubuntu.csv")
		if err != nil {
			return nil, err
		}
		for _, t := range []struct{ list, cols string }{
			{"639-3", "alpha_3,alpha_2,bibliographic,name,inverted_name,scope,type"},
			{"3166-2", "code,name,type,parent"},
			{"639-2", "alpha_3,alpha_2,bibliographic,name,common_name"},
		} {
			l, err := e.isoCodes(t.list)
			if err != nil {
				return nil, err
			}
			out = append(out, file{"iso_" + t.list + ".csv", table(l, strings.Split(t.cols, ","), ",")})
		}
		return out, nil
	}},
	{name: "tsv", packages: []string{"tzdata", "iso-codes"}, sep: "", pool: func(e *env) ([]file, error) {
		out, err := e.files("/usr/share/zoneinfo/zone1970.tab", "/usr/share/zoneinfo/iso3166.tab", "/usr/share/zoneinfo/zone.tab")
		if err != nil {
			return nil, err
		}
		for _, t := range []struct{ list, cols string }{
			{"4217", "alpha_3,numeric,name"},
			{"15924", "alpha_4,numeric,name"},
			{"3166-1", "alpha_2,alpha_3,numeric,name,official_name,common_name"},
			{"639-5", "alpha_3,name"},
		} {
			l, err := e.isoCodes(t.list)
			if err != nil {
				return nil, err
			}
			out = append(out, file{"iso_" + t.list + ".tsv", table(l, strings.Split(t.cols, ","), "\t")})
		}
		return out, nil
	}},
	{name: "yaml", packages: []string{"python3-torch", "perl-modules-5.36"}, sep: "\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			return e.filesOf([]string{"python3-torch", "perl-modules-5.36"}, func(p string) bool {
				return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")
			})
		}},
	{name: "ini", packages: []string{"systemd", "apt", "e2fsprogs", "redis-server", "dbus", "util-linux"}, sep: "\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			return e.filesOf([]string{"systemd", "apt", "e2fsprogs", "redis-server", "dbus", "util-linux"}, func(p string) bool {
				return hasPrefix(p, "/lib/systemd/system/", "/usr/lib/systemd/system/") &&
					(strings.HasSuffix(p, ".service") || strings.HasSuffix(p, ".socket") || strings.HasSuffix(p, ".timer") || strings.HasSuffix(p, ".target"))
			})
		}},
	{name: "header", packages: []string{"linux-libc-dev", "libc6-dev"}, sep: "\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			return e.filesOf([]string{"linux-libc-dev", "libc6-dev"}, func(p string) bool {
				return strings.HasPrefix(p, "/usr/include/") && strings.HasSuffix(p, ".h")
			})
		}},
	{name: "shell", packages: []string{"git", "gzip", "ghostscript", "xz-utils", "debianutils", "ucf"}, sep: "\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			return e.filesOf([]string{"git", "gzip", "ghostscript", "xz-utils", "debianutils", "ucf"}, func(p string) bool {
				return !strings.HasPrefix(p, "/usr/share/doc/") && e.shellScript(p)
			})
		}},
	{name: "mbox", packages: []string{"git", "tar", "gzip", "coreutils", "tzdata", "systemd", "dpkg", "apt", "bash"}, sep: "",
		blankOnly: true, pool: func(e *env) ([]file, error) {
			var out []file
			for _, p := range []string{"git", "tar", "gzip", "coreutils", "tzdata", "systemd", "dpkg", "apt", "bash"} {
				// Native packages (dpkg, apt) have no Debian changelog
				// of their own.
				t, err := e.read("/usr/share/doc/" + p + "/changelog.Debian.gz")
				if os.IsNotExist(err) {
					t, err = e.read("/usr/share/doc/" + p + "/changelog.gz")
				}
				if err != nil {
					return nil, err
				}
				out = append(out, file{p + ".mbox", changelogMbox(t)})
			}
			return out, nil
		}},
	{name: "sql", packages: []string{"iso-codes"}, sep: "\n", blankOnly: false, pool: func(e *env) ([]file, error) {
		var out []file
		for _, t := range []struct{ list, table, cols string }{
			{"3166-1", "countries", "alpha_2,alpha_3,numeric,name,official_name,common_name"},
			{"3166-2", "subdivisions", "code,name,type,parent"},
			{"4217", "currencies", "alpha_3,numeric,name"},
			{"639-3", "languages", "alpha_3,alpha_2,bibliographic,name,inverted_name,scope,type"},
			{"15924", "scripts", "alpha_4,numeric,name"},
		} {
			l, err := e.isoCodes(t.list)
			if err != nil {
				return nil, err
			}
			out = append(out, file{t.table + ".sql", sqlDump(t.table, strings.Split(t.cols, ","), l)})
		}
		return out, nil
	}},
	{name: "fixed", packages: []string{"iso-codes"}, sep: "", pool: func(e *env) ([]file, error) {
		var out []file
		for _, t := range []struct{ list, title, cols string }{
			{"3166-2", "COUNTRY SUBDIVISIONS (ISO 3166-2)", "code:10,name:44,type:32,parent:8"},
			{"639-3", "LANGUAGE CODES (ISO 639-3)", "alpha_3:8,alpha_2:6,name:52,scope:6,type:5"},
		} {
			l, err := e.isoCodes(t.list)
			if err != nil {
				return nil, err
			}
			out = append(out, file{"report-" + t.list + ".txt", fixedReport(t.title, t.cols, l)})
		}
		return out, nil
	}},
	{name: "html", packages: []string{"valgrind", "python3-dev"}, sep: "\n\n", blankOnly: true,
		pool: func(e *env) ([]file, error) {
			fs, err := e.filesOf([]string{"valgrind", "python3-dev"}, func(p string) bool {
				return strings.HasPrefix(p, "/usr/share/doc/") && strings.HasSuffix(p, ".html")
			})
			if err != nil {
				return nil, err
			}
			// Rendered as the server renders an attached HTML file.
			for i, f := range fs {
				r, err := e.ext.Extract(context.Background(), document.Source{Filename: filepath.Base(f.name), Data: strings.NewReader(f.text), Size: int64(len(f.text))})
				if err != nil {
					return nil, fmt.Errorf("render %s: %w", f.name, err)
				}
				fs[i].text = strings.Join(r.Pieces, "\n")
			}
			return fs, nil
		}},
}

// table writes records as a delimited table with a header.
func table(l []map[string]string, cols []string, sep string) string {
	var b strings.Builder
	b.WriteString(strings.Join(cols, sep) + "\n")
	for _, r := range l {
		for i, c := range cols {
			if i > 0 {
				b.WriteString(sep)
			}
			v := r[c]
			if sep == "," && strings.ContainsAny(v, ",\"") {
				v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
			}
			b.WriteString(v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// sqlDump writes records as pg_dump --inserts would.
func sqlDump(name string, cols []string, l []map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--\n-- Name: %s; Type: TABLE; Schema: public; Owner: iso\n--\n\nCREATE TABLE public.%s (\n", name, name)
	for i, c := range cols {
		sep := ","
		if i == len(cols)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %s text%s\n", c, sep)
	}
	fmt.Fprintf(&b, ");\n\n\nALTER TABLE public.%s OWNER TO iso;\n\n--\n-- Data for Name: %s; Type: TABLE DATA; Schema: public; Owner: iso\n--\n\n", name, name)
	for _, r := range l {
		vals := make([]string, len(cols))
		for i, c := range cols {
			v, ok := r[c]
			if !ok {
				vals[i] = "NULL"
				continue
			}
			vals[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		fmt.Fprintf(&b, "INSERT INTO public.%s (%s) VALUES (%s);\n", name, strings.Join(cols, ", "), strings.Join(vals, ", "))
	}
	b.WriteString("\n\n")
	return b.String()
}

// fixedReport writes records as a paged, fixed-width line-printer report:
// a title and column heads on every page of 56 lines, a form feed
// between pages.
func fixedReport(title, spec string, l []map[string]string) string {
	type col struct {
		name  string
		width int
	}
	var cols []col
	for _, c := range strings.Split(spec, ",") {
		n, w, _ := strings.Cut(c, ":")
		var width int
		fmt.Sscan(w, &width)
		cols = append(cols, col{n, width})
	}
	row := func(vals []string) string {
		var b strings.Builder
		for i, c := range cols {
			v := vals[i]
			if r := []rune(v); len(r) > c.width-1 {
				v = string(r[:c.width-1])
			}
			b.WriteString(v + strings.Repeat(" ", c.width-len([]rune(v))))
		}
		return strings.TrimRight(b.String(), " ") + "\n"
	}
	var heads, rules []string
	for _, c := range cols {
		heads = append(heads, strings.ToUpper(c.name))
		rules = append(rules, strings.Repeat("-", c.width-1))
	}
	var b strings.Builder
	const perPage = 56
	pages := (len(l) + perPage - 1) / perPage
	for p := 0; p < pages; p++ {
		if p > 0 {
			b.WriteString("\f\n")
		}
		fmt.Fprintf(&b, "%-60s PAGE %4d OF %d\n\n", title, p+1, pages)
		b.WriteString(row(heads))
		b.WriteString(row(rules))
		for _, r := range l[p*perPage : min(len(l), (p+1)*perPage)] {
			vals := make([]string, len(cols))
			for i, c := range cols {
				vals[i] = r[c.name]
			}
			b.WriteString(row(vals))
		}
	}
	return b.String()
}

// changelogMbox turns a Debian changelog into a mailbox: each entry a
// message from its signer, dated by its trailer line, as the archive's
// "Accepted" mails are.
func changelogMbox(t string) string {
	var b strings.Builder
	var head, body []string
	flush := func(trailer string) {
		if len(head) == 0 {
			return
		}
		who, date, _ := strings.Cut(strings.TrimPrefix(trailer, " -- "), "  ")
		addr := who
		if i := strings.Index(who, "<"); i >= 0 {
			addr = strings.Trim(who[i:], "<>")
		}
		pkg, rest, _ := strings.Cut(head[0], " ")
		ver := strings.Trim(strings.Fields(rest + " ()")[0], "()")
		fmt.Fprintf(&b, "From %s %s\nFrom: %s\nDate: %s\nSubject: Accepted %s %s\nMessage-ID: <%s-%s@changelogs.example>\n\n%s\n%s\n\n",
			addr, date, who, date, pkg, ver, pkg, strings.NewReplacer("+", ".", ":", ".", "~", ".").Replace(ver),
			head[0], strings.Join(body, "\n"))
		head, body = nil, nil
	}
	for _, l := range strings.Split(t, "\n") {
		switch {
		case strings.HasPrefix(l, " -- "):
			flush(l)
		case len(head) == 0 && l != "" && l[0] != ' ':
			head = []string{l}
		case len(head) > 0:
			// A body line starting "From " would begin a new message.
			if strings.HasPrefix(l, "From ") {
				l = ">" + l
			}
			body = append(body, l)
		}
	}
	return b.String()
}

// dpkgField reads a field of a package's stanza in a dpkg status file.
func dpkgField(status, pkg, field string) string {
	for _, st := range strings.Split(status, "\n\n") {
		if !strings.HasPrefix(st, "Package: "+pkg+"\n") {
			continue
		}
		for _, l := range strings.Split(st, "\n") {
			if v, ok := strings.CutPrefix(l, field+": "); ok {
				return v
			}
		}
	}
	return ""
}

// packageVersion is the installed version of a package, for the manifest.
func packageVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil {
		return ""
	}
	return string(out)
}
