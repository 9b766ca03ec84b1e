package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// fresh_h.go: a held-out set of lookups over text no other set reads
// (man pages, valgrind and rustc manuals, Python 3.13 and zlib sources,
// headers, pyenv scripts and docs, systemd configs, CI YAML, PostgreSQL's
// feature table), and over documents made from real data on this machine
// (the UTF-8 charmap, the shared MIME globs, the tz database, util-linux
// release notes, the rustdoc tree) as JSON lines, CSV, SQL dumps, logs,
// journal exports, mailboxes and reports.

func init() { fresh = append(fresh, freshH) }

const (
	hPyLib    = "/root/.pyenv/versions/3.13.0/lib/python3.13/"
	hPyBuild  = "/root/.pyenv/plugins/python-build/share/python-build/"
	hVirtEnv  = "/root/.pyenv/plugins/pyenv-virtualenv/"
	hValgrind = "/usr/share/doc/valgrind/html/"
	hZlibEx   = "/usr/share/doc/zlib1g-dev/examples/"
	hRustDoc  = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/"
	hWazeroWF = "/root/go/pkg/mod/github.com/tetratelabs/wazero@v1.12.0/.github/workflows/"
	hPuregoWF = "/root/go/pkg/mod/github.com/ebitengine/purego@v0.11.3/.github/workflows/"
)

