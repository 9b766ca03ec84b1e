package main

// Writer F's fresh cases: /etc config files, C headers, shell scripts,
// Markdown lists, systemd journals, web-server logs, paged fixed-width
// reports, TSV, SQL dumps, mailboxes and a new user's own documents.
// Logs, journals, dumps, reports and mailboxes are built by the fMake*
// functions below from real names (the Go module cache, the Python
// packages pyenv installed) and plausible noise, seeded by the case's ID.

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func init() { fresh = append(fresh, freshF) }

// fBase is where the generated logs start: a Monday.
var fBase = time.Date(2026, time.November, 16, 0, 0, 0, 0, time.UTC)

func fPick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func fHex(r *rand.Rand, n int) string {
	const h = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = h[r.IntN(16)]
	}
	return string(b)
}

func fB64(r *rand.Rand, n int) string {
	const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	for i := range b {
		b[i] = a[r.IntN(len(a))]
	}
	return string(b)
}

// fPublicIP is an address from blocks that scanners and crawlers really
// come from.
func fPublicIP(r *rand.Rand) string {
	prefixes := []string{"45.148.10", "185.224.128", "193.32.162", "80.94.95", "141.98.11", "218.92.0", "61.177.172", "92.118.39", "167.94.138", "162.142.125", "104.248.50", "159.223.4", "64.62.197", "20.171.206", "34.76.12", "5.188.210", "87.236.176", "195.178.110", "179.43.180", "122.51.177"}
	return fmt.Sprintf("%s.%d", fPick(r, prefixes), 1+r.IntN(254))
}

var fFirst = []string{"Anna", "Ben", "Carla", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kavya", "Liam", "Maya", "Noah", "Olga", "Pedro", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Victor", "Wen", "Xavier", "Yara", "Zoe", "Mateo", "Aisha", "Chen", "Priyanka", "Lars", "Fatima", "Marek", "Nadia", "Oscar", "Leila", "Tomasz", "Hannah", "Kofi", "Sofia", "Emil", "Greta", "Ravi", "Lucia", "Bruno", "Mirela", "Jakub", "Amara"}
var fLast = []string{"Novak", "Garcia", "Mueller", "Rossi", "Kim", "Nakamura", "Okafor", "Silva", "Johansson", "Kowalski", "Dubois", "Haddad", "Patel", "Nguyen", "Schmidt", "Moreau", "Costa", "Ivanova", "Brennan", "Lindgren", "Abara", "Fischer", "Romero", "Tanaka", "Petrov", "Walsh", "Haugen", "Mendes", "Keller", "Varga", "Santos", "OBrien", "Yilmaz", "Horvat", "Duarte", "Lund", "Meyer", "Bianchi", "Ferreira", "Sato"}

// fMod is one module version the Go module cache holds.
type fMod struct {
	path, version string
	t             time.Time
}

// fModules lists the module versions in the Go module cache, with the
// time the proxy says each was published.
func fModules() ([]fMod, error) {
	root := "/root/go/pkg/mod/cache/download"
	var mods []fMod
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".info") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var info struct {
			Version string
			Time    time.Time
		}
		if json.Unmarshal(b, &info) != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		i := strings.Index(rel, "/@v/")
		if i < 0 {
			return nil
		}
		var sb strings.Builder
		up := false
		for _, c := range rel[:i] {
			switch {
			case c == '!':
				up = true
			case up:
				sb.WriteString(strings.ToUpper(string(c)))
				up = false
			default:
				sb.WriteRune(c)
			}
		}
		mods = append(mods, fMod{sb.String(), info.Version, info.Time})
		return nil
	})
	if len(mods) == 0 && err == nil {
		err = fmt.Errorf("no module in %s", root)
	}
	sort.Slice(mods, func(i, j int) bool {
		if mods[i].path != mods[j].path {
			return mods[i].path < mods[j].path
		}
		return mods[i].version < mods[j].version
	})
	return mods, err
}

// fDist is one Python distribution pyenv's interpreters have installed.
type fDist struct {
	py, name, version, license, requires, summary, home string
}

func fDists() ([]fDist, error) {
	names, err := filepath.Glob("/root/.pyenv/versions/*/lib/python*/site-packages/*.dist-info/METADATA")
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("no pyenv METADATA")
	}
	sort.Strings(names)
	var out []fDist
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		d := fDist{py: strings.Split(strings.TrimPrefix(n, "/root/.pyenv/versions/"), "/")[0]}
		for _, l := range strings.Split(string(b), "\n") {
			if l == "" {
				break
			}
			k, v, ok := strings.Cut(l, ": ")
			if !ok {
				continue
			}
			switch k {
			case "Name":
				d.name = v
			case "Version":
				d.version = v
			case "License", "License-Expression":
				if d.license == "" && len(v) < 60 {
					d.license = v
				}
			case "Requires-Python":
				d.requires = v
			case "Summary":
				d.summary = v
			case "Home-page":
				d.home = v
			case "Project-URL":
				if d.home == "" {
					if _, u, ok := strings.Cut(v, ", "); ok {
						d.home = u
					}
				}
			}
		}
		if d.license == "" || d.license == "UNKNOWN" {
			d.license = "-"
		}
		out = append(out, d)
	}
	return out, nil
}

// fInsert puts planted at index i of lines.
func fInsert(lines []string, i int, planted ...string) []string {
	if i > len(lines) {
		i = len(lines)
	}
	out := make([]string, 0, len(lines)+len(planted))
	out = append(out, lines[:i]...)
	out = append(out, planted...)
	return append(out, lines[i:]...)
}

// ---------------------------------------------------------------------
// systemd journal

// fJEntry is one journal record.
type fJEntry struct {
	t                         time.Time
	prio, facility            int
	ident, comm, exe, cmdline string
	unit, transport, msg      string
	pid, uid                  int
	extra                     [][2]string
	kernel, noSyslog          bool
}

type fJournal struct {
	r                   *rand.Rand
	host, boot, machine string
	seqID               string
	seq                 int
	bootAt              time.Time
	invocation          map[string]string
	pids                map[string]int
	users               []string
	session             int
}

func fNewJournal(id, host string) *fJournal {
	r := seeded(id)
	return &fJournal{r: r, host: host, boot: fHex(r, 32), machine: fHex(r, 32), seqID: fHex(r, 32), seq: 0x2a41f + r.IntN(0x10000), bootAt: fBase.Add(-time.Duration(3+r.IntN(20)) * time.Hour), invocation: map[string]string{}, pids: map[string]int{}, users: []string{"deploy", "mkowalski", "ahaddad", "git"}, session: 200 + r.IntN(300)}
}

func (j *fJournal) pid(unit string) int {
	if p, ok := j.pids[unit]; ok {
		return p
	}
	p := 400 + j.r.IntN(3000)
	j.pids[unit] = p
	return p
}

func (j *fJournal) inv(unit string) string {
	if v, ok := j.invocation[unit]; ok {
		return v
	}
	v := fHex(j.r, 32)
	j.invocation[unit] = v
	return v
}

var fTimers = []struct{ unit, desc, starting, done string }{
	{"apt-daily.service", "Daily apt download activities", "", ""},
	{"apt-daily-upgrade.service", "Daily apt upgrade and clean activities", "", ""},
	{"logrotate.service", "Rotate log files", "", ""},
	{"man-db.service", "Daily man-db regeneration", "", ""},
	{"systemd-tmpfiles-clean.service", "Cleanup of Temporary Directories", "", ""},
	{"phpsessionclean.service", "Clean php session files", "", ""},
	{"sysstat-collect.service", "system activity accounting tool", "", ""},
	{"dpkg-db-backup.service", "Daily dpkg database backup service", "", ""},
}

var fCronCmds = []string{
	"   cd / && run-parts --report /etc/cron.hourly",
	"command -v debian-sa1 > /dev/null && debian-sa1 1 1",
	"[ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then /usr/lib/php/sessionclean; fi",
	"/usr/local/sbin/refresh-geoip --quiet",
	"cd /srv/shop && /usr/bin/docker compose exec -T app php bin/console messenger:consume async --time-limit=280 >> /var/log/shop/worker.log 2>&1",
}

// next returns one ordinary record at time t.
func (j *fJournal) next(t time.Time) []fJEntry {
	r := j.r
	n := r.IntN(100)
	switch {
	case n < 30: // sshd noise from scanners
		ip := fPublicIP(r)
		port := 30000 + r.IntN(35000)
		user := fPick(r, []string{"admin", "ubuntu", "test", "oracle", "user", "postgres", "support", "ftpuser", "guest", "pi", "git", "hadoop", "ec2-user", "steam", "minecraft", "elastic", "odoo", "dev"})
		p := 20000 + r.IntN(40000)
		e := fJEntry{t: t, prio: 6, facility: 4, ident: "sshd", comm: "sshd", exe: "/usr/sbin/sshd", unit: "ssh.service", transport: "syslog", pid: p}
		var out []fJEntry
		switch r.IntN(4) {
		case 0:
			e.cmdline = "sshd: unknown [priv]"
			e.msg = fmt.Sprintf("Invalid user %s from %s port %d", user, ip, port)
			out = append(out, e)
			e.t = t.Add(time.Duration(200+r.IntN(900)) * time.Millisecond)
			e.msg = fmt.Sprintf("Received disconnect from %s port %d:11: Bye Bye [preauth]", ip, port)
			out = append(out, e)
			e.t = e.t.Add(time.Millisecond)
			e.msg = fmt.Sprintf("Disconnected from invalid user %s %s port %d [preauth]", user, ip, port)
			out = append(out, e)
		case 1:
			e.cmdline = "sshd: root [priv]"
			e.msg = fmt.Sprintf("Connection closed by authenticating user root %s port %d [preauth]", ip, port)
			out = append(out, e)
		case 2:
			e.cmdline = "/usr/sbin/sshd -D"
			e.msg = "error: kex_exchange_identification: Connection closed by remote host"
			out = append(out, e)
			e.t = t.Add(time.Millisecond)
			e.msg = fmt.Sprintf("Connection closed by %s port %d", ip, port)
			out = append(out, e)
		default:
			e.cmdline = "sshd: unknown [priv]"
			e.msg = fmt.Sprintf("pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=%s  user=root", ip)
			e.prio = 5
			out = append(out, e)
			e.t = t.Add(time.Duration(1+r.IntN(3)) * time.Second)
			e.prio = 6
			e.msg = fmt.Sprintf("Failed password for root from %s port %d ssh2", ip, port)
			out = append(out, e)
		}
		return out
	case n < 36: // a real login
		user := fPick(r, j.users)
		uid := 1000 + sort.SearchStrings([]string{"ahaddad", "deploy", "git", "mkowalski"}, user)
		ip := fmt.Sprintf("10.8.0.%d", 2+r.IntN(40))
		port := 40000 + r.IntN(20000)
		p := 20000 + r.IntN(40000)
		j.session++
		s := j.session
		fp := fB64(r, 43)
		return []fJEntry{
			{t: t, prio: 6, facility: 10, ident: "sshd", comm: "sshd", exe: "/usr/sbin/sshd", cmdline: "sshd: " + user + " [priv]", unit: "ssh.service", transport: "syslog", pid: p, msg: fmt.Sprintf("Accepted publickey for %s from %s port %d ssh2: ED25519 SHA256:%s", user, ip, port, fp)},
			{t: t.Add(3 * time.Millisecond), prio: 6, facility: 10, ident: "sshd", comm: "sshd", exe: "/usr/sbin/sshd", cmdline: "sshd: " + user + " [priv]", unit: "ssh.service", transport: "syslog", pid: p, msg: fmt.Sprintf("pam_unix(sshd:session): session opened for user %s(uid=%d) by (uid=0)", user, uid)},
			{t: t.Add(9 * time.Millisecond), prio: 6, facility: 4, ident: "systemd-logind", comm: "systemd-logind", exe: "/lib/systemd/systemd-logind", cmdline: "/lib/systemd/systemd-logind", unit: "systemd-logind.service", transport: "journal", pid: j.pid("logind"), msg: fmt.Sprintf("New session %d of user %s.", s, user), noSyslog: true, extra: [][2]string{{"MESSAGE_ID", "8d45620c1a4348dbb17410da57c60c66"}, {"SESSION_ID", fmt.Sprint(s)}, {"USER_ID", user}, {"LEADER", fmt.Sprint(p)}}},
			{t: t.Add(14 * time.Millisecond), prio: 6, facility: 3, ident: "systemd", comm: "systemd", exe: "/lib/systemd/systemd", cmdline: "/sbin/init", unit: "init.scope", transport: "journal", pid: 1, msg: fmt.Sprintf("Started session-%d.scope - Session %d of User %s.", s, s, user), noSyslog: true, extra: [][2]string{{"UNIT", fmt.Sprintf("session-%d.scope", s)}, {"JOB_TYPE", "start"}, {"JOB_RESULT", "done"}}},
			{t: t.Add(time.Duration(60+r.IntN(3000)) * time.Second), prio: 6, facility: 4, ident: "systemd-logind", comm: "systemd-logind", exe: "/lib/systemd/systemd-logind", cmdline: "/lib/systemd/systemd-logind", unit: "systemd-logind.service", transport: "journal", pid: j.pid("logind"), msg: fmt.Sprintf("Session %d logged out. Waiting for processes to exit.", s), noSyslog: true},
		}
	case n < 48: // cron
		p := 20000 + r.IntN(40000)
		cmd := fPick(r, fCronCmds)
		return []fJEntry{
			{t: t, prio: 6, facility: 10, ident: "CRON", comm: "cron", exe: "/usr/sbin/cron", cmdline: "/usr/sbin/CRON -f -P", unit: "cron.service", transport: "syslog", pid: p, msg: "pam_unix(cron:session): session opened for user root(uid=0) by (uid=0)"},
			{t: t.Add(2 * time.Millisecond), prio: 6, facility: 9, ident: "CRON", comm: "cron", exe: "/usr/sbin/cron", cmdline: "/usr/sbin/CRON -f -P", unit: "cron.service", transport: "syslog", pid: p + 1, msg: "(root) CMD (" + cmd + ")"},
			{t: t.Add(time.Duration(40+r.IntN(900)) * time.Millisecond), prio: 6, facility: 10, ident: "CRON", comm: "cron", exe: "/usr/sbin/cron", cmdline: "/usr/sbin/CRON -f -P", unit: "cron.service", transport: "syslog", pid: p, msg: "pam_unix(cron:session): session closed for user root"},
		}
	case n < 56: // a timer's service
		tm := fPick(r, fTimers)
		base := fJEntry{prio: 6, facility: 3, ident: "systemd", comm: "systemd", exe: "/lib/systemd/systemd", cmdline: "/sbin/init", unit: "init.scope", transport: "journal", pid: 1, noSyslog: true}
		a, b, c := base, base, base
		a.t, a.msg = t, fmt.Sprintf("Starting %s - %s...", tm.unit, tm.desc)
		a.extra = [][2]string{{"UNIT", tm.unit}, {"JOB_TYPE", "start"}, {"MESSAGE_ID", "7d4958e842da4a758f6c1cdc7b36dcc5"}}
		d := time.Duration(300+r.IntN(20000)) * time.Millisecond
		b.t, b.msg = t.Add(d), tm.unit+": Deactivated successfully."
		b.extra = [][2]string{{"UNIT", tm.unit}, {"MESSAGE_ID", "7ad2d189f7e94e70a38c781354912448"}}
		c.t, c.msg = t.Add(d+time.Millisecond), fmt.Sprintf("Finished %s - %s.", tm.unit, tm.desc)
		c.extra = [][2]string{{"UNIT", tm.unit}, {"JOB_TYPE", "start"}, {"JOB_RESULT", "done"}, {"MESSAGE_ID", "39f53479d3a045ac8e11786248231fbf"}}
		return []fJEntry{a, b, c}
	case n < 68: // firewall
		src := fPublicIP(r)
		dpt := fPick(r, []int{23, 2323, 3389, 5900, 8080, 8443, 6379, 9200, 5432, 3306, 445, 1433, 8888, 37215, 52869, 81})
		return []fJEntry{{t: t, prio: 4, facility: 0, ident: "kernel", transport: "kernel", kernel: true, msg: fmt.Sprintf("[UFW BLOCK] IN=eth0 OUT= MAC=96:00:02:8f:1c:3a:d2:74:7f:6e:37:e3:08:00 SRC=%s DST=203.0.113.40 LEN=%d TOS=0x00 PREC=0x00 TTL=%d ID=%d PROTO=TCP SPT=%d DPT=%d WINDOW=%d RES=0x00 SYN URGP=0 ", src, fPick(r, []int{40, 44, 60}), 230+r.IntN(25), r.IntN(65536), 1024+r.IntN(64000), dpt, fPick(r, []int{1024, 65535, 14600, 29200}))}}
	case n < 78: // the application
		p := j.pid("shop-api")
		ts := t.Format("2006-01-02 15:04:05 +0000")
		msgs := []string{
			fmt.Sprintf("[%s] [%d] [INFO] 10.0.3.%d:%d - \"GET /api/v1/products?page=%d HTTP/1.1\" 200", ts, p+1+r.IntN(4), 2+r.IntN(9), 30000+r.IntN(30000), 1+r.IntN(40)),
			fmt.Sprintf("[%s] [%d] [INFO] 10.0.3.%d:%d - \"POST /api/v1/cart/%d/items HTTP/1.1\" 201", ts, p+1+r.IntN(4), 2+r.IntN(9), 30000+r.IntN(30000), 10000+r.IntN(90000)),
			fmt.Sprintf("[%s] [%d] [WARNING] slow query (%d ms): SELECT ... FROM orders WHERE customer_id = %%s", ts, p+1+r.IntN(4), 800+r.IntN(4000)),
			fmt.Sprintf("[%s] [%d] [INFO] 10.0.3.%d:%d - \"GET /healthz HTTP/1.1\" 200", ts, p+1+r.IntN(4), 2+r.IntN(9), 30000+r.IntN(30000)),
		}
		return []fJEntry{{t: t, prio: 6, facility: 3, ident: "gunicorn", comm: "gunicorn", exe: "/srv/shop/venv/bin/python3", cmdline: "/srv/shop/venv/bin/python3 /srv/shop/venv/bin/gunicorn --workers 4 --bind 127.0.0.1:8000 shop.wsgi", unit: "shop-api.service", transport: "stdout", pid: p, uid: 998, msg: fPick(r, msgs)}}
	case n < 86: // containers
		p := j.pid("dockerd")
		id := fHex(r, 64)
		msgs := []fJEntry{
			{ident: "dockerd", comm: "dockerd", exe: "/usr/bin/dockerd", cmdline: "/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock", unit: "docker.service", pid: p, msg: fmt.Sprintf("time=\"%s\" level=info msg=\"ignoring event\" container=%s module=libcontainerd namespace=moby topic=/tasks/delete type=\"*events.TaskDelete\"", t.Format(time.RFC3339Nano), id)},
			{ident: "containerd", comm: "containerd", exe: "/usr/bin/containerd", cmdline: "/usr/bin/containerd", unit: "containerd.service", pid: j.pid("containerd"), msg: fmt.Sprintf("time=\"%s\" level=info msg=\"shim disconnected\" id=%s namespace=moby", t.Format(time.RFC3339Nano), id)},
			{ident: "containerd", comm: "containerd", exe: "/usr/bin/containerd", cmdline: "/usr/bin/containerd", unit: "containerd.service", pid: j.pid("containerd"), msg: fmt.Sprintf("time=\"%s\" level=info msg=\"loading plugin \\\"io.containerd.event.v1.publisher\\\"...\" runtime=io.containerd.runc.v2 type=io.containerd.event.v1", t.Format(time.RFC3339Nano))},
		}
		e := fPick(r, msgs)
		e.t, e.prio, e.facility, e.transport = t, 6, 3, "stdout"
		return []fJEntry{e}
	case n < 91: // sudo
		user := fPick(r, []string{"deploy", "mkowalski", "ahaddad"})
		cmd := fPick(r, []string{"/usr/bin/docker compose -f /srv/shop/compose.yml pull", "/usr/bin/systemctl status shop-api", "/usr/bin/journalctl -u shop-api -n 200", "/usr/bin/apt-get upgrade", "/usr/sbin/ufw status numbered", "/usr/bin/tail -f /var/log/nginx/error.log", "/usr/bin/docker ps"})
		p := 20000 + r.IntN(40000)
		return []fJEntry{
			{t: t, prio: 5, facility: 10, ident: "sudo", comm: "sudo", exe: "/usr/bin/sudo", cmdline: "sudo " + strings.TrimPrefix(cmd, "/usr/bin/"), unit: fmt.Sprintf("session-%d.scope", j.session), transport: "syslog", pid: p, uid: 1000, msg: fmt.Sprintf("%8s : TTY=pts/%d ; PWD=/home/%s ; USER=root ; COMMAND=%s", user, r.IntN(3), user, cmd)},
			{t: t.Add(2 * time.Millisecond), prio: 6, facility: 10, ident: "sudo", comm: "sudo", exe: "/usr/bin/sudo", cmdline: "sudo " + strings.TrimPrefix(cmd, "/usr/bin/"), unit: fmt.Sprintf("session-%d.scope", j.session), transport: "syslog", pid: p, uid: 1000, msg: fmt.Sprintf("pam_unix(sudo:session): session opened for user root(uid=0) by %s(uid=1001)", user)},
		}
	case n < 95: // mail
		qid := strings.ToUpper(fHex(r, 10))
		to := fPick(r, []string{"ops@northwind-shop.example", "alerts@northwind-shop.example", "mkowalski@northwind-shop.example"})
		return []fJEntry{{t: t, prio: 6, facility: 2, ident: "postfix/smtp", comm: "smtp", exe: "/usr/lib/postfix/sbin/smtp", cmdline: "smtp -t unix -u -c", unit: "postfix@-.service", transport: "syslog", pid: 20000 + r.IntN(40000), uid: 107, msg: fmt.Sprintf("%s: to=<%s>, relay=smtp.eu.mailgun.org[35.157.%d.%d]:587, delay=%.2f, delays=0.02/0.01/0.%d/0.%d, dsn=2.0.0, status=sent (250 Great success)", qid, to, r.IntN(255), r.IntN(255), 0.3+r.Float64(), r.IntN(9), r.IntN(9))}}
	default:
		return []fJEntry{{t: t, prio: 6, facility: 3, ident: "systemd-resolved", comm: "systemd-resolve", exe: "/lib/systemd/systemd-resolved", cmdline: "/lib/systemd/systemd-resolved", unit: "systemd-resolved.service", transport: "journal", pid: j.pid("resolved"), uid: 102, noSyslog: true, msg: fPick(r, []string{"Using degraded feature set UDP instead of UDP+EDNS0 for DNS server 10.0.0.2.", "Using degraded feature set TCP instead of UDP for DNS server 10.0.0.2.", "Grace period over, resuming full feature set (UDP+EDNS0) for DNS server 10.0.0.2."})}}
	}
}

