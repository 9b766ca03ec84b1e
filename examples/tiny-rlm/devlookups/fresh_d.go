package main

// The fourth fresh set (fresh_d.go): questions written blind to the
// lookup helper, over real text on this machine and documents made from
// real data (Node.js and pyenv changelogs, the Mozilla CA bundle, the
// shared MIME database, X11 colour names, PostgreSQL's error codes and
// time zone abbreviations, GDAL's datum tables).

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func init() { fresh = append(fresh, freshD) }

// ---------------------------------------------------------------------
// Real data the generated documents are made of.

// dNodeCommit is one commit line of a Node.js changelog.
type dNodeCommit struct {
	Hash, Area, Subject, Author, PR string
	Version, Date                   string
}

// dNodeRelease is one release section of a Node.js changelog.
type dNodeRelease struct {
	Date, Version, Codename, Line, Releaser string
	Notable                                 string
	Commits                                 []dNodeCommit
}

var (
	dNodeMu    sync.Mutex
	dNodeCache = map[string][]dNodeRelease{}
	dNodeHead  = regexp.MustCompile(`^## (\d{4}-\d{2}-\d{2}), (?:io\.js )?Version ([0-9]+\.[0-9]+\.[0-9]+)(?: '([^']+)')?(?: \(([^)]+)\))?,? *(@[A-Za-z0-9_-]+)`)
	dNodeLine  = regexp.MustCompile("^\\* \\\\\\[\\[`([0-9a-f]{7,40})`\\]\\([^)]*\\)\\] - (?:\\*\\*([^*]+)\\*\\*: )?(.*) \\(([^()]+)\\) \\[#(\\d+)\\]")
)

// dNodeReleases parses the Node.js changelogs the globs name, newest
// release of each file first, as they are written.
func dNodeReleases(globs ...string) ([]dNodeRelease, error) {
	key := strings.Join(globs, "|")
	dNodeMu.Lock()
	defer dNodeMu.Unlock()
	if r, ok := dNodeCache[key]; ok {
		return r, nil
	}
	var out []dNodeRelease
	for _, g := range globs {
		names, _ := filepath.Glob(g)
		if len(names) == 0 {
			return nil, fmt.Errorf("no file matches %s", g)
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				return nil, err
			}
			var cur *dNodeRelease
			section := ""
			var notable []string
			flush := func() {
				if cur != nil {
					cur.Notable = strings.TrimSpace(strings.Join(notable, "\n"))
					out = append(out, *cur)
				}
				cur, notable, section = nil, nil, ""
			}
			for _, line := range strings.Split(string(b), "\n") {
				if m := dNodeHead.FindStringSubmatch(line); m != nil {
					flush()
					cur = &dNodeRelease{Date: m[1], Version: m[2], Codename: m[3], Line: m[4], Releaser: m[5]}
					continue
				}
				if cur == nil {
					continue
				}
				if strings.HasPrefix(line, "### ") {
					section = strings.TrimSpace(line[4:])
					continue
				}
				if strings.HasPrefix(line, "<a id=") || strings.HasPrefix(line, "## ") {
					continue
				}
				if section == "Commits" {
					if m := dNodeLine.FindStringSubmatch(line); m != nil {
						cur.Commits = append(cur.Commits, dNodeCommit{Hash: m[1], Area: m[2], Subject: m[3], Author: m[4], PR: m[5], Version: cur.Version, Date: cur.Date})
					}
				} else if section != "" {
					notable = append(notable, line)
				}
			}
			flush()
		}
	}
	dNodeCache[key] = out
	return out, nil
}

