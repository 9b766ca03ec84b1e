package main

// Half A of the development set: code, man pages, Debian changelogs, package
// databases, Markdown, database logs, JSON lines and CSV built from what
// Debian packages install on this machine.

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

func init() { cases = append(cases, casesA) }

// Documents several cases share.
var (
	aManSSH = []string{
		"/usr/share/man/man5/ssh_config.5.gz",
		"/usr/share/man/man1/ssh.1.gz",
		"/usr/share/man/man1/sftp.1.gz",
		"/usr/share/man/man1/ssh-keygen.1.gz",
		"/usr/share/man/man1/scp.1.gz",
		"/usr/share/man/man1/ssh-add.1.gz",
		"/usr/share/man/man1/ssh-agent.1.gz",
		"/usr/share/man/man1/ssh-keyscan.1.gz",
		"/usr/share/man/man1/ssh-copy-id.1.gz",
	}
	aManValgrind = []string{
		"/usr/share/man/man1/valgrind.1.gz",
		"/usr/share/man/man1/callgrind_annotate.1.gz",
		"/usr/share/man/man1/callgrind_control.1.gz",
		"/usr/share/man/man1/cg_annotate.1.gz",
		"/usr/share/man/man1/cg_diff.1.gz",
		"/usr/share/man/man1/cg_merge.1.gz",
		"/usr/share/man/man1/ms_print.1.gz",
		"/usr/share/man/man1/valgrind-di-server.1.gz",
		"/usr/share/man/man1/valgrind-listener.1.gz",
		"/usr/share/man/man1/vgdb.1.gz",
	}
	aChangelogsMixed = []string{
		"/usr/share/doc/openssh-client/changelog.Debian.gz",
		"/usr/share/doc/openjdk-17-jre-headless/changelog.Debian.gz",
		"/usr/share/doc/postgresql-client-15/changelog.Debian.gz",
		"/usr/share/doc/curl/changelog.Debian.gz",
		"/usr/share/doc/vim/changelog.Debian.gz",
		"/usr/share/doc/ghostscript/changelog.Debian.gz",
		"/usr/share/doc/make/changelog.Debian.gz",
		"/usr/share/doc/gcc-12/changelog.Debian.gz",
		"/usr/share/doc/valgrind/changelog.Debian.gz",
	}
	aPerlNet = []string{
		"/usr/share/perl/5.36/HTTP/Tiny.pm",
		"/usr/share/perl/5.36/Net/*.pm",
		"/usr/share/perl/5.36/Net/FTP/*.pm",
		"/usr/share/perl/5.36/IO/Socket/*.pm",
		"/usr/share/perl/5.36/IO/Compress/*.pm",
	}
	aPostgresHeaders = []string{
		"/usr/include/postgresql/*.h",
		"/usr/include/postgresql/internal/*.h",
		"/usr/include/postgresql/internal/libpq/*.h",
		"/usr/include/postgresql/libpq/*.h",
	}
	aLegalJDK  = []string{"/usr/lib/jvm/temurin-25-jdk-amd64/legal/*/*.md"}
	aNpmDocs   = []string{"/usr/lib/node_modules/npm/docs/content/*/*.md"}
	aNodeDocs  = []string{"/usr/share/doc/nodejs/api/[h-z]*.md"}
	aJQuery    = []string{"/usr/share/javascript/jquery/jquery.js", "/usr/share/javascript/underscore/underscore.js"}
	aCopyright = []string{"/usr/share/doc/lib[a-f]*/copyright"}
)

const (
	aSecurityPackages = "/var/lib/apt/lists/deb.debian.org_debian-security_dists_bookworm-security_main_binary-amd64_Packages.lz4"
	aMainPackages     = "/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4"
	aTemplates        = "/var/cache/debconf/templates.dat"
	aJDKSources       = "/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip"
	aBotocore         = "/usr/lib/google-cloud-sdk/lib/third_party/botocore/data"
)