var freshH = []devCase{
	// ---- man pages (roff as installed) ----
	{ID: "h-man-1", Kind: "man", Form: "fact",
		Files:    []string{"/usr/share/man/man5/t*.5.gz"},
		Question: "Our laptops drift a lot. With systemd's time sync daemon left at its defaults, what's the longest it will wait between two NTP polls?",
		Answers:  []string{"2048", "2048 seconds", "2048s", "2048 s", "34 min 8 s", "34 min 8s", "34 minutes 8 seconds", "34 minutes and 8 seconds"}},
	{ID: "h-man-2", Kind: "man", Form: "fact",
		Files:    []string{"/usr/share/man/man1/p*.1*.gz", "/usr/share/man/man1/r*.1*.gz", "/usr/share/man/man1/x*.1*.gz"},
		Size:     3_100_000,
		Question: "If I kick off a base backup of our postgres cluster and say nothing about the checkpoint, does it do the checkpoint fast or spread out? Just the mode name please.",
		Answers:  []string{"spread", "spread checkpoint", "spread (the default)"}},
	{ID: "h-man-3", Kind: "man", Form: "fact", Deliver: "inline-after",
		Files:    []string{"/usr/share/man/man5/systemd.exec.5.gz"},
		Question: "What file-creation mask do system services get when the unit file doesn't set one?",
		Answers:  []string{"0022", "022", "umask 0022"}},
	{ID: "h-man-4", Kind: "man", Form: "absent",
		Files:    []string{"/usr/share/man/man5/t*.5.gz"},
		Question: "Which NTP servers does the time sync daemon fall back to on this distro when none are configured? I need the actual host names.",
		Answers:  nil},

	// ---- rendered HTML manuals ----
	{ID: "h-html-1", Kind: "html", Form: "fact",
		Files:    []string{hValgrind + "mc-manual.html", hValgrind + "ms-manual.html", hValgrind + "quick-start.html"},
		Question: "Memcheck holds freed blocks back for a while so it can catch use-after-free. How much memory does that holding area get by default?",
		Answers:  []string{"20000000", "20000000 bytes", "20,000,000 bytes", "20,000,000", "twenty million bytes", "20 million bytes", "20 MB", "20MB"}},
	{ID: "h-html-2", Kind: "html", Form: "fact", Deliver: "files",
		Files:    []string{hRustDoc + "rustc/platform-support/*.html", hRustDoc + "rustc/codegen-options/*.html", hRustDoc + "rustc/lints/*.html", hRustDoc + "rustc/lints/listing/*.html", hRustDoc + "reference/*.html"},
		Question: "tell me what rustc's codegen option for the symbol-mangling scheme is called (the -C flag name).",
		Answers:  []string{"symbol-mangling-version", "-C symbol-mangling-version", "symbol-mangling-version=v0"}},
	{ID: "h-html-3", Kind: "html", Form: "fact", Deliver: "inline-after",
		Files:    []string{hValgrind + "drd-manual.html"},
		Question: "I'm tuning DRD for a long-running server. By default, how many new segments does it wait for before it runs a segment merge?",
		Answers:  []string{"10", "ten", "10 segments", "10 new segments"}},

	// ---- source code ----
	{ID: "h-src-1", Kind: "source", Form: "fact", Deliver: "files",
		Files:    []string{hPyLib + "[q-z]*.py"},
		Question: "Which port does the SMTP-over-SSL client class connect to when I don't give it one?",
		Answers:  []string{"465", "port 465"}},
	{ID: "h-src-2", Kind: "source", Form: "absent",
		Files:    []string{hPyLib + "[q-z]*.py"},
		Question: "And the POP3 client that talks SSL: what port does it default to?",
		Answers:  nil},
	{ID: "h-src-3", Kind: "source", Form: "fact", Deliver: "each",
		Files:    []string{hZlibEx + "gzlog.c", hZlibEx + "zran.c", hZlibEx + "gun.c"},
		Question: "In the gzip log-appending example, how old can the lock file get before the code decides whoever held it is dead and takes over?",
		Answers:  []string{"300", "300 seconds", "300s", "5 minutes", "five minutes"}},
	{ID: "h-src-4", Kind: "source", Form: "comment",
		Files:    []string{hZlibEx + "*.c"},
		Needle:   "\n/* NOTE(mirror-team): our patched build caps the inflate window at 16K so\n   the example still runs on the 64K-RAM bench boards; see ticket ZR-4471. */",
		Depth:    0.588833272,
		Question: "Someone left a note in these zlib examples about a patched build for tiny boards. What ticket number does it point to?",
		Answers:  []string{"ZR-4471", "4471"}},
	{ID: "h-src-6", Kind: "source", Form: "fact",
		Files:    []string{hPyLib + "[q-z]*.py"},
		Question: "On a platform where the OS doesn't tell Python a limit, how many candidate names will tempfile try before it gives up on creating a temp file?",
		Answers:  []string{"10000", "10,000", "10000 names", "ten thousand"}},

	// ---- C headers ----
	{ID: "h-hdr-1", Kind: "header", Form: "fact", Deliver: "each",
		Files:    []string{"/usr/include/sysexits.h", "/usr/include/syslog.h", "/usr/include/paths.h"},
		Question: "My mail filter hit a temporary failure and I want the MTA to retry later. Which exit status number should the program return?",
		Answers:  []string{"75", "EX_TEMPFAIL", "EX_TEMPFAIL (75)"}},
	{ID: "h-hdr-2", Kind: "header", Form: "fact",
		Files:    []string{"/usr/include/nspr/*.h", "/usr/include/nss/*.h", "/usr/include/tcl8.6/*.h"},
		Question: "Which exact Tcl patch release do these headers come from?",
		Answers:  []string{"8.6.13", "Tcl 8.6.13"}},
	{ID: "h-hdr-4", Kind: "header", Form: "fact",
		Files:    []string{"/usr/include/xcb/*.h"},
		Question: "When an X client talks to the server over TCP, what base port number does the display number get added to?",
		Answers:  []string{"6000", "port 6000", "X_TCP_PORT", "X_TCP_PORT (6000)"}},

	// ---- shell scripts ----
	{ID: "h-sh-1", Kind: "shell", Form: "fact", Deliver: "inline",
		Files:    []string{"/root/.pyenv/libexec/pyenv-*"},
		Question: "pyenv rehash sometimes hangs on our NFS home dirs. How long does it keep waiting for the shim lock before it gives up, if I don't override anything?",
		Answers:  []string{"60", "60 seconds", "60s", "1 minute", "one minute", "a minute"}},
	{ID: "h-sh-2", Kind: "shell", Form: "absent",
		Files:    []string{"/root/.pyenv/libexec/pyenv-*"},
		Question: "Which mirror URL does pyenv download CPython tarballs from, according to these scripts?",
		Answers:  nil},

	// ---- system configuration ----
	{ID: "h-conf-1", Kind: "config", Form: "fact", Deliver: "each",
		Files:    []string{"/etc/systemd/logind.conf", "/etc/systemd/journald.conf", "/etc/systemd/timesyncd.conf"},
		Question: "What does this machine do when the lid is shut while it's sitting in the dock?",
		Answers:  []string{"ignore", "nothing", "ignores it", "it ignores it", "HandleLidSwitchDocked=ignore"}},
	{ID: "h-conf-2", Kind: "config", Form: "absent",
		Files:    []string{"/etc/systemd/logind.conf", "/etc/systemd/journald.conf", "/etc/systemd/timesyncd.conf"},
		Question: "How much disk is the journal allowed to take up in total on this box? I need the actual number.",
		Answers:  nil},
	{ID: "h-conf-3", Kind: "config", Form: "ini",
		Files:    []string{"/etc/systemd/*.conf"},
		Needle:   "\n#  coredump.conf, managed by ops (see runbook CORE-12); do not edit by hand.\n\n[Coredump]\nStorage=external\nCompress=yes\nMaxUse=6G\nKeepFree=12G\n",
		Depth:    0.449394598,
		Question: "How much free space do we keep in reserve for core dumps on this machine?",
		Answers:  []string{"12G", "12 G", "12 GB", "12GB", "12 gigabytes"}},
	{ID: "h-conf-4", Kind: "config", Form: "fact", Deliver: "inline",
		Files:    []string{"/etc/systemd/journald.conf"},
		Question: "how many messages can one service log inside the rate-limit window before journald starts dropping them?",
		Answers:  []string{"10000", "10,000", "10000 messages", "ten thousand"}},

	// ---- YAML ----
	{ID: "h-yaml-1", Kind: "yaml", Form: "fact", Deliver: "each",
		Files:    []string{hPuregoWF + "test.yml", hWazeroWF + "commit.yaml", hWazeroWF + "integration.yaml"},
		Question: "Which major version of QEMU does the purego CI pull in for its cross-arch tests?",
		Answers:  []string{"10", "QEMU 10", "10.x", "qemu 10.x"}},
	{ID: "h-yaml-2", Kind: "yaml", Form: "yaml",
		Files:    []string{hWazeroWF + "*.y*ml", hPuregoWF + "test.yml"},
		Needle:   "\nname: Nightly fuzz\n\non:\n  schedule:\n    - cron: \"17 2 * * *\"\n\njobs:\n  nightly-fuzz:\n    name: Nightly fuzz (extended corpus)\n    runs-on: ubuntu-24.04\n    timeout-minutes: 95\n    steps:\n      - uses: actions/checkout@v5\n      - run: make fuzz fuzztime=80m\n",
		Depth:    0.525881492,
		Question: "The extended nightly fuzz job: how long is it allowed to run before CI kills it?",
		Answers:  []string{"95", "95 minutes", "95 min", "95m", "1h35m", "1 hour 35 minutes"}},
	{ID: "h-yaml-3", Kind: "yaml", Form: "absent",
		Files:    []string{hPuregoWF + "test.yml"},
		Question: "Which Node.js version does this workflow install for its checks?",
		Answers:  nil},

	// ---- Markdown docs ----
	{ID: "h-md-1", Kind: "markdown", Form: "fact", Deliver: "inline",
		Files:    []string{hVirtEnv + "README.md"},
		Question: "I want pyenv-virtualenv to be chatty when it activates and deactivates envs. What environment variable do I set?",
		Answers:  []string{"PYENV_VIRTUALENV_VERBOSE_ACTIVATE"}},
	{ID: "h-md-2", Kind: "markdown", Form: "mdtable",
		Files:    []string{"/root/.pyenv/plugins/pyenv-doctor/README.md", "/root/.pyenv/plugins/pyenv-update/README.md", hVirtEnv + "README.md", hVirtEnv + "MAINTENANCE.md"},
		Needle:   "\n| Plugin            | Internal owner | On-call alias     |\n|-------------------|----------------|-------------------|\n| pyenv-update      | J. Okafor      | #py-tooling       |\n| pyenv-virtualenv  | M. Lindqvist   | #py-envs-oncall   |\n| pyenv-doctor      | R. Castellanos | #py-tooling       |\n",
		Depth:    0.611632332,
		Question: "Who on our side owns the virtualenv plugin?",
		Answers:  []string{"M. Lindqvist", "Lindqvist"}},

	// ---- TSV ----
	{ID: "h-tsv-1", Kind: "tsv", Form: "fact", Deliver: "inline",
		Files:    []string{"/usr/share/postgresql/15/sql_features.txt"},
		Question: "What's the feature code for the MERGE variant that's allowed to delete matched rows?",
		Answers:  []string{"F314"}},
	{ID: "h-tsv-2", Kind: "tsv", Form: "absent",
		Files:    []string{"/usr/share/postgresql/15/sql_features.txt"},
		Question: "In which PostgreSQL release did JSON_TABLE support land, according to this table?",
		Answers:  nil},
	{ID: "h-tsv-3", Kind: "tsv", Form: "tsv",
		Files:    []string{"/usr/share/postgresql/15/sql_features.txt"},
		Needle:   "V101\tVendor extension: approximate MERGE matching\t\t\tNO\tHarborview fork only, see HV-SQL-77",
		Depth:    0.99999,
		Question: "Our fork added an approximate-matching MERGE extension to the features list. What ID did it get?",
		Answers:  []string{"V101"}},

	// ---- JSON lines (the shared MIME globs) ----
	{ID: "h-jsonl-1", Kind: "jsonl", Form: "fact", Deliver: "inline",
		Make:     hMakeMimeJSONL,
		Question: "Our upload filter needs the content type for QEMU copy-on-write disk images (.qcow2). What does this list say?",
		Answers:  []string{"application/x-qemu-disk"}},
	{ID: "h-jsonl-2", Kind: "jsonl", Form: "json",
		Make:     hMakeMimeJSONL,
		Needle:   `{"pattern":"*.hvq","mime_type":"application/vnd.harborview.quote+json","weight":50,"case_sensitive":false}`,
		Depth:    0.37,
		Question: "what mime type did we register for the .hvq quote files?",
		Answers:  []string{"application/vnd.harborview.quote+json"}},

	// ---- CSV (the UTF-8 charmap) ----
	{ID: "h-csv-1", Kind: "csv", Form: "fact", Deliver: "files",
		Make:     hMakeCharCSV,
		Question: "I need the official character name for code point U+A74F, exactly as it's listed.",
		Answers:  []string{"LATIN SMALL LETTER OO"}},
	{ID: "h-csv-2", Kind: "csv", Form: "csv",
		Make:     hMakeCharCSV,
		Size:     1_700_000,
		Needle:   "U+E0A7,57511,BMP,3,EE 82 A7,&#57511;,PRIVATE USE GLYPH HARBORVIEW BARCODE MARK",
		Depth:    0.931054980,
		Question: "Which private-use code point did we put the Harborview barcode mark on?",
		Answers:  []string{"U+E0A7", "E0A7", "0xE0A7", "57511"}},

	// ---- SQL dump ----
	{ID: "h-sql-1", Kind: "sql", Form: "fact",
		Make:     hMakeSQLDump,
		Question: "In this dump, which zone has the local-mean-time offset 5:41:16?",
		Answers:  []string{"Asia/Kathmandu", "Kathmandu"}},
	{ID: "h-sql-2", Kind: "sql", Form: "sql", Deliver: "files",
		Make:     hMakeSQLDump,
		Needle:   "INSERT INTO public.app_settings (key, value, updated_by) VALUES ('upload.max_body_mb', '48', 'dkoval');",
		Depth:    0.44,
		Question: "What's the maximum upload body size configured in the app settings, in MB?",
		Answers:  []string{"48", "48 MB", "48MB"}},

	// ---- database server log (PostgreSQL) ----
	{ID: "h-pglog-1", Kind: "dblog", Form: "fact", Deliver: "files",
		Make:     hMakePgLog,
		Question: "Which application was connected as backend PID 92627?",
		Answers:  []string{"search-indexer"}},
	{ID: "h-pglog-2", Kind: "dblog", Form: "log",
		Make:     hMakePgLog,
		Needle:   "2025-03-10 11:39:54.790 UTC [47719] postgres@billing LOG:  parameter \"work_mem\" changed to \"96MB\"",
		Depth:    0.659998510,
		Question: "Somebody changed work_mem on the billing database at some point. What value did they set it to?",
		Answers:  []string{"96MB", "96 MB"}},
	{ID: "h-pglog-3", Kind: "dblog", Form: "absent",
		Make:     hMakePgLog,
		Question: "What TCP port is this PostgreSQL server listening on?",
		Answers:  nil},

	// ---- journal export ----
	{ID: "h-journal-1", Kind: "journal", Form: "fact",
		Make:     hMakeJournal,
		Question: "One service reported a worker ready while running as PID 45609. Which service was that?",
		Answers:  []string{"groupmems", "groupmems.service"}},
	{ID: "h-journal-2", Kind: "journal", Form: "journal",
		Make:     hMakeJournal,
		Needle:   "\n__REALTIME_TIMESTAMP=1741659224981207\nPRIORITY=6\nSYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER=vault-backup\n_PID=30917\n_COMM=vault-backup\n_SYSTEMD_UNIT=vault-backup.service\nMESSAGE=Snapshot upload finished: 412 objects sent to bucket gs://hv-nightly-snapshots-eu3\n",
		Depth:    0.529938037,
		Question: "Where did the backup service upload its snapshot to? I need the bucket.",
		Answers:  []string{"gs://hv-nightly-snapshots-eu3", "hv-nightly-snapshots-eu3"}},

	// ---- web server error log (nginx) ----
	{ID: "h-weblog-1", Kind: "weblog", Form: "fact",
		Make:     hMakeNginxErr,
		Question: "Somebody got blocked trying to grab a .bak copy of the thread Builder docs page. Which client IP did that come from?",
		Answers:  []string{"198.189.144.194"}},
	{ID: "h-weblog-2", Kind: "weblog", Form: "absent", Deliver: "inline-after",
		Make:     hMakeNginxErr,
		Size:     120_000,
		Question: "From this log, what's the worker_connections limit set to in the nginx config?",
		Answers:  nil},

	// ---- mailbox ----
	{ID: "h-mbox-1", Kind: "mbox", Form: "fact",
		Make:     hMakeMbox,
		Question: "Somebody on the list said there's now a more modern replacement for lsof in util-linux. Which release first shipped it?",
		Answers:  []string{"2.38", "v2.38", "util-linux 2.38", "util-linux v2.38"}},
	{ID: "h-mbox-2", Kind: "mbox", Form: "mail",
		Make:     hMakeMbox,
		Needle:   "\nFrom lbrandt@debian.example Wed Oct 17 08:12:44 2018\nFrom: Lena Brandt <lbrandt@debian.example>\nTo: util-linux@vger.kernel.org\nSubject: Re: [ANNOUNCE] util-linux v2.37\nDate: Wed, 17 Oct 2018 08:12:44 +0000\nMessage-ID: <1539763964.7f3a@debian.example>\nIn-Reply-To: <1539509400.5d115e82@ul-announce>\n\nHi Karel,\n\nthanks, v2.37 builds cleanly on all release architectures. For the Debian\nimport of the first point release we would need v2.37.1-rc2 tagged no later\nthan 2 November 2018, otherwise it slips to the next upload window.\n\nLena\n",
		Depth:    0.939645979,
		Question: "By what date did the Debian packager want the second release candidate of the point release tagged?",
		Answers:  []string{"2 November 2018", "November 2, 2018", "November 2 2018", "2018-11-02", "2 November", "November 2", "2nd of November 2018", "2 Nov 2018", "Nov 2, 2018", "02/11/2018"}},

	// ---- fixed-width report (tz database) ----
	{ID: "h-fixed-1", Kind: "fixed", Form: "fact", Deliver: "inline-after",
		Make:     hMakeTZReport,
		Question: "What local mean time offset did Kathmandu use before it switched to standard time?",
		Answers:  []string{"5:41:16", "+5:41:16", "+05:41:16", "05:41:16"}},
	{ID: "h-fixed-2", Kind: "fixed", Form: "fixed",
		Make:     hMakeTZReport,
		Needle:   fmt.Sprintf("%-32s %-10s %-16s %4d %-9s %-8s %-8s", "Antarctica/Concordia", "0", "1997 F 8", 2, "8", "-", "+08"),
		Depth:    0.436533201,
		Question: "What standard offset does the Concordia station zone use now?",
		Answers:  []string{"8", "+8", "+08", "8:00", "+8:00", "+08:00", "UTC+8", "UTC+8:00", "UTC+08:00", "8 hours", "8 hours ahead of UTC"}},

	// ---- Markdown lists ----
	{ID: "h-mdlist-2", Kind: "mdlist", Form: "list",
		Make:     hMakeMimeList,
		Needle:   "- `*.plt5` → application/vnd.acme.plotter5 (weight 60)",
		Depth:    0.55,
		Question: "what type do .plt5 files get?",
		Answers:  []string{"application/vnd.acme.plotter5"}},

	// ---- package database (pyenv's python-build definitions) ----
	{ID: "h-pkgdb-1", Kind: "pkgdb", Form: "fact", Deliver: "each",
		Files:    []string{hPyBuild + "3.11.7", hPyBuild + "3.12.1", hPyBuild + "3.13.0"},
		Question: "Which OpenSSL release does the pyenv recipe for Python 3.12.1 build against?",
		Answers:  []string{"3.1.2", "openssl-3.1.2", "OpenSSL 3.1.2"}},
	{ID: "h-pkgdb-2", Kind: "pkgdb", Form: "fact",
		Files:    []string{hPyBuild + "2.*", hPyBuild + "3.*"},
		Question: "I want to verify the Python 2.7.18 .tar.xz I downloaded by hand. What SHA-256 does pyenv expect for it?",
		Answers:  []string{"b62c0e7937551d0cc02b8fd5cb0f544f9405bafc9a54d3808ed4594812edef43"}},

	// ---- prose (util-linux release notes) ----
	{ID: "h-notes-1", Kind: "notes", Form: "prose",
		Files:    []string{"/usr/share/doc/util-linux/releases/v2.3*-ReleaseNotes.gz"},
		Needle:   "\nDownstream note from the Harborview packaging team: our builds of this\nrelease ship with the uuidd socket disabled by default; enable it with\nthe hv-uuidd-socket package (build tag HV-ul-0931).\n\n",
		Depth:    0.380501860,
		Question: "What package do I install on our builds to get the uuidd socket back?",
		Answers:  []string{"hv-uuidd-socket"}},

	// ---- userdocs: a new user's own documents ----
	{ID: "h-user-1", Kind: "userdocs", Form: "fact", Deliver: "inline-after",
		Files:    []string{hVirtEnv + "CHANGELOG.md", hPyLib + "idlelib/News3.txt"},
		Question: "In which version of the virtualenv plugin could users first customize the text it puts into their shell prompt?",
		Answers:  []string{"1.2.5", "v1.2.5"}},
	{ID: "h-user-2", Kind: "userdocs", Form: "fact",
		Files:    []string{hVirtEnv + "bin/*", hVirtEnv + "libexec/*"},
		Question: "In my virtualenv plugin code, where do downloads get cached when neither PYENV_VIRTUALENV_CACHE_PATH nor PYTHON_BUILD_CACHE_PATH is set?",
		Answers:  []string{"${PYENV_ROOT}/cache", "$PYENV_ROOT/cache", "PYENV_ROOT/cache", "~/.pyenv/cache", "the cache directory under PYENV_ROOT"}},
}