// bootEntries are the first records of a boot.
func (j *fJournal) bootEntries() []fJEntry {
	t := j.bootAt
	k := func(d time.Duration, msg string) fJEntry {
		return fJEntry{t: t.Add(d), prio: 5, facility: 0, ident: "kernel", transport: "kernel", kernel: true, msg: msg}
	}
	return []fJEntry{
		k(0, "Linux version 6.1.0-41-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 (2026-10-19)"),
		k(0, "Command line: BOOT_IMAGE=/boot/vmlinuz-6.1.0-41-amd64 root=UUID=4be7c3d2-61f0-4a7e-9a43-2f3c0d41b8e5 ro console=tty0 console=ttyS0,115200n8 quiet"),
		k(0, "BIOS-provided physical RAM map:"),
		k(0, "DMI: Hetzner vServer/Standard PC (Q35 + ICH9, 2009), BIOS 20171111 11/11/2017"),
		k(2*time.Millisecond, "Hypervisor detected: KVM"),
		k(310*time.Millisecond, "Memory: 7981236K/8388060K available (14336K kernel code, 2232K rwdata, 9048K rodata, 2780K init, 17460K bss, 406564K reserved, 0K cma-reserved)"),
		k(1200*time.Millisecond, "EXT4-fs (sda1): mounted filesystem 4be7c3d2-61f0-4a7e-9a43-2f3c0d41b8e5 ro with ordered data mode. Quota mode: none."),
		{t: t.Add(2100 * time.Millisecond), prio: 6, facility: 3, ident: "systemd", comm: "systemd", exe: "/lib/systemd/systemd", cmdline: "/sbin/init", unit: "init.scope", transport: "journal", pid: 1, noSyslog: true, msg: "systemd 252.39-1~deb12u1 running in system mode (+PAM +AUDIT +SELINUX +APPARMOR +IMA +SMACK +SECCOMP +GCRYPT -GNUTLS +OPENSSL +ACL +BLKID +CURL +ELFUTILS +FIDO2 +IDN2 -IDN +IPTC +KMOD +LIBCRYPTSETUP +LIBFDISK +PCRE2 -PWQUALITY +P11KIT +QRENCODE +TPM2 +BZIP2 +LZ4 +XZ +ZLIB +ZSTD -BPF_FRAMEWORK -XKBCOMMON +UTMP +SYSVINIT default-hierarchy=unified)"},
		{t: t.Add(2101 * time.Millisecond), prio: 6, facility: 3, ident: "systemd", comm: "systemd", exe: "/lib/systemd/systemd", cmdline: "/sbin/init", unit: "init.scope", transport: "journal", pid: 1, noSyslog: true, msg: "Hostname set to <" + j.host + ">."},
	}
}

// entries makes about n records from fBase on, one every gap on average.
func (j *fJournal) entries(n int, gap time.Duration) []fJEntry {
	out := j.bootEntries()
	t := fBase
	for len(out) < n {
		t = t.Add(time.Duration(j.r.ExpFloat64() * float64(gap)))
		out = append(out, j.next(t)...)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].t.Before(out[b].t) })
	return out
}

// fields are the record's fields after the cursor and timestamps, in the
// order journald stores them.
func (j *fJournal) fields(e fJEntry) [][2]string {
	f := [][2]string{{"_BOOT_ID", j.boot}, {"_MACHINE_ID", j.machine}, {"_HOSTNAME", j.host}, {"PRIORITY", fmt.Sprint(e.prio)}, {"SYSLOG_FACILITY", fmt.Sprint(e.facility)}}
	if e.kernel {
		f = append(f, [2]string{"_TRANSPORT", "kernel"}, [2]string{"SYSLOG_IDENTIFIER", "kernel"}, [2]string{"_SOURCE_MONOTONIC_TIMESTAMP", fmt.Sprint(e.t.Sub(j.bootAt).Microseconds())})
		return append(f, [2]string{"MESSAGE", e.msg})
	}
	f = append(f, [2]string{"SYSLOG_IDENTIFIER", e.ident})
	if e.transport == "syslog" {
		f = append(f, [2]string{"SYSLOG_PID", fmt.Sprint(e.pid)}, [2]string{"SYSLOG_TIMESTAMP", e.t.Format("Jan _2 15:04:05 ")})
	}
	f = append(f, [][2]string{{"_UID", fmt.Sprint(e.uid)}, {"_GID", fmt.Sprint(e.uid)}, {"_COMM", e.comm}, {"_EXE", e.exe}, {"_CMDLINE", e.cmdline}, {"_CAP_EFFECTIVE", map[bool]string{true: "1ffffffffff", false: "0"}[e.uid == 0]}}...)
	cg := "/system.slice/" + e.unit
	slice := "system.slice"
	if strings.HasPrefix(e.unit, "session-") {
		cg = "/user.slice/user-1001.slice/" + e.unit
		slice = "user-1001.slice"
	} else if e.unit == "init.scope" {
		cg = "/init.scope"
		slice = "-.slice"
	}
	f = append(f, [][2]string{{"_SYSTEMD_CGROUP", cg}, {"_SYSTEMD_UNIT", e.unit}, {"_SYSTEMD_SLICE", slice}}...)
	if !strings.HasPrefix(e.unit, "session-") && e.unit != "init.scope" {
		f = append(f, [2]string{"_SYSTEMD_INVOCATION_ID", j.inv(e.unit)})
	}
	if e.transport == "stdout" {
		f = append(f, [2]string{"_STREAM_ID", j.inv(e.unit + "/stream")})
	}
	f = append(f, [2]string{"_TRANSPORT", e.transport})
	f = append(f, e.extra...)
	if e.transport == "journal" && e.comm == "systemd" {
		f = append(f, [][2]string{{"CODE_FILE", "src/core/job.c"}, {"CODE_LINE", "768"}, {"CODE_FUNC", "job_emit_done_message"}}...)
	}
	f = append(f, [2]string{"_PID", fmt.Sprint(e.pid)}, [2]string{"MESSAGE", e.msg})
	if e.transport == "journal" || e.transport == "syslog" {
		f = append(f, [2]string{"_SOURCE_REALTIME_TIMESTAMP", fmt.Sprint(e.t.Add(-time.Duration(20+j.r.IntN(200)) * time.Microsecond).UnixMicro())})
	}
	return f
}

func (j *fJournal) cursor(e fJEntry) string {
	j.seq++
	mono := e.t.Sub(j.bootAt).Microseconds()
	return fmt.Sprintf("s=%s;i=%x;b=%s;m=%x;t=%x;x=%s", j.seqID, j.seq, j.boot, mono, e.t.UnixMicro(), fHex(j.r, 16))
}

// export renders records as journalctl -o export does.
func (j *fJournal) export(es []fJEntry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "__CURSOR=%s\n__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n", j.cursor(e), e.t.UnixMicro(), e.t.Sub(j.bootAt).Microseconds())
		for _, kv := range j.fields(e) {
			fmt.Fprintf(&b, "%s=%s\n", kv[0], kv[1])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// verboseText renders records as journalctl -o verbose does.
func (j *fJournal) verboseText(es []fJEntry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%s [%s]\n", e.t.Format("Mon 2006-01-02 15:04:05.000000 MST"), j.cursor(e))
		for _, kv := range j.fields(e) {
			fmt.Fprintf(&b, "    %s=%s\n", kv[0], kv[1])
		}
	}
	return b.String()
}

// fPlantAt puts records at depth of es, at the time of the record there.
func fPlantAt(es []fJEntry, depth float64, planted ...fJEntry) []fJEntry {
	i := int(depth * float64(len(es)))
	t := es[i].t
	for k := range planted {
		planted[k].t = t.Add(time.Duration(k*7+1) * time.Millisecond)
	}
	out := append([]fJEntry{}, es[:i+1]...)
	out = append(out, planted...)
	return append(out, es[i+1:]...)
}

func fMakeJournal1() (string, error) {
	j := fNewJournal("f-journal-1", "shop-web-02")
	es := j.entries(4600, 55*time.Second)
	k := func(msg string) fJEntry {
		return fJEntry{prio: 3, facility: 0, ident: "kernel", transport: "kernel", kernel: true, msg: msg}
	}
	es = fPlantAt(es, 0.58,
		k("java invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0"),
		k("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/system.slice/reportgen.service,task=java,pid=48213,uid=997"),
		k("Out of memory: Killed process 48213 (java) total-vm:9437184kB, anon-rss:7340212kB, file-rss:0kB, shmem-rss:0kB, UID:997 pgtables:15420kB oom_score_adj:0"),
		fJEntry{prio: 4, facility: 3, ident: "systemd", comm: "systemd", exe: "/lib/systemd/systemd", cmdline: "/sbin/init", unit: "init.scope", transport: "journal", pid: 1, noSyslog: true, msg: "reportgen.service: A process of this unit has been killed by the OOM killer.", extra: [][2]string{{"UNIT", "reportgen.service"}}},
		fJEntry{prio: 4, facility: 3, ident: "systemd", comm: "systemd", exe: "/lib/systemd/systemd", cmdline: "/sbin/init", unit: "init.scope", transport: "journal", pid: 1, noSyslog: true, msg: "reportgen.service: Failed with result 'oom-kill'.", extra: [][2]string{{"UNIT", "reportgen.service"}}},
	)
	return j.export(es), nil
}

func fMakeJournal2() (string, error) {
	j := fNewJournal("f-journal-2", "ci-runner-07")
	return j.verboseText(j.entries(950, 4*time.Minute)), nil
}

func fMakeJournal3() (string, error) {
	j := fNewJournal("f-journal-3", "shop-db-01")
	return j.export(j.entries(900, 3*time.Minute)), nil
}

func fMakeJournal5() (string, error) {
	j := fNewJournal("f-journal-5", "bastion-01")
	es := j.entries(3900, 70*time.Second)
	es = fPlantAt(es, 0.31,
		fJEntry{prio: 6, facility: 10, ident: "sshd", comm: "sshd", exe: "/usr/sbin/sshd", cmdline: "sshd: contractor-jm [priv]", unit: "ssh.service", transport: "syslog", pid: 51877, msg: "Accepted password for contractor-jm from 198.51.100.77 port 50122 ssh2"},
		fJEntry{prio: 6, facility: 10, ident: "sshd", comm: "sshd", exe: "/usr/sbin/sshd", cmdline: "sshd: contractor-jm [priv]", unit: "ssh.service", transport: "syslog", pid: 51877, msg: "pam_unix(sshd:session): session opened for user contractor-jm(uid=1007) by (uid=0)"},
	)
	return j.export(es), nil
}