var casesA = []devCase{
	// ---- man pages ----
	{
		ID: "a-man-ssh-x11-timeout", Kind: "man", Form: "fact",
		Files:    aManSSH,
		Question: "By default, after how long does ssh stop accepting untrusted X11 forwarding connections?",
		Answers:  []string{"twenty minutes", "20 minutes", "20 min"},
	},
	{
		ID: "a-man-ssh-batchmode", Kind: "man", Form: "fact",
		Files:    aManSSH,
		Question: "When BatchMode is turned on, what does the ServerAliveInterval get set to?",
		Answers:  []string{"300 seconds", "300", "300s", "300 s"},
		Deliver:  "inline-after",
	},
	{
		ID: "a-man-ssh-hostblock", Kind: "man", Form: "config",
		Files: aManSSH,
		Needle: `.Pp
For example, the following stanza reaches the build hosts through the
bastion:
.Bd -literal -offset indent
Host build-eu2
    HostName 185.199.110.42
    User deploy
    Port 2222
    ProxyJump jump-fra1.corp.example.net
.Ed`,
		Depth:    0.216023230,
		Question: "Which jump host is used to get to build-eu2?",
		Answers:  []string{"jump-fra1.corp.example.net"},
		Deliver:  "files",
	},
	{
		ID: "a-man-openssl-ca-days", Kind: "man", Form: "fact",
		Files:    []string{"/usr/share/man/man1/openssl-*.1ssl.gz"},
		Question: "In the sample configuration file of the openssl ca command, how many days are certificates certified for?",
		Answers:  []string{"365", "365 days"},
	},
	{
		ID: "a-man-openssl-comment", Kind: "man", Form: "comment",
		Files:    []string{"/usr/share/man/man1/openssl-*.1ssl.gz"},
		Needle:   `.\" Local packaging note: the s_server smoke test on the build farm listens on port 44330, keep it clear of the HTTPS test range.`,
		Depth:    0.750558775,
		Question: "which port does the s_server smoke test on the build farm listen on?",
		Answers:  []string{"44330"},
	},
	{
		ID: "a-man-valgrind-stack", Kind: "man", Form: "fact",
		Files:    aManValgrind,
		Question: "How big is the private stack Valgrind uses for each thread by default?",
		Answers:  []string{"1MB", "1 MB", "1 MiB", "1MiB"},
		Deliver:  "inline",
	},
	{
		ID: "a-man-valgrind-absent", Kind: "man", Form: "absent",
		Files:    aManValgrind,
		Question: "What is the default of valgrind's --max-heap-size option?",
	},
	{
		ID: "a-man-tc-prose", Kind: "man", Form: "prose",
		Files: []string{"/usr/share/man/man8/tc-*.8.gz"},
		Needle: `.PP
On the lab's 25 Gbit/s uplinks the
.B fq_codel
qdisc was run with a target of 2ms; shorter targets cost measurable throughput
without improving queueing delay.`,
		Depth:    0.493258299,
		Question: "What target was fq_codel run with on the lab's 25 Gbit/s uplinks?",
		Answers:  []string{"2ms", "2 ms"},
	},

	// ---- Debian changelogs ----
	{
		ID: "a-cl-linux-date", Kind: "changelog", Form: "fact",
		Files:    []string{"/usr/share/doc/linux-perf/changelog.Debian.gz"},
		Size:     2_000_000,
		Question: "When was linux 6.1.38-1 uploaded?",
		Answers:  []string{"Fri, 14 Jul 2023 05:46:44 +0200", "14 Jul 2023", "2023-07-14", "Fri, 14 Jul 2023", "July 14, 2023", "14 July 2023"},
	},
	{
		ID: "a-cl-linux-absent", Kind: "changelog", Form: "absent",
		Files:    []string{"/usr/share/doc/linux-perf/changelog.Debian.gz"},
		Question: "Who signed the linux 6.1.41-1 upload?",
	},
	{
		ID: "a-cl-chromium-uploader", Kind: "changelog", Form: "fact",
		Files:    []string{"/usr/share/doc/chromium/changelog.Debian.gz"},
		Question: "Who uploaded chromium 148.0.7778.215-2?",
		Answers:  []string{"Juan Manuel Méndez Rey", "Juan Manuel Méndez Rey <vejeta@gmail.com>", "vejeta@gmail.com"},
	},
	{
		ID: "a-cl-chromium-mail", Kind: "changelog", Form: "mail",
		Files: []string{"/usr/share/doc/chromium/changelog.Debian.gz"},
		Needle: `  * Forward the VA-API crash report to upstream. Original report:
    From: Ingrid Solberg <ingrid.solberg@example.no>
    Date: Tue, 14 Apr 2026 09:12:44 +0200
    Subject: chromium: GPU process crashes with VA-API on AMD Raphael`,
		Depth:    0.131281374,
		Question: "What's the e-mail address of the person who reported the VA-API GPU crash on AMD Raphael?",
		Answers:  []string{"ingrid.solberg@example.no"},
		Deliver:  "inline-after",
	},
	{
		ID: "a-cl-mixed-reporter", Kind: "changelog", Form: "fact",
		Files:    aChangelogsMixed,
		Question: "Who reported the ssh-add smartcard destination-constraint problem (CVE-2023-28531)?",
		Answers:  []string{"Luci Stanescu"},
	},
	{
		ID: "a-cl-mixed-prose", Kind: "changelog", Form: "prose",
		Files:    aChangelogsMixed,
		Needle:   "  * Raise the timeout of the regression test suite on riscv64 to 95 minutes;\n    the buildds there are too slow for the default.",
		Depth:    0.217964530,
		Question: "What was the riscv64 regression test suite timeout raised to?",
		Answers:  []string{"95 minutes", "95 min"},
		Deliver:  "files",
	},
	{
		ID: "a-cl-mixed-list", Kind: "changelog", Form: "list",
		Files: aChangelogsMixed,
		Needle: `
  [ Émilie Fournier ]
  * d/tests: add an autopkgtest exercising pg_basebackup --compress=server-zstd.
  * d/control: bump Standards-Version, no changes needed.`,
		Depth:    0.332754884,
		Question: "Who added the autopkgtest for pg_basebackup --compress=server-zstd?",
		Answers:  []string{"Émilie Fournier"},
	},
	{
		ID: "a-cl-binutils-nmu", Kind: "changelog", Form: "fact",
		Files:    []string{"/usr/share/doc/binutils/changelog.Debian.gz"},
		Question: "Tell me who uploaded binutils 2.22-6.1.",
		Answers:  []string{"Samuel Thibault", "Samuel Thibault <sthibault@debian.org>"},
		Deliver:  "inline",
	},

	// ---- package databases ----
	{
		ID: "a-pk-main-maintainer", Kind: "pkgdb", Form: "fact",
		Make:     aMainPackagesText,
		Size:     6_000_000,
		Question: "Who maintains libapache2-mod-xforward?",
		Answers:  []string{"Andrew Lee (李健秋) <ajqlee@debian.org>", "Andrew Lee (李健秋)", "Andrew Lee", "ajqlee@debian.org"},
	},
	{
		ID: "a-pk-sec-size", Kind: "pkgdb", Form: "fact",
		Make:     aSecurityPackagesText,
		Question: "How much disk space does python3-starlette take up once installed?",
		Answers:  []string{"275", "275 kB", "275 KB", "275 KiB"},
	},
	{
		ID: "a-pk-sec-stanza", Kind: "pkgdb", Form: "stanza",
		Make: aSecurityPackagesText,
		Needle: `
Package: libvtparse2
Source: vtparse
Version: 0.9.4-2+deb12u1
Installed-Size: 141
Maintainer: Debian QA Group <packages@qa.debian.org>
Architecture: amd64
Depends: libc6 (>= 2.34)
Description: state machine parser for DEC terminal escape sequences
Homepage: https://vt100.net/emu/dec_ansi_parser
Description-md5: 0c7d3ed5e0b5c4cf8a0e1c4e0f5b8a7d
Section: libs
Priority: optional
Filename: pool/updates/main/v/vtparse/libvtparse2_0.9.4-2+deb12u1_amd64.deb
Size: 38272
SHA256: 2b7f4c0e9a61d35d8f0b6c1e2a4d9f7e3c5b8a1d0e6f2c4b7a9d3e1f5c8b0a62
`,
		Depth:    0.440101445,
		Question: "Which version of libvtparse2 does the security archive carry?",
		Answers:  []string{"0.9.4-2+deb12u1"},
	},
	{
		ID: "a-pk-tmpl-hinting", Kind: "pkgdb", Form: "fact",
		Files:    []string{aTemplates},
		Question: "Which hinting style does fontconfig use by default?",
		Answers:  []string{"hintslight", "Slight"},
	},
	{
		ID: "a-pk-tmpl-stanza", Kind: "pkgdb", Form: "stanza",
		Files: []string{aTemplates},
		Needle: `
Name: slapd/domain
Default: ldap.nordlys.example
Description: DNS domain name:
Extended_description: The DNS domain name is used to construct the base DN of the LDAP directory. For example, 'foo.example.org' will create the directory with 'dc=foo, dc=example, dc=org' as base DN.
Type: string
Owners: slapd/domain
`,
		Depth:    0.503303283,
		Question: "What DNS domain does slapd propose by default?",
		Answers:  []string{"ldap.nordlys.example"},
	},
	{
		ID: "a-pk-tmpl-absent", Kind: "pkgdb", Form: "absent",
		Files:    []string{aTemplates},
		Question: "What is the default value of ca-certificates/enable_crts?",
	},
	{
		ID: "a-pk-copyright-contact", Kind: "pkgdb", Form: "fact",
		Files:    aCopyright,
		Size:     1_500_000,
		Question: "Who is the upstream contact for libavif?",
		Answers:  []string{"Joe Drago <joedrago@gmail.com>", "Joe Drago", "joedrago@gmail.com"},
	},
	{
		ID: "a-pk-copyright-stanza", Kind: "pkgdb", Form: "stanza",
		Files: aCopyright,
		Size:  1_500_000,
		Needle: `
Files: contrib/avif_thumbnailer/*
Copyright: 2021-2024 Tomasz Wójcik <t.wojcik@example.pl>
License: BSD-2-Clause
`,
		Depth:    0.249392498,
		Question: "Who holds the copyright on libavif's contrib/avif_thumbnailer?",
		Answers:  []string{"Tomasz Wójcik <t.wojcik@example.pl>", "Tomasz Wójcik", "2021-2024 Tomasz Wójcik <t.wojcik@example.pl>", "2021-2024 Tomasz Wójcik"},
	},

	// ---- Markdown ----
	{
		ID: "a-md-node-requesttimeout", Kind: "markdown", Form: "fact",
		Files:    aNodeDocs,
		Size:     2_500_000,
		Question: "What is the default requestTimeout of a Node.js HTTP server?",
		Answers:  []string{"300000", "300000 ms", "300 seconds", "5 minutes", "300000 milliseconds"},
	},
	{
		ID: "a-md-node-http2-code", Kind: "markdown", Form: "fact",
		Files:    aNodeDocs,
		Size:     2_500_000,
		Question: "Which error code value does HTTP/2 use for 'Enhance Your Calm'?",
		Answers:  []string{"0x0b", "0x0B", "11"},
		Deliver:  "files",
	},
	{
		ID: "a-md-node-envtable", Kind: "markdown", Form: "mdtable",
		Files: aNodeDocs,
		Size:  2_500_000,
		Needle: "\nThe following variables are also read once at startup:\n\n" +
			"| Variable                   | Default | Description                                  |\n" +
			"| -------------------------- | ------- | -------------------------------------------- |\n" +
			"| `NODE_CLUSTER_SCHED`       | `rr`    | Scheduling policy of the cluster primary.    |\n" +
			"| `NODE_TLS_SESSION_TTL`     | `7200`  | Lifetime of cached TLS sessions, in seconds. |\n" +
			"| `NODE_REPL_HISTORY_SIZE`   | `1000`  | Number of lines kept in the REPL history.    |\n",
		Depth:    0.468266830,
		Question: "For how long are cached TLS sessions kept by default, according to the variables table?",
		Answers:  []string{"7200", "7200 seconds", "2 hours"},
	},
	{
		ID: "a-md-corepack-row", Kind: "markdown", Form: "mdtable",
		Make:     aNodeDocsWithBunRow,
		Question: "Which binary names does Corepack list for Bun?",
		Answers:  []string{"`bun`, `bunx`", "bun, bunx", "bun and bunx"},
		Deliver:  "inline-after",
	},
	{
		ID: "a-md-npm-mintimeout", Kind: "markdown", Form: "fact",
		Files:    aNpmDocs,
		Question: "How long does npm wait at minimum before retrying a failed fetch, by default?",
		Answers:  []string{"10000 (10 seconds)", "10000", "10 seconds", "10000 ms", "10s"},
		Deliver:  "inline",
	},
	{
		ID: "a-md-npm-list", Kind: "markdown", Form: "list",
		Files: aNpmDocs,
		Needle: `
### Mirror maintenance

* Primary mirror: ` + "`https://npm.mirror.hel1.example.net/`" + `
* Fallback mirror: ` + "`https://registry.npmjs.org/`" + `
* Sync window: 02:00–02:45 UTC
* Contact: Päivi Nieminen
`,
		Depth:    0.477227799,
		Question: "When is the mirror sync window?",
		Answers:  []string{"02:00–02:45 UTC", "02:00-02:45 UTC", "02:00–02:45", "02:00-02:45"},
	},
	{
		ID: "a-md-npm-yaml", Kind: "markdown", Form: "yaml",
		Files:    aNpmDocs,
		Needle:   "\nFor example, a GitHub Actions workflow that publishes with provenance:\n\n```yaml\n# .github/workflows/publish.yml\nname: publish\non:\n  release:\n    types: [published]\njobs:\n  publish:\n    runs-on: ubuntu-22.04\n    timeout-minutes: 25\n    permissions:\n      id-token: write\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm publish --provenance --access public\n```\n",
		Depth:    0.459925823,
		Question: "How many minutes may the publish job run before it times out?",
		Answers:  []string{"25", "25 minutes"},
		Deliver:  "files",
	},
	{
		ID: "a-md-jdk-harfbuzz", Kind: "markdown", Form: "fact",
		Files:    aLegalJDK,
		Question: "Which HarfBuzz version is bundled with this JDK?",
		Answers:  []string{"12.3.2", "Harfbuzz 12.3.2"},
	},
	{
		ID: "a-md-jdk-absent", Kind: "markdown", Form: "absent",
		Files:    aLegalJDK,
		Question: "Which version of SQLite does this JDK bundle?",
	},

	// ---- database server logs ----
	{
		ID: "a-dblog-pg-workmem", Kind: "dblog", Form: "log",
		Make:     aPostgresLog("a-dblog-pg-workmem", 900_000),
		Needle:   "2025-03-04 01:08:14.102 UTC [812] LOG:  received SIGHUP, reloading configuration files\n2025-03-04 01:08:14.103 UTC [812] LOG:  parameter \"work_mem\" changed to \"64MB\"",
		Depth:    0.41,
		Question: "What was work_mem changed to when the configuration was reloaded?",
		Answers:  []string{"64MB", "64 MB"},
	},
	{
		ID: "a-dblog-pg-hba", Kind: "dblog", Form: "log",
		Make:     aPostgresLog("a-dblog-pg-hba", 1_400_000),
		Needle:   "2025-03-04 02:56:14.871 UTC [82209] [unknown]@[unknown] LOG:  connection received: host=10.20.4.57 port=51344\n2025-03-04 02:56:14.902 UTC [82209] reporting_ro@debmirror FATAL:  password authentication failed for user \"reporting_ro\"\n2025-03-04 02:56:14.902 UTC [82209] reporting_ro@debmirror DETAIL:  Connection matched pg_hba.conf line 102: \"host    debmirror    all    10.20.0.0/16    scram-sha-256\"",
		Depth:    0.68,
		Question: "Which pg_hba.conf line did the failed login of reporting_ro match?",
		Answers:  []string{"102", "line 102"},
		Deliver:  "files",
	},
	{
		ID: "a-dblog-pg-vacuum", Kind: "dblog", Form: "log",
		Make:     aPostgresLog("a-dblog-pg-vacuum", 2_600_000),
		Needle:   "2025-03-04 06:57:55.841 UTC [161109] pkgsync@debmirror LOG:  duration: 48213.902 ms  statement: VACUUM (FULL, ANALYZE) package_files;",
		Depth:    0.83,
		Question: "How long did the full vacuum of package_files take?",
		Answers:  []string{"48213.902 ms", "48213.902", "48.2 seconds", "48.213902 seconds"},
	},
	{
		ID: "a-dblog-pg-version", Kind: "dblog", Form: "fact",
		Make:     aPostgresLog("a-dblog-pg-version", 600_000),
		Question: "Which PostgreSQL version is this server running?",
		Answers:  []string{"15.18", "PostgreSQL 15.18", "15.18 (Debian 15.18-0+deb12u1)", "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)"},
		Deliver:  "inline",
	},
	{
		ID: "a-dblog-pg-absent", Kind: "dblog", Form: "absent",
		Make:     aPostgresLog("a-dblog-pg-absent", 700_000),
		Question: "What was max_wal_size changed to?",
	},
	{
		ID: "a-dblog-redis-load", Kind: "dblog", Form: "log",
		Make: aRedisLog("a-dblog-redis-load", 800_000, false, 0.36),
		Needle: `1:signal-handler (1741677523) Received SIGTERM scheduling shutdown...
1:M 11 Mar 2025 07:18:43.112 # User requested shutdown...
1:M 11 Mar 2025 07:18:43.112 * Saving the final RDB snapshot before exiting.
1:M 11 Mar 2025 07:18:47.930 * DB saved on disk
1:M 11 Mar 2025 07:18:47.931 # Redis is now ready to exit, bye bye...
1:C 11 Mar 2025 07:18:52.406 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo
1:C 11 Mar 2025 07:18:52.406 # Redis version=7.0.15, bits=64, commit=00000000, modified=0, pid=1, just started
1:C 11 Mar 2025 07:18:52.406 # Configuration loaded
1:M 11 Mar 2025 07:18:52.407 * monotonic clock: POSIX clock_gettime
1:M 11 Mar 2025 07:18:52.408 * Running mode=standalone, port=6380.
1:M 11 Mar 2025 07:18:52.409 # Server initialized
1:M 11 Mar 2025 07:18:52.410 * Loading RDB produced by version 7.0.15
1:M 11 Mar 2025 07:18:52.410 * RDB age 5 seconds
1:M 11 Mar 2025 07:18:52.410 * RDB memory usage when created 1804.77 Mb
1:M 11 Mar 2025 07:19:05.213 * Done loading RDB, keys loaded: 1204431, keys expired: 512.
1:M 11 Mar 2025 07:19:05.214 * DB loaded from disk: 12.804 seconds
1:M 11 Mar 2025 07:19:05.214 * Ready to accept connections tcp`,
		Depth:    0.360058958,
		Question: "How long did Redis take to load the dataset from disk?",
		Answers:  []string{"12.804 seconds", "12.804", "12.804 s", "12.8 seconds"},
	},
	{
		ID: "a-dblog-redis-somaxconn", Kind: "dblog", Form: "log",
		Make: aRedisLog("a-dblog-redis-somaxconn", 450_000, false, 0.52),
		Needle: `1:signal-handler (1741675381) Received SIGTERM scheduling shutdown...
1:M 11 Mar 2025 06:43:01.377 # User requested shutdown...
1:M 11 Mar 2025 06:43:01.377 * Saving the final RDB snapshot before exiting.
1:M 11 Mar 2025 06:43:05.902 * DB saved on disk
1:M 11 Mar 2025 06:43:05.903 # Redis is now ready to exit, bye bye...
1:C 11 Mar 2025 06:43:10.118 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo
1:C 11 Mar 2025 06:43:10.118 # Redis version=7.0.15, bits=64, commit=00000000, modified=0, pid=1, just started
1:C 11 Mar 2025 06:43:10.118 # Configuration loaded
1:M 11 Mar 2025 06:43:10.119 * monotonic clock: POSIX clock_gettime
1:M 11 Mar 2025 06:43:10.120 * Running mode=standalone, port=6380.
1:M 11 Mar 2025 06:43:10.120 # WARNING: The TCP backlog setting of 511 cannot be enforced because /proc/sys/net/core/somaxconn is set to the lower value of 128.
1:M 11 Mar 2025 06:43:10.121 # Server initialized
1:M 11 Mar 2025 06:43:10.122 * Loading RDB produced by version 7.0.15
1:M 11 Mar 2025 06:43:10.122 * RDB age 5 seconds
1:M 11 Mar 2025 06:43:10.122 * RDB memory usage when created 1790.06 Mb
1:M 11 Mar 2025 06:43:21.357 * Done loading RDB, keys loaded: 1198764, keys expired: 87.
1:M 11 Mar 2025 06:43:21.358 * DB loaded from disk: 11.236 seconds
1:M 11 Mar 2025 06:43:21.358 * Ready to accept connections tcp`,
		Depth:    0.520096334,
		Question: "What is net.core.somaxconn set to, according to the Redis warning?",
		Answers:  []string{"128"},
		Deliver:  "inline-after",
	},
	{
		ID: "a-dblog-redis-port", Kind: "dblog", Form: "fact",
		Make:     aRedisLog("a-dblog-redis-port", 300_000, true, 0),
		Question: "Which port is the Redis server listening on?",
		Answers:  []string{"6380"},
	},

	// ---- JSON lines ----
	{
		ID: "a-jsonl-npm-semver", Kind: "jsonl", Form: "fact",
		Make:     aNpmPackagesJSONL,
		Question: "Which version of semver is bundled with npm here?",
		Answers:  []string{"7.8.5"},
	},
	{
		ID: "a-jsonl-npm-author", Kind: "jsonl", Form: "fact",
		Make:     aNpmPackagesJSONL,
		Question: "Who is the author of http-cache-semantics?",
		Answers:  []string{"Kornel Lesiński <npms2@geekhood.net> (https://kornel.ski/)", "Kornel Lesiński", "Kornel Lesiński <npms2@geekhood.net>"},
		Deliver:  "inline",
	},
	{
		ID: "a-jsonl-npm-needle", Kind: "jsonl", Form: "json",
		Make:     aNpmPackagesJSONL,
		Needle:   `{"name":"@npmcli/mirror-probe","version":"2.3.1","description":"Probe registry mirrors for freshness before install","main":"lib/index.js","files":["bin/","lib/"],"license":"ISC","author":"GitHub Inc.","engines":{"node":"^20.19.0 || ^22.12.0 || >=24.1.0"},"repository":{"type":"git","url":"git+https://github.com/npm/mirror-probe.git"}}`,
		Depth:    0.58,
		Question: "Which Node.js versions does @npmcli/mirror-probe support (engines)?",
		Answers:  []string{"^20.19.0 || ^22.12.0 || >=24.1.0"},
	},
	{
		ID: "a-jsonl-npm-absent", Kind: "jsonl", Form: "absent",
		Make:     aNpmPackagesJSONL,
		Question: "What version of left-pad is bundled?",
	},
	{
		ID: "a-jsonl-aws-region", Kind: "jsonl", Form: "fact",
		Make:     aEndpointsJSONL,
		Question: "Which region code is Africa (Cape Town)?",
		Answers:  []string{"af-south-1"},
	},
	{
		ID: "a-jsonl-aws-absent", Kind: "jsonl", Form: "absent",
		Make:     aEndpointsJSONL,
		Question: "Give me the region code of Europe (Oslo).",
	},
	{
		ID: "a-jsonl-boto-fact", Kind: "jsonl", Form: "fact",
		Make:     aBotoOperationsJSONL,
		Question: "What request URI does the AppSync CreateGraphqlApi operation use?",
		Answers:  []string{"/v1/apis"},
	},
	{
		ID: "a-jsonl-boto-needle", Kind: "jsonl", Form: "json",
		Make:     aBotoOperationsJSONL,
		Needle:   `{"service":"Cloud9","apiVersion":"2017-09-23","operation":"RotateEnvironmentToken","method":"POST","requestUri":"/","input":"RotateEnvironmentTokenRequest","output":"RotateEnvironmentTokenResult","errors":["BadRequestException","NotFoundException","ForbiddenException"],"deprecated":false,"tokenLifetimeSeconds":5400}`,
		Depth:    0.440350899,
		Question: "What is the token lifetime in seconds for RotateEnvironmentToken?",
		Answers:  []string{"5400", "5400 seconds"},
		Deliver:  "inline-after",
	},

	// ---- CSV ----
	{
		ID: "a-csv-services-paging", Kind: "csv", Form: "fact",
		Make:     aServicesCSV,
		Question: "Which port does the Simple Network Paging Protocol use?",
		Answers:  []string{"444"},
		Deliver:  "inline",
	},
	{
		ID: "a-csv-services-absent", Kind: "csv", Form: "absent",
		Make:     aServicesCSV,
		Question: "Which TCP port is mongodb assigned?",
	},
	{
		ID: "a-csv-grib-unit", Kind: "csv", Form: "fact",
		Make:     aGribCSV,
		Question: "In what unit is precipitable water given?",
		Answers:  []string{"kg/(m^2)", "kg/m^2", "kg m-2"},
	},
	{
		ID: "a-csv-grib-row", Kind: "csv", Form: "csv",
		Make:     aGribCSVWithLocalRow,
		Question: "What is the short name of the snow-to-liquid ratio parameter?",
		Answers:  []string{"SNLQR"},
		Deliver:  "files",
	},
	{
		ID: "a-csv-stateplane", Kind: "csv", Form: "fact",
		Files:    []string{"/usr/share/gdal/stateplane.csv"},
		Question: "What is the EPSG code of the Arizona Central state plane zone on NAD27?",
		Answers:  []string{"26749"},
	},
	{
		ID: "a-csv-packages-absent", Kind: "csv", Form: "absent",
		Make:     aPackagesCSV,
		Question: "Which homepage does libx11-dev list?",
	},
	{
		ID: "a-csv-packages-row", Kind: "csv", Form: "csv",
		Make:     aPackagesCSV,
		Needle:   `libvtparse2,vtparse,0.9.4-2+deb12u1,libs,141,Debian QA Group <packages@qa.debian.org>,https://vt100.net/emu/dec_ansi_parser`,
		Depth:    0.958973296,
		Question: "What section is libvtparse2 in?",
		Answers:  []string{"libs"},
	},
	{
		ID: "a-csv-amdgpu-row", Kind: "csv", Form: "csv",
		Make:     aAmdgpuCSV,
		Needle:   `7551,C8,AMD Radeon AI PRO R9700 Engineering Sample`,
		Depth:    0.807283617,
		Question: "What product name goes with device 7551 revision C8?",
		Answers:  []string{"AMD Radeon AI PRO R9700 Engineering Sample"},
		Deliver:  "inline-after",
	},

	// ---- source code ----
	{
		ID: "a-code-sqlite-version", Kind: "code", Form: "fact",
		Files:    []string{"/usr/include/sqlite3.h"},
		Question: "What does SQLITE_VERSION_NUMBER equal?",
		Answers:  []string{"3040001"},
	},
	{
		ID: "a-code-sqlite-comment", Kind: "code", Form: "comment",
		Files: []string{"/usr/include/sqlite3.h"},
		Needle: `
/*
** Local patch (bookworm build farm): the default busy timeout used by the
** regression test harness is 2750 milliseconds.
*/`,
		Depth:    0.229562575,
		Question: "What busy timeout does the regression test harness use by default?",
		Answers:  []string{"2750 milliseconds", "2750 ms", "2750", "2.75 seconds"},
		Deliver:  "files",
	},
	{
		ID: "a-code-pg-port", Kind: "code", Form: "fact",
		Files:    aPostgresHeaders,
		Question: "What TCP port does this PostgreSQL build use by default?",
		Answers:  []string{"5432"},
	},
	{
		ID: "a-code-java-maxcap", Kind: "code", Form: "fact",
		Make:     aJavaConcurrentSources,
		Question: "What is the maximum number of workers a ForkJoinPool can have (MAX_CAP)?",
		Answers:  []string{"0x7fff", "32767"},
	},
	{
		ID: "a-code-java-comment", Kind: "code", Form: "comment",
		Make:     aJavaConcurrentSources,
		Needle:   "    // Local build note: the CI profile caps the common pool's parallelism at 12\n    // so that the test shards do not oversubscribe the runners.",
		Depth:    0.570929639,
		Question: "What does the CI profile cap the common pool's parallelism at?",
		Answers:  []string{"12"},
	},
	{
		ID: "a-code-perl-redirects", Kind: "code", Form: "fact",
		Files:    aPerlNet,
		Question: "How many redirects does HTTP::Tiny follow by default?",
		Answers:  []string{"5", "five"},
	},
	{
		ID: "a-code-perl-ini", Kind: "code", Form: "ini",
		Files: aPerlNet,
		Needle: `
=head2 Site configuration

The test suite reads F<t/relay.ini>, which on the build hosts contains:

    [smtp-relay]
    host     = mx2.fjordnett.example
    port     = 587
    starttls = yes
    timeout  = 45
`,
		Depth:    0.565129734,
		Question: "Which host does the smtp-relay section point at?",
		Answers:  []string{"mx2.fjordnett.example"},
	},
	{
		ID: "a-code-js-sizzle", Kind: "code", Form: "fact",
		Files:    aJQuery,
		Question: "Which Sizzle version is bundled in this jQuery?",
		Answers:  []string{"v2.3.6", "2.3.6"},
	},
	{
		ID: "a-code-js-config", Kind: "code", Form: "config",
		Files: aJQuery,
		Needle: `  // Site defaults for the package browser (kept in sync with deploy/config.js).
  var siteDefaults = {
    apiBase: 'https://sources.debian.example/api/v2/',
    pageSize: 50,
    searchDebounceMs: 275,
    locale: 'nb-NO'
  };
`,
		Depth:    0.901508934,
		Question: "What is the search debounce in the site defaults?",
		Answers:  []string{"275", "275 ms", "275ms"},
	},
	{
		ID: "a-code-js-absent", Kind: "code", Form: "absent",
		Files:    aJQuery,
		Question: "What does MAX_RETRY_DELAY equal in this code?",
	},
}