// hSeed gives a case's maker the same randomness every run.
func hSeed(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(h.Sum64(), 0x68667265736868))
}

func hGunzip(name string) (string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	out, err := io.ReadAll(zr)
	return string(out), err
}

// hMimeGlob is one line of the shared MIME database's globs2.
type hMimeGlob struct {
	weight    int
	mime      string
	pattern   string
	sensitive bool
}

func hMimeGlobs() ([]hMimeGlob, error) {
	b, err := os.ReadFile("/usr/share/mime/globs2")
	if err != nil {
		return nil, err
	}
	var out []hMimeGlob
	seen := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, ":")
		if len(f) < 3 {
			continue
		}
		w, _ := strconv.Atoi(f[0])
		g := hMimeGlob{weight: w, mime: f[1], pattern: f[2], sensitive: len(f) > 3 && strings.Contains(f[3], "cs")}
		if k := g.mime + " " + g.pattern; !seen[k] {
			seen[k] = true
			out = append(out, g)
		}
	}
	return out, nil
}

func hMakeMimeJSONL() (string, error) {
	globs, err := hMimeGlobs()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, g := range globs {
		fmt.Fprintf(&sb, "{\"pattern\":%q,\"mime_type\":%q,\"weight\":%d,\"case_sensitive\":%v}\n", g.pattern, g.mime, g.weight, g.sensitive)
	}
	return sb.String(), nil
}