// fMakeJournal4 is journalctl -o verbose -u orders-worker for the run
// that ended when the worker was killed.
func fMakeJournal4() (string, error) {
	j := fNewJournal("f-journal-4", "shop-worker-01")
	r := j.r
	p := 31877
	t := fBase.Add(9*time.Hour + 12*time.Minute)
	w := func(msg string, prio int) fJEntry {
		return fJEntry{t: t, prio: prio, facility: 3, ident: "orders-worker", comm: "python3", exe: "/usr/bin/python3.11", cmdline: "/srv/orders/venv/bin/python3 -m orders.worker --queue fulfilment --concurrency 4", unit: "orders-worker.service", transport: "stdout", pid: p, uid: 996, msg: msg}
	}
	sd := func(msg string, prio int, extra ...[2]string) fJEntry {
		return fJEntry{t: t, prio: prio, facility: 3, ident: "systemd", comm: "systemd", exe: "/lib/systemd/systemd", cmdline: "/sbin/init", unit: "init.scope", transport: "journal", pid: 1, noSyslog: true, msg: msg, extra: append([][2]string{{"UNIT", "orders-worker.service"}}, extra...)}
	}
	es := []fJEntry{sd("Started orders-worker.service - Orders fulfilment worker.", 6, [2]string{"JOB_TYPE", "start"}, [2]string{"JOB_RESULT", "done"})}
	t = t.Add(900 * time.Millisecond)
	es = append(es, w("INFO orders.worker: connected to amqp://orders@10.0.4.12:5672/shop, prefetch=16", 6), w("INFO orders.worker: consuming from queue 'fulfilment' with 4 threads", 6))
	order := 880412
	for i := 0; i < 26; i++ {
		t = t.Add(time.Duration(2+r.IntN(40)) * time.Second)
		order += 1 + r.IntN(30)
		switch r.IntN(6) {
		case 0:
			es = append(es, w(fmt.Sprintf("WARNING orders.carrier: DHL API answered 429, retrying order %d in %ds", order, 2+r.IntN(8)), 4))
		case 1:
			es = append(es, w(fmt.Sprintf("INFO orders.pdf: rendered packing slip for order %d (%d pages, %d KiB)", order, 1+r.IntN(3), 40+r.IntN(400)), 6))
		default:
			es = append(es, w(fmt.Sprintf("INFO orders.worker: order %d fulfilled in %.2fs (%d items)", order, 0.2+3*r.Float64(), 1+r.IntN(9)), 6))
		}
	}
	t = t.Add(11 * time.Second)
	es = append(es, w(fmt.Sprintf("INFO orders.pdf: rendering invoice batch 2026-11-16/%d (%d orders)", 3, 1450), 6))
	t = t.Add(74 * time.Second)
	es = append(es, w("WARNING orders.pdf: worker RSS is 3.1 GiB, above soft limit 2.5 GiB", 4))
	t = t.Add(38 * time.Second)
	es = append(es,
		sd("orders-worker.service: Watchdog timeout (limit 2min)!", 2),
		sd("orders-worker.service: Killing process 31877 (python3) with signal SIGABRT.", 5))
	t = t.Add(90 * time.Second)
	es = append(es,
		sd("orders-worker.service: State 'stop-watchdog' timed out. Killing.", 4),
		sd("orders-worker.service: Killing process 31877 (python3) with signal SIGKILL.", 5))
	t = t.Add(40 * time.Millisecond)
	es = append(es,
		sd("orders-worker.service: Main process exited, code=killed, status=9/KILL", 6, [2]string{"EXIT_CODE", "killed"}, [2]string{"EXIT_STATUS", "9"}),
		sd("orders-worker.service: Failed with result 'watchdog'.", 4, [2]string{"UNIT_RESULT", "watchdog"}),
		sd("orders-worker.service: Consumed 14min 22.815s CPU time.", 6))
	t = t.Add(5 * time.Second)
	es = append(es, sd("orders-worker.service: Scheduled restart job, restart counter is at 1.", 6, [2]string{"N_RESTARTS", "1"}), sd("Stopped orders-worker.service - Orders fulfilment worker.", 6), sd("Started orders-worker.service - Orders fulfilment worker.", 6))
	return j.verboseText(es), nil
}

// ---------------------------------------------------------------------
// web-server logs

var fAgents = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
	"Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
	"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
	"curl/7.88.1",
	"python-requests/2.32.3",
	"Mozilla/5.0 zgrab/0.x",
}

var fScanPaths = []string{"/.git/config", "/wp-admin/setup-config.php", "/actuator/health", "/cgi-bin/luci/;stok=/locale", "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php", "/owa/auth/logon.aspx", "/.aws/credentials", "/server-status", "/boaform/admin/formLogin", "/config.json", "/_profiler/phpinfo"}

// fProxyLog is an nginx access log (combined format) of a Go module proxy
// mirror with its own status page and some scanning.
func fProxyLog(id string, n int, noGooglebot bool) ([]string, error) {
	mods, err := fModules()
	if err != nil {
		return nil, err
	}
	r := seeded(id)
	clients := make([]string, 40)
	for i := range clients {
		clients[i] = fmt.Sprintf("10.%d.%d.%d", fPick(r, []int{12, 12, 20, 31}), r.IntN(8), 2+r.IntN(250))
	}
	goAgents := []string{"Go-http-client/1.1", "Go-http-client/2.0", "Go-http-client/1.1", "Athens/v0.15.4"}
	t := fBase.Add(6 * time.Hour)
	lines := make([]string, 0, n)
	for len(lines) < n {
		t = t.Add(time.Duration(r.ExpFloat64() * float64(1400*time.Millisecond)))
		ts := t.Format("02/Jan/2006:15:04:05 -0700")
		ip, user, method, path, status, size, ref, agent := fPick(r, clients), "-", "GET", "", 200, 0, "-", fPick(r, goAgents)
		m := fPick(r, mods)
		switch k := r.IntN(100); {
		case k < 28:
			path, size = "/"+m.path+"/@v/"+m.version+".info", 50+len(m.version)
		case k < 50:
			path, size = "/"+m.path+"/@v/"+m.version+".mod", 200+r.IntN(3000)
		case k < 62:
			path, size = "/"+m.path+"/@v/"+m.version+".zip", 40000+r.IntN(9000000)
		case k < 72:
			path, size = "/"+m.path+"/@v/list", 10+r.IntN(800)
		case k < 76:
			path, size = "/"+m.path+"/@latest", 60+len(m.version)
		case k < 84:
			path, size = fmt.Sprintf("/sumdb/sum.golang.org/lookup/%s@%s", m.path, m.version), 500+r.IntN(300)
		case k < 88:
			path, size = fmt.Sprintf("/sumdb/sum.golang.org/tile/8/%d/x%03d/%03d", r.IntN(3), r.IntN(200), r.IntN(256)), 8192
		case k < 92:
			path, status, size = "/"+m.path+"/@v/v0.0.0-00010101000000-000000000000.info", 404, 86
		case k < 95:
			ip, path, size, agent = "10.12.0.5", "/metrics", 14000+r.IntN(2000), "Prometheus/2.53.2"
		case k < 97 && !noGooglebot:
			ip, path, size, agent = "66.249.66."+fmt.Sprint(1+r.IntN(200)), "/", 2100, "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
		default:
			ip, path, status, size, agent = fPublicIP(r), fPick(r, fScanPaths), 404, 153, fPick(r, fAgents)
			if r.IntN(3) == 0 {
				method = "POST"
			}
		}
		if status == 200 && r.IntN(40) == 0 {
			status, size = 304, 0
		}
		lines = append(lines, fmt.Sprintf("%s - %s [%s] \"%s %s HTTP/1.1\" %d %d \"%s\" \"%s\"", ip, user, ts, method, path, status, size, ref, agent))
	}
	return lines, nil
}

func fMakeWeblog1() (string, error) {
	lines, err := fProxyLog("f-weblog-1", 26000, false)
	if err != nil {
		return "", err
	}
	i := int(0.63 * float64(len(lines)))
	ts := lines[i][strings.Index(lines[i], "[")+1 : strings.Index(lines[i], "]")]
	lines = fInsert(lines, i+1, fmt.Sprintf("91.92.246.113 - - [%s] \"POST /admin/api/v1/tokens/rotate HTTP/1.1\" 403 162 \"-\" \"python-httpx/0.27.0\"", ts))
	return strings.Join(lines, "\n") + "\n", nil
}