// aRun runs a command and returns what it writes.
func aRun(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return string(out), nil
}

// aSecurityPackagesText is the Packages list of bookworm-security (lz4).
func aSecurityPackagesText() (string, error) {
	return aRun("lz4cat", aSecurityPackages)
}

// aMainPackagesText is the Packages list of bookworm's main (lz4).
func aMainPackagesText() (string, error) {
	return aRun("lz4cat", aMainPackages)
}

// aPackageStanzas splits a Packages list into field maps.
func aPackageStanzas(text string) []map[string]string {
	var out []map[string]string
	for _, st := range strings.Split(text, "\n\n") {
		m := map[string]string{}
		for _, l := range strings.Split(st, "\n") {
			if k, v, ok := strings.Cut(l, ": "); ok && !strings.HasPrefix(l, " ") {
				m[k] = v
			}
		}
		if m["Package"] != "" {
			out = append(out, m)
		}
	}
	return out
}

// aPackagesCSV is the security archive's package list as CSV.
func aPackagesCSV() (string, error) {
	text, err := aSecurityPackagesText()
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"package", "source", "version", "section", "installed_size", "maintainer", "homepage"})
	for _, m := range aPackageStanzas(text) {
		src := m["Source"]
		if src == "" {
			src = m["Package"]
		}
		src, _, _ = strings.Cut(src, " ")
		w.Write([]string{m["Package"], src, m["Version"], m["Section"], m["Installed-Size"], m["Maintainer"], m["Homepage"]})
	}
	w.Flush()
	return b.String(), w.Error()
}