func hMakeMimeList() (string, error) {
	globs, err := hMimeGlobs()
	if err != nil {
		return "", err
	}
	byFamily := map[string][]hMimeGlob{}
	for _, g := range globs {
		fam, _, _ := strings.Cut(g.mime, "/")
		byFamily[fam] = append(byFamily[fam], g)
	}
	fams := make([]string, 0, len(byFamily))
	for f := range byFamily {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var sb strings.Builder
	sb.WriteString("# File name patterns and their MIME types\n\nExported from the shared MIME database of the build host, grouped by media family. Weight decides which type wins when two patterns match.\n")
	for _, f := range fams {
		fmt.Fprintf(&sb, "\n## %s\n\n", f)
		for _, g := range byFamily[f] {
			cs := ""
			if g.sensitive {
				cs = ", case-sensitive"
			}
			fmt.Fprintf(&sb, "- `%s` → %s (weight %d%s)\n", g.pattern, g.mime, g.weight, cs)
		}
	}
	return sb.String(), nil
}

// hChar is one code point of the glibc UTF-8 charmap.
type hChar struct {
	cp    int
	bytes []string
	name  string
}

func hCharmap() ([]hChar, error) {
	t, err := hGunzip("/usr/share/i18n/charmaps/UTF-8.gz")
	if err != nil {
		return nil, err
	}
	var out []hChar
	for _, l := range strings.Split(t, "\n") {
		if !strings.HasPrefix(l, "<U") || strings.Contains(l, "..") {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		cp, err := strconv.ParseInt(strings.Trim(f[0], "<>U"), 16, 32)
		if err != nil {
			continue
		}
		var bs []string
		for _, x := range strings.Split(f[1], "/x")[1:] {
			bs = append(bs, strings.ToUpper(x))
		}
		out = append(out, hChar{cp: int(cp), bytes: bs, name: strings.Join(f[2:], " ")})
	}
	return out, nil
}

func hMakeCharCSV() (string, error) {
	chars, err := hCharmap()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	planes := []string{"BMP", "SMP", "SIP", "TIP", "", "", "", "", "", "", "", "", "", "", "SSP", "SPUA-A", "SPUA-B"}
	sb.WriteString("code_point,decimal,plane,utf8_len,utf8_bytes,html_entity,name\n")
	for _, c := range chars {
		name := c.name
		if strings.ContainsAny(name, ",\"") {
			name = strconv.Quote(name)
		}
		plane := ""
		if p := c.cp >> 16; p < len(planes) {
			plane = planes[p]
		}
		fmt.Fprintf(&sb, "U+%04X,%d,%s,%d,%s,&#%d;,%s\n", c.cp, c.cp, plane, len(c.bytes), strings.Join(c.bytes, " "), c.cp, name)
	}
	return sb.String(), nil
}

// hZone is one zone of the tz database's compact source, tzdata.zi.
type hZone struct {
	name  string
	lmt   string
	eras  int
	cur   string // current standard offset
	rule  string
	abbr  string
	until string // when the first era ended
}

func hZones() ([]hZone, []string, error) {
	b, err := os.ReadFile("/usr/share/zoneinfo/tzdata.zi")
	if err != nil {
		return nil, nil, err
	}
	var zones []hZone
	var links []string
	var z *hZone
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "Z":
			if len(f) < 5 {
				continue
			}
			zones = append(zones, hZone{name: f[1], lmt: f[2], eras: 1, cur: f[2], rule: f[3], abbr: f[4], until: strings.Join(f[5:], " ")})
			z = &zones[len(zones)-1]
		case "R":
			z = nil
		case "L":
			z = nil
			if len(f) == 3 {
				links = append(links, f[2]+"\t"+f[1])
			}
		default:
			if z != nil && len(f) >= 3 {
				z.eras++
				z.cur, z.rule, z.abbr = f[0], f[1], f[2]
			}
		}
	}
	return zones, links, nil
}