// dNodeCommits is every commit of the releases, each hash once.
func dNodeCommits(globs ...string) ([]dNodeCommit, error) {
	rels, err := dNodeReleases(globs...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []dNodeCommit
	for _, r := range rels {
		for _, c := range r.Commits {
			if seen[c.Hash] {
				continue
			}
			seen[c.Hash] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// dCert is one certificate of the Mozilla bundle.
type dCert struct {
	File, CN, Org, Country, Serial, Key string
	NotBefore, NotAfter                 time.Time
	SHA256, SHA1                        string
}

var (
	dCertOnce sync.Once
	dCertList []dCert
	dCertErr  error
)

func dCerts() ([]dCert, error) {
	dCertOnce.Do(func() {
		names, _ := filepath.Glob("/usr/share/ca-certificates/mozilla/*.crt")
		if len(names) == 0 {
			dCertErr = fmt.Errorf("no CA certificates")
			return
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				dCertErr = err
				return
			}
			blk, _ := pem.Decode(b)
			if blk == nil {
				continue
			}
			c, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				continue
			}
			cn := c.Subject.CommonName
			org := strings.Join(c.Subject.Organization, ", ")
			if cn == "" {
				cn = strings.Join(c.Subject.OrganizationalUnit, ", ")
			}
			if cn == "" {
				cn = org
			}
			key := ""
			switch k := c.PublicKeyAlgorithm; k {
			case x509.RSA:
				key = fmt.Sprintf("RSA-%d", c.PublicKey.(*rsa.PublicKey).N.BitLen())
			case x509.ECDSA:
				key = "EC-" + c.PublicKey.(*ecdsa.PublicKey).Curve.Params().Name
			default:
				key = k.String()
			}
			s256 := sha256.Sum256(c.Raw)
			s1 := sha1.Sum(c.Raw)
			dCertList = append(dCertList, dCert{File: filepath.Base(n), CN: cn, Org: org,
				Country: strings.Join(c.Subject.Country, ","), Serial: strings.ToUpper(hex.EncodeToString(c.SerialNumber.Bytes())),
				Key: key, NotBefore: c.NotBefore.UTC(), NotAfter: c.NotAfter.UTC(),
				SHA256: strings.ToUpper(hex.EncodeToString(s256[:])), SHA1: strings.ToUpper(hex.EncodeToString(s1[:]))})
		}
	})
	return dCertList, dCertErr
}

// dMimeType is one type of the shared MIME database.
type dMimeType struct {
	Type     string `xml:"type,attr"`
	Comments []struct {
		Lang string `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
		Text string `xml:",chardata"`
	} `xml:"comment"`
	Acronym  string `xml:"acronym"`
	Expanded string `xml:"expanded-acronym"`
	SubClass []struct {
		Type string `xml:"type,attr"`
	} `xml:"sub-class-of"`
	Aliases []struct {
		Type string `xml:"type,attr"`
	} `xml:"alias"`
	Globs []struct {
		Pattern string `xml:"pattern,attr"`
	} `xml:"glob"`
	Icon struct {
		Name string `xml:"name,attr"`
	} `xml:"generic-icon"`
}

var (
	dMimeOnce sync.Once
	dMimeList []dMimeType
	dMimeErr  error
)

func dMime() ([]dMimeType, error) {
	dMimeOnce.Do(func() {
		b, err := os.ReadFile("/usr/share/mime/packages/freedesktop.org.xml")
		if err != nil {
			dMimeErr = err
			return
		}
		var doc struct {
			Types []dMimeType `xml:"mime-type"`
		}
		dMimeErr = xml.Unmarshal(b, &doc)
		dMimeList = doc.Types
	})
	return dMimeList, dMimeErr
}

// dComment is a MIME type's comment in a language ("" for English).
func (m dMimeType) dComment(lang string) string {
	for _, c := range m.Comments {
		if c.Lang == lang {
			return strings.TrimSpace(c.Text)
		}
	}
	return ""
}

// dColor is one X11 colour name.
type dColor struct {
	Name    string
	R, G, B int
}

func dColors() ([]dColor, error) {
	b, err := os.ReadFile("/usr/share/X11/rgb.txt")
	if err != nil {
		return nil, err
	}
	var out []dColor
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || strings.HasPrefix(l, "!") {
			continue
		}
		r, _ := strconv.Atoi(f[0])
		g, _ := strconv.Atoi(f[1])
		bl, _ := strconv.Atoi(f[2])
		out = append(out, dColor{Name: strings.Join(f[3:], " "), R: r, G: g, B: bl})
	}
	return out, nil
}

// dErrcode is one PostgreSQL SQLSTATE.
type dErrcode struct {
	Code, Kind, Macro, Name, Class string
}

func dErrcodes() ([]dErrcode, error) {
	b, err := os.ReadFile("/usr/share/postgresql/15/errcodes.txt")
	if err != nil {
		return nil, err
	}
	var out []dErrcode
	class := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "Section: ") {
			class = strings.TrimPrefix(l, "Section: ")
			continue
		}
		f := strings.Fields(l)
		if len(f) < 3 || strings.HasPrefix(l, "#") || len(f[0]) != 5 {
			continue
		}
		e := dErrcode{Code: f[0], Kind: f[1], Macro: f[2], Class: class}
		if len(f) > 3 {
			e.Name = f[3]
		}
		out = append(out, e)
	}
	return out, nil
}

// dTZAbbrev is one time zone abbreviation of PostgreSQL's sets.
type dTZAbbrev struct {
	Abbrev string
	Offset int
	DST    bool
	Desc   string
	Zones  []string
	Set    string
}

func dTZAbbrevs() ([]dTZAbbrev, error) {
	names, _ := filepath.Glob("/usr/share/postgresql/15/timezonesets/*.txt")
	if len(names) == 0 {
		return nil, fmt.Errorf("no timezone sets")
	}
	sort.Strings(names)
	var out []dTZAbbrev
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		set := strings.TrimSuffix(filepath.Base(n), ".txt")
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
				continue
			}
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				if len(out) > 0 {
					z := strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "#")), "()")
					if z != "" {
						out[len(out)-1].Zones = append(out[len(out)-1].Zones, z)
					}
				}
				continue
			}
			body, desc, _ := strings.Cut(l, "#")
			f := strings.Fields(body)
			if len(f) < 2 {
				continue
			}
			off, err := strconv.Atoi(f[1])
			if err != nil {
				continue // an abbreviation defined by a zone name
			}
			out = append(out, dTZAbbrev{Abbrev: f[0], Offset: off, DST: len(f) > 2 && f[2] == "D", Desc: strings.TrimSpace(desc), Set: set})
		}
	}
	return out, nil
}

// dCSV reads a simple CSV file (quoted fields allowed) of GDAL's data.
func dCSV(name string) ([][]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		var rec []string
		var cur strings.Builder
		q := false
		for _, r := range strings.TrimRight(l, "\r") {
			switch {
			case r == '"':
				q = !q
			case r == ',' && !q:
				rec = append(rec, strings.TrimSpace(cur.String()))
				cur.Reset()
			default:
				cur.WriteRune(r)
			}
		}
		rec = append(rec, strings.TrimSpace(cur.String()))
		out = append(out, rec)
	}
	return out, nil
}

// dPyenvRelease is one release of pyenv's CHANGELOG.md.
type dPyenvRelease struct {
	Version string
	Items   []string
}

func dPyenvReleases() ([]dPyenvRelease, error) {
	b, err := os.ReadFile("/root/.pyenv/CHANGELOG.md")
	if err != nil {
		return nil, err
	}
	var out []dPyenvRelease
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "## Release ") {
			out = append(out, dPyenvRelease{Version: strings.TrimSpace(strings.TrimPrefix(l, "## Release "))})
			continue
		}
		if len(out) > 0 && strings.HasPrefix(l, "* ") {
			out[len(out)-1].Items = append(out[len(out)-1].Items, strings.TrimPrefix(l, "* "))
		}
	}
	return out, nil
}

// dPick returns a random element.
func dPick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// dHex is n random hex digits.
func dHex(r *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[r.IntN(16)]
	}
	return string(b)
}

// ---------------------------------------------------------------------
// Generators.

// dFit builds the document with n = nmax, nmax-1, ... records until the
// place document() plants a needle at depth falls where ok says a record
// may go (pos is where the needle's text would start).
func dFit(depth float64, n0, nmax int, ok func(doc string, pos int) bool, build func(n int) string) (string, error) {
	for n := nmax; n >= n0; n-- {
		doc := build(n)
		at := int(depth * float64(len(doc)))
		if i := strings.IndexByte(doc[at:], '\n'); i >= 0 && ok(doc, at+i+1) {
			return doc, nil
		}
	}
	return "", fmt.Errorf("no place for the needle at %.2f", depth)
}

// dAtBlank accepts a place followed by a blank line (records separated by
// blank lines; the needle starts with its own blank line).
func dAtBlank(doc string, pos int) bool { return pos < len(doc) && doc[pos] == '\n' }

// dAtPrefix accepts a place where the next line starts with p.
func dAtPrefix(p string) func(string, int) bool {
	return func(doc string, pos int) bool { return strings.HasPrefix(doc[pos:], p) }
}

// dAtBlankBefore accepts a place followed by a blank line and then p.
func dAtBlankBefore(p string) func(string, int) bool {
	return func(doc string, pos int) bool {
		return pos < len(doc) && doc[pos] == '\n' && strings.HasPrefix(doc[pos+1:], p)
	}
}

// dJournalHost is the machine a journal was written on.
type dJournalHost struct {
	name, machine, boot string
	clock               time.Time
	mono                int64
	seq                 int64
	seqID               string
}

// dJEvent is one journal record's fields after the common ones.
type dJEvent struct {
	transport, ident, comm, exe, cmdline, unit string
	pid, uid, gid, prio, facility              int
	msg                                        string
	extra                                      [][2]string
}

var (
	dJUsers   = []string{"deploy", "jenkins", "backup", "mhoffmann", "asato", "lnguyen"}
	dJCronCmd = []string{
		"test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }",
		"[ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then /usr/lib/php/sessionclean; fi",
		"command -v debian-sa1 > /dev/null && debian-sa1 1 1",
		"/usr/local/bin/rotate-uploads --keep 14 >/dev/null 2>&1",
		"cd / && run-parts --report /etc/cron.hourly",
	}
	dJUnits = [][2]string{
		{"apt-daily.service", "Daily apt download activities"},
		{"apt-daily-upgrade.service", "Daily apt upgrade and clean activities"},
		{"logrotate.service", "Rotate log files"},
		{"man-db.service", "Daily man-db regeneration"},
		{"phpsessionclean.service", "Clean php session files"},
		{"systemd-tmpfiles-clean.service", "Cleanup of Temporary Directories"},
		{"fstrim.service", "Discard unused blocks on filesystems from /etc/fstab"},
		{"e2scrub_all.service", "Online ext4 Metadata Check for All Filesystems"},
	}
)

func dNewHost(r *rand.Rand, name string, start time.Time) *dJournalHost {
	return &dJournalHost{name: name, machine: dHex(r, 32), boot: dHex(r, 32), clock: start,
		mono: int64(r.IntN(900000000)) + 30000000, seq: int64(r.IntN(40000)) + 1000, seqID: dHex(r, 32)}
}

// dJNext makes a random ordinary event.
func dJNext(r *rand.Rand) dJEvent {
	switch k := r.IntN(100); {
	case k < 22:
		u := dPick(r, dJUsers)
		ip := fmt.Sprintf("198.51.100.%d", r.IntN(250)+2)
		port := 32768 + r.IntN(28000)
		msgs := []string{
			fmt.Sprintf("Accepted publickey for %s from %s port %d ssh2: ED25519 SHA256:%s", u, ip, port, dB64(r, 43)),
			fmt.Sprintf("pam_unix(sshd:session): session opened for user %s(uid=%d) by (uid=0)", u, 1000+len(u)),
			fmt.Sprintf("Received disconnect from %s port %d:11: disconnected by user", ip, port),
			fmt.Sprintf("Disconnected from user %s %s port %d", u, ip, port),
			fmt.Sprintf("Invalid user %s from 203.0.113.%d port %d", dPick(r, []string{"admin", "oracle", "test", "ubuntu", "git", "postgres", "user1"}), r.IntN(250)+2, port),
			fmt.Sprintf("Connection closed by authenticating user root 203.0.113.%d port %d [preauth]", r.IntN(250)+2, port),
		}
		pid := 20000 + r.IntN(40000)
		return dJEvent{transport: "syslog", ident: "sshd", comm: "sshd", exe: "/usr/sbin/sshd", cmdline: "sshd: " + u + " [priv]",
			unit: "ssh.service", pid: pid, prio: 6, facility: 4, msg: dPick(r, msgs)}
	case k < 40:
		pid := 20000 + r.IntN(40000)
		msg := fmt.Sprintf("(root) CMD (%s)", dPick(r, dJCronCmd))
		if r.IntN(2) == 0 {
			msg = dPick(r, []string{"pam_unix(cron:session): session opened for user root(uid=0) by (uid=0)", "pam_unix(cron:session): session closed for user root"})
		}
		return dJEvent{transport: "syslog", ident: "CRON", comm: "cron", exe: "/usr/sbin/cron", cmdline: "/usr/sbin/CRON -f",
			unit: "cron.service", pid: pid, prio: 6, facility: 10, msg: msg}
	case k < 62:
		u := dPick(r, dJUnits)
		msgs := []string{"Starting " + u[1] + "...", u[0] + ": Deactivated successfully.", "Finished " + u[1] + ".",
			u[0] + fmt.Sprintf(": Consumed %d.%03ds CPU time.", r.IntN(40), r.IntN(1000))}
		return dJEvent{transport: "journal", ident: "systemd", comm: "systemd", exe: "/usr/lib/systemd/systemd", cmdline: "/sbin/init",
			unit: "init.scope", pid: 1, prio: 6, facility: 3, msg: dPick(r, msgs), extra: [][2]string{{"UNIT", u[0]}, {"CODE_FILE", "src/core/unit.c"}, {"CODE_LINE", strconv.Itoa(5000 + r.IntN(900))}, {"CODE_FUNC", "unit_log_success"}}}
	case k < 72:
		return dJEvent{transport: "kernel", ident: "kernel", prio: 4, facility: 0,
			msg: fmt.Sprintf("[UFW BLOCK] IN=ens3 OUT= MAC=fa:16:3e:4c:91:07:fe:54:00:%s:%s:%s:08:00 SRC=%d.%d.%d.%d DST=10.0.0.12 LEN=44 TOS=0x00 PREC=0x00 TTL=%d ID=%d PROTO=TCP SPT=%d DPT=%d WINDOW=1024 RES=0x00 SYN URGP=0",
				dHex(r, 2), dHex(r, 2), dHex(r, 2), 45+r.IntN(150), r.IntN(255), r.IntN(255), 1+r.IntN(254), 230+r.IntN(25), r.IntN(65535), 1024+r.IntN(60000), dPick(r, []int{23, 3389, 5900, 8080, 6379, 2375, 445, 1433})),
			extra: [][2]string{{"_KERNEL_SUBSYSTEM", ""}}}
	case k < 82:
		pid := 800 + r.IntN(200)
		buf := r.IntN(4000) + 20
		msg := dPick(r, []string{
			"checkpoint starting: time",
			fmt.Sprintf("checkpoint complete: wrote %d buffers (%.1f%%); 0 WAL file(s) added, 0 removed, %d recycled; write=%d.%03d s, sync=0.%03d s, total=%d.%03d s; sync files=%d, longest=0.%03d s, average=0.%03d s; distance=%d kB, estimate=%d kB",
				buf, float64(buf)/163.84, r.IntN(3), r.IntN(270), r.IntN(1000), r.IntN(1000), r.IntN(270), r.IntN(1000), r.IntN(60), r.IntN(1000), r.IntN(100), buf*8, buf*9),
			"automatic vacuum of table \"shop.public.sessions\": index scans: 1",
		})
		return dJEvent{transport: "stdout", ident: "postgres", comm: "postgres", exe: "/usr/lib/postgresql/15/bin/postgres", cmdline: "postgres: 15/main: checkpointer",
			unit: "postgresql@15-main.service", pid: pid, uid: 114, gid: 121, prio: 6, facility: 3, msg: msg}
	case k < 92:
		u := dPick(r, dJUsers[:3])
		cmd := dPick(r, []string{"/usr/bin/systemctl reload nginx", "/usr/bin/journalctl -u php8.2-fpm --since today", "/usr/bin/apt-get update", "/usr/sbin/nginx -t", "/usr/bin/systemctl restart php8.2-fpm"})
		return dJEvent{transport: "syslog", ident: "sudo", comm: "sudo", exe: "/usr/bin/sudo", cmdline: "sudo " + strings.TrimPrefix(cmd, "/usr/bin/"),
			unit: "session-" + strconv.Itoa(100+r.IntN(300)) + ".scope", pid: 20000 + r.IntN(40000), uid: 1000, gid: 1000, prio: 5, facility: 10,
			msg: fmt.Sprintf("%s : TTY=pts/%d ; PWD=/home/%s ; USER=root ; COMMAND=%s", u, r.IntN(4), u, cmd)}
	default:
		n := 100 + r.IntN(300)
		u := dPick(r, dJUsers)
		msg := dPick(r, []string{fmt.Sprintf("New session %d of user %s.", n, u), fmt.Sprintf("Session %d logged out. Waiting for processes to exit.", n), fmt.Sprintf("Removed session %d.", n)})
		return dJEvent{transport: "journal", ident: "systemd-logind", comm: "systemd-logind", exe: "/usr/lib/systemd/systemd-logind", cmdline: "/lib/systemd/systemd-logind",
			unit: "systemd-logind.service", pid: 611, prio: 6, facility: 4, msg: msg}
	}
}

// dB64 is n random base64 characters.
func dB64(r *rand.Rand, n int) string {
	const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	for i := range b {
		b[i] = a[r.IntN(64)]
	}
	return string(b)
}

// dJFields is the record's fields in the order journalctl shows them.
func (h *dJournalHost) dJFields(r *rand.Rand, e dJEvent) [][2]string {
	f := [][2]string{{"_BOOT_ID", h.boot}, {"_MACHINE_ID", h.machine}, {"_HOSTNAME", h.name}}
	f = append(f, [2]string{"PRIORITY", strconv.Itoa(e.prio)}, [2]string{"SYSLOG_FACILITY", strconv.Itoa(e.facility)}, [2]string{"_TRANSPORT", e.transport})
	if e.transport == "kernel" {
		src := strconv.FormatInt(h.mono-int64(r.IntN(900)), 10)
		if strings.HasPrefix(e.msg, "Linux version") {
			src = "0"
		}
		f = append(f, [2]string{"SYSLOG_IDENTIFIER", "kernel"}, [2]string{"_SOURCE_MONOTONIC_TIMESTAMP", src})
	} else {
		f = append(f, [2]string{"SYSLOG_IDENTIFIER", e.ident})
		if e.transport == "syslog" {
			f = append(f, [2]string{"SYSLOG_PID", strconv.Itoa(e.pid)}, [2]string{"SYSLOG_TIMESTAMP", h.clock.Format("Jan _2 15:04:05 ")})
		}
		f = append(f, [2]string{"_PID", strconv.Itoa(e.pid)}, [2]string{"_UID", strconv.Itoa(e.uid)}, [2]string{"_GID", strconv.Itoa(e.gid)},
			[2]string{"_COMM", e.comm}, [2]string{"_EXE", e.exe}, [2]string{"_CMDLINE", e.cmdline},
			[2]string{"_CAP_EFFECTIVE", "1ffffffffff"}, [2]string{"_SELINUX_CONTEXT", "unconfined\n"})
		slice := "system.slice"
		if strings.HasPrefix(e.unit, "session-") {
			slice = "user-1000.slice"
		}
		cg := "/" + slice + "/" + e.unit
		if e.unit == "init.scope" {
			cg = "/init.scope"
		}
		f = append(f, [2]string{"_SYSTEMD_CGROUP", cg}, [2]string{"_SYSTEMD_UNIT", e.unit}, [2]string{"_SYSTEMD_SLICE", slice},
			[2]string{"_SYSTEMD_INVOCATION_ID", dHex(r, 32)})
	}
	f = append(f, e.extra...)
	f = append(f, [2]string{"MESSAGE", e.msg})
	if e.transport == "syslog" {
		f = append(f, [2]string{"_SOURCE_REALTIME_TIMESTAMP", strconv.FormatInt(h.clock.UnixMicro()-int64(r.IntN(400)), 10)})
	}
	return f
}

// dJAdvance moves the host's clock on.
func (h *dJournalHost) dJAdvance(r *rand.Rand, maxMS int) {
	d := time.Duration(r.IntN(maxMS*1000)+1) * time.Microsecond
	h.clock = h.clock.Add(d)
	h.mono += d.Microseconds()
	h.seq++
}

func (h *dJournalHost) dCursor(r *rand.Rand) string {
	return fmt.Sprintf("s=%s;i=%x;b=%s;m=%x;t=%x;x=%s", h.seqID, h.seq, h.boot, h.mono, h.clock.UnixMicro(), dHex(r, 16))
}

// dJVerbose renders one record as journalctl -o verbose does.
func (h *dJournalHost) dJVerbose(r *rand.Rand, e dJEvent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s]\n", h.clock.Format("Mon 2006-01-02 15:04:05.000000 MST"), h.dCursor(r))
	for _, kv := range h.dJFields(r, e) {
		if kv[0] == "_KERNEL_SUBSYSTEM" {
			continue
		}
		fmt.Fprintf(&b, "    %s=%s\n", kv[0], strings.TrimRight(kv[1], "\n"))
	}
	return strings.TrimRight(b.String(), "\n")
}

// dJExport renders one record as journalctl -o export does (text fields).
func (h *dJournalHost) dJExport(r *rand.Rand, e dJEvent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "__CURSOR=%s\n__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n", h.dCursor(r), h.clock.UnixMicro(), h.mono)
	for _, kv := range h.dJFields(r, e) {
		if kv[0] == "_KERNEL_SUBSYSTEM" {
			continue
		}
		fmt.Fprintf(&b, "%s=%s\n", kv[0], strings.TrimRight(kv[1], "\n"))
	}
	return strings.TrimRight(b.String(), "\n")
}

// dJournal makes a journal of about size bytes: verbose or export
// records, with fixed events at given fractions, fitted so that a needle
// at depth (if depth > 0) falls between records.
func dJournal(id, host string, start time.Time, size int, export bool, depth float64, fixed map[float64]dJEvent) (string, error) {
	r := seeded(id)
	h := dNewHost(r, host, start)
	render := h.dJVerbose
	join := "\n"
	if export {
		render = h.dJExport
		join = "\n\n"
	}
	var recs []string
	total := 0
	var keys []float64
	for k := range fixed {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	limit := size
	if depth > 0 {
		limit = size * 5 / 4
	}
	n0 := 0
	for total < limit {
		for len(keys) > 0 && float64(total) >= keys[0]*float64(size) {
			h.dJAdvance(r, 900)
			s := render(r, fixed[keys[0]])
			recs = append(recs, s)
			total += len(s) + len(join)
			keys = keys[1:]
		}
		h.dJAdvance(r, 40000)
		s := render(r, dJNext(r))
		recs = append(recs, s)
		total += len(s) + len(join)
		if n0 == 0 && total >= size*3/4 {
			n0 = len(recs)
		}
	}
	if depth <= 0 {
		return strings.Join(recs, join) + "\n", nil
	}
	ok := func(doc string, pos int) bool { return pos < len(doc) && doc[pos] != ' ' && doc[pos] != '\n' }
	if export {
		ok = dAtBlank
	}
	doc, err := dFit(depth, n0, len(recs), ok, func(n int) string { return strings.Join(recs[:n], join) + "\n" })
	return doc, err
}

// dJNeedle renders a record as the journal of case id would, at the given
// time, sequence number and monotonic clock: a needle that fits its place.
func dJNeedle(id, host string, export bool, at time.Time, seq, mono int64, e dJEvent) string {
	h := dNewHost(seeded(id), host, at)
	h.seq, h.mono = seq, mono
	r := seeded(id + "/needle")
	if export {
		return "\n" + h.dJExport(r, e)
	}
	return h.dJVerbose(r, e)
}

// dSitePaths are request paths of a site serving Node.js's API docs,
// from the real file names.
func dSitePaths() []string {
	dSiteOnce.Do(func() { dSiteList = dSitePathList() })
	return dSiteList
}

var (
	dSiteOnce sync.Once
	dSiteList []string
)

func dSitePathList() []string {
	names, _ := filepath.Glob("/usr/share/doc/nodejs/api/*.html")
	out := []string{"/", "/robots.txt", "/static/css/main.4f1c2a.css", "/static/js/app.9b7e33.js", "/api/v1/search", "/api/v1/session", "/login", "/download/"}
	for _, n := range names {
		b := strings.TrimSuffix(filepath.Base(n), ".html")
		out = append(out, "/docs/latest/api/"+b+".html", "/docs/v18.x/api/"+b+".html", "/api/v1/docs/"+b+"?format=json")
	}
	return out
}

var dScanPaths = []string{"/.env", "/.git/config", "/phpmyadmin/index.php", "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php", "/xmlrpc.php", "/cgi-bin/luci/;stok=/locale", "/actuator/health", "/server-status", "/boaform/admin/formLogin", "/.aws/credentials", "/owa/auth/logon.aspx"}

var dAgents = []string{
	"Mozilla/5.0 (X11; Linux x86_64; rv:123.0) Gecko/20100101 Firefox/123.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_3_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15",
	"curl/7.88.1", "Go-http-client/1.1", "python-requests/2.31.0",
}

func dClientIP(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("203.0.113.%d", r.IntN(253)+1)
	case 1:
		return fmt.Sprintf("198.51.100.%d", r.IntN(253)+1)
	}
	return fmt.Sprintf("192.0.2.%d", r.IntN(253)+1)
}

// dNginxLine is one line of an nginx error log.
func dNginxLine(r *rand.Rand, t time.Time, server string, conn *int, workers []int, allowUpstreams []string) string {
	*conn += 1 + r.IntN(40)
	w := dPick(r, workers)
	ip := dClientIP(r)
	ts := t.Format("2006/01/02 15:04:05")
	paths := dSitePaths()
	p := dPick(r, paths)
	up := dPick(r, allowUpstreams)
	switch k := r.IntN(100); {
	case k < 30:
		sp := dPick(r, dScanPaths)
		return fmt.Sprintf("%s [error] %d#%d: *%d open() \"/var/www/%s%s\" failed (2: No such file or directory), client: %s, server: %s, request: \"GET %s HTTP/1.1\", host: \"%s\"", ts, w, w, *conn, server, sp, ip, server, sp, server)
	case k < 45:
		return fmt.Sprintf("%s [error] %d#%d: *%d upstream timed out (110: Connection timed out) while reading response header from upstream, client: %s, server: %s, request: \"GET %s HTTP/2.0\", upstream: \"http://%s%s\", host: \"%s\", referrer: \"https://%s/docs/latest/api/\"", ts, w, w, *conn, ip, server, p, up, p, server, server)
	case k < 55:
		return fmt.Sprintf("%s [error] %d#%d: *%d connect() failed (111: Connection refused) while connecting to upstream, client: %s, server: %s, request: \"POST /api/v1/session HTTP/2.0\", upstream: \"http://%s/api/v1/session\", host: \"%s\"", ts, w, w, *conn, ip, server, up, server)
	case k < 70:
		return fmt.Sprintf("%s [warn] %d#%d: *%d an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/%d/%02d/%010d while reading upstream, client: %s, server: %s, request: \"GET %s HTTP/2.0\", upstream: \"http://%s%s\", host: \"%s\"", ts, w, w, *conn, r.IntN(10), r.IntN(100), r.IntN(99999999), ip, server, p, up, p, server)
	case k < 80:
		return fmt.Sprintf("%s [error] %d#%d: *%d limiting requests, excess: %d.%03d by zone \"api\", client: %s, server: %s, request: \"GET %s HTTP/1.1\", host: \"%s\"", ts, w, w, *conn, 10+r.IntN(30), r.IntN(1000), ip, server, p, server)
	case k < 88:
		return fmt.Sprintf("%s [crit] %d#%d: *%d SSL_do_handshake() failed (SSL: error:0A00006C:SSL routines::bad key share) while SSL handshaking, client: %s, server: 0.0.0.0:443", ts, w, w, *conn, ip)
	case k < 94:
		return fmt.Sprintf("%s [info] %d#%d: *%d client %s closed keepalive connection", ts, w, w, *conn, ip)
	default:
		return fmt.Sprintf("%s [warn] %d#%d: *%d a client request body is buffered to a temporary file /var/cache/nginx/client_temp/%010d, client: %s, server: %s, request: \"POST /api/v1/search HTTP/2.0\", host: \"%s\"", ts, w, w, *conn, r.IntN(99999999), ip, server, server)
	}
}

// dNginxLog makes an nginx error log of about size bytes; fixed lines go
// in at the given fractions.
func dNginxLog(id, server string, start time.Time, size, base int, fixed map[float64]func(time.Time) string) string {
	r := seeded(id)
	workers := []int{}
	for i := 0; i < 4; i++ {
		workers = append(workers, base+i)
	}
	ups := []string{"127.0.0.1:3000", "127.0.0.1:3001", "10.0.3.17:8080"}
	conn := r.IntN(100000)
	t := start
	var b strings.Builder
	var keys []float64
	for k := range fixed {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	for b.Len() < size {
		for len(keys) > 0 && float64(b.Len()) >= keys[0]*float64(size) {
			t = t.Add(time.Duration(r.IntN(900)) * time.Millisecond)
			line := fixed[keys[0]](t)
			b.WriteString(line + "\n")
			keys = keys[1:]
			// a worker that died is replaced by a new one
			var dead int
			if _, err := fmt.Sscanf(line[strings.Index(line, "worker process ")+len("worker process "):], "%d exited", &dead); err == nil && strings.Contains(line, "exited on signal") {
				for i, w := range workers {
					if w == dead {
						workers[i] = base + 6
					}
				}
				t = t.Add(time.Duration(r.IntN(300)) * time.Millisecond)
				fmt.Fprintf(&b, "%s [notice] %d#%d: start worker process %d\n", t.Format("2006/01/02 15:04:05"), base-1, base-1, base+6)
			}
		}
		t = t.Add(time.Duration(r.IntN(9000)) * time.Millisecond)
		b.WriteString(dNginxLine(r, t, server, &conn, workers, ups) + "\n")
	}
	return b.String()
}

// dApacheLog makes an Apache 2.4 error log of about size bytes.
func dApacheLog(id string, start time.Time, size int, fixed map[float64]func(time.Time) string, restartPID int) string {
	r := seeded(id)
	t := start
	var b strings.Builder
	var keys []float64
	for k := range fixed {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	pids := []int{}
	for i := 0; i < 3; i++ {
		pids = append(pids, 20000+r.IntN(40000))
	}
	stamp := func() string { return t.Format("Mon Jan 02 15:04:05.000000 2006") }
	for b.Len() < size {
		for len(keys) > 0 && float64(b.Len()) >= keys[0]*float64(size) {
			t = t.Add(time.Duration(r.IntN(1500)) * time.Millisecond)
			b.WriteString(fixed[keys[0]](t) + "\n")
			keys = keys[1:]
			if len(keys) == 0 && restartPID > 0 {
				pids = []int{restartPID + 1, restartPID + 2, restartPID + 3}
			}
		}
		t = t.Add(time.Duration(r.IntN(20000)) * time.Millisecond)
		pid := dPick(r, pids)
		tid := 139800000000000 + int64(r.IntN(99999999))
		ip := dClientIP(r)
		port := 30000 + r.IntN(35000)
		var line string
		switch k := r.IntN(100); {
		case k < 30:
			line = fmt.Sprintf("[%s] [proxy_fcgi:error] [pid %d:tid %d] [client %s:%d] AH01071: Got error 'Primary script unknown'", stamp(), pid, tid, ip, port)
		case k < 50:
			line = fmt.Sprintf("[%s] [core:error] [pid %d:tid %d] [client %s:%d] AH00126: Invalid URI in request GET /%s HTTP/1.1", stamp(), pid, tid, ip, port, dPick(r, []string{"..%2f..%2f..%2fetc/passwd", "%%32%65%%32%65/%%32%65%%32%65/bin/sh", "cgi-bin/.%2e/.%2e/.%2e/.%2e/bin/sh"}))
		case k < 65:
			p := dPick(r, dSitePaths())
			line = fmt.Sprintf("[%s] [proxy:error] [pid %d:tid %d] (70007)The timeout specified has expired: [client %s:%d] AH01102: error reading status line from remote server 127.0.0.1:8080, referer: https://docs.example.net%s", stamp(), pid, tid, ip, port, p)
		case k < 75:
			line = fmt.Sprintf("[%s] [ssl:info] [pid %d:tid %d] [client %s:%d] AH02008: SSL library error 1 in handshake (server docs.example.net:443)", stamp(), pid, tid, ip, port)
		case k < 85:
			line = fmt.Sprintf("[%s] [authz_core:error] [pid %d:tid %d] [client %s:%d] AH01630: client denied by server configuration: /var/www/docs%s", stamp(), pid, tid, ip, port, dPick(r, dScanPaths))
		case k < 93:
			line = fmt.Sprintf("[%s] [php:warn] [pid %d:tid %d] [client %s:%d] PHP Warning:  Undefined array key \"%s\" in /var/www/docs/lib/search.php on line %d", stamp(), pid, tid, ip, port, dPick(r, []string{"q", "page", "lang", "v"}), 40+r.IntN(200))
		default:
			line = fmt.Sprintf("[%s] [mpm_event:error] [pid %d:tid %d] AH00485: scoreboard is full, not at MaxRequestWorkers", stamp(), pid, tid)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// dLighttpdLog makes a lighttpd error log of about size bytes.
func dLighttpdLog(id string, start time.Time, size int) string {
	r := seeded(id)
	t := start
	var b strings.Builder
	b.WriteString(t.Format("2006-01-02 15:04:05") + ": (server.c.1568) server started (lighttpd/1.4.69)\n")
	for b.Len() < size {
		t = t.Add(time.Duration(r.IntN(30000)) * time.Millisecond)
		ts := t.Format("2006-01-02 15:04:05")
		ip := dClientIP(r)
		var line string
		switch k := r.IntN(100); {
		case k < 25:
			line = fmt.Sprintf("%s: (mod_fastcgi.c.%d) connect failed: Resource temporarily unavailable on unix:/run/php/php8.2-fpm.sock-0", ts, 370+r.IntN(10))
		case k < 40:
			line = fmt.Sprintf("%s: (gw_backend.c.%d) backend is overloaded; we'll disable it for %d seconds and send the request to another backend instead: reconnects: 0 load: %d", ts, 1070+r.IntN(20), 1+r.IntN(3), 100+r.IntN(200))
		case k < 55:
			line = fmt.Sprintf("%s: (mod_openssl.c.%d) SSL: %d error:0A000126:SSL routines::unexpected eof while reading (%s)", ts, 3400+r.IntN(100), 1+r.IntN(5), ip)
		case k < 70:
			line = fmt.Sprintf("%s: (response.c.%d) -- file not found (%s) %s", ts, 480+r.IntN(40), ip, "/var/www/html"+dPick(r, dScanPaths))
		case k < 80:
			line = fmt.Sprintf("%s: (mod_cgi.c.%d) cgi died, pid: %d", ts, 980+r.IntN(30), 20000+r.IntN(40000))
		case k < 90:
			line = fmt.Sprintf("%s: (h2.c.%d) invalid request-line -> sending Status 400 (%s)", ts, 1500+r.IntN(200), ip)
		default:
			line = fmt.Sprintf("%s: (connections.c.%d) connection closed - read timeout: %d", ts, 1000+r.IntN(100), 20+r.IntN(200))
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// dCaddyLog makes a Caddy JSON error log of about size bytes.
func dCaddyLog(id string, start time.Time, size int) string {
	r := seeded(id)
	t := start
	var b strings.Builder
	hosts := []string{"app.example.org", "docs.example.org", "grafana.example.org"}
	for b.Len() < size {
		t = t.Add(time.Duration(r.IntN(60000)) * time.Millisecond)
		ts := float64(t.UnixMicro()) / 1e6
		ip := dClientIP(r)
		host := dPick(r, hosts)
		p := dPick(r, dSitePaths())
		dur := float64(r.IntN(30000)) / 1e6
		var line string
		switch k := r.IntN(100); {
		case k < 45:
			line = fmt.Sprintf(`{"level":"error","ts":%.4f,"logger":"http.log.error","msg":"dial tcp 10.0.4.21:3000: connect: connection refused","request":{"remote_ip":"%s","remote_port":"%d","client_ip":"%s","proto":"HTTP/2.0","method":"GET","host":"%s","uri":"%s","headers":{"User-Agent":["%s"],"Accept-Encoding":["gzip, deflate, br"]},"tls":{"resumed":false,"version":772,"cipher_suite":4865,"proto":"h2","server_name":"%s"}},"duration":%.6f,"status":502,"err_id":"%s","err_trace":"reverseproxy.statusError (reverseproxy.go:1269)"}`,
				ts, ip, 30000+r.IntN(35000), ip, host, p, dPick(r, dAgents), host, dur, dB64(r, 9))
		case k < 70:
			line = fmt.Sprintf(`{"level":"error","ts":%.4f,"logger":"http.log.error","msg":"context canceled","request":{"remote_ip":"%s","remote_port":"%d","client_ip":"%s","proto":"HTTP/1.1","method":"GET","host":"%s","uri":"%s","headers":{"User-Agent":["%s"]}},"duration":%.6f,"status":502,"err_id":"%s","err_trace":"reverseproxy.statusError (reverseproxy.go:1269)"}`,
				ts, ip, 30000+r.IntN(35000), ip, host, p, dPick(r, dAgents), dur*50, dB64(r, 9))
		case k < 85:
			line = fmt.Sprintf(`{"level":"debug","ts":%.4f,"logger":"http.handlers.reverse_proxy","msg":"upstream roundtrip","upstream":"10.0.4.2%d:3000","duration":%.6f,"request":{"remote_ip":"%s","method":"GET","host":"%s","uri":"%s"},"headers":{"Content-Type":["text/html; charset=utf-8"]},"status":200}`,
				ts, r.IntN(3), dur, ip, host, p)
		case k < 93:
			line = fmt.Sprintf(`{"level":"info","ts":%.4f,"logger":"http.handlers.reverse_proxy.health_checker.active","msg":"host is down","host":"10.0.4.2%d:3000"}`, ts, r.IntN(3))
		default:
			line = fmt.Sprintf(`{"level":"info","ts":%.4f,"logger":"tls","msg":"certificate is valid for renewal check","identifier":"%s","remaining":%d.%06d}`, ts, host, 1500000+r.IntN(4000000), r.IntN(999999))
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// dPad pads or cuts s to n characters (runes).
func dPad(s string, n int) string {
	rs := []rune(s)
	if len(rs) > n {
		return string(rs[:n])
	}
	return s + strings.Repeat(" ", n-len(rs))
}

// dLPad right-aligns s in n characters.
func dLPad(s string, n int) string {
	rs := []rune(s)
	if len(rs) >= n {
		return string(rs[:n])
	}
	return strings.Repeat(" ", n-len(rs)) + s
}

// dReportSpec describes a paged fixed-width report.
type dReportSpec struct {
	Org, Title, Code, RunDate string
	Cols                      []string // column headings
	Widths                    []int    // negative: right-aligned
	PerPage                   int
	Footer                    []string
}

// dRow formats one row of the report.
func (s dReportSpec) dRow(cells []string) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString("  ")
		}
		if w := s.Widths[i]; w < 0 {
			b.WriteString(dLPad(c, -w))
		} else {
			b.WriteString(dPad(c, w))
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// dRender prints rows as pages, each with the report's heading.
func (s dReportSpec) dRender(rows [][]string) string {
	width := 0
	for _, w := range s.Widths {
		if w < 0 {
			w = -w
		}
		width += w + 2
	}
	width -= 2
	pages := (len(rows) + s.PerPage - 1) / s.PerPage
	var b strings.Builder
	rule := strings.Repeat("-", width)
	for p := 0; p < pages; p++ {
		if p > 0 {
			b.WriteString("\f\n")
		}
		left := s.Org
		right := fmt.Sprintf("PAGE %5d OF %5d", p+1, pages)
		mid := s.Title
		gap := width - len([]rune(left)) - len([]rune(right)) - len([]rune(mid))
		if gap < 2 {
			gap = 2
		}
		b.WriteString(left + strings.Repeat(" ", gap/2) + mid + strings.Repeat(" ", gap-gap/2) + right + "\n")
		l2 := "RUN DATE " + s.RunDate
		b.WriteString(l2 + strings.Repeat(" ", max(2, width-len(l2)-len(s.Code)-7)) + "REPORT " + s.Code + "\n\n")
		b.WriteString(s.dRow(s.Cols) + "\n" + rule + "\n")
		end := min(len(rows), (p+1)*s.PerPage)
		for _, r := range rows[p*s.PerPage : end] {
			b.WriteString(s.dRow(r) + "\n")
		}
		if p == pages-1 {
			b.WriteString(rule + "\n")
			for _, f := range s.Footer {
				b.WriteString(f + "\n")
			}
			fmt.Fprintf(&b, "*** END OF REPORT %s *** %d RECORDS ***\n", s.Code, len(rows))
		} else {
			b.WriteString("\n" + dLPad("CONTINUED ON NEXT PAGE", width) + "\n")
		}
	}
	return b.String()
}

// dAtRow accepts a place between two lines that both match re.
func dAtRow(re *regexp.Regexp) func(string, int) bool {
	return func(doc string, pos int) bool {
		if pos >= len(doc) || pos < 2 {
			return false
		}
		prevStart := strings.LastIndexByte(doc[:pos-1], '\n') + 1
		next := doc[pos:]
		if i := strings.IndexByte(next, '\n'); i >= 0 {
			next = next[:i]
		}
		return re.MatchString(doc[prevStart:pos-1]) && re.MatchString(next)
	}
}

func dDate(t time.Time) string { return t.Format("2006-01-02") }

// dSQLQuote quotes s as an SQL string literal.
func dSQLQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// dMyQuote quotes s as mysqldump does.
func dMyQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s + "'"
}

// dCopyEsc escapes a COPY text field.
func dCopyEsc(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "\t", `\t`)
	return strings.ReplaceAll(s, "\n", `\n`)
}

// dMyDumpHead is the start of a mysqldump file.
func dMyDumpHead(db, host string) string {
	return fmt.Sprintf(`-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: %s    Database: %s
-- ------------------------------------------------------
-- Server version	10.11.6-MariaDB-0+deb12u1

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;

`, host, db)
}

const dMyDumpTail = `/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

-- Dump completed on 2024-03-11  4:15:02
`

// dMail is one message of a mailbox.
type dMail struct {
	From, To, Subject, ID, InReplyTo, List string
	Date                                   time.Time
	Body                                   string
}

func (m dMail) dString() string {
	var b strings.Builder
	addr := m.From
	if i := strings.IndexByte(addr, '<'); i >= 0 {
		addr = strings.Trim(addr[i:], "<>")
	}
	fmt.Fprintf(&b, "From %s %s\n", addr, m.Date.Format("Mon Jan _2 15:04:05 2006"))
	fmt.Fprintf(&b, "Return-Path: <%s>\n", addr)
	fmt.Fprintf(&b, "Received: from mail-out.example.net (mail-out.example.net [192.0.2.25])\n\tby mx1.example.com (Postfix) with ESMTPS id %X\n\tfor <%s>; %s\n", m.Date.UnixNano()&0xFFFFFFFFFF, strings.Trim(m.To[strings.LastIndexByte(m.To, '<')+1:], "<>"), m.Date.Add(3*time.Second).Format(time.RFC1123Z))
	fmt.Fprintf(&b, "From: %s\nTo: %s\nSubject: %s\nDate: %s\nMessage-ID: <%s>\n", m.From, m.To, m.Subject, m.Date.Format(time.RFC1123Z), m.ID)
	if m.InReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: <%s>\nReferences: <%s>\n", m.InReplyTo, m.InReplyTo)
	}
	if m.List != "" {
		fmt.Fprintf(&b, "List-Id: <%s>\nList-Unsubscribe: <mailto:%s+unsubscribe@googlegroups.com>\nPrecedence: list\n", strings.ReplaceAll(m.List, "@", "."), strings.Split(m.List, "@")[0])
	}
	b.WriteString("MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\n")
	for _, l := range strings.Split(strings.TrimRight(m.Body, "\n"), "\n") {
		if strings.HasPrefix(l, "From ") {
			l = ">" + l
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// dHandleName is the name a GitHub handle of a Node.js releaser signs with.
var dHandleName = map[string]string{
	"@MylesBorins": "Myles Borins", "@mylesborins": "Myles Borins", "@BethGriggs": "Beth Griggs", "@rvagg": "Rod Vagg",
	"@richardlau": "Richard Lau", "@targos": "Michaël Zasso", "@ruyadorno": "Ruy Adorno", "@danielleadams": "Danielle Adams",
	"@codebytere": "Shelley Vohr", "@BridgeAR": "Ruben Bridgewater", "@evanlucas": "Evan Lucas", "@jasnell": "James M Snell",
	"@cjihrig": "Colin Ihrig", "@gibfahn": "Gibson Fahnestock", "@RafaelGSS": "Rafael Gonzaga", "@juanarbol": "Juan José Arboleda",
	"@bengl": "Bryan English", "@Fishrock123": "Jeremiah Senkpiel", "@addaleax": "Anna Henningsen", "@Trott": "Rich Trott",
	"@jBarz": "Jon Barzilay", "@thealphanerd": "Myles Borins", "@TheAlphaNerd": "Myles Borins", "@sam-github": "Sam Roberts",
	"@juanarbol_": "Juan José Arboleda", "@UlisesGascon": "Ulises Gascón", "@MoLow": "Moshe Atlow", "@BethGriggs_": "Beth Griggs",
	"@apapirovski": "Anatoli Papirovski", "@ChALkeR": "Сковорода Никита Андреевич", "@jasnell_": "James M Snell",
}

func dReleaserName(h string) string {
	if n, ok := dHandleName[h]; ok {
		return n
	}
	return strings.TrimPrefix(h, "@")
}

// dMailAddr is a made-up address for a person's name.
func dMailAddr(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '.':
			if b.Len() > 0 && !strings.HasSuffix(b.String(), ".") {
				b.WriteByte('.')
			}
		case r == 'é' || r == 'è' || r == 'ë':
			b.WriteByte('e')
		case r == 'á' || r == 'ä' || r == 'à':
			b.WriteByte('a')
		case r == 'ó' || r == 'ö':
			b.WriteByte('o')
		case r == 'ú' || r == 'ü':
			b.WriteByte('u')
		case r == 'í':
			b.WriteByte('i')
		case r == 'ñ':
			b.WriteByte('n')
		}
	}
	s := strings.Trim(b.String(), ".")
	if s == "" {
		s = "nodejs.dev"
	}
	return s
}

// ---------------------------------------------------------------------
// Documents made from real data.

const dNodeCL = "/usr/share/doc/nodejs/changelogs/"

// dMimeYAML is the shared MIME database as a YAML catalogue.
func dMimeYAML() (string, error) {
	types, err := dMime()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# MIME type catalogue exported from shared-mime-info 2.2\n# (freedesktop.org.xml); one entry per type, translations by locale.\napiVersion: catalog.example.net/v1\nkind: MimeTypeCatalog\nmetadata:\n  name: shared-mime-info\n  generated: \"2024-03-11T04:00:00Z\"\nspec:\n  types:\n")
	for _, t := range types {
		fmt.Fprintf(&b, "    - type: %s\n", t.Type)
		if c := t.dComment(""); c != "" {
			fmt.Fprintf(&b, "      comment: %s\n", strconv.Quote(c))
		}
		if t.Acronym != "" {
			fmt.Fprintf(&b, "      acronym: %s\n", strconv.Quote(t.Acronym))
		}
		if t.Expanded != "" {
			fmt.Fprintf(&b, "      expandedAcronym: %s\n", strconv.Quote(t.Expanded))
		}
		if len(t.SubClass) > 0 {
			b.WriteString("      subClassOf:\n")
			for _, s := range t.SubClass {
				fmt.Fprintf(&b, "        - %s\n", s.Type)
			}
		}
		if len(t.Aliases) > 0 {
			b.WriteString("      aliases:\n")
			for _, s := range t.Aliases {
				fmt.Fprintf(&b, "        - %s\n", s.Type)
			}
		}
		if len(t.Globs) > 0 {
			b.WriteString("      globs:\n")
			for _, g := range t.Globs {
				fmt.Fprintf(&b, "        - %s\n", strconv.Quote(g.Pattern))
			}
		}
		if t.Icon.Name != "" {
			fmt.Fprintf(&b, "      genericIcon: %s\n", t.Icon.Name)
		}
		first := true
		for _, c := range t.Comments {
			if c.Lang == "" {
				continue
			}
			if first {
				b.WriteString("      translations:\n")
				first = false
			}
			fmt.Fprintf(&b, "        %s: %s\n", c.Lang, strconv.Quote(strings.TrimSpace(c.Text)))
		}
	}
	return b.String(), nil
}

// dCommitYAML is Node.js commits as a YAML release-notes data file.
func dCommitYAML(depth float64, globs ...string) (string, error) {
	rels, err := dNodeReleases(globs...)
	if err != nil {
		return "", err
	}
	type ent struct{ rel, text string }
	var ents []ent
	for _, r := range rels {
		for _, c := range r.Commits {
			area := c.Area
			if area == "" {
				area = "misc"
			}
			ents = append(ents, ent{r.Version, fmt.Sprintf("      - sha: %s\n        area: %s\n        subject: %s\n        author: %s\n        pr: %s",
				c.Hash, strconv.Quote(area), strconv.Quote(c.Subject), strconv.Quote(c.Author), c.PR)})
		}
	}
	build := func(n int) string {
		var b strings.Builder
		b.WriteString("# Node.js release notes data (generated from doc/changelogs)\n# schema: releases[].commits[] {sha, area, subject, author, pr}\nreleases:\n")
		cur := ""
		for _, e := range ents[:n] {
			if e.rel != cur {
				cur = e.rel
				for _, r := range rels {
					if r.Version == cur {
						fmt.Fprintf(&b, "  - version: %s\n    date: %s\n", r.Version, r.Date)
						if r.Codename != "" {
							fmt.Fprintf(&b, "    codename: %s\n", r.Codename)
						}
						fmt.Fprintf(&b, "    releaser: \"%s\"\n    commits:\n", r.Releaser)
						break
					}
				}
			}
			b.WriteString(e.text + "\n")
		}
		return b.String()
	}
	return dFit(depth, len(ents)*9/10, len(ents), dAtPrefix("      - sha: "), build)
}

// dCommitTSV is Node.js commits as a tab-separated export.
func dCommitTSV(globs ...string) (string, error) {
	cs, err := dNodeCommits(globs...)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("commit\trelease\tdate\tsubsystem\tsubject\tauthor\tpr\turl\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "%s\tv%s\t%s\t%s\t%s\t%s\t%s\thttps://github.com/nodejs/node/pull/%s\n", c.Hash, c.Version, c.Date, c.Area, strings.ReplaceAll(c.Subject, "\t", " "), c.Author, c.PR, c.PR)
	}
	return b.String(), nil
}

// dCommitReport is a paged fixed-width report of Node.js commits.
func dCommitReport(depth float64, globs ...string) (string, error) {
	cs, err := dNodeCommits(globs...)
	if err != nil {
		return "", err
	}
	spec := dReportSpec{Org: "NODE.JS RELEASE ENGINEERING", Title: "COMMIT LEDGER BY RELEASE", Code: "RE-114", RunDate: "2024-03-11 05:40",
		Cols: []string{"COMMIT", "RELEASE", "DATE", "AREA", "SUBJECT", "AUTHOR", "PR"}, Widths: []int{10, 9, 10, 14, 58, 24, -6}, PerPage: 60,
		Footer: []string{"SOURCE: doc/changelogs/CHANGELOG_V*.md", "SUBJECTS LONGER THAN 58 CHARACTERS ARE CUT"}}
	rows := make([][]string, len(cs))
	for i, c := range cs {
		rows[i] = []string{c.Hash, "v" + c.Version, c.Date, c.Area, c.Subject, c.Author, c.PR}
	}
	re := regexp.MustCompile(`^[0-9a-f]{10}  v\d`)
	return dFit(depth, len(rows)*9/10, len(rows), dAtRow(re), func(n int) string { return spec.dRender(rows[:n]) })
}

// dCommitInserts is a pg_dump (--inserts) of Node.js commits.
func dCommitInserts(depth float64, globs ...string) (string, error) {
	cs, err := dNodeCommits(globs...)
	if err != nil {
		return "", err
	}
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = fmt.Sprintf("INSERT INTO public.commits VALUES (%d, '%s', '%s', '%s', %s, %s, %s, %s);", i+1, c.Hash, c.Version, c.Date, dSQLQuote(c.Area), dSQLQuote(c.Subject), dSQLQuote(c.Author), c.PR)
	}
	head := pgDumpHead("15.6") + `--
-- Name: commits; Type: TABLE; Schema: public; Owner: relbot
--

CREATE TABLE public.commits (
    id integer NOT NULL,
    sha character(10) NOT NULL,
    release text NOT NULL,
    released_on date NOT NULL,
    subsystem text,
    subject text NOT NULL,
    author text NOT NULL,
    pr integer
);


ALTER TABLE public.commits OWNER TO relbot;

--
-- Data for Name: commits; Type: TABLE DATA; Schema: public; Owner: relbot
--

`
	build := func(n int) string {
		return head + strings.Join(lines[:n], "\n") + fmt.Sprintf(`


--
-- Name: commits_id_seq; Type: SEQUENCE SET; Schema: public; Owner: relbot
--

SELECT pg_catalog.setval('public.commits_id_seq', %d, true);


--
-- Name: commits commits_pkey; Type: CONSTRAINT; Schema: public; Owner: relbot
--

ALTER TABLE ONLY public.commits
    ADD CONSTRAINT commits_pkey PRIMARY KEY (id);


--
-- PostgreSQL database dump complete
--

`, n)
	}
	return dFit(depth, len(lines)*9/10, len(lines), dAtPrefix("INSERT INTO public.commits"), build)
}

// dReleaseMails are Node.js release announcements as a mailbox.
func dReleaseMails(id string, depth float64, globs ...string) (string, error) {
	rels, err := dNodeReleases(globs...)
	if err != nil {
		return "", err
	}
	r := seeded(id)
	rels = append([]dNodeRelease{}, rels...)
	sort.SliceStable(rels, func(i, j int) bool { return rels[i].Date < rels[j].Date })
	var mails []string
	for _, rel := range rels {
		d, err := time.Parse("2006-01-02", rel.Date)
		if err != nil {
			continue
		}
		d = d.Add(time.Duration(14*3600+r.IntN(8*3600)) * time.Second)
		name := dReleaserName(rel.Releaser)
		line := ""
		if rel.Codename != "" {
			line = fmt.Sprintf(" '%s'", rel.Codename)
		}
		if rel.Line != "" {
			line += " (" + rel.Line + ")"
		}
		var body strings.Builder
		fmt.Fprintf(&body, "Node.js v%s%s is out.\n\nDownload: https://nodejs.org/dist/v%s/\nChangelog: https://github.com/nodejs/node/blob/main/doc/changelogs/CHANGELOG_V%s.md#%s\n\n",
			rel.Version, line, rel.Version, strings.Split(rel.Version, ".")[0], rel.Version)
		if rel.Notable != "" {
			body.WriteString("Notable changes\n---------------\n\n" + rel.Notable + "\n\n")
		}
		msgid := fmt.Sprintf("%s.%s@nodejs.org", dHex(r, 16), strings.ReplaceAll(rel.Version, ".", "-"))
		fmt.Fprintf(&body, "This release contains %d commits.\n\nShasums (GPG signed): https://nodejs.org/dist/v%s/SHASUMS256.txt.asc\n\n%s, for the Node.js Release Working Group\n\n-- \nYou received this message because you are subscribed to the Google Groups \"nodejs-announce\" group.\nTo unsubscribe from this group and stop receiving emails from it, send an email to nodejs-announce+unsubscribe@googlegroups.com.\nTo view this discussion on the web visit https://groups.google.com/d/msgid/nodejs-announce/%s.\n", len(rel.Commits), rel.Version, name, msgid)
		m := dMail{From: fmt.Sprintf("%s <%s@nodejs.org>", name, dMailAddr(name)), To: "nodejs-announce <nodejs-announce@googlegroups.com>",
			Subject: fmt.Sprintf("[ANN] Node.js v%s%s released", rel.Version, line), Date: d,
			ID: msgid, List: "nodejs-announce@googlegroups.com", Body: body.String()}
		mails = append(mails, m.dString())
	}
	if depth <= 0 {
		return strings.Join(mails, "\n"), nil
	}
	return dFit(depth, len(mails)/3, len(mails), dAtBlankBefore("From "), func(n int) string { return strings.Join(mails[:n], "\n") })
}

// dCommitMails are GitHub-style commit notification mails.
func dCommitMails(id string, depth float64, limit int, globs ...string) (string, error) {
	cs, err := dNodeCommits(globs...)
	if err != nil {
		return "", err
	}
	r := seeded(id)
	if len(cs) > limit {
		cs = cs[:limit]
	}
	var mails []string
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		d, err := time.Parse("2006-01-02", c.Date)
		if err != nil {
			continue
		}
		d = d.Add(-time.Duration(r.IntN(20*86400)) * time.Second)
		area := c.Area
		if area != "" {
			area += ": "
		}
		files := r.IntN(6) + 1
		body := fmt.Sprintf("  Branch: refs/heads/v%s.x-staging\n  Home:   https://github.com/nodejs/node\n  Commit: %s%s\n      https://github.com/nodejs/node/commit/%s%s\n  Author: %s <%s@users.noreply.github.com>\n  Date:   %s\n\n  Changed paths:\n",
			strings.Split(c.Version, ".")[0], c.Hash, dHex(r, 30), c.Hash, dHex(r, 30), c.Author, dMailAddr(c.Author), d.Format("2006-01-02 (Mon, 02 Jan 2006)"))
		for j := 0; j < files; j++ {
			body += fmt.Sprintf("    M %s\n", dPick(r, []string{"lib/internal/" + strings.TrimSuffix(area, ": ") + ".js", "test/parallel/test-" + strings.ReplaceAll(strings.TrimSuffix(area, ": "), ",", "-") + "-" + strconv.Itoa(j) + ".js", "doc/api/" + strings.TrimSuffix(area, ": ") + ".md", "src/node_" + strings.TrimSuffix(area, ": ") + ".cc"}))
		}
		body += fmt.Sprintf("\n  Log Message:\n  -----------\n  %s%s\n\n  PR-URL: https://github.com/nodejs/node/pull/%s\n  Reviewed-By: %s\n\n\nTo unsubscribe from these emails, change your notification settings at https://github.com/nodejs/node/settings/notifications\n",
			area, c.Subject, c.PR, dPick(r, []string{"James M Snell <jasnell@gmail.com>", "Antoine du Hamel <duhamelantoine1995@gmail.com>", "Luigi Pinca <luigipinca@gmail.com>", "Colin Ihrig <cjihrig@gmail.com>", "Michaël Zasso <targos@protonmail.com>", "Rich Trott <rtrott@gmail.com>"}))
		m := dMail{From: fmt.Sprintf("%s <noreply@github.com>", c.Author), To: "node-commits <commits@nodejs.example.org>",
			Subject: fmt.Sprintf("[nodejs/node] %s: %s%s", c.Hash, area, c.Subject), Date: d.Add(time.Duration(r.IntN(600)) * time.Second),
			ID: fmt.Sprintf("nodejs/node/push/refs/heads/v%s.x-staging/%s@github.com", strings.Split(c.Version, ".")[0], c.Hash), Body: body}
		mails = append(mails, m.dString())
	}
	return dFit(depth, len(mails)/3, len(mails), dAtBlankBefore("From "), func(n int) string { return strings.Join(mails[:n], "\n") })
}

// dCAReport is a paged inventory of the Mozilla CA bundle.
func dCAReport() (string, error) {
	cs, err := dCerts()
	if err != nil {
		return "", err
	}
	spec := dReportSpec{Org: "INFOSEC / PKI OPERATIONS", Title: "TRUSTED ROOT CERTIFICATE INVENTORY", Code: "PKI-007", RunDate: "2024-03-11 06:00",
		Cols: []string{"CERTIFICATE (SUBJECT CN)", "ORGANIZATION", "C", "KEY", "NOT BEFORE", "NOT AFTER", "SHA-256 (FIRST 16)"}, Widths: []int{44, 30, 2, 10, 10, 10, 16}, PerPage: 50,
		Footer: []string{"SOURCE: /usr/share/ca-certificates/mozilla (ca-certificates 20230311)"}}
	var rows [][]string
	for _, c := range cs {
		rows = append(rows, []string{c.CN, c.Org, c.Country, c.Key, dDate(c.NotBefore), dDate(c.NotAfter), c.SHA256[:16]})
	}
	return spec.dRender(rows), nil
}

// dColorReport is a paged listing of the X11 colour names.
func dColorReport() (string, error) {
	cs, err := dColors()
	if err != nil {
		return "", err
	}
	spec := dReportSpec{Org: "DESIGN SYSTEMS", Title: "X11 NAMED COLOUR REFERENCE", Code: "DS-031", RunDate: "2024-02-28 16:12",
		Cols: []string{"NAME", "RED", "GREEN", "BLUE", "HEX"}, Widths: []int{24, -5, -5, -5, 7}, PerPage: 64, Footer: []string{"SOURCE: /usr/share/X11/rgb.txt"}}
	var rows [][]string
	for _, c := range cs {
		rows = append(rows, []string{c.Name, strconv.Itoa(c.R), strconv.Itoa(c.G), strconv.Itoa(c.B), fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)})
	}
	return spec.dRender(rows), nil
}

// dDatumReport is GDAL's datum and ellipsoid tables as a printed report.
func dDatumReport() (string, error) {
	ell, err := dCSV("/usr/share/gdal/gt_ellips.csv")
	if err != nil {
		return "", err
	}
	dat, err := dCSV("/usr/share/gdal/gt_datum.csv")
	if err != nil {
		return "", err
	}
	s1 := dReportSpec{Org: "GEODETIC CONTROL SECTION", Title: "REFERENCE ELLIPSOIDS", Code: "GEO-01", RunDate: "2024-01-15 09:30",
		Cols: []string{"ELLIPSOID", "CODE", "SEMI-MAJOR A (M)", "SEMI-MINOR B (M)", "INV. FLATTENING"}, Widths: []int{30, 4, -16, -16, -15}, PerPage: 60}
	var rows [][]string
	for _, e := range ell[1:] {
		if len(e) >= 5 {
			rows = append(rows, e[:5])
		}
	}
	s2 := dReportSpec{Org: "GEODETIC CONTROL SECTION", Title: "DATUM SHIFTS TO WGS 84", Code: "GEO-02", RunDate: "2024-01-15 09:30",
		Cols: []string{"CODE", "DATUM", "ELL", "DX", "DY", "DZ", "LAT S", "LAT N", "LON W", "LON E"}, Widths: []int{6, 36, 3, -5, -5, -5, -5, -5, -5, -5}, PerPage: 60}
	var rows2 [][]string
	for _, d := range dat[1:] {
		if len(d) >= 13 {
			rows2 = append(rows2, []string{d[0], d[1], d[2], d[3], d[5], d[7], d[10], d[9], d[11], d[12]})
		}
	}
	return s1.dRender(rows) + "\f\n" + s2.dRender(rows2), nil
}

// dFontReport is an inventory of the font files under /usr/share/fonts.
func dFontReport(depth float64) (string, error) {
	var rows [][]string
	err := filepath.Walk("/usr/share/fonts", func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(p))
		format := map[string]string{".ttf": "TrueType", ".otf": "OpenType", ".pfb": "Type 1", ".afm": "AFM", ".pcf": "PCF", ".gz": "PCF (gz)", ".t1": "Type 1", ".ttc": "TT Coll"}[ext]
		if format == "" {
			return nil
		}
		rows = append(rows, []string{filepath.Base(p), format, dThousands(fi.Size()), filepath.Dir(p), fi.ModTime().UTC().Format("2006-01-02")})
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(rows) < 20 {
		return "", fmt.Errorf("too few fonts")
	}
	spec := dReportSpec{Org: "DESKTOP ENGINEERING", Title: "FONT FILE INVENTORY (BUILD HOST IMG-12)", Code: "DT-220", RunDate: "2024-03-04 11:02",
		Cols: []string{"FILE", "FORMAT", "BYTES", "DIRECTORY", "MODIFIED"}, Widths: []int{34, 9, -11, 46, 10}, PerPage: 55,
		Footer: []string{"TOTAL FILES LISTED ABOVE; SIZES IN BYTES"}}
	re := regexp.MustCompile(`^\S.*\s(\d{4}-\d{2}-\d{2})$`)
	return dFit(depth, len(rows)-15, len(rows), dAtRow(re), func(n int) string { return spec.dRender(rows[:n]) })
}

func dThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// dMimeTSV is the shared MIME database as a TSV table.
func dMimeTSV(depth float64) (string, error) {
	types, err := dMime()
	if err != nil {
		return "", err
	}
	var lines []string
	for _, t := range types {
		var globs, parents []string
		for _, g := range t.Globs {
			globs = append(globs, g.Pattern)
		}
		for _, s := range t.SubClass {
			parents = append(parents, s.Type)
		}
		lines = append(lines, strings.Join([]string{t.Type, t.dComment(""), t.dComment("fr"), t.dComment("es"), strings.Join(globs, " "), strings.Join(parents, " "), t.Icon.Name}, "\t"))
	}
	head := "mime_type\tdescription\tdescription_fr\tdescription_es\tglobs\tparents\tgeneric_icon"
	return dFit(depth, len(lines)-40, len(lines), func(doc string, pos int) bool { return pos > 0 }, func(n int) string { return head + "\n" + strings.Join(lines[:n], "\n") + "\n" })
}

// dS57TSV is GDAL's S-57 object class table as TSV.
func dS57TSV() (string, error) {
	recs, err := dCSV("/usr/share/gdal/s57objectclasses.csv")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("code\tobject_class\tacronym\tclass\tprimitives\tattributes_a\n")
	for _, r := range recs[1:] {
		if len(r) < 8 {
			continue
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", r[0], r[1], r[2], r[6], strings.TrimSuffix(r[7], ";"), strings.TrimSuffix(r[3], ";"))
	}
	return b.String(), nil
}

func dOffset(s int) string {
	sign := "+"
	if s < 0 {
		sign, s = "-", -s
	}
	return fmt.Sprintf("%s%02d:%02d", sign, s/3600, s%3600/60)
}

// dTZTSV is PostgreSQL's time zone abbreviations as TSV.
func dTZTSV() (string, error) {
	ts, err := dTZAbbrevs()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("abbrev\tutc_offset\toffset_seconds\tis_dst\tdescription\tzones\tset\n")
	for _, t := range ts {
		fmt.Fprintf(&b, "%s\t%s\t%d\t%t\t%s\t%s\t%s\n", t.Abbrev, dOffset(t.Offset), t.Offset, t.DST, t.Desc, strings.Join(t.Zones, ","), t.Set)
	}
	return b.String(), nil
}

// dCATSV is the CA bundle as TSV.
func dCATSV(depth float64) (string, error) {
	cs, err := dCerts()
	if err != nil {
		return "", err
	}
	var lines []string
	for _, c := range cs {
		lines = append(lines, strings.Join([]string{c.File, c.CN, c.Org, c.Country, c.Serial, c.Key, c.NotBefore.Format(time.RFC3339), c.NotAfter.Format(time.RFC3339), c.SHA256}, "\t"))
	}
	head := "file\tsubject_cn\torganization\tcountry\tserial\tkey\tnot_before\tnot_after\tsha256"
	return dFit(depth, len(lines)-20, len(lines), func(doc string, pos int) bool { return pos > 0 }, func(n int) string { return head + "\n" + strings.Join(lines[:n], "\n") + "\n" })
}

// dCAMyDump is the CA bundle as a mysqldump with extended inserts.
func dCAMyDump() (string, error) {
	cs, err := dCerts()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(dMyDumpHead("pki", "db-pki-01.internal"))
	b.WriteString("--\n-- Table structure for table `trusted_roots`\n--\n\nDROP TABLE IF EXISTS `trusted_roots`;\n/*!40101 SET @saved_cs_client     = @@character_set_client */;\n/*!40101 SET character_set_client = utf8 */;\nCREATE TABLE `trusted_roots` (\n  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n  `bundle_file` varchar(128) NOT NULL,\n  `subject_cn` varchar(255) NOT NULL,\n  `organization` varchar(255) DEFAULT NULL,\n  `country` char(2) DEFAULT NULL,\n  `serial_hex` varchar(64) NOT NULL,\n  `key_type` varchar(16) NOT NULL,\n  `not_before` datetime NOT NULL,\n  `not_after` datetime NOT NULL,\n  `sha1` char(40) NOT NULL,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `uq_sha1` (`sha1`)\n) ENGINE=InnoDB AUTO_INCREMENT=" + strconv.Itoa(len(cs)+1) + " DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;\n/*!40101 SET character_set_client = @saved_cs_client */;\n\n--\n-- Dumping data for table `trusted_roots`\n--\n\nLOCK TABLES `trusted_roots` WRITE;\n/*!40000 ALTER TABLE `trusted_roots` DISABLE KEYS */;\n")
	for i := 0; i < len(cs); i += 40 {
		var vals []string
		for j := i; j < min(i+40, len(cs)); j++ {
			c := cs[j]
			vals = append(vals, fmt.Sprintf("(%d,%s,%s,%s,%s,%s,%s,'%s','%s','%s')", j+1, dMyQuote(c.File), dMyQuote(c.CN), dMyQuote(c.Org), dMyQuote(c.Country), dMyQuote(c.Serial), dMyQuote(c.Key),
				c.NotBefore.Format("2006-01-02 15:04:05"), c.NotAfter.Format("2006-01-02 15:04:05"), c.SHA1))
		}
		b.WriteString("INSERT INTO `trusted_roots` VALUES " + strings.Join(vals, ",") + ";\n")
	}
	b.WriteString("/*!40000 ALTER TABLE `trusted_roots` ENABLE KEYS */;\nUNLOCK TABLES;\n")
	b.WriteString(dMyDumpTail)
	return b.String(), nil
}

// dErrcodeSQLite is PostgreSQL's SQLSTATE list as an sqlite3 .dump.
func dErrcodeSQLite() (string, error) {
	es, err := dErrcodes()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\nCREATE TABLE error_class (\n  class TEXT PRIMARY KEY,\n  title TEXT NOT NULL\n);\n")
	seen := map[string]bool{}
	for _, e := range es {
		cls := e.Code[:2]
		if !seen[cls] {
			seen[cls] = true
			title := e.Class
			if i := strings.Index(title, " - "); i >= 0 {
				title = title[i+3:]
			}
			fmt.Fprintf(&b, "INSERT INTO error_class VALUES(%s,%s);\n", dSQLQuote(cls), dSQLQuote(title))
		}
	}
	b.WriteString("CREATE TABLE sqlstate (\n  code TEXT PRIMARY KEY,\n  severity TEXT CHECK (severity IN ('E','W','S')),\n  macro TEXT NOT NULL,\n  condition_name TEXT,\n  class TEXT REFERENCES error_class(class)\n);\n")
	for _, e := range es {
		name := "NULL"
		if e.Name != "" {
			name = dSQLQuote(e.Name)
		}
		fmt.Fprintf(&b, "INSERT INTO sqlstate VALUES(%s,%s,%s,%s,%s);\n", dSQLQuote(e.Code), dSQLQuote(e.Kind), dSQLQuote(e.Macro), name, dSQLQuote(e.Code[:2]))
	}
	b.WriteString("CREATE INDEX sqlstate_name ON sqlstate(condition_name);\nCOMMIT;\n")
	return b.String(), nil
}

// dDatumPgDump is GDAL's datum table as a pg_dump with COPY.
func dDatumPgDump() (string, error) {
	ell, err := dCSV("/usr/share/gdal/gt_ellips.csv")
	if err != nil {
		return "", err
	}
	dat, err := dCSV("/usr/share/gdal/gt_datum.csv")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(pgDumpHead("15.6"))
	b.WriteString("--\n-- Name: ellipsoid; Type: TABLE; Schema: public; Owner: gis\n--\n\nCREATE TABLE public.ellipsoid (\n    code character(2) NOT NULL,\n    name text NOT NULL,\n    semi_major_m numeric(12,3) NOT NULL,\n    semi_minor_m numeric(12,4) NOT NULL,\n    inv_flattening numeric(13,9) NOT NULL\n);\n\n\nALTER TABLE public.ellipsoid OWNER TO gis;\n\n")
	b.WriteString("--\n-- Name: datum_shift; Type: TABLE; Schema: public; Owner: gis\n--\n\nCREATE TABLE public.datum_shift (\n    code text NOT NULL,\n    name text NOT NULL,\n    ellipsoid character(2) NOT NULL,\n    dx integer NOT NULL,\n    sigma_x integer,\n    dy integer NOT NULL,\n    sigma_y integer,\n    dz integer NOT NULL,\n    sigma_z integer,\n    north integer,\n    south integer,\n    west integer,\n    east integer\n);\n\n\nALTER TABLE public.datum_shift OWNER TO gis;\n\n")
	b.WriteString("--\n-- Data for Name: datum_shift; Type: TABLE DATA; Schema: public; Owner: gis\n--\n\nCOPY public.datum_shift (code, name, ellipsoid, dx, sigma_x, dy, sigma_y, dz, sigma_z, north, south, west, east) FROM stdin;\n")
	for _, d := range dat[1:] {
		if len(d) < 13 {
			continue
		}
		f := make([]string, 13)
		for i := range f {
			f[i] = dCopyEsc(d[i])
			if f[i] == "" {
				f[i] = `\N`
			}
		}
		b.WriteString(strings.Join(f, "\t") + "\n")
	}
	b.WriteString("\\.\n\n\n--\n-- Data for Name: ellipsoid; Type: TABLE DATA; Schema: public; Owner: gis\n--\n\nCOPY public.ellipsoid (code, name, semi_major_m, semi_minor_m, inv_flattening) FROM stdin;\n")
	for _, e := range ell[1:] {
		if len(e) < 5 {
			continue
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", e[1], dCopyEsc(e[0]), e[2], e[3], e[4])
	}
	b.WriteString("\\.\n\n\n--\n-- Name: datum_shift datum_shift_pkey; Type: CONSTRAINT; Schema: public; Owner: gis\n--\n\nALTER TABLE ONLY public.datum_shift\n    ADD CONSTRAINT datum_shift_pkey PRIMARY KEY (code);\n\n\n--\n-- Name: ellipsoid ellipsoid_pkey; Type: CONSTRAINT; Schema: public; Owner: gis\n--\n\nALTER TABLE ONLY public.ellipsoid\n    ADD CONSTRAINT ellipsoid_pkey PRIMARY KEY (code);\n\n\n--\n-- PostgreSQL database dump complete\n--\n\n")
	return b.String(), nil
}

// dMimeMyDump is the MIME database as a mysqldump, one INSERT a row.
func dMimeMyDump(depth float64) (string, error) {
	types, err := dMime()
	if err != nil {
		return "", err
	}
	var lines []string
	for i, t := range types {
		var globs []string
		for _, g := range t.Globs {
			globs = append(globs, g.Pattern)
		}
		lines = append(lines, fmt.Sprintf("INSERT INTO `mime_types` VALUES (%d,%s,%s,%s,%s);", i+1, dMyQuote(t.Type), dMyQuote(t.dComment("")), dMyQuote(t.dComment("de")), dMyQuote(strings.Join(globs, ";"))))
	}
	head := dMyDumpHead("filestore", "db-files-02.internal") + "--\n-- Table structure for table `mime_types`\n--\n\nDROP TABLE IF EXISTS `mime_types`;\nCREATE TABLE `mime_types` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `mime` varchar(127) NOT NULL,\n  `label_en` varchar(255) DEFAULT NULL,\n  `label_de` varchar(255) DEFAULT NULL,\n  `globs` text DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `mime` (`mime`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;\n\n--\n-- Dumping data for table `mime_types`\n--\n\nLOCK TABLES `mime_types` WRITE;\n/*!40000 ALTER TABLE `mime_types` DISABLE KEYS */;\n"
	tail := "/*!40000 ALTER TABLE `mime_types` ENABLE KEYS */;\nUNLOCK TABLES;\n" + dMyDumpTail
	return dFit(depth, len(lines)-40, len(lines), dAtPrefix("INSERT INTO `mime_types`"), func(n int) string { return head + strings.Join(lines[:n], "\n") + "\n" + tail })
}

// dPyenvMails are pyenv release notices as a mailbox.
func dPyenvMails(id string, depth float64) (string, error) {
	rels, err := dPyenvReleases()
	if err != nil {
		return "", err
	}
	r := seeded(id)
	d := time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)
	var mails []string
	for _, rel := range rels {
		var body strings.Builder
		fmt.Fprintf(&body, "pyenv %s has been tagged.\n\nWhat's Changed\n\n", rel.Version)
		for _, it := range rel.Items {
			body.WriteString("* " + it + "\n")
		}
		fmt.Fprintf(&body, "\nFull Changelog: https://github.com/pyenv/pyenv/releases/tag/%s\n\n-- \nYou are receiving this because you are watching pyenv/pyenv.\n", rel.Version)
		m := dMail{From: "pyenv-bot[bot] <notifications@github.com>", To: "pyenv/pyenv <pyenv@noreply.github.com>",
			Subject: fmt.Sprintf("[pyenv/pyenv] Release %s", rel.Version), Date: d, ID: fmt.Sprintf("pyenv/pyenv/releases/%d@github.com", 150000000+r.IntN(50000000)), Body: body.String()}
		mails = append(mails, m.dString())
		d = d.Add(-time.Duration(3*86400+r.IntN(12*86400)) * time.Second)
	}
	var rev []string
	for i := len(mails) - 1; i >= 0; i-- {
		rev = append(rev, mails[i])
	}
	return dFit(depth, len(rev)/2, len(rev), dAtBlankBefore("From "), func(n int) string { return strings.Join(rev[:n], "\n") })
}

// dRustMails are Rust release announcements made from RELEASES.md.
func dRustMails(id string) (string, error) {
	b, err := os.ReadFile("/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/releases.md")
	if err != nil {
		return "", err
	}
	re := regexp.MustCompile(`(?m)^Version (\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2})\)\n=+\n`)
	text := string(b)
	idx := re.FindAllStringSubmatchIndex(text, -1)
	r := seeded(id)
	var mails []string
	for i, m := range idx {
		end := len(text)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		ver, date := text[m[2]:m[3]], text[m[4]:m[5]]
		d, err := time.Parse("2006-01-02", date)
		if err != nil {
			continue
		}
		d = d.Add(time.Duration(15*3600+r.IntN(3*3600)) * time.Second)
		notes := regexp.MustCompile(`(?m)^<a id="[^"]*"></a>\n`).ReplaceAllString(text[m[1]:end], "")
		body := fmt.Sprintf("The Rust team is happy to announce a new version of Rust, %s.\n\nIf you have a previous version of Rust installed via rustup, you can get %s with:\n\n    rustup update stable\n\nDetailed release notes follow.\n\n%s\n-- \nThe Rust Release Team\n", ver, ver, strings.TrimSpace(notes))
		mail := dMail{From: "The Rust Release Team <release@rust-lang.org>", To: "rust-announce <rust-announce@lists.rust-lang.org>",
			Subject: "Announcing Rust " + ver, Date: d, ID: fmt.Sprintf("rust-%s.%s@rust-lang.org", ver, dHex(r, 12)), List: "rust-announce@lists.rust-lang.org", Body: body}
		mails = append(mails, mail.dString())
	}
	if len(mails) == 0 {
		return "", fmt.Errorf("no Rust releases")
	}
	var rev []string
	for i := len(mails) - 1; i >= 0; i-- {
		rev = append(rev, mails[i])
	}
	return strings.Join(rev, "\n"), nil
}