// aServicesCSV is /etc/services as CSV.
func aServicesCSV() (string, error) {
	text, err := readFile("/etc/services")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"service", "port", "protocol", "aliases", "comment"})
	for _, l := range strings.Split(text, "\n") {
		l, comment, _ := strings.Cut(l, "#")
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		port, proto, _ := strings.Cut(f[1], "/")
		w.Write([]string{f[0], port, proto, strings.Join(f[2:], " "), strings.TrimSpace(comment)})
	}
	w.Flush()
	return b.String(), w.Error()
}

// aGribCSV merges GDAL's GRIB2 parameter tables (4.2.discipline.category).
func aGribCSV() (string, error) {
	names, err := filepath.Glob("/usr/share/gdal/grib2_table_4_2_*_*.csv")
	if err != nil || len(names) == 0 {
		return "", fmt.Errorf("no GRIB2 tables")
	}
	sort.Strings(names)
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"discipline", "category", "subcat", "short_name", "name", "unit", "unit_conv"})
	for _, n := range names {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(n), ".csv"), "_")
		if len(parts) != 6 || parts[4] == "local" {
			continue
		}
		disc, cat := parts[4], parts[5]
		f, err := os.Open(n)
		if err != nil {
			return "", err
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", n, err)
		}
		for _, r := range rows[1:] {
			if len(r) < 5 || strings.HasPrefix(r[0], "-") {
				continue
			}
			w.Write(append([]string{disc, cat}, r[:5]...))
		}
	}
	w.Flush()
	return b.String(), w.Error()
}