func hMakeTZReport() (string, error) {
	zones, _, err := hZones()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString("TIME ZONE INVENTORY                                   source: tzdata.zi (build host)\n")
	sb.WriteString("=====================================================================================\n")
	fmt.Fprintf(&sb, "%-32s %-10s %-16s %4s %-9s %-8s %-8s\n", "ZONE", "LMT OFF", "LMT UNTIL", "ERAS", "STD NOW", "RULES", "ABBR")
	fmt.Fprintf(&sb, "%-32s %-10s %-16s %4s %-9s %-8s %-8s\n", strings.Repeat("-", 32), strings.Repeat("-", 10), strings.Repeat("-", 16), "----", strings.Repeat("-", 9), strings.Repeat("-", 8), strings.Repeat("-", 8))
	for _, z := range zones {
		fmt.Fprintf(&sb, "%-32s %-10s %-16s %4d %-9s %-8s %-8s\n", z.name, z.lmt, z.until, z.eras, z.cur, z.rule, z.abbr)
	}
	fmt.Fprintf(&sb, "\n%d zones listed.\n", len(zones))
	return sb.String(), nil
}

func hSQLQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func hMakeSQLDump() (string, error) {
	chars, err := hCharmap()
	if err != nil {
		return "", err
	}
	globs, err := hMimeGlobs()
	if err != nil {
		return "", err
	}
	zones, links, err := hZones()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString("--\n-- PostgreSQL database dump\n--\n\n-- Dumped from database version 15.8 (Debian 15.8-0+deb12u1)\n-- Dumped by pg_dump version 15.8 (Debian 15.8-0+deb12u1)\n\n")
	sb.WriteString("SET statement_timeout = 0;\nSET lock_timeout = 0;\nSET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\nSELECT pg_catalog.set_config('search_path', '', false);\nSET check_function_bodies = false;\nSET client_min_messages = warning;\n\n")
	sb.WriteString("--\n-- Name: app_settings; Type: TABLE; Schema: public; Owner: refdata\n--\n\nCREATE TABLE public.app_settings (\n    key text NOT NULL,\n    value text NOT NULL,\n    updated_by text\n);\n\n")
	sb.WriteString("--\n-- Name: mime_globs; Type: TABLE; Schema: public; Owner: refdata\n--\n\nCREATE TABLE public.mime_globs (\n    id integer NOT NULL,\n    pattern text NOT NULL,\n    mime_type text NOT NULL,\n    weight smallint DEFAULT 50 NOT NULL\n);\n\n")
	sb.WriteString("--\n-- Name: time_zones; Type: TABLE; Schema: public; Owner: refdata\n--\n\nCREATE TABLE public.time_zones (\n    name text NOT NULL,\n    lmt_offset interval,\n    eras integer,\n    std_offset text,\n    abbreviation text\n);\n\n")
	sb.WriteString("--\n-- Name: zone_links; Type: TABLE; Schema: public; Owner: refdata\n--\n\nCREATE TABLE public.zone_links (\n    alias text NOT NULL,\n    target text NOT NULL\n);\n\n")
	sb.WriteString("--\n-- Name: unicode_names; Type: TABLE; Schema: public; Owner: refdata\n--\n\nCREATE TABLE public.unicode_names (\n    code_point integer NOT NULL,\n    utf8 bytea,\n    name text NOT NULL\n);\n\n")
	sb.WriteString("--\n-- Data for Name: app_settings; Type: TABLE DATA; Schema: public; Owner: refdata\n--\n\n")
	sb.WriteString("INSERT INTO public.app_settings (key, value, updated_by) VALUES ('ui.default_locale', 'en_GB', 'dkoval');\nINSERT INTO public.app_settings (key, value, updated_by) VALUES ('search.page_size', '25', 'mtan');\n\n")
	sb.WriteString("--\n-- Data for Name: mime_globs; Type: TABLE DATA; Schema: public; Owner: refdata\n--\n\n")
	for i, g := range globs {
		fmt.Fprintf(&sb, "INSERT INTO public.mime_globs (id, pattern, mime_type, weight) VALUES (%d, %s, %s, %d);\n", i+1, hSQLQuote(g.pattern), hSQLQuote(g.mime), g.weight)
	}
	sb.WriteString("\n\n--\n-- Data for Name: time_zones; Type: TABLE DATA; Schema: public; Owner: refdata\n--\n\n")
	for _, z := range zones {
		fmt.Fprintf(&sb, "INSERT INTO public.time_zones (name, lmt_offset, eras, std_offset, abbreviation) VALUES (%s, %s, %d, %s, %s);\n", hSQLQuote(z.name), hSQLQuote(z.lmt), z.eras, hSQLQuote(z.cur), hSQLQuote(z.abbr))
	}
	sb.WriteString("\n\n--\n-- Data for Name: zone_links; Type: TABLE DATA; Schema: public; Owner: refdata\n--\n\n")
	for _, l := range links {
		a, t, _ := strings.Cut(l, "\t")
		fmt.Fprintf(&sb, "INSERT INTO public.zone_links (alias, target) VALUES (%s, %s);\n", hSQLQuote(a), hSQLQuote(t))
	}
	sb.WriteString("\n\n--\n-- Data for Name: unicode_names; Type: TABLE DATA; Schema: public; Owner: refdata\n--\n\n")
	for _, c := range chars {
		fmt.Fprintf(&sb, "INSERT INTO public.unicode_names (code_point, utf8, name) VALUES (%d, '\\x%s', %s);\n", c.cp, strings.ToLower(strings.Join(c.bytes, "")), hSQLQuote(c.name))
	}
	sb.WriteString("\n\n--\n-- Name: mime_globs mime_globs_pkey; Type: CONSTRAINT; Schema: public; Owner: refdata\n--\n\nALTER TABLE ONLY public.mime_globs\n    ADD CONSTRAINT mime_globs_pkey PRIMARY KEY (id);\n\n")
	sb.WriteString("--\n-- Name: unicode_names unicode_names_pkey; Type: CONSTRAINT; Schema: public; Owner: refdata\n--\n\nALTER TABLE ONLY public.unicode_names\n    ADD CONSTRAINT unicode_names_pkey PRIMARY KEY (code_point);\n\n")
	sb.WriteString("--\n-- PostgreSQL database dump complete\n--\n\n")
	return sb.String(), nil
}