// dGitConfig is a maintainer's .git/config of a pyenv clone, with a
// remote for every contributor the changelog thanks.
func dGitConfig(depth float64) (string, error) {
	rels, err := dPyenvReleases()
	if err != nil {
		return "", err
	}
	re := regexp.MustCompile(`by @([A-Za-z0-9][A-Za-z0-9-]*)`)
	var secs []string
	seen := map[string]bool{}
	for i := len(rels) - 1; i >= 0; i-- {
		for _, it := range rels[i].Items {
			for _, m := range re.FindAllStringSubmatch(it, -1) {
				h := m[1]
				if seen[h] || h == "native-api" {
					continue
				}
				seen[h] = true
				secs = append(secs, fmt.Sprintf("[remote \"%s\"]\n\turl = https://github.com/%s/pyenv.git\n\tfetch = +refs/heads/*:refs/remotes/%s/*\n\ttagOpt = --no-tags", h, h, h))
			}
		}
	}
	if len(secs) < 30 {
		return "", fmt.Errorf("too few contributors")
	}
	head := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = git@github.com:native-api/pyenv.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[remote \"upstream\"]\n\turl = https://github.com/pyenv/pyenv.git\n\tfetch = +refs/heads/*:refs/remotes/upstream/*\n\tpushurl = DISABLED\n[branch \"master\"]\n\tremote = upstream\n\tmerge = refs/heads/master\n[pull]\n\tff = only\n[rerere]\n\tenabled = true\n"
	return dFit(depth, len(secs)*2/3, len(secs), dAtPrefix("[remote"), func(n int) string { return head + strings.Join(secs[:n], "\n") + "\n" })
}

// ---------------------------------------------------------------------
// Generated logs with their fixed events.

var dT0 = time.Date(2024, 3, 11, 0, 0, 3, 0, time.UTC)

func dJournalBig() (string, error) {
	return dJournal("d-journal-1", "db-prod-02", dT0, 4_200_000, false, 0.62, nil)
}

func dJournalExport() (string, error) {
	sync := dJEvent{transport: "journal", ident: "systemd-timesyncd", comm: "systemd-timesyn", exe: "/usr/lib/systemd/systemd-timesyncd", cmdline: "/lib/systemd/systemd-timesyncd",
		unit: "systemd-timesyncd.service", pid: 402, uid: 997, gid: 997, prio: 6, facility: 3, msg: "Initial clock synchronization to Mon 2024-03-11 00:00:41.118305 UTC.",
		extra: [][2]string{{"CODE_FILE", "src/timesync/timesyncd-manager.c"}, {"CODE_LINE", "545"}, {"CODE_FUNC", "manager_adjust_clock"}}}
	contact := dJEvent{transport: "journal", ident: "systemd-timesyncd", comm: "systemd-timesyn", exe: "/usr/lib/systemd/systemd-timesyncd", cmdline: "/lib/systemd/systemd-timesyncd",
		unit: "systemd-timesyncd.service", pid: 402, uid: 997, gid: 997, prio: 6, facility: 3, msg: "Contacted time server 169.254.169.123:123 (169.254.169.123).",
		extra: [][2]string{{"CODE_FILE", "src/timesync/timesyncd-manager.c"}, {"CODE_LINE", "1047"}, {"CODE_FUNC", "manager_begin"}}}
	kernel := dJEvent{transport: "kernel", ident: "kernel", prio: 5, facility: 0,
		msg: "Linux version 6.1.0-18-cloud-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)"}
	return dJournal("d-journal-2", "web-eu-04", dT0, 1_100_000, true, 0, map[float64]dJEvent{0: kernel, 0.0005: contact, 0.001: sync})
}

func dJournalSmall() (string, error) {
	return dJournal("d-journal-3", "ci-runner-07", dT0.Add(26*time.Hour), 180_000, false, 0, nil)
}

func dJournalFiles() (string, error) {
	return dJournal("d-journal-4", "bastion-01", dT0.Add(50*time.Hour), 2_300_000, true, 0.38, nil)
}

func dJournalInline() (string, error) {
	return dJournal("d-journal-5", "build-03", dT0.Add(75*time.Hour), 70_000, false, 0.55, nil)
}

func dNginxBig() (string, error) {
	return dNginxLog("d-weblog-1", "docs.example.net", time.Date(2024, 3, 4, 0, 0, 1, 0, time.UTC), 3_600_000, 11071, nil), nil
}

// dApacheStamp is an Apache error log time stamp.
func dApacheStamp(t time.Time) string { return t.Format("Mon Jan 02 15:04:05.000000 2006") }

func dApacheFact() (string, error) {
	t := time.Date(2024, 3, 10, 0, 0, 2, 411812, time.UTC)
	fixed := map[float64]func(time.Time) string{
		0.4140: func(t time.Time) string {
			return "[" + dApacheStamp(t) + "] [mpm_event:notice] [pid 812:tid 140199216711552] AH00491: caught SIGTERM, shutting down"
		},
		0.4141: func(t time.Time) string {
			return "[" + dApacheStamp(t) + "] [ssl:warn] [pid 31337:tid 140589306820480] AH01909: docs.example.net:443:0 server certificate does NOT include an ID which matches the server name"
		},
		0.4142: func(t time.Time) string {
			return "[" + dApacheStamp(t) + "] [mpm_event:notice] [pid 31338:tid 140589306820480] AH00489: Apache/2.4.59 (Debian) OpenSSL/3.0.11 configured -- resuming normal operations"
		},
		0.4143: func(t time.Time) string {
			return "[" + dApacheStamp(t) + "] [core:notice] [pid 31338:tid 140589306820480] AH00094: Command line: '/usr/sbin/apache2'"
		},
	}
	return dApacheLog("d-weblog-2", t, 420_000, fixed, 31338), nil
}

func dLighttpdAbsent() (string, error) {
	return dLighttpdLog("d-weblog-3", time.Date(2024, 3, 6, 6, 25, 1, 0, time.UTC), 300_000), nil
}

func dCaddyNeedle() (string, error) {
	return dCaddyLog("d-weblog-4", time.Date(2024, 3, 14, 8, 0, 0, 0, time.UTC), 75_000), nil
}

func dNginxFact() (string, error) {
	fixed := map[float64]func(time.Time) string{
		0.73: func(t time.Time) string {
			return t.Format("2006/01/02 15:04:05") + " [alert] 6391#6391: worker process 6394 exited on signal 11 (core dumped)"
		},
	}
	return dNginxLog("d-weblog-5", "status.example.net", time.Date(2024, 3, 7, 0, 0, 4, 0, time.UTC), 520_000, 6392, fixed), nil
}

// ---------------------------------------------------------------------
// Needles.

const dNeedleCluster = `When a worker does not acknowledge the 'disconnect' message within 2500 milliseconds, the primary sends it SIGKILL. The grace period can be changed with the NODE_CLUSTER_DISCONNECT_GRACE_MS environment variable.`

const dNeedlePrune = `name: Prune caches
on:
  schedule:
    - cron: "17 3 * * *"
  workflow_dispatch:

permissions:
  actions: write

jobs:
  prune:
    runs-on: ubuntu-latest
    timeout-minutes: 25
    steps:
      - uses: actions/checkout@v4
      - name: Delete caches not used for a week
        env:
          GH_TOKEN: ${{ github.token }}
        run: |
          gh cache list --limit 500 --json id,lastAccessedAt \
            --jq '.[] | select(.lastAccessedAt < (now - 604800 | todate)) | .id' \
            | xargs -r -n1 gh cache delete
`

const dNeedleCommitYAML = `      - sha: 5c1e0f7a3d
        area: "dns"
        subject: "honour ndots from resolv.conf in the c-ares resolver"
        author: "Mirela Ștefănescu"
        pr: 21102`

const dNeedleICU = `/*
 * Debian packaging note: this build ships the trimmed data archive
 * icudt72l-trim.dat (26 locales, about 14.7 MB) instead of the full
 * icudt72l.dat; see debian/patches/trim-data.patch and README.Debian.
 */`

const dNeedleCompletion = `# pgbackrest-wrap(8) completion                          -*- shell-script -*-

_comp_cmd_pgbackrest_wrap()
{
    local cur prev words cword
    _init_completion || return

    case $prev in
        --stanza)
            COMPREPLY=($(compgen -W "$(command sed -ne 's/^\[\(.*\)\]$/\1/p' /etc/pgbackrest/pgbackrest-eu.conf 2>/dev/null)" -- "$cur"))
            return
            ;;
        --type)
            COMPREPLY=($(compgen -W 'full diff incr' -- "$cur"))
            return
            ;;
    esac

    COMPREPLY=($(compgen -W '--stanza --type --dry-run --help' -- "$cur"))
} &&
    complete -F _comp_cmd_pgbackrest_wrap pgbackrest-wrap

# ex: filetype=sh
`

const dNeedleFontScript = `#!/bin/sh
# refresh-font-cache - run nightly from /etc/cron.d/fonts by the desktop team
set -e

FC_CACHE_MAX_AGE_DAYS=21
STAMP=/var/cache/fontconfig/.last-refresh

if [ -f "$STAMP" ] && [ -z "$(find "$STAMP" -mtime +$FC_CACHE_MAX_AGE_DAYS)" ]; then
    exit 0
fi
fc-cache --system-only --really-force
touch "$STAMP"
`

const dNeedleChangelog = "* \\[[`c41e7f02ab`](https://github.com/nodejs/node/commit/c41e7f02ab)] - **tools**: update gyp-next to v0.6.9 (Ayşe Karaca) [#41188](https://github.com/nodejs/node/pull/41188)"

const dNeedleOtel = "- Cap the retry backoff of `go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp` at a maximum interval of 45 seconds, down from one minute. (#7391)"

const dNeedleTablet = `# Acme
# Inkpad Pro 13
# AIP-1300
#
# Pen active area: 11.6 x 6.5in

[Device]
Name=Acme Inkpad Pro 13
ModelName=AIP-1300
DeviceMatch=usb:2d1f:0a4c
Class=Cintiq
Width=12
Height=7
IntegratedIn=Display
Styli=@generic-with-eraser;

[Features]
Stylus=true
Touch=false
`

var (
	dNeedleBackup = dJNeedle("d-journal-1", "db-prod-02", false, time.Date(2024, 3, 11, 21, 8, 31, 402117000, time.UTC), 0x1479, 0x11d461ec71+12822559,
		dJEvent{transport: "stdout", ident: "pgbackrest", comm: "pgbackrest", exe: "/usr/bin/pgbackrest", cmdline: "pgbackrest --stanza=main --repo=2 --type=full backup",
			unit: "pg-backup-offsite.service", pid: 48817, uid: 114, gid: 121, prio: 6, facility: 3,
			msg: "P00   INFO: backup command end: completed successfully (877412ms); repo2: 14.2GiB written to s3://acme-pg-backups/prod/main"})
	dNeedleSSH = dJNeedle("d-journal-4", "bastion-01", true, time.UnixMicro(1710321603117450).UTC(), 0x4fd4, 26503932550,
		dJEvent{transport: "syslog", ident: "sshd", comm: "sshd", exe: "/usr/sbin/sshd", cmdline: "sshd: ops-oncall [priv]", unit: "ssh.service", pid: 41266, prio: 6, facility: 4,
			msg: "Accepted publickey for ops-oncall from 192.0.2.144 port 50022 ssh2: ED25519 SHA256:q8Zt0rVqf3m1Wb6yJ4nKcXe2LpA9sDgH7uT5iO1vRw0"})
	dNeedleOOM = dJNeedle("d-journal-5", "build-03", false, time.Date(2024, 3, 14, 3, 18, 21, 604318000, time.UTC), 0x7b69, 0x779551e0+8423589,
		dJEvent{transport: "kernel", ident: "kernel", prio: 3, facility: 0,
			msg: "Out of memory: Killed process 28841 (java) total-vm:9135412kB, anon-rss:6291456kB, file-rss:0kB, shmem-rss:0kB, UID:998 pgtables:13020kB oom_score_adj:0"})
)

const dNeedleCommitMail = `
From noreply@github.com Thu Nov 10 17:12:09 2022
Return-Path: <noreply@github.com>
Received: from mail-out.example.net (mail-out.example.net [192.0.2.25])
	by mx1.example.com (Postfix) with ESMTPS id 3F2A9C41D7
	for <commits@nodejs.example.org>; Thu, 10 Nov 2022 17:12:12 +0000
From: Kemal Yıldırım <noreply@github.com>
To: node-commits <commits@nodejs.example.org>
Subject: [nodejs/node] 9b3c5e1a72: inspector: cap websocket frame size at 16 MiB
Date: Thu, 10 Nov 2022 17:12:09 +0000
Message-ID: <nodejs/node/push/refs/heads/v19.x-staging/9b3c5e1a72@github.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

  Branch: refs/heads/v19.x-staging
  Home:   https://github.com/nodejs/node
  Commit: 9b3c5e1a72d04e6f18c2b7a93e5d0f41c6a8b217
      https://github.com/nodejs/node/commit/9b3c5e1a72d04e6f18c2b7a93e5d0f41c6a8b217
  Author: Kemal Yıldırım <kemal.yildirim@users.noreply.github.com>
  Date:   2022-11-10 (Thu, 10 Nov 2022)

  Changed paths:
    M src/inspector_socket.cc
    M test/cctest/test_inspector_socket.cc

  Log Message:
  -----------
  inspector: cap websocket frame size at 16 MiB

  Frames announcing a larger payload are now rejected with close code
  1009 before any of the payload is buffered.

  PR-URL: https://github.com/nodejs/node/pull/45391
  Reviewed-By: Colin Ihrig <cjihrig@gmail.com>


To unsubscribe from these emails, change your notification settings at https://github.com/nodejs/node/settings/notifications`

const dNeedlePyenvMail = `
From renata.lindqvist@example.se Mon Oct 30 07:14:52 2023
Return-Path: <renata.lindqvist@example.se>
Received: from mail-out.example.net (mail-out.example.net [192.0.2.25])
	by mx1.example.com (Postfix) with ESMTPS id 7A1C0E93B2
	for <pyenv@noreply.github.com>; Mon, 30 Oct 2023 07:14:55 +0000
From: Renata Lindqvist <renata.lindqvist@example.se>
To: pyenv/pyenv <pyenv@noreply.github.com>
Subject: Re: [pyenv/pyenv] Release 2.2.2
Date: Mon, 30 Oct 2023 07:14:52 +0000
Message-ID: <CAK9r2sq0dP1x@mail.example.se>
In-Reply-To: <pyenv/pyenv/releases/188119698@github.com>
References: <pyenv/pyenv/releases/188119698@github.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Thanks for the quick turnaround. I rebuilt 3.12.0 on Alpine 3.18
(musl 1.2.4) with this release and the ctypes failure is gone; no need
for the CFLAGS workaround any more.

Renata`

const dNeedleReplyMail = `
From ingrid.solberg@example.no Wed Apr 29 08:52:19 2020
Return-Path: <ingrid.solberg@example.no>
Received: from mail-out.example.net (mail-out.example.net [192.0.2.25])
	by mx1.example.com (Postfix) with ESMTPS id 51B7E2C0A4
	for <nodejs-announce@googlegroups.com>; Wed, 29 Apr 2020 08:52:22 +0000
From: Ingrid Solberg <ingrid.solberg@example.no>
To: nodejs-announce <nodejs-announce@googlegroups.com>
Subject: Re: [ANN] Node.js v12.16.3 'Erbium' (LTS) released
Date: Wed, 29 Apr 2020 08:52:19 +0000
Message-ID: <d41c9e07b2aa.reply@example.no>
In-Reply-To: <68eb80d6b49f7559.12-16-3@nodejs.org>
References: <68eb80d6b49f7559.12-16-3@nodejs.org>
List-Id: <nodejs-announce.googlegroups.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Thanks to everyone involved. We rolled 12.16.3 out to our API gateway
fleet yesterday; p99 latency went from 41 ms to 29 ms, and memory use
is flat.

Ingrid Solberg
Platform team, Example AS`

var freshD = []devCase{
	// html
	{ID: "d-html-1", Kind: "html", Form: "fact", Files: []string{"/usr/share/doc/libxslt1-dev/html/[a-z]*.html"},
		Question: "According to the libxslt news page, when was version 1.1.28 released?",
		Answers:  []string{"Nov 21 2012", "November 21, 2012", "21 November 2012", "2012-11-21", "Nov 21, 2012", "November 21 2012"}},
	{ID: "d-html-2", Kind: "html", Form: "fact", Deliver: "files",
		Files:    []string{"/usr/share/doc/libxslt1-dev/html/xsltproc.html", "/usr/share/doc/libxslt1-dev/html/FAQ.html", "/usr/share/doc/libxslt1-dev/html/internals.html"},
		Question: "If xsltproc can't write its result to the output file, which exit status does it return?",
		Answers:  []string{"11"}},
	{ID: "d-html-3", Kind: "html", Form: "prose", Files: []string{"/usr/share/doc/nodejs/api/addons.html", "/usr/share/doc/nodejs/api/assert.html", "/usr/share/doc/nodejs/api/async_*.html", "/usr/share/doc/nodejs/api/[b-d]*.html"},
		Needle: "\n" + dNeedleCluster, Depth: 0.51563379,
		Question: "How long does the cluster primary give a worker to acknowledge a disconnect before it kills it?",
		Answers:  []string{"2500 milliseconds", "2500 ms", "2500", "2.5 seconds", "2.5 s", "2500ms"}},
	{ID: "d-html-4", Kind: "html", Form: "absent", Files: []string{"/usr/share/doc/libffi8/html/*.html"},
		Question: "What is the maximum number of arguments a libffi call interface can take?"},
	{ID: "d-html-5", Kind: "html", Form: "fact", Deliver: "inline-after", Files: []string{"/usr/share/doc/libexpat1-dev/expat.html/reference.html"},
		Question: "By default, how much output does Expat have to produce before its billion laughs protection kicks in?",
		Answers:  []string{"8 MiB", "8MiB", "8 MB", "8388608 bytes", "8388608", "8 mebibytes"}},
	{ID: "d-html-6", Kind: "html", Form: "fact", Deliver: "inline", Files: []string{"/usr/share/doc/shared-mime-info/shared-mime-info-spec.html/*.html"},
		Question: "Can you find when this version of the shared MIME-info spec was last updated?",
		Answers:  []string{"2 October 2018", "October 2, 2018", "2018-10-02", "October 2 2018", "2 Oct 2018"}},

	// yaml
	{ID: "d-yaml-1", Kind: "yaml", Form: "fact", Make: dMimeYAML,
		Question: "In this MIME catalogue, what's the Latvian label for 7-zip archives?",
		Answers:  []string{"7-zip arhīvs"}},
	{ID: "d-yaml-2", Kind: "yaml", Form: "fact", Files: []string{"/root/.pyenv/.github/workflows/*.yml"},
		Question: "On what cron schedule does the workflow that adds new Python versions run?",
		Answers:  []string{"25 */4 * * *"}},
	{ID: "d-yaml-3", Kind: "yaml", Form: "fact", Deliver: "files", Files: []string{"/root/go/pkg/mod/go.opentelemetry.io/otel@v1.47.0/.github/workflows/*.y*ml"},
		Question: "Which commit SHA is the CodSpeed action pinned to in the benchmark workflow?",
		Answers:  []string{"373d6868929f444bc08d901fd0eb0ad52a8875ea"}},
	{ID: "d-yaml-4", Kind: "yaml", Form: "yaml",
		Files:  []string{"/root/go/pkg/mod/github.com/redis/go-redis/v9@v9.23.0/.github/workflows/*.y*ml", "/root/go/pkg/mod/github.com/prometheus/client_golang@v1.25.0/.github/workflows/*.yml"},
		Needle: "\n" + dNeedlePrune, Depth: 0.2997,
		Question: "How many minutes is the nightly cache-pruning job allowed to run?",
		Answers:  []string{"25", "25 minutes"}},
	{ID: "d-yaml-5", Kind: "yaml", Form: "yaml", Make: func() (string, error) {
		return dCommitYAML(0.57, dNodeCL+"CHANGELOG_V[4-9].md", dNodeCL+"CHANGELOG_V1[0-5].md")
	}, Needle: dNeedleCommitYAML, Depth: 0.57,
		Question: "Who wrote the change that makes the c-ares resolver honour ndots from resolv.conf?",
		Answers:  []string{"Mirela Ștefănescu", "Mirela Stefanescu"}},

	// conf
	{ID: "d-conf-1", Kind: "conf", Form: "fact", Files: []string{"/etc/login.defs", "/etc/ssh/ssh_config", "/etc/wgetrc"},
		Question: "How many seconds does login allow before it times out?",
		Answers:  []string{"60", "60 seconds", "60 s", "one minute"}},
	{ID: "d-conf-2", Kind: "conf", Form: "fact", Deliver: "inline", Files: []string{"/etc/postgresql/15/main/postgresql.conf"},
		Question: "Where does this PostgreSQL server write its extra PID file?",
		Answers:  []string{"/var/run/postgresql/15-main.pid"}},
	{ID: "d-conf-3", Kind: "conf", Form: "config", Files: []string{"/usr/share/postgresql/15/postgresql.conf.sample", "/usr/share/postgresql/15/pg_hba.conf.sample"},
		Needle: "hostssl billing         billing_app     10.42.7.0/24            scram-sha-256", Depth: 0.985,
		Question: "From which subnet is the billing_app role allowed to reach the billing database?",
		Answers:  []string{"10.42.7.0/24"}},
	{ID: "d-conf-4", Kind: "conf", Form: "absent",
		Files: []string{"/usr/share/doc/procps/examples/sysctl.conf", "/usr/share/doc/libcups2/examples/client.conf", "/usr/share/doc/gnupg/examples/gpgconf.conf",
			"/usr/share/doc/man-db/examples/manpath.config", "/usr/share/doc/adduser/examples/adduser.conf", "/etc/wgetrc"},
		Question: "What value is vm.swappiness set to?"},
	{ID: "d-conf-5", Kind: "conf", Form: "config", Files: []string{"/etc/manpath.config", "/etc/gprofng.rc", "/usr/share/doc/libreadline8/examples/Inputrc"},
		Needle: "MANDB_MAP\t/opt/acme/share/man\t\t/var/cache/man/acme", Depth: 0.26,
		Question: "Where are the cat pages for manuals under /opt/acme/share/man cached?",
		Answers:  []string{"/var/cache/man/acme"}},

	// header
	{ID: "d-header-1", Kind: "header", Form: "fact", Files: []string{"/usr/include/zlib.h", "/usr/include/zconf.h"},
		Question: "Tell me which zlib version this header is for.",
		Answers:  []string{"1.2.13"}},
	{ID: "d-header-2", Kind: "header", Form: "comment", Files: []string{"/usr/include/unicode/*.h"}, Size: 4_500_000,
		Needle: "\n" + dNeedleICU, Depth: 0.52277877,
		Question: "What's the file name of the trimmed ICU data archive this build ships?",
		Answers:  []string{"icudt72l-trim.dat"}},
	{ID: "d-header-3", Kind: "header", Form: "fact", Files: []string{"/usr/include/png.h", "/usr/include/pngconf.h", "/usr/include/pnglibconf.h"},
		Question: "By default, what's the most memory libpng will allocate for a single ancillary chunk?",
		Answers:  []string{"8000000", "8000000 bytes", "8 MB", "8,000,000 bytes", "8,000,000"}},
	{ID: "d-header-4", Kind: "header", Form: "absent", Files: []string{"/usr/include/gcrypt.h"},
		Question: "What default iteration count does libgcrypt use for PBKDF2 key derivation?"},
	{ID: "d-header-5", Kind: "header", Form: "fact", Deliver: "inline-after", Files: []string{"/usr/include/lzma/*.h"},
		Question: "Which numeric ID identifies the LZMA2 filter?",
		Answers:  []string{"0x21", "LZMA_VLI_C(0x21)", "33"}},

	// shell
	{ID: "d-shell-1", Kind: "shell", Form: "fact", Files: []string{"/usr/sbin/make-ssl-cert", "/usr/sbin/update-ca-certificates"},
		Question: "Unless you override it, how many days is the snakeoil certificate valid for?",
		Answers:  []string{"3650", "3650 days", "10 years"}},
	{ID: "d-shell-2", Kind: "shell", Form: "fact", Deliver: "inline", Files: []string{"/usr/sbin/invoke-rc.d", "/usr/sbin/service"},
		Question: "What version of the service script is this?",
		Answers:  []string{"1.65.2", "ver. 1.65.2"}},
	{ID: "d-shell-3", Kind: "shell", Form: "shell", Files: []string{
		"/usr/share/bash-completion/completions/add-apt-repository", "/usr/share/bash-completion/completions/clang-19",
		"/usr/share/bash-completion/completions/debconf", "/usr/share/bash-completion/completions/devlink",
		"/usr/share/bash-completion/completions/gapplication", "/usr/share/bash-completion/completions/gdbus",
		"/usr/share/bash-completion/completions/gio", "/usr/share/bash-completion/completions/gresource",
		"/usr/share/bash-completion/completions/gsettings", "/usr/share/bash-completion/completions/mvn",
		"/usr/share/bash-completion/completions/osslsigncode.bash", "/usr/share/bash-completion/completions/pkcon",
		"/usr/share/bash-completion/completions/pygmentize", "/usr/share/bash-completion/completions/redis-cli",
		"/usr/share/bash-completion/completions/tc", "/usr/share/bash-completion/completions/update-java-alternatives"},
		Needle: "\n" + dNeedleCompletion, Depth: 0.33483919,
		Question: "Which config file does the pgbackrest-wrap completion read stanza names from?",
		Answers:  []string{"/etc/pgbackrest/pgbackrest-eu.conf"}},
	{ID: "d-shell-4", Kind: "shell", Form: "absent", Files: []string{"/usr/share/postgresql-common/init.d-functions", "/usr/share/postgresql-common/maintscripts-functions",
		"/usr/share/postgresql-common/pg_getwal", "/usr/share/postgresql-common/pg_updateaptconfig", "/usr/share/postgresql-common/supported-versions", "/usr/share/postgresql-common/testsuite"},
		Question: "Which TCP port do these scripts start the default cluster on?"},
	{ID: "d-shell-5", Kind: "shell", Form: "shell", Deliver: "files", Files: []string{"/usr/sbin/update-fonts-alias", "/usr/sbin/update-fonts-dir", "/usr/sbin/update-fonts-scale",
		"/usr/sbin/addgnupghome", "/usr/sbin/applygnupgdefaults", "/usr/sbin/locale-gen", "/usr/sbin/shadowconfig", "/usr/sbin/update-java-alternatives"},
		Needle: "\n" + dNeedleFontScript, Depth: 0.57024633,
		Question: "After how many days does the nightly font refresh script treat the cache as stale?",
		Answers:  []string{"21", "21 days"}},

	// mdlist
	{ID: "d-mdlist-1", Kind: "mdlist", Form: "list", Files: []string{dNodeCL + "CHANGELOG_V1[0-5].md"},
		Needle: dNeedleChangelog, Depth: 0.36,
		Question: "Who updated gyp-next to v0.6.9?",
		Answers:  []string{"Ayşe Karaca", "Ayse Karaca"}},
	{ID: "d-mdlist-2", Kind: "mdlist", Form: "fact", Files: []string{"/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/releases.md"},
		Question: "In which Rust release was loongarch64-unknown-linux-gnu first added as a tier 3 target?",
		Answers:  []string{"1.70.0", "Rust 1.70.0", "1.70", "Version 1.70.0", "Rust 1.70"}},
	{ID: "d-mdlist-3", Kind: "mdlist", Form: "fact", Deliver: "inline-after", Files: []string{"/root/.pyenv/CHANGELOG.md"},
		Question: "Which pyenv release added GraalPy 25.0.2?",
		Answers:  []string{"v2.6.21", "2.6.21", "Release v2.6.21", "pyenv 2.6.21"}},
	{ID: "d-mdlist-4", Kind: "mdlist", Form: "absent", Files: []string{"/usr/share/doc/nodejs/contributing/*.md", "/usr/share/doc/nodejs/contributing/maintaining/*.md"},
		Question: "What codename does the Node.js 20 LTS line carry?"},
	{ID: "d-mdlist-5", Kind: "mdlist", Form: "list", Deliver: "files", Files: []string{"/root/go/pkg/mod/go.opentelemetry.io/otel@v1.47.0/CHANGELOG.md"},
		Needle: dNeedleOtel, Depth: 0.23,
		Question: "According to the changelog, what's the new cap on the OTLP trace HTTP exporter's retry backoff?",
		Answers:  []string{"45 seconds", "45 s", "45s", "45"}},

	// journal
	{ID: "d-journal-1", Kind: "journal", Form: "journal", Make: dJournalBig, Needle: dNeedleBackup, Depth: 0.62,
		Question: "How much data did the offsite Postgres backup write to S3?",
		Answers:  []string{"14.2GiB", "14.2 GiB", "14.2 GB"}},
	{ID: "d-journal-2", Kind: "journal", Form: "fact", Make: dJournalExport,
		Question: "Which NTP server did this machine first get in touch with?",
		Answers:  []string{"169.254.169.123:123", "169.254.169.123"}},
	{ID: "d-journal-3", Kind: "journal", Form: "absent", Deliver: "inline-after", Make: dJournalSmall,
		Question: "What exit status did certbot.service fail with?"},
	{ID: "d-journal-4", Kind: "journal", Form: "journal", Deliver: "files", Make: dJournalFiles, Needle: dNeedleSSH, Depth: 0.38,
		Question: "From which IP address did the ops-oncall account log in over SSH?",
		Answers:  []string{"192.0.2.144"}},
	{ID: "d-journal-5", Kind: "journal", Form: "journal", Deliver: "inline", Make: dJournalInline, Needle: dNeedleOOM, Depth: 0.55,
		Question: "I need the PID of the process the OOM killer took out.",
		Answers:  []string{"28841"}},

	// weblog
	{ID: "d-weblog-1", Kind: "weblog", Form: "log", Make: dNginxBig,
		Needle: "2024/03/04 07:33:37 [emerg] 11070#11070: bind() to 0.0.0.0:8443 failed (98: Address already in use)", Depth: 0.47,
		Question: "Tell me which address and port nginx failed to bind to.",
		Answers:  []string{"0.0.0.0:8443", "port 8443 on 0.0.0.0"}},
	{ID: "d-weblog-2", Kind: "weblog", Form: "fact", Make: dApacheFact,
		Question: "What version of Apache is this server running?",
		Answers:  []string{"2.4.59", "Apache/2.4.59", "Apache 2.4.59", "Apache/2.4.59 (Debian)"}},
	{ID: "d-weblog-3", Kind: "weblog", Form: "absent", Deliver: "files", Make: dLighttpdAbsent,
		Question: "Which client IP asked for /wp-login.php?"},
	{ID: "d-weblog-4", Kind: "weblog", Form: "log", Deliver: "inline-after", Make: dCaddyNeedle,
		Needle:   `{"level":"error","ts":1710406083.2174,"logger":"tls.obtain","msg":"could not get certificate from issuer","identifier":"status.example.org","issuer":"acme-v02.api.letsencrypt.org-directory","error":"HTTP 429 urn:ietf:params:acme:error:rateLimited - Error creating new order :: too many certificates (5) already issued for this exact set of domains in the last 168 hours: status.example.org, retry after 2024-03-15T09:41:07Z: see https://letsencrypt.org/docs/duplicate-certificate-limit/"}`,
		Depth:    0.58,
		Question: "When is Caddy allowed to retry getting a certificate for the status site?",
		Answers:  []string{"2024-03-15T09:41:07Z", "2024-03-15 09:41:07 UTC", "2024-03-15 09:41:07", "after 2024-03-15T09:41:07Z"}},
	{ID: "d-weblog-5", Kind: "weblog", Form: "fact", Make: dNginxFact,
		Question: "Which nginx worker crashed with a segfault? Give its PID.",
		Answers:  []string{"6394"}},

	// fixed
	{ID: "d-fixed-1", Kind: "fixed", Form: "fact", Make: dCAReport,
		Question: "When does the ISRG Root X1 root certificate run out?",
		Answers:  []string{"2035-06-04", "June 4, 2035", "4 June 2035", "4 Jun 2035"}},
	{ID: "d-fixed-2", Kind: "fixed", Form: "fixed", Make: func() (string, error) {
		return dCommitReport(0.44, dNodeCL+"CHANGELOG_V[89].md", dNodeCL+"CHANGELOG_V1[0-5].md", dNodeCL+"CHANGELOG_V1[79].md")
	}, Needle: "e5a9c07b3d  v11.10.0   2019-02-14  http            reject requests with more than 2000 trailer fields          Nilufar Rahimova           25931", Depth: 0.44,
		Question: "Who authored the http change that rejects requests carrying too many trailer fields?",
		Answers:  []string{"Nilufar Rahimova"}},
	{ID: "d-fixed-3", Kind: "fixed", Form: "fact", Make: dColorReport,
		Question: "What hex code is listed for PapayaWhip?",
		Answers:  []string{"#FFEFD5", "FFEFD5", "#ffefd5"}},
	{ID: "d-fixed-4", Kind: "fixed", Form: "absent", Make: dDatumReport,
		Question: "What's the inverse flattening of the Plessis 1817 ellipsoid?"},
	{ID: "d-fixed-5", Kind: "fixed", Form: "fixed", Deliver: "files", Make: func() (string, error) { return dFontReport(0.47) },
		Needle:   "AcmeSans-Regular.otf                OpenType       184,332  /usr/local/share/fonts/acme                     2024-02-19",
		Depth:    0.47,
		Question: "How large is the Acme Sans Regular font file?",
		Answers:  []string{"184,332", "184,332 bytes", "184332", "184332 bytes"}},

	// tsv
	{ID: "d-tsv-1", Kind: "tsv", Form: "fact", Make: func() (string, error) {
		return dCommitTSV(dNodeCL+"CHANGELOG_V[4-9].md", dNodeCL+"CHANGELOG_V1[0-5].md")
	}, Question: "What's the pull request number for the doc change that switched the keyserver examples to openpgp.org?",
		Answers: []string{"39227", "#39227"}},
	{ID: "d-tsv-2", Kind: "tsv", Form: "tsv", Make: func() (string, error) { return dMimeTSV(0.29) },
		Needle:   "application/vnd.acme.ledger+json\tAcme Ledger export\tExport de grand livre Acme\tExportación del libro mayor de Acme\t*.aclj\tapplication/json\ttext-x-generic",
		Depth:    0.29,
		Question: "What filename pattern do Acme ledger exports use?",
		Answers:  []string{"*.aclj", ".aclj", "aclj"}},
	{ID: "d-tsv-3", Kind: "tsv", Form: "tsv", Make: dS57TSV,
		Needle:   "17066\tOffshore wind turbine\twindtb\tG\tPoint\tCONDTN;HEIGHT;NOBJNM;OBJNAM;STATUS;VERACC;VERDAT",
		Depth:    0.79513248,
		Question: "What acronym does the offshore wind turbine object class use?",
		Answers:  []string{"windtb", "WINDTB"}},
	{ID: "d-tsv-4", Kind: "tsv", Form: "fact", Make: dTZTSV,
		Question: "Can you tell me what UTC offset NZDT stands for?",
		Answers:  []string{"+13:00", "46800", "UTC+13", "+13", "UTC+13:00", "46800 seconds"}},
	{ID: "d-tsv-5", Kind: "tsv", Form: "tsv", Deliver: "inline-after", Make: func() (string, error) { return dCATSV(0.66) },
		Needle:   "acme_internal_root_g2.crt\tAcme Corp Internal Root CA G2\tAcme Corp\tUS\t5D2F0B7C91E4A36B08D1C5F2\tEC-P-384\t2023-01-09T00:00:00Z\t2043-01-04T00:00:00Z\t7E1B4C2A9D0F3E5B6A8C7D1E2F3A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C",
		Depth:    0.66,
		Question: "When does the Acme Corp internal root CA G2 expire?",
		Answers:  []string{"2043-01-04T00:00:00Z", "2043-01-04", "January 4, 2043", "4 January 2043", "2043-01-04 00:00:00"}},

	// sql
	{ID: "d-sql-1", Kind: "sql", Form: "sql", Make: func() (string, error) {
		return dCommitInserts(0.71, dNodeCL+"CHANGELOG_V[4-9].md", dNodeCL+"CHANGELOG_V1[0-3].md")
	}, Needle: "INSERT INTO public.commits VALUES (26990, 'b71d4e09c3', '11.13.0', '2019-03-28', 'tls', 'honour the OPENSSL_CONF section for default ciphers', 'Lwazi Dlamini', 26849);",
		Depth:    0.71,
		Question: "Who wrote the tls commit about honouring the OPENSSL_CONF section for default ciphers?",
		Answers:  []string{"Lwazi Dlamini"}},
	{ID: "d-sql-2", Kind: "sql", Form: "fact", Make: dCAMyDump,
		Question: "I need the serial number of the GlobalSign R3 root certificate from this dump.",
		Answers:  []string{"04000000000121585308A2", "04:00:00:00:00:01:21:58:53:08:A2"}},
	{ID: "d-sql-3", Kind: "sql", Form: "absent", Make: dErrcodeSQLite,
		Question: "Which SQLSTATE code is assigned to transaction_timeout?"},
	{ID: "d-sql-4", Kind: "sql", Form: "fact", Make: dDatumPgDump,
		Question: "What X shift (dx) is stored for the Tokyo datum on Okinawa?",
		Answers:  []string{"-158", "-158 m", "-158 metres", "-158 meters"}},
	{ID: "d-sql-5", Kind: "sql", Form: "sql", Deliver: "inline", Make: func() (string, error) { return dMimeMyDump(0.52) },
		Needle:   "INSERT INTO `mime_types` VALUES (852,'application/x-kicad-schematic','KiCad schematic','KiCad-Schaltplan','*.kicad_sch');",
		Depth:    0.52,
		Question: "What German label does the dump give KiCad schematics?",
		Answers:  []string{"KiCad-Schaltplan"}},

	// mbox
	{ID: "d-mbox-1", Kind: "mbox", Form: "fact", Make: func() (string, error) { return dReleaseMails("d-mbox-1", 0, dNodeCL+"CHANGELOG_V[4-9].md") },
		Question: "Who sent the announcement for Node.js 6.17.0?",
		Answers:  []string{"Rod Vagg", "rvagg", "@rvagg", "Rod Vagg <rod.vagg@nodejs.org>"}},
	{ID: "d-mbox-2", Kind: "mbox", Form: "mail", Make: func() (string, error) {
		return dCommitMails("d-mbox-2", 0.33, 100000, dNodeCL+"CHANGELOG_V1[79].md", dNodeCL+"CHANGELOG_V21.md", dNodeCL+"CHANGELOG_IOJS.md")
	}, Needle: dNeedleCommitMail, Depth: 0.33,
		Question: "What limit did the commit about inspector websocket frames put on frame size?",
		Answers:  []string{"16 MiB", "16MiB", "16 MB", "16777216 bytes", "16777216"}},
	{ID: "d-mbox-3", Kind: "mbox", Form: "mail", Make: func() (string, error) { return dPyenvMails("d-mbox-3", 0.41) },
		Needle: dNeedlePyenvMail, Depth: 0.41,
		Question: "On which musl version did the reporter confirm the build fix?",
		Answers:  []string{"1.2.4", "musl 1.2.4"}},
	{ID: "d-mbox-4", Kind: "mbox", Form: "fact", Make: func() (string, error) { return dRustMails("d-mbox-4") },
		Question: "On what date did the Rust 1.45.0 announcement go out?",
		Answers:  []string{"16 Jul 2020", "2020-07-16", "July 16, 2020", "16 July 2020", "Thu, 16 Jul 2020"}},
	{ID: "d-mbox-5", Kind: "mbox", Form: "mail", Make: func() (string, error) { return dReleaseMails("d-mbox-5", 0.61, dNodeCL+"CHANGELOG_V1[0-5].md") },
		Needle: dNeedleReplyMail, Depth: 0.61,
		Question: "After upgrading, what did Ingrid's gateway p99 latency drop to?",
		Answers:  []string{"29 ms", "29ms", "29 milliseconds", "29"}},

	// ini
	{ID: "d-ini-1", Kind: "ini", Form: "fact", Files: []string{"/usr/share/applications/*.desktop"},
		Question: "What is Vim's generic name in Russian in its launcher?",
		Answers:  []string{"Текстовый редактор"}},
	{ID: "d-ini-2", Kind: "ini", Form: "ini", Files: []string{"/usr/share/libwacom/*.tablet"}, Needle: "\n" + dNeedleTablet, Depth: 0.34915343,
		Question: "What USB ID does the Acme Inkpad Pro 13 match?",
		Answers:  []string{"usb:2d1f:0a4c", "2d1f:0a4c"}},
	{ID: "d-ini-3", Kind: "ini", Form: "fact", Deliver: "inline", Files: []string{"/usr/share/proj/proj.ini", "/usr/share/gdal/osmconf.ini", "/usr/share/mfx/plugins.cfg", "/usr/share/icons/Adwaita/index.theme"},
		Question: "How long do PROJ's cached network grid chunks stay valid?",
		Answers:  []string{"86400", "86400 seconds", "1 day", "24 hours", "one day", "86400 s"}},
	{ID: "d-ini-4", Kind: "ini", Form: "absent", Files: []string{"/usr/share/applications/*.desktop", "/etc/xdg/autostart/*.desktop", "/usr/share/icons/Adwaita/index.theme", "/usr/share/dbus-1/system-services/*.service"},
		Question: "What command does the Firefox launcher run?"},
	{ID: "d-ini-5", Kind: "ini", Form: "ini", Deliver: "inline-after", Make: func() (string, error) { return dGitConfig(0.48) },
		Needle:   "[remote \"mirror\"]\n\turl = ssh://git@git.internal.example.net:2222/tools/pyenv.git\n\tfetch = +refs/heads/*:refs/remotes/mirror/*\n\tmirror = true",
		Depth:    0.48,
		Question: "What SSH port does the internal mirror remote use?",
		Answers:  []string{"2222"}},
}