// aGribCSVWithLocalRow is aGribCSV with one code reserved for local use
// given to a local parameter.
func aGribCSVWithLocalRow() (string, error) {
	doc, err := aGribCSV()
	if err != nil {
		return "", err
	}
	const reserved = "0,1,242,,Reserved for local use,,UC_NONE\n"
	if !strings.Contains(doc, reserved) {
		return "", fmt.Errorf("no reserved code 0.1.242")
	}
	return strings.Replace(doc, reserved, "0,1,242,SNLQR,Snow-to-liquid ratio (regional test),kg/kg,UC_NONE\n", 1), nil
}

// aAmdgpuCSV is libdrm's table of AMD GPU names as CSV.
func aAmdgpuCSV() (string, error) {
	text, err := readFile("/usr/share/libdrm/amdgpu.ids")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"device_id", "revision_id", "product_name"})
	for _, l := range strings.Split(text, "\n") {
		f := strings.SplitN(l, ",", 3)
		if strings.HasPrefix(l, "#") || len(f) < 3 {
			continue
		}
		w.Write([]string{strings.TrimSpace(f[0]), strings.TrimSpace(f[1]), strings.TrimSpace(f[2])})
	}
	w.Flush()
	return b.String(), w.Error()
}

// aNodeDocsWithBunRow is Node.js's API docs from corepack.md on, with a row
// added to Corepack's table of package managers.
func aNodeDocsWithBunRow() (string, error) {
	names, err := filepath.Glob("/usr/share/doc/nodejs/api/[c-g]*.md")
	if err != nil || len(names) == 0 {
		return "", fmt.Errorf("no Node.js docs")
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		t, err := readFile(n)
		if err != nil {
			return "", err
		}
		parts = append(parts, t)
	}
	doc := strings.Join(parts, "\n\n")
	row := "| [pnpm][]        | `pnpm`, `pnpx`    |\n"
	if !strings.Contains(doc, row) {
		return "", fmt.Errorf("corepack table not found")
	}
	return strings.Replace(doc, row, row+"| [Bun][]         | `bun`, `bunx`     |\n", 1), nil
}