// hCatalogNames are the system views and information_schema views that
// PostgreSQL 15 defines on this machine.
func hCatalogNames() ([]string, error) {
	var names []string
	for _, f := range []string{"/usr/share/postgresql/15/system_views.sql", "/usr/share/postgresql/15/information_schema.sql"} {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		schema := "pg_catalog."
		if strings.Contains(f, "information_schema") {
			schema = "information_schema."
		}
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			for _, p := range []string{"CREATE VIEW ", "CREATE OR REPLACE VIEW "} {
				if rest, ok := strings.CutPrefix(l, p); ok {
					n := strings.Fields(rest)[0]
					if !strings.Contains(n, ".") {
						n = schema + n
					}
					names = append(names, n)
				}
			}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no views found")
	}
	return names, nil
}

func hMakePgLog() (string, error) {
	views, err := hCatalogNames()
	if err != nil {
		return "", err
	}
	r := hSeed("h-pglog")
	users := []string{"app_ro", "app_rw", "etl", "grafana", "postgres", "replicator", "metabase"}
	dbs := []string{"billing", "inventory", "reporting", "auth", "postgres"}
	apps := []string{"psql", "pgAdmin 4", "metabase", "grafana-agent", "etl-loader", "django-orders", "pg_dump", "invoice-worker", "search-indexer", "walg-backup"}
	t := time.Date(2025, 3, 10, 0, 0, 3, 0, time.UTC)
	var sb strings.Builder
	used := map[int]bool{}
	ts := func() string { return t.Format("2006-01-02 15:04:05.000 MST") }
	type sess struct {
		pid             int
		user, db, app   string
		host            string
		left            int
		dropAfterClosed bool
	}
	var live []*sess
	for sb.Len() < 4_200_000 {
		t = t.Add(time.Duration(r.IntN(900)+5) * time.Millisecond)
		switch k := r.IntN(100); {
		case k < 6 || len(live) < 3:
			pid := 0
			for pid == 0 || used[pid] {
				pid = 1000 + r.IntN(98000)
			}
			used[pid] = true
			s := &sess{pid: pid, user: users[r.IntN(len(users))], db: dbs[r.IntN(len(dbs))], app: apps[r.IntN(len(apps))],
				host: fmt.Sprintf("10.20.%d.%d", r.IntN(8), 2+r.IntN(250)), left: 3 + r.IntN(40)}
			live = append(live, s)
			fmt.Fprintf(&sb, "%s [%d] [unknown]@[unknown] LOG:  connection received: host=%s port=%d\n", ts(), s.pid, s.host, 32768+r.IntN(28000))
			fmt.Fprintf(&sb, "%s [%d] %s@%s LOG:  connection authorized: user=%s database=%s application_name=%s\n", ts(), s.pid, s.user, s.db, s.user, s.db, s.app)
		case k < 8:
			fmt.Fprintf(&sb, "%s [%d] LOG:  checkpoint starting: time\n", ts(), 812)
			t = t.Add(time.Duration(20+r.IntN(200)) * time.Second)
			fmt.Fprintf(&sb, "%s [%d] LOG:  checkpoint complete: wrote %d buffers (%.1f%%); 0 WAL file(s) added, %d removed, %d recycled; write=%.3f s, sync=%.3f s, total=%.3f s; sync files=%d, longest=%.3f s, average=%.3f s; distance=%d kB, estimate=%d kB\n",
				ts(), 812, 100+r.IntN(9000), r.Float64()*12, r.IntN(3), r.IntN(4), r.Float64()*200, r.Float64(), r.Float64()*210, 10+r.IntN(300), r.Float64()/5, r.Float64()/50, r.IntN(90000), r.IntN(90000))
		case k < 10:
			db := dbs[r.IntN(len(dbs))]
			fmt.Fprintf(&sb, "%s [%d] LOG:  automatic vacuum of table \"%s.public.%s\": index scans: %d\n\tpages: %d removed, %d remain, %d scanned (%.2f%% of total)\n\ttuples: %d removed, %d remain, %d are dead but not yet removable\n",
				ts(), 1000+r.IntN(98000), db, []string{"orders", "invoices", "line_items", "sessions", "events", "customers", "audit_log"}[r.IntN(7)], r.IntN(2), r.IntN(50), 100+r.IntN(90000), r.IntN(5000), r.Float64()*100, r.IntN(20000), r.IntN(900000), r.IntN(300))
		default:
			s := live[r.IntN(len(live))]
			switch j := r.IntN(20); {
			case j < 14:
				v := views[r.IntN(len(views))]
				fmt.Fprintf(&sb, "%s [%d] %s@%s LOG:  duration: %.3f ms  statement: SELECT * FROM %s LIMIT %d\n", ts(), s.pid, s.user, s.db, 0.05+r.Float64()*4000, v, 10+r.IntN(500))
			case j < 17:
				fmt.Fprintf(&sb, "%s [%d] %s@%s ERROR:  relation \"%s_tmp\" does not exist at character %d\n", ts(), s.pid, s.user, s.db, strings.TrimPrefix(strings.TrimPrefix(views[r.IntN(len(views))], "pg_catalog."), "information_schema."), 15+r.IntN(30))
				fmt.Fprintf(&sb, "%s [%d] %s@%s STATEMENT:  SELECT count(*) FROM missing_relation\n", ts(), s.pid, s.user, s.db)
			case j < 19:
				fmt.Fprintf(&sb, "%s [%d] %s@%s LOG:  temporary file: path \"base/pgsql_tmp/pgsql_tmp%d.%d\", size %d\n", ts(), s.pid, s.user, s.db, s.pid, r.IntN(9), 1<<(13+r.IntN(14)))
			default:
				fmt.Fprintf(&sb, "%s [%d] %s@%s WARNING:  there is no transaction in progress\n", ts(), s.pid, s.user, s.db)
			}
			s.left--
			if s.left <= 0 {
				fmt.Fprintf(&sb, "%s [%d] %s@%s LOG:  disconnection: session time: %d:%02d:%02d.%03d user=%s database=%s host=%s port=%d\n", ts(), s.pid, s.user, s.db, r.IntN(3), r.IntN(60), r.IntN(60), r.IntN(1000), s.user, s.db, s.host, 32768+r.IntN(28000))
				for i, x := range live {
					if x == s {
						live = append(live[:i], live[i+1:]...)
						break
					}
				}
			}
		}
	}
	return sb.String(), nil
}