func fMakeWeblog4() (string, error) {
	lines, err := fProxyLog("f-weblog-4", 5200, true)
	if err != nil {
		return "", err
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// fMakeWeblog2 is an Apache error log of a PHP shop behind mod_proxy_fcgi.
func fMakeWeblog2() (string, error) {
	r := seeded("f-weblog-2")
	t := fBase.Add(-30 * time.Hour)
	stamp := func() string { return t.Format("Mon Jan 02 15:04:05.000000 2006") }
	pid := 1811
	var lines []string
	lines = append(lines,
		fmt.Sprintf("[%s] [mpm_event:notice] [pid %d:tid %d] AH00489: Apache/2.4.65 (Debian) OpenSSL/3.0.17 configured -- resuming normal operations", stamp(), pid, 140523871028096),
		fmt.Sprintf("[%s] [core:notice] [pid %d:tid %d] AH00094: Command line: '/usr/sbin/apache2'", stamp(), pid, 140523871028096))
	scripts := []string{"index.php", "catalog/product.php", "checkout/cart.php", "account/login.php", "api/stock.php", "search.php"}
	for len(lines) < 2600 {
		t = t.Add(time.Duration(r.ExpFloat64() * float64(70*time.Second)))
		child := pid + 1 + r.IntN(6)
		tid := 140523700000000 + r.IntN(90000000)
		ip := fPublicIP(r)
		if r.IntN(3) == 0 {
			ip = fmt.Sprintf("%d.%d.%d.%d", 77+r.IntN(100), r.IntN(255), r.IntN(255), 1+r.IntN(250))
		}
		cl := fmt.Sprintf("[client %s:%d]", ip, 1024+r.IntN(64000))
		s := fPick(r, scripts)
		var m string
		switch k := r.IntN(100); {
		case k < 30:
			m = fmt.Sprintf("[proxy_fcgi:error] [pid %d:tid %d] %s AH01071: Got error 'PHP message: PHP Warning:  Undefined array key \"%s\" in /srv/www/shop/public/%s on line %d', referer: https://shop.northwind.example/%s", child, tid, cl, fPick(r, []string{"page", "sort", "ref", "utm_source", "variant"}), s, 20+r.IntN(400), strings.TrimSuffix(s, ".php"))
		case k < 42:
			m = fmt.Sprintf("[proxy_fcgi:error] [pid %d:tid %d] %s AH01071: Got error 'PHP message: PHP Deprecated:  Creation of dynamic property Cart::$%s is deprecated in /srv/www/shop/src/Cart.php on line %d'", child, tid, cl, fPick(r, []string{"coupon", "giftWrap", "legacyId"}), 50+r.IntN(200))
		case k < 60:
			m = fmt.Sprintf("[authz_core:error] [pid %d:tid %d] %s AH01630: client denied by server configuration: /srv/www/shop/%s", child, tid, cl, fPick(r, []string{".git", ".env.local", "composer.lock", "var/log/prod.log", "config/parameters.yml"}))
		case k < 66:
			m = fmt.Sprintf("[core:error] [pid %d:tid %d] (36)File name too long: %s AH00036: access to /cgi-bin/%s%s failed (filesystem path '/srv/www/shop/public/cgi-bin')", child, tid, cl, strings.Repeat("%2e%2e/", 6+r.IntN(8)), fPick(r, []string{"bin/sh", "etc/passwd"}))
		case k < 72:
			m = fmt.Sprintf("[php:warn] [pid %d:tid %d] %s PHP Warning:  session_start(): Session cannot be started after headers have already been sent in /srv/www/shop/src/Session.php on line 41", child, tid, cl)
		case k < 80:
			m = fmt.Sprintf("[proxy_fcgi:error] [pid %d:tid %d] (70007)The timeout specified has expired: %s AH01075: Error dispatching request to : (polling)", child, tid, cl)
		case k < 88:
			m = fmt.Sprintf("[ssl:info] [pid %d:tid %d] [client %s:%d] AH02008: SSL library error 1 in handshake (server shop.northwind.example:443)", child, tid, ip, 1024+r.IntN(64000))
		case k < 94:
			m = fmt.Sprintf("[php:error] [pid %d:tid %d] %s PHP Fatal error:  Allowed memory size of 268435456 bytes exhausted (tried to allocate %d bytes) in /srv/www/shop/vendor/dompdf/dompdf/src/FrameReflower/Block.php on line %d", child, tid, cl, 4096*(1+r.IntN(512)), 700+r.IntN(300))
		default:
			m = fmt.Sprintf("[mpm_event:error] [pid %d:tid %d] AH03490: scoreboard is full, not at MaxRequestWorkers.Increase ServerLimit.", pid, 140523871028096)
		}
		lines = append(lines, fmt.Sprintf("[%s] %s", stamp(), m))
		if len(lines) == 1400 {
			t = t.Add(4 * time.Minute)
			lines = append(lines,
				fmt.Sprintf("[%s] [mpm_event:notice] [pid %d:tid %d] AH00493: SIGUSR1 received.  Doing graceful restart", stamp(), pid, 140523871028096),
				fmt.Sprintf("[%s] [mpm_event:notice] [pid %d:tid %d] AH00489: Apache/2.4.65 (Debian) OpenSSL/3.0.17 configured -- resuming normal operations", stamp(), pid, 140523871028096),
				fmt.Sprintf("[%s] [core:notice] [pid %d:tid %d] AH00094: Command line: '/usr/sbin/apache2'", stamp(), pid, 140523871028096))
		}
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// fMakeWeblog3 is an nginx error log of an API gateway.
func fMakeWeblog3() (string, error) {
	r := seeded("f-weblog-3")
	t := fBase.Add(13 * time.Hour)
	conn := 48211
	var lines []string
	paths := []string{"/v1/orders", "/v1/orders/export", "/v1/customers/search", "/v1/stock", "/v2/checkout/session", "/v1/invoices"}
	for len(lines) < 330 {
		t = t.Add(time.Duration(r.ExpFloat64() * float64(25*time.Second)))
		w := 2211 + r.IntN(4)
		conn += 1 + r.IntN(60)
		ip := fPublicIP(r)
		p := fPick(r, paths)
		head := fmt.Sprintf("%s [%%s] %d#%d: ", t.Format("2006/01/02 15:04:05"), w, w)
		var l string
		switch k := r.IntN(100); {
		case k < 35:
			pg := 1 + r.IntN(50)
			l = fmt.Sprintf(head+"*%d upstream timed out (110: Connection timed out) while reading response header from upstream, client: %s, server: api.northwind.example, request: \"GET %s?page=%d HTTP/1.1\", upstream: \"http://10.0.5.21:9000%s?page=%d\", host: \"api.northwind.example\"", "error", conn, ip, p, pg, p, pg)
		case k < 50:
			l = fmt.Sprintf(head+"*%d connect() failed (111: Connection refused) while connecting to upstream, client: %s, server: api.northwind.example, request: \"POST %s HTTP/2.0\", upstream: \"http://10.0.5.22:9000%s\", host: \"api.northwind.example\"", "error", conn, ip, p, p)
		case k < 62:
			l = fmt.Sprintf(head+"*%d an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/%d/%02d/00000%05d while reading upstream, client: %s, server: api.northwind.example, request: \"GET /v1/orders/export?format=csv HTTP/1.1\", upstream: \"http://10.0.5.21:9000/v1/orders/export?format=csv\", host: \"api.northwind.example\"", "warn", conn, r.IntN(10), r.IntN(100), r.IntN(99999), ip)
		case k < 72:
			l = fmt.Sprintf(head+"*%d SSL_do_handshake() failed (SSL: error:0A00006C:SSL routines::bad key share) while SSL handshaking, client: %s, server: 0.0.0.0:443", "crit", conn, ip)
		case k < 80:
			l = fmt.Sprintf(head+"*%d limiting requests, excess: %d.%03d by zone \"api_per_ip\", client: %s, server: api.northwind.example, request: \"GET %s HTTP/1.1\", host: \"api.northwind.example\"", "error", conn, 20+r.IntN(10), r.IntN(1000), ip, p)
		case k < 86:
			l = fmt.Sprintf(head+"*%d client intended to send too large body: %d bytes, client: %s, server: api.northwind.example, request: \"POST /v1/invoices/upload HTTP/1.1\", host: \"api.northwind.example\"", "error", conn, 10485760+r.IntN(30000000), ip)
		case k < 90:
			l = fmt.Sprintf(head+"1024 worker_connections are not enough", "alert")
		case k < 95:
			fn := fPick(r, []string{"favicon.ico", "apple-touch-icon-precomposed.png", "sitemap.xml", "ads.txt"})
			l = fmt.Sprintf(head+"*%d open() \"/srv/www/api-docs/%s\" failed (2: No such file or directory), client: %s, server: api.northwind.example, request: \"GET /%s HTTP/1.1\", host: \"api.northwind.example\"", "error", conn, fn, ip, fn)
		default:
			l = fmt.Sprintf(head+"signal process started", "notice")
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// fMakeWeblog5 is an Apache access log (combined with %D) of an internal
// billing API, with one upload that was too large.
func fMakeWeblog5() (string, error) {
	r := seeded("f-weblog-5")
	t := fBase.Add(33 * time.Hour)
	users := []string{"-", "-", "svc-crm", "svc-shop", "jnovak", "lfischer"}
	var lines []string
	for len(lines) < 210 {
		t = t.Add(time.Duration(r.ExpFloat64() * float64(40*time.Second)))
		ip := fmt.Sprintf("10.20.%d.%d", r.IntN(6), 2+r.IntN(200))
		u := fPick(r, users)
		inv := fmt.Sprintf("INV-2026-%05d", 10000+r.IntN(9000))
		var req string
		status, size := 200, 300+r.IntN(8000)
		switch k := r.IntN(10); {
		case k < 4:
			req = "GET /api/v2/invoices/" + inv + " HTTP/1.1"
		case k < 6:
			req = fmt.Sprintf("GET /api/v2/invoices?customer=%d&status=open HTTP/1.1", 100000+r.IntN(9000))
		case k < 7:
			req, status = "PUT /api/v2/invoices/"+inv+"/attachments HTTP/1.1", 201
		case k < 8:
			req, status, size = "GET /api/v2/invoices/"+inv+"/pdf HTTP/1.1", 200, 40000+r.IntN(200000)
		case k < 9:
			req, status, size = "POST /api/v2/payments HTTP/1.1", fPick(r, []int{201, 201, 422, 409}), 200+r.IntN(400)
		default:
			req, status, size, u = "GET /api/v2/health HTTP/1.1", 200, 17, "-"
		}
		if u == "-" && req != "GET /api/v2/health HTTP/1.1" {
			status, size = 401, 381
		}
		lines = append(lines, fmt.Sprintf("%s - %s [%s] \"%s\" %d %d \"-\" \"%s\" %d", ip, u, t.Format("02/Jan/2006:15:04:05 -0700"), req, status, size, fPick(r, []string{"python-requests/2.32.3", "Apache-HttpClient/4.5.14 (Java/17.0.13)", "Go-http-client/1.1"}), 800+r.IntN(400000)))
	}
	i := 137
	ts := lines[i][strings.Index(lines[i], "[")+1 : strings.Index(lines[i], "]")]
	lines = fInsert(lines, i+1, fmt.Sprintf("10.20.3.14 - billing-export [%s] \"PUT /api/v2/invoices/INV-2026-18873/attachments HTTP/1.1\" 413 491 \"-\" \"python-requests/2.32.3\" 5123", ts))
	return strings.Join(lines, "\n") + "\n", nil
}

// ---------------------------------------------------------------------
// paged fixed-width reports

func fMoney(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	s := fmt.Sprint(cents / 100)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	s = fmt.Sprintf("%s.%02d", s, cents%100)
	if neg {
		s += "-"
	} else {
		s += " "
	}
	return s
}

type fARRow struct {
	no, rep int
	name    string
	b       [5]int64 // current, 1-30, 31-60, 61-90, over 90
}

func (a fARRow) total() int64 { return a.b[0] + a.b[1] + a.b[2] + a.b[3] + a.b[4] }

var fARWords = [][]string{
	{"LAKESIDE", "MIDWEST", "GREAT PLAINS", "PRAIRIE", "RIVERBEND", "NORTHSHORE", "IRONWOOD", "CEDAR", "TRI-STATE", "KEYSTONE", "SUMMIT", "PIONEER", "HERITAGE", "LIBERTY", "FOX VALLEY", "BLUE RIDGE", "ALLIED", "UNITED", "CONTINENTAL", "CENTRAL", "SOUTHLAND", "HARBOR", "MESA", "GRANITE", "COPPER", "ELMWOOD", "OAKRIDGE", "BADGER", "HAWKEYE", "WABASH", "MAUMEE", "KANKAKEE", "ROCK RIVER", "DES PLAINES", "CALUMET", "LINCOLNWAY", "QUAD CITY", "TWIN CITY", "GATEWAY", "FRONTIER"},
	{"MACHINE WORKS", "HYDRAULICS", "ELECTRIC SUPPLY", "TOOL & DIE", "FASTENER", "WELDING SUPPLY", "FLUID POWER", "MILL SUPPLY", "BEARING & DRIVE", "PLASTICS", "METAL FAB", "INDUSTRIAL", "CONTROLS", "PACKAGING", "AUTOMATION", "FOUNDRY", "COATINGS", "MATERIAL HANDLING", "PUMP & VALVE", "AIR SYSTEMS", "CONVEYOR", "GEAR", "SPRING", "STAMPING"},
	{"INC", "LLC", "CO", "CORP", "INC", "LLC", "LTD", ""},
}

func fARName(r *rand.Rand) string {
	var n string
	if r.IntN(4) == 0 {
		n = strings.ToUpper(fPick(r, fLast)) + fPick(r, []string{" & SONS", " BROS", " MFG", " SUPPLY"})
	} else {
		n = fPick(r, fARWords[0]) + " " + fPick(r, fARWords[1])
	}
	if s := fPick(r, fARWords[2]); s != "" {
		n += " " + s
	}
	if len(n) > 30 {
		n = n[:30]
	}
	return n
}

func fARRows(r *rand.Rand, n int) []fARRow {
	rows := make([]fARRow, n)
	no := 100100
	for i := range rows {
		no += 1 + r.IntN(7)
		a := fARRow{no: no, rep: 1 + r.IntN(24), name: fARName(r)}
		for k := range a.b {
			if r.IntN(100) < []int{70, 45, 25, 15, 10}[k] {
				a.b[k] = int64(r.ExpFloat64() * []float64{420000, 250000, 150000, 90000, 60000}[k])
			}
		}
		if r.IntN(60) == 0 {
			a.b[0] = -int64(r.IntN(90000))
		}
		rows[i] = a
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].rep != rows[j].rep {
			return rows[i].rep < rows[j].rep
		}
		return rows[i].no < rows[j].no
	})
	return rows
}

// fARReport renders an aged trial balance as a line printer report:
// pages of 60 lines, each after a form feed.
func fARReport(rows []fARRow, run time.Time, branch string) string {
	var b strings.Builder
	page, line := 0, 99
	head := func() {
		page++
		if page > 1 {
			b.WriteString("\f")
		}
		fmt.Fprintf(&b, "RUN DATE %s  RUN TIME %s        NORTHWIND INDUSTRIAL SUPPLY CO.                                     PAGE %5d\n", run.Format("01/02/06"), run.Format("15:04:05"), page)
		fmt.Fprintf(&b, "PROGRAM AR310                            ACCOUNTS RECEIVABLE AGED TRIAL BALANCE                          AS OF %s\n", run.AddDate(0, 0, -1).Format("01/02/06"))
		fmt.Fprintf(&b, "                                         %-40s\n\n", branch)
		b.WriteString(" CUST NO  CUSTOMER NAME                   SLS       CURRENT     1-30 DAYS    31-60 DAYS    61-90 DAYS       OVER 90      TOTAL DUE\n")
		b.WriteString(" -------  ------------------------------  ---  ------------  ------------  ------------  ------------  ------------  ------------\n")
		line = 6
	}
	amounts := func(v [5]int64, tot int64) string {
		s := ""
		for _, x := range v {
			s += fmt.Sprintf("%14s", fMoney(x))
		}
		return s + fmt.Sprintf("%14s", fMoney(tot))
	}
	var repSum, all [5]int64
	count := 0
	for i, a := range rows {
		if line >= 58 {
			head()
		}
		fmt.Fprintf(&b, " %7d  %-30s  %3d%s\n", a.no, a.name, a.rep, amounts(a.b, a.total()))
		line++
		count++
		for k := range a.b {
			repSum[k] += a.b[k]
			all[k] += a.b[k]
		}
		if i+1 == len(rows) || rows[i+1].rep != a.rep {
			if line >= 56 {
				head()
			}
			var t int64
			for _, x := range repSum {
				t += x
			}
			fmt.Fprintf(&b, "%-45s%s\n\n", fmt.Sprintf("          ** SALESREP %02d TOTAL", a.rep), amounts(repSum, t))
			line += 2
			repSum = [5]int64{}
		}
	}
	if line >= 54 {
		head()
	}
	var t int64
	for _, x := range all {
		t += x
	}
	fmt.Fprintf(&b, "\n%-45s%s\n", "          *** REPORT TOTAL ***", amounts(all, t))
	fmt.Fprintf(&b, "          CUSTOMERS LISTED: %d\n\n                                         *** END OF REPORT AR310 ***\n", count)
	return b.String()
}

func fMakeFixed1() (string, error) {
	r := seeded("f-fixed-1")
	rows := fARRows(r, 30500)
	i := int(0.71 * float64(len(rows)))
	p := fARRow{no: rows[i].no + 1, rep: rows[i].rep, name: "HALVORSEN MARINE SUPPLY LLC", b: [5]int64{0, 118250, 0, 230075, 481240}}
	if i+1 < len(rows) && rows[i+1].no == p.no {
		p.no = rows[i].no
		rows[i].no--
	}
	rows = append(rows[:i+1], append([]fARRow{p}, rows[i+1:]...)...)
	return fARReport(rows, time.Date(2026, 12, 1, 2, 14, 7, 0, time.UTC), "BRANCH 04 - CHICAGO"), nil
}

func fMakeFixed3() (string, error) {
	r := seeded("f-fixed-3")
	return fARReport(fARRows(r, 1500), time.Date(2026, 11, 2, 1, 58, 40, 0, time.UTC), "BRANCH 11 - INDIANAPOLIS"), nil
}

func fMakeFixed4() (string, error) {
	r := seeded("f-fixed-4")
	return fARReport(fARRows(r, 190), time.Date(2026, 10, 1, 2, 3, 12, 0, time.UTC), "BRANCH 07 - MILWAUKEE"), nil
}

// fMakeFixed2 is a software inventory report of the Python packages
// pyenv's interpreters have.
func fMakeFixed2() (string, error) {
	ds, err := fDists()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	page, line := 0, 99
	run := time.Date(2026, 11, 27, 6, 0, 3, 0, time.UTC)
	for i, d := range ds {
		if line >= 56 {
			page++
			if page > 1 {
				b.WriteString("\f")
			}
			fmt.Fprintf(&b, "%-30s%-50s%s%5d\n", "INVREP 2.4", "SOFTWARE INVENTORY - PYTHON DISTRIBUTIONS", "PAGE ", page)
			fmt.Fprintf(&b, "%-30s%-50s%s\n", "HOST: build-07.ci.northwind", "SOURCE: site-packages/*.dist-info/METADATA", run.Format("2006-01-02 15:04 MST"))
			b.WriteString("\n")
			fmt.Fprintf(&b, "%-4s %-9s %-28s %-14s %-30s %-22s %s\n", "SEQ", "PYTHON", "DISTRIBUTION", "VERSION", "LICENSE", "REQUIRES-PYTHON", "SUMMARY")
			fmt.Fprintf(&b, "%-4s %-9s %-28s %-14s %-30s %-22s %s\n", "----", "---------", strings.Repeat("-", 28), strings.Repeat("-", 14), strings.Repeat("-", 30), strings.Repeat("-", 22), strings.Repeat("-", 40))
			line = 5
		}
		lic, req, sum := d.license, d.requires, d.summary
		if len(lic) > 30 {
			lic = lic[:30]
		}
		if req == "" {
			req = "-"
		}
		if len(req) > 22 {
			req = req[:22]
		}
		if len(sum) > 60 {
			sum = sum[:57] + "..."
		}
		fmt.Fprintf(&b, "%04d %-9s %-28s %-14s %-30s %-22s %s\n", i+1, d.py, d.name, d.version, lic, req, sum)
		line++
	}
	fmt.Fprintf(&b, "\n     DISTRIBUTIONS LISTED: %d\n     *** END OF INVREP ***\n", len(ds))
	return b.String(), nil
}

// ---------------------------------------------------------------------
// TSV

func fMakeTSV1() (string, error) {
	r := seeded("f-tsv-1")
	meters := make([]string, 96)
	sites := make([]string, len(meters))
	for i := range meters {
		meters[i] = fmt.Sprintf("MTR-%06d", 300000+r.IntN(99999))
		if meters[i] == "MTR-448210" {
			meters[i] = "MTR-448211"
		}
		sites[i] = fmt.Sprintf("%s-%02d", fPick(r, []string{"ROT", "DEL", "UTR", "EIN", "ZWO"}), 1+r.IntN(12))
	}
	var lines []string
	lines = append(lines, "interval_start\tinterval_end\tmeter_id\tsite\tkwh_import\tkwh_export\tvoltage_l1_v\tpower_factor\tquality")
	t := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	for len(lines) < 36000 {
		for i, m := range meters {
			if r.IntN(5) != 0 {
				continue
			}
			imp := r.ExpFloat64() * 1.8
			exp := 0.0
			if h := t.Hour(); h > 8 && h < 17 && i%3 == 0 {
				exp = r.Float64() * 2.5
			}
			q := "OK"
			switch k := r.IntN(200); {
			case k < 6:
				q = "EST"
			case k < 8:
				q = "GAP"
			case k < 9:
				q = "VOLT_SAG"
			}
			lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.1f\t%.2f\t%s", t.Format("2006-01-02T15:04:05Z"), t.Add(15*time.Minute).Format("2006-01-02T15:04:05Z"), m, sites[i], imp, exp, 225+r.Float64()*12, 0.82+r.Float64()*0.17, q))
		}
		t = t.Add(15 * time.Minute)
	}
	i := int(0.44 * float64(len(lines)))
	f := strings.Split(lines[i], "\t")
	lines = fInsert(lines, i+1, fmt.Sprintf("%s\t%s\tMTR-448210\tDEL-07\t0.000\t0.000\t231.4\t0.00\tTAMPER", f[0], f[1]))
	return strings.Join(lines, "\n") + "\n", nil
}

func fMakeTSV2() (string, error) {
	ds, err := fDists()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("python\tdistribution\tversion\tlicense\trequires_python\tsummary\thome_page\n")
	for _, d := range ds {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.py, d.name, d.version, d.license, d.requires, d.summary, d.home)
	}
	return b.String(), nil
}

// fMakeTSV3 is an inventory of the Go files in the module cache.
func fMakeTSV3() (string, error) {
	root := "/root/go/pkg/mod"
	var b strings.Builder
	b.WriteString("module\tversion\tfile\tpackage\tlines\tbytes\tfuncs\ttest\n")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == filepath.Join(root, "cache") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || b.Len() > 1600000 {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		at := strings.Index(rel, "@")
		if at < 0 {
			return nil
		}
		slash := strings.Index(rel[at:], "/")
		if slash < 0 {
			return nil
		}
		mod, ver, file := rel[:at], rel[at+1:at+slash], rel[at+slash+1:]
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		s := string(data)
		pkg := "-"
		for _, l := range strings.SplitN(s, "\n", 200) {
			if strings.HasPrefix(l, "package ") {
				pkg = strings.Fields(l)[1]
				break
			}
		}
		test := "no"
		if strings.HasSuffix(file, "_test.go") {
			test = "yes"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", mod, ver, file, pkg, strings.Count(s, "\n"), len(data), strings.Count(s, "\nfunc "), test)
		return nil
	})
	return b.String(), err
}

// fMakeTSV4 is a bank account's statement export.
func fMakeTSV4() (string, error) {
	r := seeded("f-tsv-4")
	type cp struct {
		name, iban, ref string
		lo, hi          float64
	}
	pay := []cp{
		{"REWE Markt GmbH", "DE37 3704 0044 0532 0130 00", "Kartenzahlung girocard", -95, -8},
		{"EDEKA Center Kroll", "DE11 5005 0201 0200 2045 73", "Kartenzahlung girocard", -80, -6},
		{"dm-drogerie markt", "DE98 6605 0101 0010 1085 21", "Kartenzahlung girocard", -45, -4},
		{"DB Vertrieb GmbH", "DE02 1007 0000 0123 4567 00", "Online-Ticket Auftrag", -149, -19},
		{"Stadtwerke Koeln GmbH", "DE71 3705 0198 0001 8033 28", "Abschlag Strom/Gas Vertragskonto", -138, -138},
		{"Vodafone GmbH", "DE45 3004 0000 0617 4711 00", "Kundennummer 1189 2377 Rechnung", -39.99, -39.99},
		{"Amazon EU S.a.r.l.", "DE87 3007 0010 0640 8230 00", "Bestellung 302-", -120, -9},
		{"Spotify AB", "DE29 1001 0010 0925 1121 05", "Spotify Premium", -10.99, -10.99},
		{"Techniker Krankenkasse", "DE63 2004 1111 0141 1500 00", "Zusatzbeitrag", -18.6, -18.6},
		{"Lieferando.de", "DE94 1001 1001 2621 6472 47", "Bestellung", -42, -14},
		{"Aral Tankstelle 4471", "DE19 3004 0000 0417 7112 00", "Kartenzahlung girocard", -85, -30},
		{"PayPal Europe S.a.r.l.", "DE88 5001 0000 0142 3412 00", "PP.4471.PP . ", -90, -5},
	}
	t := time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)
	var lines []string
	lines = append(lines, "Booking date\tValue date\tTransaction type\tCounterparty\tCounterparty IBAN\tReference\tAmount (EUR)")
	row := func(t time.Time, typ, name, iban, ref string, amt float64) string {
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s", t.Format("02.01.2006"), t.AddDate(0, 0, r.IntN(2)).Format("02.01.2006"), typ, name, iban, ref, strings.Replace(fmt.Sprintf("%.2f", amt), ".", ",", 1))
	}
	for t.Before(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)) {
		if t.Day() == 1 {
			lines = append(lines, row(t, "Dauerauftrag", "Hausverwaltung Brandt & Peters", "DE52 3705 0198 1932 0147 01", "Miete Wohnung 3.OG links", -1140))
		}
		if t.Day() == 27 {
			lines = append(lines, row(t, "Gutschrift", "Lindqvist Software GmbH", "DE12 3804 0007 0120 9955 00", fmt.Sprintf("Gehalt %s", t.Format("01/2006")), 3874.12))
		}
		for k := r.IntN(3); k > 0; k-- {
			c := fPick(r, pay)
			amt := c.lo + r.Float64()*(c.hi-c.lo)
			ref := c.ref
			switch c.name {
			case "Amazon EU S.a.r.l.":
				ref += fmt.Sprintf("%07d-%07d", r.IntN(9999999), r.IntN(9999999))
			case "DB Vertrieb GmbH", "Lieferando.de":
				ref += " " + strings.ToUpper(fHex(r, 6))
			}
			typ := "Lastschrift"
			if strings.HasPrefix(ref, "Kartenzahlung") {
				typ = "Kartenzahlung"
			}
			lines = append(lines, row(t, typ, c.name, c.iban, ref, amt))
		}
		t = t.AddDate(0, 0, 1)
	}
	i := int(0.57 * float64(len(lines)))
	f := strings.Split(lines[i], "\t")
	lines = fInsert(lines, i+1, fmt.Sprintf("%s\t%s\tGutschrift\tDB Fernverkehr AG\tDE26 1007 0000 0600 8822 00\tErstattung Fahrgastrechte Auftrag 7HK2QX\t89,90", f[0], f[1]))
	return strings.Join(lines, "\n") + "\n", nil
}

// fMakeTSV5 is a lab's result sheet for one study visit.
func fMakeTSV5() (string, error) {
	r := seeded("f-tsv-5")
	type an struct {
		name, unit, ref string
		lo, hi          float64
		prec            int
	}
	analytes := []an{{"Sodium", "mmol/L", "135-145", 132, 147, 0}, {"Potassium", "mmol/L", "3.5-5.1", 3.3, 5.4, 1}, {"Creatinine", "umol/L", "59-104", 50, 120, 0}, {"ALT", "U/L", "7-56", 8, 70, 0}, {"Glucose", "mmol/L", "3.9-5.6", 3.8, 8.2, 1}, {"Hemoglobin", "g/dL", "12.0-17.5", 11.2, 17.8, 1}}
	var lines []string
	lines = append(lines, "sample_id\tsubject\tvisit\tcollected_at\tanalyte\tresult\tunit\treference_range\tflag\tcomment")
	t := time.Date(2026, 11, 9, 7, 30, 0, 0, time.UTC)
	for s := 0; s < 38; s++ {
		sid := fmt.Sprintf("LAB-26-%05d", 41020+s*3)
		subj := fmt.Sprintf("S-%04d", 100+r.IntN(300))
		t = t.Add(time.Duration(4+r.IntN(20)) * time.Minute)
		for _, a := range analytes {
			v := a.lo + r.Float64()*(a.hi-a.lo)
			fmt.Sscanf(fmt.Sprintf("%.*f", a.prec, v), "%g", &v)
			flag := ""
			var lo, hi float64
			fmt.Sscanf(strings.Replace(a.ref, "-", " ", 1), "%g %g", &lo, &hi)
			if v < lo {
				flag = "L"
			} else if v > hi {
				flag = "H"
			}
			lines = append(lines, fmt.Sprintf("%s\t%s\tV3\t%s\t%s\t%.*f\t%s\t%s\t%s\t", sid, subj, t.Format("2006-01-02 15:04"), a.name, a.prec, v, a.unit, a.ref, flag))
		}
	}
	i := 6 * 23
	f := strings.Split(lines[i], "\t")
	lines = fInsert(lines, i+1,
		fmt.Sprintf("LAB-26-41097\tS-0288\tV3\t%s\tPotassium\t6.8\tmmol/L\t3.5-5.1\tH\tsample hemolysed - recollect", f[3]))
	return strings.Join(lines, "\n") + "\n", nil
}

// ---------------------------------------------------------------------
// SQL dumps

type fPgTable struct {
	name    string
	cols    []string // column definitions; the first is the key
	rows    [][]string
	seq     bool
	indexes []string
	fks     []string
}

// fPgBool is a boolean as COPY writes it.
func fPgBool(b bool) string {
	if b {
		return "t"
	}
	return "f"
}

func fColName(def string) string { return strings.Fields(def)[0] }

// fPgDump renders tables as pg_dump's plain format does.
func fPgDump(version, owner string, tables []fPgTable) string {
	var b strings.Builder
	b.WriteString(pgDumpHead(version))
	for _, t := range tables {
		fmt.Fprintf(&b, "--\n-- Name: %s; Type: TABLE; Schema: public; Owner: %s\n--\n\nCREATE TABLE public.%s (\n    %s\n);\n\n\nALTER TABLE public.%s OWNER TO %s;\n\n", t.name, owner, t.name, strings.Join(t.cols, ",\n    "), t.name, owner)
		if t.seq {
			s := t.name + "_" + fColName(t.cols[0]) + "_seq"
			fmt.Fprintf(&b, "--\n-- Name: %s; Type: SEQUENCE; Schema: public; Owner: %s\n--\n\nCREATE SEQUENCE public.%s\n    AS integer\n    START WITH 1\n    INCREMENT BY 1\n    NO MINVALUE\n    NO MAXVALUE\n    CACHE 1;\n\n\nALTER SEQUENCE public.%s OWNER TO %s;\n\n", s, owner, s, s, owner)
			fmt.Fprintf(&b, "--\n-- Name: %s; Type: SEQUENCE OWNED BY; Schema: public; Owner: %s\n--\n\nALTER SEQUENCE public.%s OWNED BY public.%s.%s;\n\n\n", s, owner, s, t.name, fColName(t.cols[0]))
		}
	}
	for _, t := range tables {
		if t.seq {
			c := fColName(t.cols[0])
			fmt.Fprintf(&b, "--\n-- Name: %s %s; Type: DEFAULT; Schema: public; Owner: %s\n--\n\nALTER TABLE ONLY public.%s ALTER COLUMN %s SET DEFAULT nextval('public.%s_%s_seq'::regclass);\n\n\n", t.name, c, owner, t.name, c, t.name, c)
		}
	}
	for _, t := range tables {
		names := make([]string, len(t.cols))
		for i, c := range t.cols {
			names[i] = fColName(c)
		}
		fmt.Fprintf(&b, "--\n-- Data for Name: %s; Type: TABLE DATA; Schema: public; Owner: %s\n--\n\nCOPY public.%s (%s) FROM stdin;\n", t.name, owner, t.name, strings.Join(names, ", "))
		for _, r := range t.rows {
			b.WriteString(strings.Join(r, "\t"))
			b.WriteByte('\n')
		}
		b.WriteString("\\.\n\n\n")
	}
	for _, t := range tables {
		if t.seq {
			fmt.Fprintf(&b, "--\n-- Name: %s_%s_seq; Type: SEQUENCE SET; Schema: public; Owner: %s\n--\n\nSELECT pg_catalog.setval('public.%s_%s_seq', %d, true);\n\n\n", t.name, fColName(t.cols[0]), owner, t.name, fColName(t.cols[0]), len(t.rows))
		}
	}
	for _, t := range tables {
		fmt.Fprintf(&b, "--\n-- Name: %s %s_pkey; Type: CONSTRAINT; Schema: public; Owner: %s\n--\n\nALTER TABLE ONLY public.%s\n    ADD CONSTRAINT %s_pkey PRIMARY KEY (%s);\n\n\n", t.name, t.name, owner, t.name, t.name, fColName(t.cols[0]))
	}
	for _, t := range tables {
		for _, ix := range t.indexes {
			name := strings.Fields(ix)[0]
			fmt.Fprintf(&b, "--\n-- Name: %s; Type: INDEX; Schema: public; Owner: %s\n--\n\nCREATE INDEX %s;\n\n\n", name, owner, ix)
		}
	}
	for _, t := range tables {
		for _, fk := range t.fks {
			name := strings.Fields(fk)[0]
			fmt.Fprintf(&b, "--\n-- Name: %s %s; Type: FK CONSTRAINT; Schema: public; Owner: %s\n--\n\nALTER TABLE ONLY public.%s\n    ADD CONSTRAINT %s;\n\n\n", t.name, name, owner, t.name, fk)
		}
	}
	b.WriteString("--\n-- PostgreSQL database dump complete\n--\n\n")
	return b.String()
}

var fMailDomains = []string{"gmail.com", "web.de", "outlook.com", "proton.me", "yahoo.fr", "gmx.at", "icloud.com", "t-online.de", "hotmail.co.uk", "libero.it", "wp.pl", "seznam.cz"}

func fMakeSQL1() (string, error) {
	r := seeded("f-sql-1")
	countries := []string{"DE", "DE", "DE", "AT", "CH", "NL", "FR", "IT", "PL", "CZ", "DK", "SE", "BE", "ES"}
	cust := fPgTable{name: "customers", seq: true, cols: []string{"id integer NOT NULL", "email character varying(254) NOT NULL", "full_name character varying(120) NOT NULL", "country_code character(2) NOT NULL", "marketing_opt_in boolean DEFAULT false NOT NULL", "created_at timestamp with time zone DEFAULT now() NOT NULL"}, indexes: []string{"customers_email_idx ON public.customers USING btree (lower((email)::text))"}}
	t := time.Date(2021, 3, 4, 9, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for i := 1; i <= 26000; i++ {
		f, l := fPick(r, fFirst), fPick(r, fLast)
		email := strings.ToLower(f + "." + l)
		for k := 2; seen[email+"@"]; k++ {
			email = strings.ToLower(fmt.Sprintf("%s.%s%d", f, l, k))
		}
		seen[email+"@"] = true
		t = t.Add(time.Duration(r.ExpFloat64() * float64(110*time.Minute)))
		cust.rows = append(cust.rows, []string{fmt.Sprint(i), email + "@" + fPick(r, fMailDomains), f + " " + l, fPick(r, countries), fPgBool(r.IntN(3) == 0), t.Format("2006-01-02 15:04:05.000000-07")})
	}
	k := int(0.62 * float64(len(cust.rows)))
	cust.rows[k][1], cust.rows[k][2], cust.rows[k][3] = "ingrid.solberg@fjordpost.no", "Ingrid Solberg", "NO"
	prod := fPgTable{name: "products", seq: true, cols: []string{"id integer NOT NULL", "sku character varying(32) NOT NULL", "name text NOT NULL", "price_cents integer NOT NULL", "stock integer DEFAULT 0 NOT NULL", "active boolean DEFAULT true NOT NULL"}}
	for i := 1; i <= 640; i++ {
		w := fARWords[1][r.IntN(len(fARWords[1]))]
		prod.rows = append(prod.rows, []string{fmt.Sprint(i), fmt.Sprintf("NW-%04d-%s", 1000+i, strings.ToUpper(fHex(r, 2))), fTitle(strings.ToLower(fmt.Sprintf("%s %s %d", fPick(r, []string{"Steel", "Brass", "Nylon", "Heavy-duty", "Compact", "Stainless", "Industrial", "Precision"}), w, 10*(1+r.IntN(40))))), fmt.Sprint(199 + r.IntN(40000)), fmt.Sprint(r.IntN(400)), fPgBool(r.IntN(20) != 0)})
	}
	ord := fPgTable{name: "orders", seq: true, cols: []string{"id integer NOT NULL", "customer_id integer NOT NULL", "status character varying(16) DEFAULT 'pending'::character varying NOT NULL", "total_cents integer NOT NULL", "currency character(3) DEFAULT 'EUR'::bpchar NOT NULL", "placed_at timestamp with time zone DEFAULT now() NOT NULL"}, indexes: []string{"orders_customer_id_idx ON public.orders USING btree (customer_id)"}, fks: []string{"orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES public.customers(id)"}}
	t = time.Date(2021, 3, 5, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 24000; i++ {
		t = t.Add(time.Duration(r.ExpFloat64() * float64(100*time.Minute)))
		ord.rows = append(ord.rows, []string{fmt.Sprint(i), fmt.Sprint(1 + r.IntN(26000)), fPick(r, []string{"delivered", "delivered", "delivered", "shipped", "cancelled", "refunded", "pending", "paid"}), fmt.Sprint(500 + r.IntN(90000)), "EUR", t.Format("2006-01-02 15:04:05.000000-07")})
	}
	items := fPgTable{name: "order_items", seq: true, cols: []string{"id integer NOT NULL", "order_id integer NOT NULL", "product_id integer NOT NULL", "quantity integer NOT NULL", "unit_price_cents integer NOT NULL"}, fks: []string{"order_items_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id) ON DELETE CASCADE", "order_items_product_id_fkey FOREIGN KEY (product_id) REFERENCES public.products(id)"}}
	for i := 1; i <= 52000; i++ {
		items.rows = append(items.rows, []string{fmt.Sprint(i), fmt.Sprint(1 + (i*24000)/52000), fmt.Sprint(1 + r.IntN(640)), fmt.Sprint(1 + r.IntN(6)), fmt.Sprint(199 + r.IntN(40000))})
	}
	return fPgDump("15.14", "shop", []fPgTable{cust, items, ord, prod}), nil
}

func fMakeSQL2() (string, error) {
	r := seeded("f-sql-2")
	makes := [][2]string{{"Mercedes-Benz", "Sprinter 316 CDI"}, {"Ford", "Transit Custom"}, {"Volkswagen", "Crafter 35"}, {"Iveco", "Daily 35S14"}, {"Renault", "Master L3H2"}, {"MAN", "TGE 3.180"}, {"Fiat", "Ducato Maxi"}}
	depots := []string{"HAM-Billbrook", "BRE-Hemelingen", "HAN-Lahe", "KIE-Wellsee"}
	veh := fPgTable{name: "vehicles", seq: true, cols: []string{"id integer NOT NULL", "plate character varying(12) NOT NULL", "vin character(17) NOT NULL", "make text NOT NULL", "model text NOT NULL", "model_year smallint NOT NULL", "depot text NOT NULL", "retired_on date"}}
	for i := 1; i <= 180; i++ {
		m := fPick(r, makes)
		ret := `\N`
		if r.IntN(12) == 0 {
			ret = fmt.Sprintf("2025-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
		}
		veh.rows = append(veh.rows, []string{fmt.Sprint(i), fmt.Sprintf("%s-NW %d", fPick(r, []string{"HH", "HB", "H", "KI"}), 100+r.IntN(8900)), strings.ToUpper("W" + fHex(r, 16))[:17], m[0], m[1], fmt.Sprint(2016 + r.IntN(10)), fPick(r, depots), ret})
	}
	drv := fPgTable{name: "drivers", seq: true, cols: []string{"id integer NOT NULL", "full_name text NOT NULL", "licence_class character varying(4) DEFAULT 'C1'::character varying NOT NULL", "hired_on date NOT NULL"}}
	for i := 1; i <= 240; i++ {
		drv.rows = append(drv.rows, []string{fmt.Sprint(i), fPick(r, fFirst) + " " + fPick(r, fLast), fPick(r, []string{"B", "C1", "C1", "C"}), fmt.Sprintf("20%02d-%02d-%02d", 12+r.IntN(14), 1+r.IntN(12), 1+r.IntN(28))})
	}
	trips := fPgTable{name: "trips", seq: true, cols: []string{"id integer NOT NULL", "vehicle_id integer NOT NULL", "driver_id integer NOT NULL", "started_at timestamp with time zone NOT NULL", "ended_at timestamp with time zone", "distance_km numeric(7,1)", "stops smallint DEFAULT 0 NOT NULL"}, fks: []string{"trips_vehicle_id_fkey FOREIGN KEY (vehicle_id) REFERENCES public.vehicles(id)", "trips_driver_id_fkey FOREIGN KEY (driver_id) REFERENCES public.drivers(id)"}, indexes: []string{"trips_vehicle_started_idx ON public.trips USING btree (vehicle_id, started_at)"}}
	t := time.Date(2026, 6, 1, 5, 0, 0, 0, time.UTC)
	for i := 1; i <= 9000; i++ {
		t = t.Add(time.Duration(r.ExpFloat64() * float64(25*time.Minute)))
		d := time.Duration(2+r.IntN(9)) * time.Hour
		trips.rows = append(trips.rows, []string{fmt.Sprint(i), fmt.Sprint(1 + r.IntN(180)), fmt.Sprint(1 + r.IntN(240)), t.Format("2006-01-02 15:04:05+00"), t.Add(d).Format("2006-01-02 15:04:05+00"), fmt.Sprintf("%.1f", 20+r.Float64()*380), fmt.Sprint(r.IntN(40))})
	}
	mnt := fPgTable{name: "maintenance_log", seq: true, cols: []string{"id integer NOT NULL", "vehicle_id integer NOT NULL", "performed_on date NOT NULL", "odometer_km integer NOT NULL", "kind text NOT NULL", "interval_km integer DEFAULT 15000 NOT NULL", "workshop text", "cost_eur numeric(9,2)", "notes text"}, fks: []string{"maintenance_log_vehicle_id_fkey FOREIGN KEY (vehicle_id) REFERENCES public.vehicles(id)"}}
	kinds := []string{"oil service", "brake pads front", "tyres (winter)", "tyres (summer)", "HU/AU inspection", "AdBlue sensor", "clutch", "battery", "wipers"}
	for i := 1; i <= 1400; i++ {
		k := fPick(r, kinds)
		iv := "15000"
		if k == "HU/AU inspection" {
			iv = "0"
		} else if k == "oil service" && r.IntN(3) == 0 {
			iv = "30000"
		}
		mnt.rows = append(mnt.rows, []string{fmt.Sprint(i), fmt.Sprint(1 + r.IntN(180)), fmt.Sprintf("2026-%02d-%02d", 1+r.IntN(11), 1+r.IntN(28)), fmt.Sprint(8000 + r.IntN(300000)), k, iv, fPick(r, []string{"ATU Billbrook", "Bosch Car Service Hemelingen", "MB Nutzfahrzeuge Nord", `\N`}), fmt.Sprintf("%.2f", 60+r.Float64()*1800), `\N`})
	}
	return fPgDump("15.14", "fleet", []fPgTable{drv, mnt, trips, veh}), nil
}

func fMakeSQL5() (string, error) {
	mods, err := fModules()
	if err != nil {
		return "", err
	}
	t := fPgTable{name: "go_modules", seq: true, cols: []string{"id integer NOT NULL", "module_path text NOT NULL", "version text NOT NULL", "published_at timestamp with time zone NOT NULL", "vendored boolean DEFAULT false NOT NULL"}, indexes: []string{"go_modules_path_version_idx ON public.go_modules USING btree (module_path, version)"}}
	r := seeded("f-sql-5")
	for i, m := range mods {
		t.rows = append(t.rows, []string{fmt.Sprint(i + 1), m.path, m.version, m.t.Format("2006-01-02 15:04:05+00"), fPgBool(r.IntN(9) == 0)})
	}
	return fPgDump("15.14", "depsbot", []fPgTable{t}), nil
}

type fMyTable struct {
	name, create string
	rows         []string // each a parenthesized tuple
}

// fMyDump renders tables as mysqldump does for MariaDB.
func fMyDump(db string, tables []fMyTable, done time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- MariaDB dump 10.19  Distrib 10.11.14-MariaDB, for debian-linux-gnu (x86_64)\n--\n-- Host: localhost    Database: %s\n-- ------------------------------------------------------\n-- Server version\t10.11.14-MariaDB-0+deb12u2\n\n", db)
	b.WriteString("/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;\n/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;\n/*!40101 SET NAMES utf8mb4 */;\n/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n/*!40103 SET TIME_ZONE='+00:00' */;\n/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;\n/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;\n/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;\n\n")
	for _, t := range tables {
		fmt.Fprintf(&b, "--\n-- Table structure for table `%s`\n--\n\nDROP TABLE IF EXISTS `%s`;\n/*!40101 SET @saved_cs_client     = @@character_set_client */;\n/*!40101 SET character_set_client = utf8 */;\n%s;\n/*!40101 SET character_set_client = @saved_cs_client */;\n\n", t.name, t.name, t.create)
		fmt.Fprintf(&b, "--\n-- Dumping data for table `%s`\n--\n\nLOCK TABLES `%s` WRITE;\n/*!40000 ALTER TABLE `%s` DISABLE KEYS */;\n", t.name, t.name, t.name)
		for i := 0; i < len(t.rows); i += 60 {
			j := min(i+60, len(t.rows))
			fmt.Fprintf(&b, "INSERT INTO `%s` VALUES %s;\n", t.name, strings.Join(t.rows[i:j], ","))
		}
		fmt.Fprintf(&b, "/*!40000 ALTER TABLE `%s` ENABLE KEYS */;\nUNLOCK TABLES;\n\n", t.name)
	}
	b.WriteString("/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;\n\n/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;\n/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;\n/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;\n/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;\n/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;\n/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;\n/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;\n\n")
	fmt.Fprintf(&b, "-- Dump completed on %s\n", done.Format("2006-01-02 15:04:05"))
	return b.String()
}

func fTitle(s string) string {
	w := strings.Fields(s)
	for i, x := range w {
		w[i] = strings.ToUpper(x[:1]) + x[1:]
	}
	return strings.Join(w, " ")
}

func fSQLQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// fMakeSQL3 is a small wiki's dump.
func fMakeSQL3() (string, error) {
	r := seeded("f-sql-3")
	topics := []string{"Runbooks", "Onboarding", "Architecture", "Postmortems", "Services", "Howto"}
	things := []string{"Postgres_failover", "Redis_cache", "Nginx_gateway", "Order_pipeline", "Invoice_PDFs", "VPN_access", "Backups", "Deploys", "Feature_flags", "Carrier_APIs", "Search_index", "Payment_webhooks", "Log_retention", "On-call", "Secrets_rotation", "DNS", "Queue_workers", "Warehouse_scanners", "Tax_rates", "Price_import"}
	var pages, revs, users []string
	nUsers := 23
	for i := 1; i <= nUsers; i++ {
		f, l := fPick(r, fFirst), fPick(r, fLast)
		users = append(users, fmt.Sprintf("(%d,%s,%s,'2026%02d%02d%02d%02d%02d',%d)", i, fSQLQuote(f+l[:1]), fSQLQuote(strings.ToLower(f+"."+l)+"@northwind.example"), 1+r.IntN(10), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(900)))
	}
	rev := 0
	id := 0
	seen := map[string]bool{}
	for len(pages) < 210 {
		title := fPick(r, topics) + "/" + fPick(r, things)
		if r.IntN(3) == 0 {
			title += fmt.Sprintf("_(%d)", 2019+r.IntN(8))
		}
		if seen[title] {
			continue
		}
		seen[title] = true
		id += 1 + r.IntN(4)
		n := 1 + r.IntN(5)
		for k := 0; k < n; k++ {
			rev++
			revs = append(revs, fmt.Sprintf("(%d,%d,%d,'2026%02d%02d%02d%02d%02d',%d,%s)", rev, id, 1+r.IntN(nUsers), 1+r.IntN(10), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), 200+r.IntN(20000), fSQLQuote(fPick(r, []string{"", "typo", "update steps for the new cluster", "link to dashboard", "add rollback section", "clarify", "moved from Confluence"}))))
		}
		pages = append(pages, fmt.Sprintf("(%d,0,%s,%d,%d,'2026%02d%02d%02d%02d%02d',%d)", id, fSQLQuote(title), map[bool]int{true: 1, false: 0}[r.IntN(15) == 0], 200+r.IntN(20000), 1+r.IntN(10), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), rev))
	}
	pageAI := id + 3
	revAI := rev + 1
	return fMyDump("wiki", []fMyTable{
		{name: "page", create: fmt.Sprintf("CREATE TABLE `page` (\n  `page_id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n  `page_namespace` int(11) NOT NULL DEFAULT 0,\n  `page_title` varbinary(255) NOT NULL,\n  `page_is_redirect` tinyint(3) unsigned NOT NULL DEFAULT 0,\n  `page_len` int(10) unsigned NOT NULL,\n  `page_touched` binary(14) NOT NULL,\n  `page_latest` int(10) unsigned NOT NULL,\n  PRIMARY KEY (`page_id`),\n  UNIQUE KEY `page_name_title` (`page_namespace`,`page_title`),\n  KEY `page_len` (`page_len`)\n) ENGINE=InnoDB AUTO_INCREMENT=%d DEFAULT CHARSET=binary", pageAI), rows: pages},
		{name: "revision", create: fmt.Sprintf("CREATE TABLE `revision` (\n  `rev_id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n  `rev_page` int(10) unsigned NOT NULL,\n  `rev_actor` bigint(20) unsigned NOT NULL DEFAULT 0,\n  `rev_timestamp` binary(14) NOT NULL,\n  `rev_len` int(10) unsigned DEFAULT NULL,\n  `rev_comment` varbinary(767) NOT NULL DEFAULT '',\n  PRIMARY KEY (`rev_id`),\n  KEY `rev_page_timestamp` (`rev_page`,`rev_timestamp`),\n  KEY `rev_actor_timestamp` (`rev_actor`,`rev_timestamp`,`rev_id`)\n) ENGINE=InnoDB AUTO_INCREMENT=%d DEFAULT CHARSET=binary", revAI), rows: revs},
		{name: "user", create: fmt.Sprintf("CREATE TABLE `user` (\n  `user_id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n  `user_name` varbinary(255) NOT NULL DEFAULT '',\n  `user_email` tinyblob NOT NULL,\n  `user_touched` binary(14) NOT NULL,\n  `user_editcount` int(11) DEFAULT NULL,\n  PRIMARY KEY (`user_id`),\n  UNIQUE KEY `user_name` (`user_name`)\n) ENGINE=InnoDB AUTO_INCREMENT=%d DEFAULT CHARSET=binary", nUsers+1), rows: users},
	}, time.Date(2026, 11, 28, 3, 15, 2, 0, time.UTC)), nil
}

// fMakeSQL4 is a CRM's dump.
func fMakeSQL4() (string, error) {
	r := seeded("f-sql-4")
	var users, contacts, deals []string
	names := map[string]bool{}
	for i := 1; i <= 60; i++ {
		f, l := fPick(r, fFirst), fPick(r, fLast)
		u := strings.ToLower(f[:1] + l)
		if names[u] {
			continue
		}
		names[u] = true
		users = append(users, fmt.Sprintf("(%d,%s,%s,%s,'2026-%02d-%02d %02d:%02d:%02d',%d)", len(users)+1, fSQLQuote(u), fSQLQuote(strings.ToLower(f+"."+l)+"@northwind.example"), fSQLQuote("$2y$12$"+fB64(r, 53)), 1+r.IntN(10), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), map[bool]int{true: 1, false: 0}[r.IntN(10) == 0]))
	}
	for i := 1; i <= 2600; i++ {
		f, l := fPick(r, fFirst), fPick(r, fLast)
		co := fARName(r)
		contacts = append(contacts, fmt.Sprintf("(%d,%s,%s,%s,%s,%s,%d,'2025-%02d-%02d %02d:%02d:00')", i, fSQLQuote(f), fSQLQuote(l), fSQLQuote(strings.ToLower(f+"."+l)+"@"+strings.ToLower(strings.ReplaceAll(strings.Fields(co)[0], "&", ""))+".example"), fSQLQuote(fmt.Sprintf("+49 %d %d", 30+r.IntN(900), 100000+r.IntN(8999999))), fSQLQuote(co), 1+r.IntN(len(users)), 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60)))
	}
	for i := 1; i <= 1500; i++ {
		deals = append(deals, fmt.Sprintf("(%d,%d,%s,%d.00,%s,'2026-%02d-%02d')", i, 1+r.IntN(2600), fSQLQuote(fPick(r, []string{"Annual supply contract", "Spare parts framework", "Pilot order", "Service agreement", "Conveyor retrofit", "Tooling upgrade"})), 1000*(1+r.IntN(400)), fSQLQuote(fPick(r, []string{"lead", "qualified", "proposal", "won", "lost"})), 1+r.IntN(11), 1+r.IntN(28)))
	}
	return fMyDump("crm", []fMyTable{
		{name: "contacts", create: fmt.Sprintf("CREATE TABLE `contacts` (\n  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n  `first_name` varchar(80) NOT NULL,\n  `last_name` varchar(80) NOT NULL,\n  `email` varchar(254) DEFAULT NULL,\n  `phone` varchar(40) DEFAULT NULL,\n  `company` varchar(160) DEFAULT NULL,\n  `owner_id` int(10) unsigned NOT NULL,\n  `created_at` datetime NOT NULL DEFAULT current_timestamp(),\n  PRIMARY KEY (`id`),\n  KEY `idx_contacts_owner` (`owner_id`),\n  CONSTRAINT `fk_contacts_owner` FOREIGN KEY (`owner_id`) REFERENCES `users` (`id`)\n) ENGINE=InnoDB AUTO_INCREMENT=%d DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci", len(contacts)+1), rows: contacts},
		{name: "deals", create: fmt.Sprintf("CREATE TABLE `deals` (\n  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n  `contact_id` int(10) unsigned NOT NULL,\n  `title` varchar(200) NOT NULL,\n  `amount_eur` decimal(12,2) NOT NULL DEFAULT 0.00,\n  `stage` enum('lead','qualified','proposal','won','lost') NOT NULL DEFAULT 'lead',\n  `expected_close` date DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `idx_deals_contact` (`contact_id`)\n) ENGINE=InnoDB AUTO_INCREMENT=%d DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci", len(deals)+1), rows: deals},
		{name: "users", create: fmt.Sprintf("CREATE TABLE `users` (\n  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n  `username` varchar(64) NOT NULL,\n  `email` varchar(254) NOT NULL,\n  `password_hash` varchar(255) NOT NULL,\n  `created_at` datetime NOT NULL DEFAULT current_timestamp(),\n  `is_admin` tinyint(1) NOT NULL DEFAULT 0,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `uq_users_username` (`username`)\n) ENGINE=InnoDB AUTO_INCREMENT=%d DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci", 61), rows: users},
	}, time.Date(2026, 11, 29, 1, 0, 4, 0, time.UTC)), nil
}

// ---------------------------------------------------------------------
// mailboxes

type fMail struct {
	t                          time.Time
	name, addr, to, subject    string
	id, reply, refs, list, via string
	headers                    []string
	body                       string
}

func fRenderMbox(ms []fMail) string {
	var b strings.Builder
	for _, m := range ms {
		via := m.via
		if via == "" {
			host := fmt.Sprintf("mail-%s.outbound.protection.outlook.com", strings.ToLower(strings.Trim(m.id[1:9], "<>@.")))
			via = host + " (" + host + " [40.107.22.91])"
		}
		fmt.Fprintf(&b, "From %s %s\n", m.addr, m.t.Format("Mon Jan _2 15:04:05 2006"))
		if m.list != "" {
			fmt.Fprintf(&b, "Return-Path: <%s-bounces@lists.northwind.example>\n", m.list)
			via = "lists.northwind.example (lists.northwind.example [10.0.0.25])"
		} else {
			fmt.Fprintf(&b, "Return-Path: <%s>\n", m.addr)
		}
		rt := m.t.Add(time.Duration(1+len(m.body)%5) * time.Second)
		h := fnv.New64a()
		h.Write([]byte(m.id))
		fmt.Fprintf(&b, "Received: from %s\n\tby mx1.northwind.example (Postfix) with ESMTPS id 4%X\n\tfor <me@northwind.example>; %s (UTC)\n", via, h.Sum64()>>24, rt.Format(time.RFC1123Z))
		fmt.Fprintf(&b, "Date: %s\n", m.t.Format(time.RFC1123Z))
		if m.name != "" {
			fmt.Fprintf(&b, "From: %s <%s>\n", m.name, m.addr)
		} else {
			fmt.Fprintf(&b, "From: %s\n", m.addr)
		}
		fmt.Fprintf(&b, "To: %s\nSubject: %s\nMessage-ID: %s\n", m.to, m.subject, m.id)
		if m.reply != "" {
			fmt.Fprintf(&b, "In-Reply-To: %s\nReferences: %s\n", m.reply, m.refs)
		}
		if m.list != "" {
			fmt.Fprintf(&b, "List-Id: %s <%s.lists.northwind.example>\nList-Unsubscribe: <https://lists.northwind.example/mailman/options/%s>,\n <mailto:%s-request@lists.northwind.example?subject=unsubscribe>\nList-Post: <mailto:%s@lists.northwind.example>\nPrecedence: list\n", map[string]string{"eng": "Engineering discussion", "ops": "Operations"}[m.list], m.list, m.list, m.list, m.list)
		}
		for _, h := range m.headers {
			b.WriteString(h + "\n")
		}
		b.WriteString("MIME-Version: 1.0\nContent-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: 8bit\n\n")
		for _, l := range strings.Split(strings.TrimRight(m.body, "\n"), "\n") {
			if strings.HasPrefix(l, "From ") {
				l = ">" + l
			}
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// fParagraphs are prose paragraphs of the READMEs in the Go module cache.
func fParagraphs() ([]string, error) {
	var names []string
	filepath.WalkDir("/root/go/pkg/mod", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "cache" || d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "README.md" {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			continue
		}
	para:
		for _, p := range strings.Split(strings.ReplaceAll(string(b), "\r", ""), "\n\n") {
			p = strings.TrimSpace(p)
			if len(p) < 140 || len(p) > 700 || strings.ContainsAny(p, "{}\t\"") || strings.Contains(p, "](") || strings.Contains(p, "][") || strings.Contains(p, "```") || strings.Contains(p, ":=") || !strings.HasSuffix(p, ".") || len(strings.Fields(p)) < 20 {
				continue
			}
			for _, l := range strings.Split(p, "\n") {
				if l == "" || strings.ContainsAny(l[:1], "#|<![-*>=") || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "From ") {
					continue para
				}
			}
			out = append(out, p)
		}
	}
	if len(out) < 50 {
		return nil, fmt.Errorf("only %d paragraphs", len(out))
	}
	return out, nil
}

// fWrap wraps text at 72 columns as a mail client does.
func fWrap(s string) string {
	var out []string
	for _, para := range strings.Split(s, "\n\n") {
		words := strings.Fields(para)
		line := ""
		var lines []string
		for _, w := range words {
			if line != "" && len(line)+1+len(w) > 72 {
				lines = append(lines, line)
				line = w
			} else if line == "" {
				line = w
			} else {
				line += " " + w
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return strings.Join(out, "\n\n")
}

var fReplies = []string{
	"Sounds good to me.",
	"+1, but let's wait until after the release freeze.",
	"I ran the integration suite against staging with this change; all green.",
	"Can we get a benchmark before and after? The last bump cost us about 8% on the checkout path.",
	"Who owns this on the platform side?",
	"Filed a ticket so we don't lose track of it.",
	"I'd rather pin the version until upstream fixes the regression.",
	"Agreed. I'll open the PR today.",
	"Not opposed, but the changelog mentions a breaking change in the options struct.",
	"Does this interact with the Go 1.26 toolchain upgrade?",
	"Let's discuss in Thursday's platform sync.",
	"We hit the same thing in the invoicing service last month, see the postmortem in the wiki.",
}

var fOpeners = []string{
	"We're planning to move to %s %s next sprint. Objections, or things we should test first?",
	"Has anyone looked at %s %s yet? The shop build pulls it in through two paths.",
	"I'd like opinions on %s (%s) before we commit to it for the checkout rewrite.",
	"Dependabot opened a PR for %s %s. Here's the relevant bit from upstream.",
	"Before the freeze I want to settle what we do about %s; the mirror has %s now.",
}

var fQuoting = []string{"Quoting the upstream README below, since not everyone will click through:", "For context, this is what upstream says about it:", "From the upstream docs:"}

var fSubjects = []string{"Upgrading %s to %s", "[RFC] drop %s before %s?", "CI flakes in tests that use %s (%s)", "%s %s: anything to watch out for?", "Heads-up: %s %s is out", "Vendoring %s at %s?", "Question about %s %s and context cancellation", "Security review of %s %s"}

type fPerson struct{ name, addr string }

func fPeople(r *rand.Rand, n int, domain string) []fPerson {
	var ps []fPerson
	seen := map[string]bool{}
	for len(ps) < n {
		f, l := fPick(r, fFirst), fPick(r, fLast)
		a := strings.ToLower(f + "." + l + "@" + domain)
		if seen[a] {
			continue
		}
		seen[a] = true
		ps = append(ps, fPerson{f + " " + l, a})
	}
	return ps
}

// fListMails is an engineering mailing list's traffic, about n messages
// from fBase on.
func fListMails(id, list string, n int, gap time.Duration) ([]fMail, error) {
	mods, err := fModules()
	if err != nil {
		return nil, err
	}
	paras, err := fParagraphs()
	if err != nil {
		return nil, err
	}
	r := seeded(id)
	people := fPeople(r, 16, "northwind.example")
	t := fBase.Add(8 * time.Hour)
	var ms []fMail
	for len(ms) < n {
		m := fPick(r, mods)
		subj := fmt.Sprintf("[%s] "+fPick(r, fSubjects), list, m.path, m.version)
		var prev *fMail
		var prevOwn string
		var refs []string
		k := 1 + r.IntN(7)
		for i := 0; i < k; i++ {
			t = t.Add(time.Duration(r.ExpFloat64() * float64(gap)))
			if h := t.Hour(); h < 7 || h > 19 {
				t = t.Add(time.Duration(11) * time.Hour)
			}
			p := fPick(r, people)
			mail := fMail{t: t, name: p.name, addr: p.addr, to: list + "@lists.northwind.example", subject: subj, id: fmt.Sprintf("<%s.%s@%s>", strings.ToUpper(fHex(r, 12)), fHex(r, 8), strings.Split(p.addr, "@")[1]), list: list}
			first := strings.Fields(p.name)[0]
			var own, body string
			if prev == nil {
				own = fmt.Sprintf("Hi all,\n\n%s\n\n%s", fWrap(fmt.Sprintf(fPick(r, fOpeners), m.path, m.version)), fWrap(fPick(r, paras)))
				body = own + "\n\n-- \n" + first + "\n"
			} else {
				mail.subject = "Re: " + subj
				mail.reply = prev.id
				refs = append(refs, prev.id)
				mail.refs = strings.Join(refs, " ")
				q := strings.Split(prevOwn, "\n")
				if len(q) > 7 {
					q = q[:7]
				}
				for i, l := range q {
					q[i] = strings.TrimRight("> "+l, " ")
				}
				own = fWrap(fPick(r, fReplies))
				if r.IntN(2) == 0 {
					own += "\n\n" + fPick(r, fQuoting) + "\n\n" + fWrap(fPick(r, paras))
				}
				body = fmt.Sprintf("On %s, %s wrote:\n%s\n\n%s\n\n-- \n%s\n", prev.t.Format("Mon, 2 Jan 2006 at 15:04"), prev.name, strings.Join(q, "\n"), own, first)
			}
			prevOwn = own
			mail.body = body
			ms = append(ms, mail)
			prev = &ms[len(ms)-1]
		}
	}
	return ms, nil
}

// fPlantMail puts m among ms at depth, dated like its neighbour.
func fPlantMail(ms []fMail, depth float64, m fMail) []fMail {
	i := int(depth * float64(len(ms)))
	m.t = ms[i].t.Add(3 * time.Minute)
	out := append([]fMail{}, ms[:i+1]...)
	out = append(out, m)
	return append(out, ms[i+1:]...)
}

func fMakeMbox1() (string, error) {
	ms, err := fListMails("f-mbox-1", "eng", 2900, 10*time.Minute)
	if err != nil {
		return "", err
	}
	ms = fPlantMail(ms, 0.47, fMail{name: "Nadia Lindqvist", addr: "nadia.lindqvist@northwind.example", to: "eng@lists.northwind.example", list: "eng", subject: "[eng] Maintenance: db-primary failover moved", id: "<8F2C41D09A77.6b1e20c4@northwind.example>", body: "Hi all,\n\nquick update from the DBA side: the db-primary failover we announced for\nthis weekend is postponed, the new storage shelf arrived late. It is now\nscheduled for Saturday 12 December at 02:00 UTC. Expect about 20 minutes\nof read-only mode for the shop and the CRM while the replica is promoted.\n\nThe runbook is unchanged (Runbooks/Postgres_failover in the wiki). Ping me\nif your team has a batch job in that window.\n\n-- \nNadia\nDBA team\n"})
	return fRenderMbox(ms), nil
}

func fMakeMbox3() (string, error) {
	ms, err := fListMails("f-mbox-3", "eng", 330, 25*time.Minute)
	if err != nil {
		return "", err
	}
	return fRenderMbox(ms), nil
}

func fMakeMbox5() (string, error) {
	ms, err := fListMails("f-mbox-5", "ops", 2000, 15*time.Minute)
	if err != nil {
		return "", err
	}
	ms = fPlantMail(ms, 0.81, fMail{name: "Tomasz Keller", addr: "tomasz.keller@northwind.example", to: "ops@lists.northwind.example", list: "ops", subject: "[ops] New VPN gateway - please update your WireGuard config", id: "<1D7E0B93C2A4.f30a8812@northwind.example>", body: "Hi everyone,\n\nthe old gateway vpn.northwind.example will be switched off on Monday.\nPlease point your WireGuard peer at the new endpoint before then:\n\n    Endpoint = vpn-gw2.northwind.example:51820\n    AllowedIPs = 10.0.0.0/12\n\nYour keys stay the same, only the endpoint changes. If you use the\nmacOS app, edit the tunnel and replace the endpoint line.\n\n-- \nTomasz\nNetwork ops\n"})
	return fRenderMbox(ms), nil
}

// fMakeMbox2 is one person's inbox: code review notifications, cron
// mail, newsletters, shop mail and one renewal reminder.
func fMakeMbox2() (string, error) {
	mods, err := fModules()
	if err != nil {
		return "", err
	}
	r := seeded("f-mbox-2")
	people := fPeople(r, 9, "northwind.example")
	t := fBase.Add(-20 * 24 * time.Hour)
	var ms []fMail
	pr := 2310
	for len(ms) < 620 {
		t = t.Add(time.Duration(r.ExpFloat64() * float64(55*time.Minute)))
		id := fmt.Sprintf("<%s@%s>", fHex(r, 24), "mail.example")
		var m fMail
		switch k := r.IntN(100); {
		case k < 40:
			p := fPick(r, people)
			pr += r.IntN(3)
			title := fPick(r, []string{"Fix cart rounding for CHF", "Bump %s to %s", "Retry carrier API on 429", "Move invoice PDFs to object storage", "Add OTel spans to checkout", "Drop legacy coupon table"})
			if strings.Contains(title, "%s") {
				md := fPick(r, mods)
				title = fmt.Sprintf(title, md.path, md.version)
			}
			login := strings.ToLower(strings.ReplaceAll(p.name, " ", "-"))
			m = fMail{name: p.name, addr: "notifications@github.com", to: "northwind/shop <shop@noreply.github.com>", subject: fmt.Sprintf("Re: [northwind/shop] %s (PR #%d)", title, pr), id: id, via: "out-21.smtp.github.com (out-21.smtp.github.com [192.30.252.204])", headers: []string{"X-GitHub-Reason: review_requested", "X-GitHub-Sender: " + login}, body: fmt.Sprintf("@%s commented on this pull request.\n\n%s\n\n-- \nReply to this email directly, view it on GitHub:\nhttps://github.com/northwind/shop/pull/%d#issuecomment-%d\nYou are receiving this because your review was requested.\n", login, fWrap(fPick(r, fReplies)), pr, 2400000000+r.IntN(99999999))}
		case k < 60:
			host := fPick(r, []string{"shop-web-02", "shop-worker-01", "shop-db-01"})
			cmd := fPick(r, []string{"/usr/local/bin/sync-assets --quiet", "/usr/local/sbin/pg-dump-nightly", "/usr/local/bin/prune-sessions"})
			out := fmt.Sprintf("%s: %d files checked, %d updated, %d errors\n", strings.Fields(cmd)[0], 1000+r.IntN(9000), r.IntN(40), 0)
			if strings.Contains(cmd, "pg-dump") {
				out = fmt.Sprintf("pg_dump: dumped database shop (%d MB) to /var/backups/pg/shop-%s.sql.zst\n", 300+r.IntN(200), t.Format("20060102"))
			}
			m = fMail{name: "Cron Daemon", addr: "root@" + host + ".northwind.example", to: "me@northwind.example", subject: fmt.Sprintf("Cron <deploy@%s> %s", host, cmd), id: id, via: host + ".northwind.example (" + host + " [10.0.1." + fmt.Sprint(10+r.IntN(40)) + "])", headers: []string{"X-Cron-Env: <SHELL=/bin/sh>", "X-Cron-Env: <HOME=/home/deploy>", "X-Cron-Env: <LOGNAME=deploy>"}, body: out}
		case k < 72:
			var lines []string
			for i := 0; i < 8; i++ {
				md := fPick(r, mods)
				lines = append(lines, fmt.Sprintf("* %s %s (released %s)", md.path, md.version, md.t.Format("2 Jan 2006")))
			}
			m = fMail{name: "Go Releases Digest", addr: "digest@gorelease-digest.example", to: "me@northwind.example", subject: fmt.Sprintf("This week in Go modules: %d new releases you depend on", 8), id: id, body: "Here are this week's releases of modules in your go.sum files:\n\n" + strings.Join(lines, "\n") + "\n\nManage your subscription: https://gorelease-digest.example/settings\n"}
		case k < 86:
			order := fmt.Sprintf("302-%07d-%07d", r.IntN(9999999), r.IntN(9999999))
			if r.IntN(2) == 0 {
				m = fMail{name: "Amazon.de", addr: "bestellbestaetigung@amazon.de", to: "me@northwind.example", subject: "Ihre Amazon.de Bestellung von \"" + fPick(r, []string{"USB-C Dockingstation", "Kabelbinder 300 Stueck", "Logitech MX Keys", "Schreibtischlampe LED", "Druckerpapier A4 2500 Blatt"}) + "\" und weiteren Artikeln", id: id, body: fmt.Sprintf("Hallo,\n\nvielen Dank fuer Ihre Bestellung %s.\nVoraussichtliche Zustellung: %s\n\nGesamtbetrag: EUR %d,%02d\n", order, t.AddDate(0, 0, 2).Format("Monday, 02.01."), 10+r.IntN(200), r.IntN(100))}
			} else {
				m = fMail{name: "DHL Paket", addr: "noreply@dhl.de", to: "me@northwind.example", subject: "Ihre DHL Sendung kommt heute", id: id, body: fmt.Sprintf("Sendungsnummer: 00340434%d%d\nAbsender: Amazon EU S.a.r.l.\nZustellung heute zwischen %d:00 und %d:00 Uhr.\n", 100000+r.IntN(899999), 1000+r.IntN(8999), 9+r.IntN(5), 14+r.IntN(5))}
			}
		default:
			p := fPick(r, people)
			m = fMail{name: p.name, addr: p.addr, to: "me@northwind.example", subject: fPick(r, []string{"Lunch on Thursday?", "Re: on-call swap next week", "Slides from the architecture review", "Re: budget for the load-test cluster", "Quick question about the invoice export"}), id: id, body: fWrap(fPick(r, fReplies)) + "\n\n-- \n" + strings.Fields(p.name)[0] + "\n"}
		}
		m.t = t
		ms = append(ms, m)
	}
	i := int(0.36 * float64(len(ms)))
	ms = append(ms[:i], append([]fMail{{t: ms[i].t.Add(time.Minute), name: "Gandi", addr: "noreply@gandi.net", to: "me@northwind.example", subject: "Renewal reminder: lindqvist-bakery.se", id: "<renewal.6c1f0a77e2@gandi.net>", via: "mail3.gandi.net (mail3.gandi.net [217.70.178.132])", body: "Hello,\n\nThe domain name lindqvist-bakery.se is registered in your account\nand will expire on 2027-01-14.\n\nAutomatic renewal is not enabled for this domain. To keep it, renew it\nbefore that date from your dashboard:\nhttps://admin.gandi.net/domain/\n\nAfter expiry the domain enters a 30-day redemption period.\n\nThe Gandi team\n"}}, ms[i:]...)...)
	return fRenderMbox(ms), nil
}

// fMakeMbox4 is a folder of CI notification mail.
func fMakeMbox4() (string, error) {
	r := seeded("f-mbox-4")
	people := fPeople(r, 6, "northwind.example")
	t := fBase.Add(8 * time.Hour)
	var ms []fMail
	pipe := 1817
	msgs := []string{"Bump go-redis to v9.23.0", "Retry carrier API on 429", "Add index on orders.customer_id", "Fix CHF rounding in cart totals", "Render packing slips in the worker", "Update OTel exporters", "Drop legacy coupon table", "Cache product images for 1h"}
	for i := 0; i < 40; i++ {
		t = t.Add(time.Duration(20+r.IntN(200)) * time.Minute)
		pipe += 1 + r.IntN(2)
		p := fPick(r, people)
		sha := fHex(r, 8)
		msg := fPick(r, msgs)
		status, jobs := "passed", fmt.Sprintf("had %d jobs, all passed.", 6)
		if i == 23 {
			sha, msg, p = "3f9c2ab1", "Switch session store to Redis cluster", people[2]
			status, jobs = "failed", "had 1 failed job.\n\nFailed job: test:integration (stage: test)\n    --- FAIL: TestCheckoutSessionSurvivesFailover (31.02s)\n        session_test.go:88: redis: CROSSSLOT Keys in request don't hash to the same slot"
		}
		ms = append(ms, fMail{t: t, name: "GitLab", addr: "gitlab@git.northwind.example", to: "me@northwind.example", subject: fmt.Sprintf("northwind/shop | Pipeline #%d has %s for main | %s", pipe, status, sha), id: fmt.Sprintf("<pipeline_%d_%s@git.northwind.example>", pipe, status), via: "git.northwind.example (git.northwind.example [10.0.0.31])", headers: []string{"X-GitLab-Project: shop", "X-GitLab-Pipeline-Id: " + fmt.Sprint(pipe), "X-GitLab-Pipeline-Status: " + status}, body: fmt.Sprintf("Pipeline #%d has %s!\n\nProject: northwind / shop\nBranch: main\nCommit: %s %s\nCommit Author: %s\n\nPipeline #%d triggered by %s\n%s\n\nhttps://git.northwind.example/northwind/shop/-/pipelines/%d\n", pipe, status, sha, msg, p.name, pipe, p.name, jobs, pipe)})
	}
	return fRenderMbox(ms), nil
}

// ---------------------------------------------------------------------
// the cases

const (
	fPyenvSite = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages"
	fGsutil3p  = "/usr/lib/google-cloud-sdk/platform/gsutil/third_party"
	fGoMod     = "/root/go/pkg/mod"
	fYAMLv3    = fGoMod + "/gopkg.in/yaml.v3@v3.0.1"
)

var freshF = []devCase{
	// /etc config files
	{ID: "f-conf-1", Kind: "conf", Form: "fact",
		Files:    []string{"/etc/java-17-openjdk/security/java.security"},
		Question: "If a hostname lookup fails, how long does Java remember that failure before it asks DNS again?",
		Answers:  []string{"10", "10 seconds", "ten seconds", "10s"}},
	{ID: "f-conf-2", Kind: "conf", Form: "fact", Deliver: "each",
		Files:    []string{"/etc/java-17-openjdk/logging.properties", "/etc/java-17-openjdk/management/management.properties", "/etc/java-17-openjdk/net.properties"},
		Question: "java.util.logging FileHandler: at what size does it start writing a new log file?",
		Answers:  []string{"50000", "50000 bytes", "50,000 bytes", "50,000"}},
	{ID: "f-conf-3", Kind: "conf", Form: "fact", Deliver: "inline-after",
		Files:    []string{"/etc/ssl/openssl.cnf"},
		Question: "Signing with the CA section of this openssl config, how many days is a new certificate good for?",
		Answers:  []string{"365", "365 days", "one year", "1 year"}},
	{ID: "f-conf-4", Kind: "conf", Form: "config", Deliver: "each",
		Files:    []string{"/etc/default/useradd", "/etc/vim/vimrc", "/etc/apparmor.d/usr.bin.man"},
		Needle:   "# Lock accounts 30 days after their password expires (SEC-114).\nINACTIVE=30\n",
		Depth:    0.1035524,
		Question: "For new accounts made with useradd, how many days after the password expires does the account get disabled?",
		Answers:  []string{"30", "30 days", "thirty days"}},
	{ID: "f-conf-5", Kind: "conf", Form: "absent", Deliver: "each",
		Files:    []string{"/etc/mysql/mariadb.cnf", "/etc/mysql/my.cnf.fallback", "/etc/mysql/conf.d/mysqldump.cnf"},
		Question: "How big is the InnoDB buffer pool set to in these MariaDB configs?"},

	// C headers
	{ID: "f-header-1", Kind: "header", Form: "fact",
		Files:    []string{"/usr/include/yaml.h"},
		Question: "When libyaml emits a mapping that has no explicit tag, which tag does it fall back to?",
		Answers:  []string{"tag:yaml.org,2002:map", "YAML_MAP_TAG", "!!map"}},
	{ID: "f-header-2", Kind: "header", Form: "fact", Deliver: "each",
		Files:    []string{"/usr/include/bzlib.h", "/usr/include/idn2.h", "/usr/include/magic.h"},
		Question: "per libidn2, max length of a single DNS label?",
		Answers:  []string{"63", "63 bytes", "63 characters", "63 octets"}},
	{ID: "f-header-3", Kind: "header", Form: "comment", Deliver: "files",
		Files:    []string{"/usr/include/X11/*.h", "/usr/include/X11/extensions/*.h", "/usr/include/GL/*.h"},
		Needle:   "\n/* Northwind kiosk build: cap the number of unflushed Xlib requests so the\n * touch panel never stalls the compositor (KIOSK-412). */\n#define XKIOSK_MAX_PENDING_REQUESTS 384\n",
		Depth:    0.3822496,
		Question: "Our kiosk patch to the X headers caps pending Xlib requests at how many?",
		Answers:  []string{"384"}},
	{ID: "f-header-4", Kind: "header", Form: "absent", Deliver: "inline",
		Files:    []string{"/usr/include/expat.h"},
		Question: "What is expat's default activation threshold, in bytes, for the billion laughs protection?"},
	{ID: "f-header-5", Kind: "header", Form: "fact",
		Files:    []string{"/usr/include/libtasn1.h"},
		Question: "I'm naming ASN.1 elements in a definitions file. How long can a name be in libtasn1 before it's too long?",
		Answers:  []string{"64", "64 bytes", "64 characters"}},

	// shell scripts
	{ID: "f-shell-1", Kind: "shell", Form: "fact",
		Files:    []string{"/root/.pyenv/plugins/python-build/bin/python-build"},
		Question: "When python-build can't work out the number of CPU cores, what count does it fall back to for make -j?",
		Answers:  []string{"2", "two", "2 cores"}},
	{ID: "f-shell-2", Kind: "shell", Form: "fact", Deliver: "each",
		Files:    []string{"/usr/share/postgresql-common/pgdg/apt.postgresql.org.sh", fGoMod + "/github.com/traefik/yaegi@v0.16.1/install.sh", fGoMod + "/github.com/tetratelabs/wazero@v1.12.0/site/static/install.sh"},
		Question: "Which file does the PGDG repository script write the apt source into unless told otherwise with -f?",
		Answers:  []string{"/etc/apt/sources.list.d/pgdg.sources", "pgdg.sources"}},
	{ID: "f-shell-3", Kind: "shell", Form: "comment", Deliver: "each",
		Files:    []string{"/usr/lib/perf-core/tests/shell/daemon.sh", "/usr/lib/perf-core/tests/shell/stat+csv_output.sh", "/usr/lib/perf-core/tests/shell/test_intel_pt.sh"},
		Needle:   "# CI runners have a small /tmp: keep perf.data under 512 MB (INFRA-2291)\nperf_data_limit_mb=${PERF_DATA_LIMIT_MB:-512}\n",
		Depth:    0.5098231,
		Question: "How big may perf.data get in these perf test scripts?",
		Answers:  []string{"512 MB", "512", "512MB", "512 megabytes"}},
	{ID: "f-shell-4", Kind: "shell", Form: "absent", Deliver: "inline",
		Files:    []string{fGoMod + "/golang.org/x/sys@v0.49.0/unix/mkerrors.sh"},
		Question: "Which Docker image is mkerrors.sh supposed to run in?"},
	{ID: "f-shell-5", Kind: "shell", Form: "fact", Deliver: "inline-after",
		Files:    []string{"/usr/lib/google-cloud-sdk/platform/google_appengine/google/appengine/tools/java/jetty12/jetty-home/bin/jetty.sh"},
		Question: "Out of the box, how many seconds will jetty.sh wait for Jetty to report it started?",
		Answers:  []string{"60", "60 seconds", "sixty seconds", "1 minute"}},

	// Markdown lists
	{ID: "f-mdlist-1", Kind: "mdlist", Form: "fact",
		Files:    []string{"/root/.pyenv/README.md"},
		Question: "For Python 3.6.15, pyenv's extended-support patches target which macOS version and newer?",
		Answers:  []string{"MacOS 11+", "macOS 11", "MacOS 11", "Big Sur"}},
	{ID: "f-mdlist-2", Kind: "mdlist", Form: "fact", Deliver: "each",
		Files:    []string{fGoMod + "/github.com/google/uuid@v1.6.0/CHANGELOG.md", fGoMod + "/go.uber.org/atomic@v1.12.0/CHANGELOG.md", fGoMod + "/github.com/prometheus/common@v0.72.0/CHANGELOG.md"},
		Question: "Which release of uber-go/atomic first had a Float32 type?",
		Answers:  []string{"1.10.0", "v1.10.0"}},
	{ID: "f-mdlist-3", Kind: "mdlist", Form: "fact",
		Files:    []string{fGoMod + "/github.com/labstack/echo/v5@v5.3.1/CHANGELOG.md"},
		Question: "until when does echo v4 still get security fixes?",
		Answers:  []string{"2026-12-31", "31 December 2026", "December 31, 2026", "end of 2026"}},
	{ID: "f-mdlist-4", Kind: "mdlist", Form: "list", Deliver: "files",
		Files:    []string{fGoMod + "/github.com/*/*@*/*.md", fGoMod + "/github.com/*/*/*@*/*.md", fGoMod + "/golang.org/x/*@*/*.md", fGoMod + "/google.golang.org/*@*/*.md", fGoMod + "/gopkg.in/*@*/*.md", fGoMod + "/go.uber.org/*@*/*.md"},
		Needle:   "* **Known issue (northwind):** connections through the `corp-egress` proxy are dropped after 300 s idle; keep `ConnMaxIdleTime` below that (NW-3318).\n",
		Depth:    0.55,
		Question: "How long can a connection sit idle behind corp-egress before it gets dropped?",
		Answers:  []string{"300 s", "300 seconds", "300s", "5 minutes", "five minutes"}},
	{ID: "f-mdlist-5", Kind: "mdlist", Form: "fact", Deliver: "each",
		Files:    []string{"/root/.pyenv/COMMANDS.md", "/root/.pyenv/CONTRIBUTING.md", "/root/.pyenv/MAINTENANCE.md"},
		Question: "Contributors: what's the newest Bash version pyenv code may rely on?",
		Answers:  []string{"Bash 3.2", "3.2"}},

	// systemd journals
	{ID: "f-journal-1", Kind: "journal", Form: "journal", Make: fMakeJournal1,
		Question: "Which systemd service did the OOM killer take down?",
		Answers:  []string{"reportgen.service", "reportgen"}},
	{ID: "f-journal-2", Kind: "journal", Form: "fact", Make: fMakeJournal2,
		Question: "What kernel was ci-runner-07 booted with here?",
		Answers:  []string{"6.1.0-41-amd64", "6.1.158-1", "6.1.158"}},
	{ID: "f-journal-3", Kind: "journal", Form: "absent", Make: fMakeJournal3,
		Question: "When does the certificate certbot renewed on this host expire?"},
	{ID: "f-journal-4", Kind: "journal", Form: "fact", Deliver: "inline-after", Make: fMakeJournal4,
		Question: "what signal finally took the orders worker down?",
		Answers:  []string{"SIGKILL", "9/KILL", "KILL", "signal 9"}},
	{ID: "f-journal-5", Kind: "journal", Form: "journal", Deliver: "files", Make: fMakeJournal5,
		Question: "contractor-jm logged into the bastion at some point. From which IP address?",
		Answers:  []string{"198.51.100.77"}},

	// web-server logs
	{ID: "f-weblog-1", Kind: "weblog", Form: "log", Make: fMakeWeblog1,
		Question: "Somebody POSTed to the admin token rotation endpoint on the module mirror. What IP did that come from?",
		Answers:  []string{"91.92.246.113"}},
	{ID: "f-weblog-2", Kind: "weblog", Form: "fact", Make: fMakeWeblog2,
		Question: "Which Apache version is this box running?",
		Answers:  []string{"2.4.65", "Apache/2.4.65"}},
	{ID: "f-weblog-3", Kind: "weblog", Form: "fact", Deliver: "inline", Make: fMakeWeblog3,
		Question: "Going by this error log, how many worker_connections does nginx have?",
		Answers:  []string{"1024"}},
	{ID: "f-weblog-4", Kind: "weblog", Form: "absent", Make: fMakeWeblog4,
		Question: "When did Googlebot first crawl the module mirror?"},
	{ID: "f-weblog-5", Kind: "weblog", Form: "log", Deliver: "inline-after", Make: fMakeWeblog5,
		Question: "Which account got a 413 when uploading an invoice attachment?",
		Answers:  []string{"billing-export"}},

	// paged fixed-width reports
	{ID: "f-fixed-1", Kind: "fixed", Form: "fixed", Make: fMakeFixed1,
		Question: "How much does Halvorsen Marine Supply owe that's more than 90 days past due?",
		Answers:  []string{"4,812.40", "4812.40", "$4,812.40"}},
	{ID: "f-fixed-2", Kind: "fixed", Form: "fact", Make: fMakeFixed2,
		Question: "what version of pydantic is installed on build-07?",
		Answers:  []string{"2.13.4"}},
	{ID: "f-fixed-3", Kind: "fixed", Form: "absent", Make: fMakeFixed3,
		Question: "What payment terms are on file for Badger Pump & Valve (customer 104476)?"},
	{ID: "f-fixed-4", Kind: "fixed", Form: "fact", Deliver: "inline", Make: fMakeFixed4,
		Question: "What's the grand total due at the bottom of this aging report?",
		Answers:  []string{"858,496.77", "858496.77", "$858,496.77"}},

	// TSV
	{ID: "f-tsv-1", Kind: "tsv", Form: "tsv", Make: fMakeTSV1,
		Question: "Did any meter flag tampering in this export? Which one?",
		Answers:  []string{"MTR-448210"}},
	{ID: "f-tsv-2", Kind: "tsv", Form: "fact", Make: fMakeTSV2,
		Question: "What license is certifi released under?",
		Answers:  []string{"MPL-2.0", "Mozilla Public License 2.0", "MPL 2.0"}},
	{ID: "f-tsv-3", Kind: "tsv", Form: "fact", Make: fMakeTSV3,
		Question: "how many lines long is autopipeline.go in go-redis v9.23.0?",
		Answers:  []string{"3856", "3,856"}},
	{ID: "f-tsv-4", Kind: "tsv", Form: "tsv", Make: fMakeTSV4,
		Question: "How much did Deutsche Bahn refund me?",
		Answers:  []string{"89,90", "89.90", "€89.90", "89.90 EUR", "EUR 89.90"}},
	{ID: "f-tsv-5", Kind: "tsv", Form: "tsv", Deliver: "inline", Make: fMakeTSV5,
		Question: "Which sample came back hemolysed?",
		Answers:  []string{"LAB-26-41097"}},

	// SQL dumps
	{ID: "f-sql-1", Kind: "sql", Form: "sql", Make: fMakeSQL1,
		Question: "What's Ingrid Solberg's email address in the shop database?",
		Answers:  []string{"ingrid.solberg@fjordpost.no"}},
	{ID: "f-sql-2", Kind: "sql", Form: "fact", Make: fMakeSQL2,
		Question: "If a maintenance entry doesn't give one, what service interval in km does the fleet database assume?",
		Answers:  []string{"15000", "15,000 km", "15000 km", "15,000"}},
	{ID: "f-sql-3", Kind: "sql", Form: "fact", Deliver: "inline-after", Make: fMakeSQL3,
		Question: "what's the AUTO_INCREMENT of the page table in this dump?",
		Answers:  []string{"538"}},
	{ID: "f-sql-4", Kind: "sql", Form: "absent", Make: fMakeSQL4,
		Question: "When did gcosta last log in to the CRM?"},
	{ID: "f-sql-5", Kind: "sql", Form: "fact", Deliver: "inline", Make: fMakeSQL5,
		Question: "When was gonum v0.17.0 published, according to this table?",
		Answers:  []string{"2025-12-29 19:16:44+00", "2025-12-29", "29 December 2025", "December 29, 2025"}},

	// mailboxes
	{ID: "f-mbox-1", Kind: "mbox", Form: "mail", Make: fMakeMbox1,
		Question: "When's the db-primary failover happening now that it got moved?",
		Answers:  []string{"Saturday 12 December at 02:00 UTC", "12 December", "December 12", "2026-12-12", "Dec 12"}},
	{ID: "f-mbox-2", Kind: "mbox", Form: "fact", Make: fMakeMbox2,
		Question: "my domain lindqvist-bakery.se - when does it run out?",
		Answers:  []string{"2027-01-14", "14 January 2027", "January 14, 2027"}},
	{ID: "f-mbox-3", Kind: "mbox", Form: "absent", Make: fMakeMbox3,
		Question: "What's the dial-in PIN for Thursday's platform sync?"},
	{ID: "f-mbox-4", Kind: "mbox", Form: "fact", Deliver: "inline-after", Make: fMakeMbox4,
		Question: "Which commit broke the pipeline on main?",
		Answers:  []string{"3f9c2ab1", "3f9c2ab"}},
	{ID: "f-mbox-5", Kind: "mbox", Form: "mail", Deliver: "files", Make: fMakeMbox5,
		Question: "What port should my WireGuard config use for the new VPN gateway?",
		Answers:  []string{"51820"}},

	// a new user's own documents
	{ID: "f-userdocs-1", Kind: "userdocs", Form: "fact",
		Files: []string{
			"/usr/share/doc/gcc-12-base/gcc/changelog.gz", "/usr/share/doc/gcc-12-base/C++/changelog*.gz", "/usr/share/doc/gcc-12-base/sanitizer/changelog.gz",
			"/usr/share/doc/binutils/bfd/ChangeLog.gz", "/usr/share/doc/binutils/gprof/ChangeLog.gz",
			"/root/.pyenv/plugins/pyenv-virtualenv/CHANGELOG.md",
			"/root/.pyenv/versions/2.7.18/lib/python2.7/idlelib/ChangeLog", "/root/.pyenv/versions/2.7.18/lib/python2.7/idlelib/HISTORY.txt", "/root/.pyenv/versions/2.7.18/lib/python2.7/idlelib/NEWS.txt", "/root/.pyenv/versions/3.13.0/lib/python3.13/idlelib/News3.txt",
			fGoMod + "/github.com/chromedp/cdproto@v0.159.0/CHANGELOG.md", fGoMod + "/github.com/prometheus/client_golang@v1.25.0/CHANGELOG.md", fGoMod + "/github.com/redis/go-redis/v9@v9.23.0/RELEASE-NOTES.md",
			fGsutil3p + "/argcomplete/Changes.rst", fGsutil3p + "/cachetools/CHANGELOG.rst", fGsutil3p + "/charset_normalizer/CHANGELOG.md", fGsutil3p + "/google-auth-library-python/CHANGELOG.md", fGsutil3p + "/httplib2/CHANGELOG", fGsutil3p + "/idna/HISTORY.rst", fGsutil3p + "/pyasn1/CHANGES.rst", fGsutil3p + "/pyasn1-modules/CHANGES.txt", fGsutil3p + "/requests/HISTORY.md", fGsutil3p + "/rsa/CHANGELOG.txt", fGsutil3p + "/six/CHANGES",
			"/usr/lib/google-cloud-sdk/platform/gsutil/gslib/vendored/oauth2client/CHANGELOG.md",
		},
		Question: "Which cachetools release deprecated MRUCache?",
		Answers:  []string{"v5.4.0", "5.4.0"}},
	{ID: "f-userdocs-2", Kind: "userdocs", Form: "fact",
		Files:    []string{fPyenvSite + "/requests/*.py"},
		Question: "How many redirects will a requests Session follow before it raises TooManyRedirects?",
		Answers:  []string{"30", "thirty"}},
	{ID: "f-userdocs-3", Kind: "userdocs", Form: "fact", Deliver: "each",
		Files:    []string{fPyenvSite + "/flask/app.py", fPyenvSite + "/flask/sessions.py", fPyenvSite + "/flask/config.py"},
		Question: "by default how long does a permanent Flask session last?",
		Answers:  []string{"timedelta(days=31)", "31 days", "31"}},
	{ID: "f-userdocs-4", Kind: "userdocs", Form: "comment",
		Files:    []string{fYAMLv3 + "/apic.go", fYAMLv3 + "/decode.go", fYAMLv3 + "/emitterc.go", fYAMLv3 + "/encode.go", fYAMLv3 + "/parserc.go", fYAMLv3 + "/readerc.go", fYAMLv3 + "/resolve.go", fYAMLv3 + "/scannerc.go", fYAMLv3 + "/sorter.go", fYAMLv3 + "/writerc.go", fYAMLv3 + "/yaml.go", fYAMLv3 + "/yamlh.go", fYAMLv3 + "/yamlprivateh.go"},
		Needle:   "// NORTHWIND PATCH (PLAT-1187): alias expansion is capped at 400,000 decoded\n// nodes in our fork instead of upstream's ratio check.\n",
		Depth:    0.1085195,
		Question: "In our patched yaml.v3, at how many decoded nodes is alias expansion capped?",
		Answers:  []string{"400,000", "400000", "400k"}},
	{ID: "f-userdocs-5", Kind: "userdocs", Form: "fact", Deliver: "each",
		Files:    []string{"/usr/share/doc/binutils/ld/NEWS.gz", "/usr/share/doc/binutils/gas/NEWS.gz"},
		Question: "Which binutils release gave ld its --no-warnings option?",
		Answers:  []string{"2.40"}},
	{ID: "f-userdocs-6", Kind: "userdocs", Form: "comment", Deliver: "each",
		Files:    []string{fPyenvSite + "/dateutil/tz/tz.py", fPyenvSite + "/dateutil/tz/_common.py", fPyenvSite + "/dateutil/utils.py"},
		Needle:   "# NORTHWIND PATCH (PLAT-2231): map the legacy \"Europe/Kiev\" zone name to\n# \"Europe/Kyiv\" before lookup; drop this once tzdata 2022b is everywhere.\n",
		Depth:    0.6349983,
		Question: "which ticket is the Kyiv alias patch in our vendored dateutil tracked under?",
		Answers:  []string{"PLAT-2231"}},
}