// aNpmPackagesJSONL is the package.json of every module npm bundles, one
// per line.
func aNpmPackagesJSONL() (string, error) {
	var names []string
	err := filepath.WalkDir("/usr/lib/node_modules", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "package.json" {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			return "", err
		}
		var obj map[string]any
		if json.Unmarshal(raw, &obj) != nil || obj["name"] == nil {
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			continue
		}
		b.Write(c.Bytes())
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// aEndpointsJSONL is botocore's endpoint table, one region or endpoint per
// line.
func aEndpointsJSONL() (string, error) {
	raw, err := os.ReadFile(aBotocore + "/endpoints.json")
	if err != nil {
		return "", err
	}
	var doc struct {
		Partitions []struct {
			Partition string                     `json:"partition"`
			Name      string                     `json:"partitionName"`
			DNSSuffix string                     `json:"dnsSuffix"`
			Regions   map[string]json.RawMessage `json:"regions"`
			Services  map[string]struct {
				Endpoints map[string]json.RawMessage `json:"endpoints"`
			} `json:"services"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", err
	}
	var b strings.Builder
	line := func(head map[string]any, rest json.RawMessage) {
		m := map[string]any{}
		json.Unmarshal(rest, &m)
		for k, v := range head {
			m[k] = v
		}
		// encoding/json sorts keys; put the identifying ones first.
		var order []string
		for _, k := range []string{"type", "partition", "service", "region"} {
			if _, ok := m[k]; ok {
				order = append(order, k)
			}
		}
		var others []string
		for k := range m {
			if k != "type" && k != "partition" && k != "service" && k != "region" {
				others = append(others, k)
			}
		}
		sort.Strings(others)
		b.WriteByte('{')
		for i, k := range append(order, others...) {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			vb, _ := json.Marshal(m[k])
			b.Write(kb)
			b.WriteByte(':')
			b.Write(vb)
		}
		b.WriteString("}\n")
	}
	for _, p := range doc.Partitions {
		for _, s := range slices.Sorted(maps.Keys(p.Services)) {
			eps := p.Services[s].Endpoints
			for _, r := range slices.Sorted(maps.Keys(eps)) {
				line(map[string]any{"type": "endpoint", "partition": p.Partition, "service": s, "region": r}, eps[r])
			}
		}
		for _, r := range slices.Sorted(maps.Keys(p.Regions)) {
			line(map[string]any{"type": "region", "partition": p.Partition, "region": r}, p.Regions[r])
		}
	}
	return b.String(), nil
}

// aBotoOperationsJSONL lists the operations of botocore's service models,
// one per line, for the services from a to d.
func aBotoOperationsJSONL() (string, error) {
	names, err := filepath.Glob(aBotocore + "/[a-d]*/*/service-2.json")
	if err != nil || len(names) == 0 {
		return "", fmt.Errorf("no botocore service models")
	}
	sort.Strings(names)
	type op struct {
		Service    string   `json:"service"`
		APIVersion string   `json:"apiVersion"`
		Operation  string   `json:"operation"`
		Method     string   `json:"method"`
		RequestURI string   `json:"requestUri"`
		Input      string   `json:"input,omitempty"`
		Output     string   `json:"output,omitempty"`
		Errors     []string `json:"errors,omitempty"`
		Deprecated bool     `json:"deprecated"`
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, n := range names {
		// Only the newest API version of each service.
		svc := filepath.Base(filepath.Dir(filepath.Dir(n)))
		if seen[svc] {
			continue
		}
		vers, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(n)), "*", "service-2.json"))
		sort.Strings(vers)
		n = vers[len(vers)-1]
		seen[svc] = true
		raw, err := os.ReadFile(n)
		if err != nil {
			return "", err
		}
		var model struct {
			Metadata struct {
				ServiceID  string `json:"serviceId"`
				APIVersion string `json:"apiVersion"`
			} `json:"metadata"`
			Operations map[string]struct {
				HTTP struct {
					Method     string `json:"method"`
					RequestURI string `json:"requestUri"`
				} `json:"http"`
				Input      struct{ Shape string }   `json:"input"`
				Output     struct{ Shape string }   `json:"output"`
				Errors     []struct{ Shape string } `json:"errors"`
				Deprecated bool                     `json:"deprecated"`
			} `json:"operations"`
		}
		if err := json.Unmarshal(raw, &model); err != nil {
			return "", fmt.Errorf("%s: %w", n, err)
		}
		for _, name := range slices.Sorted(maps.Keys(model.Operations)) {
			o := model.Operations[name]
			rec := op{Service: model.Metadata.ServiceID, APIVersion: model.Metadata.APIVersion, Operation: name,
				Method: o.HTTP.Method, RequestURI: o.HTTP.RequestURI, Input: o.Input.Shape, Output: o.Output.Shape, Deprecated: o.Deprecated}
			for _, e := range o.Errors {
				rec.Errors = append(rec.Errors, e.Shape)
			}
			line, _ := json.Marshal(rec)
			b.Write(line)
			b.WriteByte('\n')
		}
		if b.Len() > 1_600_000 {
			break
		}
	}
	return b.String(), nil
}

// aJavaConcurrentSources is java.util.concurrent's sources from the JDK.
func aJavaConcurrentSources() (string, error) {
	zr, err := zip.OpenReader(aJDKSources)
	if err != nil {
		return "", err
	}
	defer zr.Close()
	const dir = "java.base/java/util/concurrent/"
	var names []string
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		rest, ok := strings.CutPrefix(f.Name, dir)
		if ok && strings.HasSuffix(rest, ".java") && !strings.Contains(rest, "/") {
			names = append(names, f.Name)
			files[f.Name] = f
		}
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		rc, err := files[n].Open()
		if err != nil {
			return "", err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return "", err
		}
		parts = append(parts, string(b))
	}
	return strings.Join(parts, "\n\n"), nil
}

// aPkg is a package of the security archive, a real name for the database
// logs to talk about.
type aPkg struct{ name, version, section, maintainer string }

// aDBPackages are the packages of the security archive.
func aDBPackages() ([]aPkg, error) {
	text, err := aSecurityPackagesText()
	if err != nil {
		return nil, err
	}
	var out []aPkg
	for _, m := range aPackageStanzas(text) {
		out = append(out, aPkg{m["Package"], m["Version"], m["Section"], m["Maintainer"]})
	}
	return out, nil
}

// aPostgresLog makes a PostgreSQL server log (log_line_prefix '%m [%p] %q%u@%d ')
// of a package mirror's database, about size bytes long, about the packages
// of the security archive.
func aPostgresLog(id string, size int) func() (string, error) {
	return func() (string, error) {
		pkgs, err := aDBPackages()
		if err != nil {
			return "", err
		}
		hdr, err := readFile("/usr/include/postgresql/pg_config.h")
		if err != nil {
			return "", err
		}
		version := ""
		for _, l := range strings.Split(hdr, "\n") {
			if v, ok := strings.CutPrefix(l, "#define PG_VERSION_STR "); ok {
				version = strings.Trim(v, `"`)
			}
		}
		if version == "" {
			return "", fmt.Errorf("no PG_VERSION_STR in pg_config.h")
		}
		r := seeded(id)
		var b strings.Builder
		t := int64(1741046400) * 1000 // 2025-03-04 00:00:00 UTC, in ms
		stamp := func() string {
			t += int64(200 + r.IntN(2600))
			return aStamp(t)
		}
		const post = 812
		fmt.Fprintf(&b, "%s [%d] LOG:  starting %s\n", stamp(), post, version)
		fmt.Fprintf(&b, "%s [%d] LOG:  listening on IPv4 address \"0.0.0.0\", port 5432\n", aStamp(t), post)
		fmt.Fprintf(&b, "%s [%d] LOG:  listening on IPv6 address \"::\", port 5432\n", aStamp(t), post)
		fmt.Fprintf(&b, "%s [%d] LOG:  listening on Unix socket \"/var/run/postgresql/.s.PGSQL.5432\"\n", aStamp(t+3), post)
		fmt.Fprintf(&b, "%s [%d] LOG:  database system was shut down at %s\n", aStamp(t+9), 815, aStamp(t-412_000))
		fmt.Fprintf(&b, "%s [%d] LOG:  database system is ready to accept connections\n", aStamp(t+21), post)
		tables := []string{"packages", "package_files", "uploads", "maintainers", "bug_reports", "source_packages"}
		users := []string{"pkgsync", "webapp", "pkgsync", "webapp", "webapp", "backup"}
		pid := 20000
		reloaded := false
		for b.Len() < size {
			pid += 1 + r.IntN(40)
			p := pkgs[r.IntN(len(pkgs))]
			u := users[r.IntN(len(users))]
			host := fmt.Sprintf("10.20.%d.%d", 1+r.IntN(6), 2+r.IntN(250))
			port := 32768 + r.IntN(28000)
			switch k := r.IntN(20); {
			case k < 6:
				fmt.Fprintf(&b, "%s [%d] [unknown]@[unknown] LOG:  connection received: host=%s port=%d\n", stamp(), pid, host, port)
				t += int64(2 + r.IntN(15))
				fmt.Fprintf(&b, "%s [%d] %s@debmirror LOG:  connection authorized: user=%s database=debmirror application_name=%s\n", aStamp(t), pid, u, u, []string{"psql", "pkgsync", "gunicorn", "pg_dump"}[r.IntN(4)])
				session := int64(30 + r.IntN(2500))
				t += session
				fmt.Fprintf(&b, "%s [%d] %s@debmirror LOG:  disconnection: session time: 0:00:%02d.%03d user=%s database=debmirror host=%s port=%d\n", aStamp(t), pid, u, session/1000, session%1000, u, host, port)
			case k < 10:
				fmt.Fprintf(&b, "%s [%d] %s@debmirror LOG:  duration: %d.%03d ms  statement: SELECT p.name, p.version, f.path FROM packages p JOIN package_files f ON f.package_id = p.id WHERE p.name = '%s' ORDER BY f.path\n", stamp(), pid, u, 500+r.IntN(4000), r.IntN(1000), p.name)
			case k < 13:
				fmt.Fprintf(&b, "%s [%d] pkgsync@debmirror ERROR:  duplicate key value violates unique constraint \"packages_name_version_key\"\n", stamp(), pid)
				fmt.Fprintf(&b, "%s [%d] pkgsync@debmirror DETAIL:  Key (name, version)=(%s, %s) already exists.\n", aStamp(t), pid, p.name, p.version)
				fmt.Fprintf(&b, "%s [%d] pkgsync@debmirror STATEMENT:  INSERT INTO packages (name, version, section, maintainer) VALUES ($1, $2, $3, $4)\n", aStamp(t), pid)
			case k < 15:
				tb := tables[r.IntN(len(tables))]
				fmt.Fprintf(&b, "%s [%d] LOG:  automatic analyze of table \"debmirror.public.%s\" system usage: CPU: user: %d.%02d s, system: 0.%02d s, elapsed: %d.%02d s\n", stamp(), 30000+r.IntN(9000), tb, r.IntN(2), r.IntN(100), r.IntN(10), 2+r.IntN(3), r.IntN(100))
			case k < 17:
				fmt.Fprintf(&b, "%s [%d] LOG:  checkpoint starting: time\n", stamp(), 814)
				w := 40 + r.IntN(900)
				write := int64(4000 + r.IntN(26000))
				sync := int64(2 + r.IntN(40))
				t += write + sync + int64(r.IntN(20))
				fmt.Fprintf(&b, "%s [%d] LOG:  checkpoint complete: wrote %d buffers (%.1f%%); 0 WAL file(s) added, 0 removed, %d recycled; write=%d.%03d s, sync=0.%03d s, total=%d.%03d s; sync files=%d, longest=0.%03d s, average=0.001 s; distance=%d kB, estimate=%d kB\n",
					aStamp(t), 814, w, float64(w)/163.84, r.IntN(3), write/1000, write%1000, sync, (write+sync+9)/1000, (write+sync+9)%1000, 5+r.IntN(60), sync/2, 100+r.IntN(9000), 1000+r.IntN(9000))
			case k < 18:
				fmt.Fprintf(&b, "%s [%d] webapp@debmirror ERROR:  canceling statement due to statement timeout\n", stamp(), pid)
				fmt.Fprintf(&b, "%s [%d] webapp@debmirror STATEMENT:  SELECT count(*) FROM bug_reports WHERE package = '%s' AND NOT done\n", aStamp(t), pid, p.name)
			case k < 19:
				fmt.Fprintf(&b, "%s [%d] pkgsync@debmirror LOG:  duration: %d.%03d ms  statement: UPDATE source_packages SET maintainer = '%s' WHERE name = '%s'\n", stamp(), pid, 520+r.IntN(900), r.IntN(1000), strings.ReplaceAll(p.maintainer, "'", "''"), p.name)
			default:
				if !reloaded && b.Len() > size/5 {
					reloaded = true
					fmt.Fprintf(&b, "%s [%d] LOG:  received SIGHUP, reloading configuration files\n", stamp(), post)
					fmt.Fprintf(&b, "%s [%d] LOG:  parameter \"log_min_duration_statement\" changed to \"500ms\"\n", aStamp(t+1), post)
					continue
				}
				fmt.Fprintf(&b, "%s [%d] webapp@debmirror LOG:  could not receive data from client: Connection reset by peer\n", stamp(), pid)
			}
		}
		return b.String(), nil
	}
}

// aStamp writes a time in ms since 1970 as PostgreSQL's %m does.
func aStamp(ms int64) string {
	return aTime(ms).Format("2006-01-02 15:04:05.000") + " UTC"
}

// aRedisLog makes the log of a Redis server in a container (pid 1) that
// caches the mirror's data, about size bytes long; with startup, it begins
// with the server starting. At restartAt (a fraction of size, 0 for none)
// the log falls silent for a minute, time for a restart planted there.
func aRedisLog(id string, size int, startup bool, restartAt float64) func() (string, error) {
	return func() (string, error) {
		r := seeded(id)
		var b strings.Builder
		t := int64(1741662600) * 1000 // 2025-03-11 03:10:00 UTC
		stamp := func() string {
			t += int64(300 + r.IntN(9000))
			return aTime(t).Format("02 Jan 2006 15:04:05.000")
		}
		if startup {
			b.WriteString("1:C " + stamp() + " # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n")
			b.WriteString("1:C " + stamp() + " # Redis version=7.0.15, bits=64, commit=00000000, modified=0, pid=1, just started\n")
			b.WriteString("1:C " + stamp() + " # Configuration loaded\n")
			b.WriteString("1:M " + stamp() + " * monotonic clock: POSIX clock_gettime\n")
			b.WriteString("1:M " + stamp() + " * Running mode=standalone, port=6380.\n")
			b.WriteString("1:M " + stamp() + " # Server initialized\n")
			b.WriteString("1:M " + stamp() + " * Loading RDB produced by version 7.0.15\n")
			b.WriteString("1:M " + stamp() + " * RDB age 418 seconds\n")
			b.WriteString("1:M " + stamp() + " * RDB memory usage when created 1771.42 Mb\n")
			b.WriteString("1:M " + stamp() + " * Done loading RDB, keys loaded: 1187302, keys expired: 2291.\n")
			b.WriteString("1:M " + stamp() + " * DB loaded from disk: 9.417 seconds\n")
			b.WriteString("1:M " + stamp() + " * Ready to accept connections tcp\n")
		}
		child := 40000
		restarted := restartAt == 0
		for b.Len() < size {
			if !restarted && b.Len() >= int(restartAt*float64(size)) {
				restarted = true
				t += 60_000
			}
			switch k := r.IntN(10); {
			case k < 4:
				changes := []int{1, 100, 10000}[r.IntN(3)]
				secs := map[int]int{1: 3600, 100: 300, 10000: 60}[changes]
				child += 1 + r.IntN(300)
				fmt.Fprintf(&b, "1:M %s * %d changes in %d seconds. Saving...\n", stamp(), changes, secs)
				fmt.Fprintf(&b, "1:M %s * Background saving started by pid %d\n", stamp(), child)
				fmt.Fprintf(&b, "%d:C %s * DB saved on disk\n", child, stamp())
				mb := 2 + r.IntN(60)
				fmt.Fprintf(&b, "%d:C %s * Fork CoW for RDB: current %d MB, peak %d MB, average %d MB\n", child, stamp(), mb, mb+r.IntN(8), mb/2+1)
				fmt.Fprintf(&b, "1:M %s * Background saving terminated with success\n", stamp())
			case k < 6:
				ip := fmt.Sprintf("10.20.%d.%d", 1+r.IntN(6), 2+r.IntN(250))
				fmt.Fprintf(&b, "1:M %s * Replica %s:6380 asks for synchronization\n", stamp(), ip)
				fmt.Fprintf(&b, "1:M %s * Partial resynchronization request from %s:6380 accepted. Sending %d bytes of backlog starting from offset %d.\n", stamp(), ip, r.IntN(90000), 1_000_000_000+r.IntN(900_000_000))
			case k < 7:
				ip := fmt.Sprintf("10.20.%d.%d", 1+r.IntN(6), 2+r.IntN(250))
				fmt.Fprintf(&b, "1:M %s # Connection with replica %s:6380 lost.\n", stamp(), ip)
			case k < 8:
				fmt.Fprintf(&b, "1:M %s * Starting automatic rewriting of AOF on %d%% growth\n", stamp(), 100+r.IntN(40))
				child += 1 + r.IntN(300)
				fmt.Fprintf(&b, "1:M %s * Creating AOF incr file appendonly.aof.%d.incr.aof on background rewrite\n", stamp(), 10+r.IntN(400))
				fmt.Fprintf(&b, "1:M %s * Background append only file rewriting started by pid %d\n", stamp(), child)
				fmt.Fprintf(&b, "%d:C %s * Successfully created the temporary AOF base file temp-rewriteaof-bg-%d.aof\n", child, stamp(), child)
				fmt.Fprintf(&b, "1:M %s * Background AOF rewrite terminated with success\n", stamp())
				fmt.Fprintf(&b, "1:M %s * Background AOF rewrite finished successfully\n", stamp())
			case k < 9:
				fmt.Fprintf(&b, "1:M %s # Client id=%d addr=10.20.%d.%d:%d laddr=10.20.0.5:6380 fd=%d name=pkgsync age=%d idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 obl=0 oll=%d omem=%d tot-mem=%d events=r cmd=get user=default redir=-1 resp=2 scheduled to be closed ASAP for overcoming of output buffer limits.\n",
					stamp(), 100000+r.IntN(900000), 1+r.IntN(6), 2+r.IntN(250), 32768+r.IntN(28000), 8+r.IntN(900), r.IntN(5000), 8000+r.IntN(5000), 268435456+r.IntN(9000000), 268500000+r.IntN(9000000))
			default:
				fmt.Fprintf(&b, "1:M %s * DB saved on disk\n", stamp())
			}
		}
		return b.String(), nil
	}
}

// aTime is a time in ms since 1970, in UTC.
func aTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