// hSbinNames are the programs in /usr/sbin (names only).
func hSbinNames() ([]string, error) {
	ents, err := os.ReadDir("/usr/sbin")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); !strings.ContainsAny(n, ".+") && len(n) > 2 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

func hMakeJournal() (string, error) {
	progs, err := hSbinNames()
	if err != nil {
		return "", err
	}
	r := hSeed("h-journal")
	msgs := []string{
		"Started %s.service.",
		"Stopping %s.service...",
		"%s.service: Deactivated successfully.",
		"%s.service: Consumed %d.%03ds CPU time.",
		"Reloading configuration of %s.",
		"%s.service: Main process exited, code=exited, status=%d/n",
		"%s.service: Scheduled restart job, restart counter is at %d.",
		"%s: worker %d ready",
	}
	boot := fmt.Sprintf("%032x", r.Uint64())[:16] + fmt.Sprintf("%016x", r.Uint64())
	machine := "4f0c7a1d2b9e46a8b3c6d5e4f7a8b9c0"
	t := int64(1741651200000000)
	mono := int64(3_200_000)
	var sb strings.Builder
	seq := 0x1a2b3c
	for sb.Len() < 3_600_000 {
		d := int64(r.IntN(4_000_000) + 1000)
		t += d
		mono += d
		seq++
		p := progs[r.IntN(len(progs))]
		m := msgs[r.IntN(len(msgs))]
		var msg string
		switch strings.Count(m, "%") {
		case 1:
			msg = fmt.Sprintf(m, p)
		case 2:
			msg = fmt.Sprintf(m, p, 1+r.IntN(9))
		default:
			msg = fmt.Sprintf(m, p, r.IntN(40), r.IntN(1000))
		}
		msg = strings.TrimSuffix(msg, "/n")
		pid := 1
		ident := "systemd"
		if strings.HasPrefix(m, "%s: worker") {
			pid = 300 + r.IntN(60000)
			ident = p
		}
		fmt.Fprintf(&sb, "__CURSOR=s=%s;i=%x;b=%s;m=%x;t=%x;x=%016x\n", machine[:32], seq, boot, mono, t, r.Uint64())
		fmt.Fprintf(&sb, "__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=%s\n_MACHINE_ID=%s\n_HOSTNAME=hv-db-02\n", t, mono, boot, machine)
		fmt.Fprintf(&sb, "PRIORITY=%d\nSYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER=%s\n_PID=%d\n_UID=0\n_GID=0\n_COMM=%s\n", 5+r.IntN(2), ident, pid, ident)
		if pid != 1 {
			fmt.Fprintf(&sb, "_SYSTEMD_UNIT=%s.service\n", p)
		} else {
			fmt.Fprintf(&sb, "UNIT=%s.service\n", p)
		}
		fmt.Fprintf(&sb, "MESSAGE=%s\n\n", msg)
	}
	return sb.String(), nil
}

func hRustDocPaths() ([]string, error) {
	var out []string
	root := hRustDoc + "std"
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".html") {
			out = append(out, strings.TrimPrefix(p, hRustDoc))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func hMakeNginxErr() (string, error) {
	paths, err := hRustDocPaths()
	if err != nil {
		return "", err
	}
	if len(paths) == 0 {
		return "", fmt.Errorf("no rustdoc pages")
	}
	r := hSeed("h-nginx")
	t := time.Date(2024, 11, 3, 0, 0, 7, 0, time.UTC)
	conn := 190000
	var sb strings.Builder
	for sb.Len() < 5_000_000 {
		t = t.Add(time.Duration(r.IntN(4000)+10) * time.Millisecond)
		conn += 1 + r.IntN(6)
		w := 2810 + r.IntN(8)
		ip := fmt.Sprintf("%d.%d.%d.%d", []int{198, 203, 192, 100}[r.IntN(4)], r.IntN(256), r.IntN(256), 1+r.IntN(254))
		p := paths[r.IntN(len(paths))]
		ts := t.Format("2006/01/02 15:04:05")
		switch k := r.IntN(10); {
		case k < 5:
			bad := strings.Replace(p, ".html", "l.html", 1)
			fmt.Fprintf(&sb, "%s [error] %d#%d: *%d open() \"/srv/docs/rust/%s\" failed (2: No such file or directory), client: %s, server: docs.hv.internal, request: \"GET /rust/%s HTTP/1.1\", host: \"docs.hv.internal\"\n", ts, w, w, conn, bad, ip, bad)
		case k < 7:
			fmt.Fprintf(&sb, "%s [error] %d#%d: *%d upstream timed out (110: Connection timed out) while reading response header from upstream, client: %s, server: docs.hv.internal, request: \"GET /search?q=%s HTTP/1.1\", upstream: \"http://127.0.0.1:%d/search?q=%s\", host: \"docs.hv.internal\"\n", ts, w, w, conn, ip, filepath.Base(strings.TrimSuffix(p, ".html")), 8080+r.IntN(3), filepath.Base(strings.TrimSuffix(p, ".html")))
		case k < 8:
			fmt.Fprintf(&sb, "%s [warn] %d#%d: *%d an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/%d/%02d/%010d while reading upstream, client: %s, server: docs.hv.internal, request: \"GET /rust/%s HTTP/1.1\", upstream: \"http://127.0.0.1:8080/rust/%s\", host: \"docs.hv.internal\"\n", ts, w, w, conn, r.IntN(10), r.IntN(100), r.IntN(1_000_000_000), ip, p, p)
		case k < 9:
			fmt.Fprintf(&sb, "%s [error] %d#%d: *%d access forbidden by rule, client: %s, server: docs.hv.internal, request: \"GET /rust/%s.bak HTTP/1.1\", host: \"docs.hv.internal\"\n", ts, w, w, conn, ip, p)
		default:
			fmt.Fprintf(&sb, "%s [info] %d#%d: *%d client %s closed keepalive connection\n", ts, w, w, conn, ip)
		}
	}
	return sb.String(), nil
}

func hMakeMbox() (string, error) {
	names, err := filepath.Glob("/usr/share/doc/util-linux/releases/v2.*-ReleaseNotes.gz")
	if err != nil || len(names) == 0 {
		return "", fmt.Errorf("no util-linux release notes")
	}
	sort.Slice(names, func(i, j int) bool { return hVersionKey(names[i]) < hVersionKey(names[j]) })
	r := hSeed("h-mbox")
	people := []string{"Karel Zak <kzak@redhat.com>", "Sami Kerola <kerolasa@iki.fi>", "Thomas Weischuh <thomas@t-8ch.de>", "Masatake YAMATO <yamato@redhat.com>", "Chris Hofstaedtler <zeha@debian.org>", "Ruediger Meier <ruediger.meier@ga-group.nl>"}
	replies := []string{
		"Thanks for the release! Builds fine here on armhf and riscv64.",
		"Tagged in our tree, packaging will follow this week.",
		"Is there a signed tarball yet? The kernel.org mirror still shows the old one.",
		"One test fails for me in the chroot (ts/lsns/ioctl_ns), probably environment related.",
		"Great, the translated man pages are very welcome.",
	}
	t := time.Date(2008, 2, 11, 9, 30, 0, 0, time.UTC)
	var sb strings.Builder
	n := 0
	for _, name := range names {
		notes, err := hGunzip(name)
		if err != nil {
			return "", err
		}
		ver := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "v"), "-ReleaseNotes.gz")
		t = t.Add(time.Duration(80+r.IntN(120)) * 24 * time.Hour)
		n++
		id := fmt.Sprintf("<%d.%x@ul-announce>", t.Unix(), r.Uint32())
		fmt.Fprintf(&sb, "From kzak@redhat.com %s\nFrom: Karel Zak <kzak@redhat.com>\nTo: util-linux@vger.kernel.org\nSubject: [ANNOUNCE] util-linux v%s\nDate: %s\nMessage-ID: %s\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n", t.Format("Mon Jan _2 15:04:05 2006"), ver, t.Format(time.RFC1123Z), id)
		fmt.Fprintf(&sb, "The util-linux release v%s is available at\n\n  http://www.kernel.org/pub/linux/utils/util-linux/v%s\n\nFeedback and bug reports, as always, are welcomed.\n\n  Karel\n\n", ver, ver)
		for _, l := range strings.Split(notes, "\n") {
			if strings.HasPrefix(l, "From ") {
				l = ">" + l
			}
			sb.WriteString(l + "\n")
		}
		sb.WriteString("\n")
		for k := r.IntN(3); k > 0; k-- {
			rt := t.Add(time.Duration(1+r.IntN(72)) * time.Hour)
			who := people[1+r.IntN(len(people)-1)]
			addr := who[strings.Index(who, "<")+1 : len(who)-1]
			fmt.Fprintf(&sb, "From %s %s\nFrom: %s\nTo: util-linux@vger.kernel.org\nSubject: Re: [ANNOUNCE] util-linux v%s\nDate: %s\nMessage-ID: <%d.%x@mail>\nIn-Reply-To: %s\nReferences: %s\n\n%s\n\n> The util-linux release v%s is available at\n\n", addr, rt.Format("Mon Jan _2 15:04:05 2006"), who, ver, rt.Format(time.RFC1123Z), rt.Unix(), r.Uint32(), id, id, replies[r.IntN(len(replies))], ver)
		}
	}
	return sb.String(), nil
}

// hVersionKey sorts util-linux release notes by version.
func hVersionKey(name string) string {
	v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "v"), "-ReleaseNotes.gz")
	var parts []string
	for _, p := range strings.Split(v, ".") {
		n, _ := strconv.Atoi(p)
		parts = append(parts, fmt.Sprintf("%04d", n))
	}
	return strings.Join(parts, ".")
}
