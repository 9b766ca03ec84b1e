package main

// Second half of the development set: rendered HTML manuals, YAML, system
// configuration, C headers, shell scripts, Markdown, and documents built
// from real data of this machine (journal records, web server error logs,
// paged fixed-width reports, TSV, SQL dumps, a mailbox).

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

func init() { cases = append(cases, casesB) }

// bEtcConf are the machine's configuration files, without systemd's.
var bEtcConf = []string{"/etc/*.conf", "/etc/security/*.conf", "/etc/redis/*.conf", "/etc/fonts/*.conf",
	"/etc/pulse/*.conf", "/etc/postgresql-common/*.conf", "/etc/ldap/*.conf", "/etc/PackageKit/*.conf",
	"/etc/selinux/*.conf", "/etc/ld.so.conf.d/*.conf", "/etc/xdg/*.conf", "/etc/maven/*.conf", "/etc/gtk-3.0/*.conf"}

// bEtcConfRev are the same in another order.
var bEtcConfRev = []string{"/etc/security/*.conf", "/etc/fonts/*.conf", "/etc/pulse/*.conf", "/etc/redis/*.conf",
	"/etc/ldap/*.conf", "/etc/PackageKit/*.conf", "/etc/*.conf", "/etc/postgresql-common/*.conf", "/etc/selinux/*.conf",
	"/etc/maven/*.conf", "/etc/gtk-2.0/*.conf"}

var casesB = []devCase{
	// ---------------------------------------------------------------- html
	{
		ID: "b-html-bzip2-workfactor", Kind: "html", Form: "fact",
		Files:    []string{"/usr/share/doc/bzip2/manual.html", "/usr/share/doc/bc/bc.html", "/usr/share/doc/time/time.html"},
		Question: "What is libbzip2's default workFactor?",
		Answers:  []string{"30"},
		Deliver:  "inline",
	},
	{
		ID: "b-html-kde-azerbaijani", Kind: "html", Form: "fact",
		Files:    []string{"/usr/share/gettext/projects/KDE/teams.html"},
		Question: "who coordinates the Azerbaijani translation team?",
		Answers:  []string{"Vasif Ismailoglu", "Vasif Ismailoglu <azerb_linux@yahoo.com>"},
	},
	{
		ID: "b-html-kde-bengali-site", Kind: "html", Form: "absent",
		Files:    []string{"/usr/share/gettext/projects/KDE/teams.html"},
		Question: "What is the web site of the Bengali translation team?",
		Deliver:  "inline-after",
	},
	{
		ID: "b-html-node-keepalive", Kind: "html", Form: "fact",
		Files: []string{"/usr/share/doc/nodejs/api/http.html", "/usr/share/doc/nodejs/api/https.html",
			"/usr/share/doc/nodejs/api/net.html", "/usr/share/doc/nodejs/api/tls.html"},
		Question: "By default, how many milliseconds does an HTTP server wait for more data on an idle keep-alive socket before destroying it?",
		Answers:  []string{"5000", "5000 (5 seconds)", "5000 ms", "5 seconds"},
		Deliver:  "files",
	},
	{
		ID: "b-html-node-ca-store", Kind: "html", Form: "prose",
		Files:    []string{"/usr/share/doc/nodejs/api/all.html"},
		Size:     3_000_000,
		Needle:   "<p>The root certificates compiled into this build of Node.js were last synchronised with the Mozilla CA store shipped in NSS 3.98, on 4 March 2024; run <code>node -p process.versions</code> to see the other bundled library versions.</p>",
		Depth:    0.630733372,
		Question: "Which NSS release were the compiled-in root certificates last synchronised with?",
		Answers:  []string{"NSS 3.98", "3.98"},
	},
	{
		ID: "b-html-node-registry", Kind: "html", Form: "json",
		Files: []string{"/usr/share/doc/nodejs/api/packages.html", "/usr/share/doc/nodejs/api/modules.html",
			"/usr/share/doc/nodejs/api/esm.html", "/usr/share/doc/nodejs/api/module.html"},
		Needle: `<p>The <code>@ledgerline/client</code> package, for instance, ships this <code>package.json</code>:</p>
<pre><code class="language-json">{
  "name": "@ledgerline/client",
  "version": "4.2.0",
  "type": "module",
  "exports": "./dist/index.js",
  "publishConfig": {
    "registry": "https://npm.ledgerline.example/",
    "access": "restricted"
  }
}</code></pre>`,
		Depth:    0.225252797,
		Question: "Which registry does the @ledgerline/client package publish to?",
		Answers:  []string{"https://npm.ledgerline.example/", "https://npm.ledgerline.example", "npm.ledgerline.example"},
	},

	// ---------------------------------------------------------------- yaml
	{
		ID: "b-yaml-perimeters-home", Kind: "yaml", Form: "fact",
		Files: []string{
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/util/resource_map/resource_map.yaml",
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/generated_clients/regen_apis_config.yaml",
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/util/apis/yaml_command_schema.yaml",
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/iam/flags.yaml",
		},
		Question: "What is the home directory of the accesscontextmanager accessPolicies.servicePerimeters resource?",
		Answers:  []string{"access_context_manager.perimeters"},
	},
	{
		ID: "b-yaml-accessapproval-home", Kind: "yaml", Form: "absent",
		Files: []string{
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/util/resource_map/resource_map.yaml",
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/generated_clients/regen_apis_config.yaml",
		},
		Question: "What is the home_directory of accessapproval's folders resource?",
		Deliver:  "inline",
	},
	{
		ID: "b-yaml-admin-mtls", Kind: "yaml", Form: "fact",
		Files: []string{
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/generated_clients/regen_apis_config.yaml",
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/util/resource_map/resource_map.yaml",
			"/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/util/resource_map/declarative/declarative_map.yaml",
		},
		Question: "Give me the mTLS endpoint override configured for the admin API.",
		Answers:  []string{"https://www.mtls.googleapis.com/admin/directory/v1/"},
	},
	{
		ID: "b-yaml-release-gates", Kind: "yaml", Form: "yaml",
		Files: []string{
			"/usr/lib/google-cloud-sdk/lib/surface/compute/*/*.yaml",
			"/usr/lib/google-cloud-sdk/lib/surface/compute/*/*/*.yaml",
			"/usr/lib/google-cloud-sdk/lib/surface/compute/*/*/*/*.yaml",
		},
		Needle: `release_gates:
  canary:
    min_healthy_percent: 95
    soak_time: 30m
    approvers: [sre-oncall]
  production:
    min_healthy_percent: 99
    soak_time: 4h
    approvers: [sre-oncall, release-managers]`,
		Depth:    0.311140348,
		Question: "How long is the soak time for production in the release gates?",
		Answers:  []string{"4h", "4 hours"},
	},
	{
		ID: "b-yaml-machine-type", Kind: "yaml", Form: "config",
		Files:    []string{"/usr/lib/google-cloud-sdk/lib/surface/*/*/*.yaml"},
		Size:     600_000,
		Needle:   "fallback_worker_machine_type: n2d-highmem-16",
		Depth:    0.684451908,
		Question: "What's the fallback machine type for workers?",
		Answers:  []string{"n2d-highmem-16"},
	},

	// ---------------------------------------------------------------- conf
	{
		ID: "b-conf-redis-logfile", Kind: "conf", Form: "fact",
		Files:    bEtcConf,
		Question: "Where does the Redis server write its log file?",
		Answers:  []string{"/var/log/redis/redis-server.log"},
	},
	{
		ID: "b-conf-redis-diskless-delay", Kind: "conf", Form: "fact",
		Files:    []string{"/etc/redis/redis.conf"},
		Question: "How many seconds does Redis wait before starting a diskless replication transfer?",
		Answers:  []string{"5", "5 seconds", "5s"},
		Deliver:  "inline-after",
	},
	{
		ID: "b-conf-faillock-unlock", Kind: "conf", Form: "fact",
		Files:    []string{"/etc/security/*.conf", "/etc/*.conf", "/etc/redis/redis.conf"},
		Question: "By default, how long does pam_faillock keep an account locked after too many failures?",
		Answers:  []string{"600", "600 seconds", "10 minutes", "600 (10 minutes)", "600 s"},
		Deliver:  "files",
	},
	{
		ID: "b-conf-limits-builders", Kind: "conf", Form: "config",
		Files:    bEtcConfRev,
		Needle:   "@builders        hard    nofile          65536",
		Depth:    0.088179439,
		Question: "what is the hard NOFILE limit for the builders group?",
		Answers:  []string{"65536"},
	},
	{
		ID: "b-conf-mirror-sync", Kind: "conf", Form: "ini",
		Files: bEtcConf,
		Needle: `
# Local mirror job, see /usr/local/sbin/mirror-sync
[mirror-sync]
schedule = 03:15
upstream = rsync://ftp.de.debian.org/debian/
bandwidth_limit = 20M
keep_snapshots = 7
`,
		Depth:    0.968611469,
		Question: "Which upstream does the mirror-sync job pull from?",
		Answers:  []string{"rsync://ftp.de.debian.org/debian/", "rsync://ftp.de.debian.org/debian"},
	},
	{
		ID: "b-conf-rdb-ship", Kind: "conf", Form: "prose",
		Files:    []string{"/etc/redis/redis.conf", "/etc/security/*.conf", "/etc/*.conf"},
		Needle:   "# NOTE: on this host dump.rdb is copied to backup01.lan every night at 02:30 by\n# /usr/local/sbin/redis-ship; keep dbfilename and dir in sync with that script.",
		Depth:    0.117870320,
		Question: "At what time each night is dump.rdb copied to backup01.lan?",
		Answers:  []string{"02:30", "2:30", "2:30 AM"},
	},
	{
		ID: "b-conf-sentinel-port", Kind: "conf", Form: "absent",
		Files:    bEtcConf,
		Question: "What port is Redis Sentinel configured to listen on?",
	},

	// -------------------------------------------------------------- header
	{
		ID: "b-header-openssl-version", Kind: "header", Form: "fact",
		Files: []string{"/usr/include/openssl/ssl*.h", "/usr/include/openssl/opensslv.h",
			"/usr/include/openssl/x509*.h", "/usr/include/openssl/evp.h"},
		Question: "Which version of OpenSSL do these headers declare?",
		Answers:  []string{"3.0.19", "OpenSSL 3.0.19", "OpenSSL 3.0.19 27 Jan 2026"},
	},
	{
		ID: "b-header-llvm-version", Kind: "header", Form: "fact",
		Files:    []string{"/usr/include/llvm-c-14/llvm-c/*.h", "/usr/include/llvm-14/llvm/Config/*.h"},
		Question: "What is LLVM_VERSION_STRING defined as?",
		Answers:  []string{"14.0.6"},
		Deliver:  "inline",
	},
	{
		ID: "b-header-sqlite-busy", Kind: "header", Form: "fact",
		Files:    []string{"/usr/include/sqlite3.h", "/usr/include/sqlite3ext.h"},
		Question: "Which result code number does SQLite return when the database file is locked?",
		Answers:  []string{"5", "SQLITE_BUSY (5)"},
	},
	{
		ID: "b-header-node-lts", Kind: "header", Form: "fact",
		Files:    []string{"/usr/include/node/node*.h", "/usr/include/node/v8-*.h"},
		Size:     1_500_000,
		Question: "what is the LTS codename of the Node.js release these headers belong to?",
		Answers:  []string{"Iron"},
		Deliver:  "inline-after",
	},
	{
		ID: "b-header-node-embedder", Kind: "header", Form: "absent",
		Files:    []string{"/usr/include/node/node*.h", "/usr/include/node/uv.h", "/usr/include/node/uv/*.h"},
		Question: "What value is NODE_EMBEDDER_MODULE_VERSION defined to?",
		Deliver:  "files",
	},
	{
		ID: "b-header-sde-comment", Kind: "header", Form: "comment",
		Files: []string{"/usr/lib/llvm-19/lib/clang/19/include/avx512*.h",
			"/usr/lib/llvm-19/lib/clang/19/include/avx*.h"},
		Size: 2_500_000,
		Needle: `/* NOTE: the rounding-control fallbacks in this block were validated
 * against Intel SDE 9.44 on 2024-11-02; re-run the emulator tests before
 * touching the masks below. */`,
		Depth:    0.579936887,
		Question: "Which Intel SDE version were the rounding-control fallbacks validated against?",
		Answers:  []string{"9.44", "Intel SDE 9.44", "SDE 9.44"},
	},
	{
		ID: "b-header-xmlsec-define", Kind: "header", Form: "config",
		Files: []string{"/usr/include/xmlsec1/xmlsec/*.h", "/usr/include/libxml2/libxml/*.h"},
		Size:  1_200_000,
		Needle: `
/**
 * XMLSEC_TRANSFORM_MAX_CHAIN_DEPTH:
 *
 * The maximum number of transforms allowed in one transforms chain.
 */
#define XMLSEC_TRANSFORM_MAX_CHAIN_DEPTH                48`,
		Depth:    0.287232105,
		Question: "What is the maximum transform chain depth?",
		Answers:  []string{"48"},
	},

	// --------------------------------------------------------------- shell
	{
		ID: "b-shell-procps-author", Kind: "shell", Form: "fact",
		Files: []string{"/etc/init.d/hwclock.sh", "/etc/init.d/postgresql", "/etc/init.d/procps",
			"/etc/init.d/x11-common", "/usr/bin/xdg-*"},
		Question: "Who wrote the procps init script?",
		Answers:  []string{"Elrond <Elrond@Wunder-Nett.org>", "Elrond", "Elrond@Wunder-Nett.org"},
	},
	{
		ID: "b-shell-chromium-sse3", Kind: "shell", Form: "fact",
		Files:    []string{"/usr/bin/chromium", "/usr/bin/xdg-*", "/usr/bin/heaptrack"},
		Question: "Tell me the bug tracker URL the Chromium launcher gives for hardware without SSE3.",
		Answers:  []string{"http://crbug.com/1123353", "crbug.com/1123353"},
		Deliver:  "inline",
	},
	{
		ID: "b-shell-kde5-tested", Kind: "shell", Form: "comment",
		Files:    []string{"/usr/bin/xdg-*"},
		Needle:   "# Maintainer note: the KDE 5 code path was last tested with kde-open5 5.27.10 on 2024-02-19.",
		Depth:    0.611751132,
		Question: "When was the KDE 5 code path last tested?",
		Answers:  []string{"2024-02-19", "19 February 2024", "February 19, 2024"},
	},
	{
		ID: "b-shell-open-timeout", Kind: "shell", Form: "config",
		Files:    []string{"/usr/bin/xdg-*", "/usr/bin/ssh-copy-id", "/usr/bin/lesspipe"},
		Needle:   "# Seconds to wait for the browser to come up before giving up.\nXDG_OPEN_BROWSER_TIMEOUT=45",
		Depth:    0.597277026,
		Question: "How many seconds is the browser timeout for xdg-open?",
		Answers:  []string{"45", "45 seconds"},
	},
	{
		ID: "b-shell-x11-should-start", Kind: "shell", Form: "absent",
		Files:    []string{"/etc/init.d/hwclock.sh", "/etc/init.d/postgresql", "/etc/init.d/procps", "/etc/init.d/x11-common", "/usr/bin/xdg-*"},
		Question: "What does the x11-common init script list under Should-Start?",
		Deliver:  "inline-after",
	},

	// -------------------------------------------------------------- mdlist
	{
		ID: "b-md-zasso-key", Kind: "mdlist", Form: "fact",
		Files:    []string{"/usr/share/doc/nodejs/README.md", "/usr/share/doc/nodejs/GOVERNANCE.md", "/usr/share/doc/nodejs/CONTRIBUTING.md", "/usr/share/doc/nodejs/BUILDING.md"},
		Question: "What is the fingerprint of Michaël Zasso's release signing key?",
		Answers:  []string{"8FCCA13FEF1D0C2E91008E09770F7A9A5AE15600"},
	},
	{
		ID: "b-md-lau-pronouns", Kind: "mdlist", Form: "absent",
		Files:    []string{"/usr/share/doc/nodejs/README.md", "/usr/share/doc/nodejs/GOVERNANCE.md", "/usr/share/doc/nodejs/CHANGELOG.md"},
		Question: "Which pronouns does Richard Lau list?",
		Deliver:  "inline",
	},
	{
		ID: "b-md-releaser", Kind: "mdlist", Form: "fact",
		Files:    []string{"/usr/share/doc/nodejs/changelogs/CHANGELOG_V20.md"},
		Question: "Who released Node.js 20.19.4?",
		Answers:  []string{"@RafaelGSS", "RafaelGSS"},
		Deliver:  "files",
	},
	{
		ID: "b-md-windows-arm64-tier", Kind: "mdlist", Form: "fact",
		Files:    []string{"/usr/share/doc/nodejs/CHANGELOG.md", "/usr/share/doc/nodejs/BUILDING.md", "/usr/share/doc/nodejs/README.md"},
		Question: "What support tier does Windows on arm64 have?",
		Answers:  []string{"Tier 2"},
	},
	{
		ID: "b-md-freeze-owner", Kind: "mdlist", Form: "list",
		Files: []string{"/usr/share/doc/nodejs/changelogs/CHANGELOG_V18.md", "/usr/share/doc/nodejs/changelogs/CHANGELOG_V16.md"},
		Needle: `
### Release coordination

* Branch cut: 2023-08-28
* Docs freeze owner: Juan José Arboleda
* Security backports reviewed by: Ulises Gascón
* Promotion window: 14:00–16:00 UTC
`,
		Depth:    0.371143396,
		Question: "Who owns the docs freeze?",
		Answers:  []string{"Juan José Arboleda"},
	},
	{
		ID: "b-md-mirror-table", Kind: "mdlist", Form: "mdtable",
		Files: []string{"/usr/share/doc/nodejs/api/fs.md", "/usr/share/doc/nodejs/api/stream.md", "/usr/share/doc/nodejs/api/buffer.md"},
		Needle: `
The API pages are also served from these mirrors:

| Mirror             | Region       | Sync interval | Contact                    |
| ------------------ | ------------ | ------------- | -------------------------- |
| nodejs.osuosl.org  | us-west      | 15 min        | mirrors@osuosl.org         |
| ftp.acc.umu.se     | eu-north     | 30 min        | ftp-adm@acc.umu.se         |
| mirror.aarnet.edu.au | ap-southeast | 60 min      | mirror@aarnet.edu.au       |
`,
		Depth:    0.481237516,
		Question: "What is the sync interval of the ftp.acc.umu.se mirror?",
		Answers:  []string{"30 min", "30 minutes"},
	},
	{
		ID: "b-md-retention-csv", Kind: "mdlist", Form: "csv",
		Files:    []string{"/usr/share/doc/nodejs/api/child_process.md", "/usr/share/doc/nodejs/api/process.md", "/usr/share/doc/nodejs/api/cli.md"},
		Needle:   "\nRetention of the nightly CI logs, per bucket:\n\n```csv\nregion,bucket,retention_days,owner\neu-west-1,nightly-logs-eu,30,platform\nus-east-2,nightly-logs-us,90,platform\nap-south-1,nightly-logs-ap,45,observability\n```\n",
		Depth:    0.184034153,
		Question: "How many days are logs kept in the nightly-logs-us bucket?",
		Answers:  []string{"90", "90 days"},
	},

	// ------------------------------------------------------------- journal
	{
		ID: "b-journal-pg-auth", Kind: "journal", Form: "journal",
		Make: func() (string, error) {
			return bJournal("b-journal-pg-auth", 2600, false, 0.62, bPgAuthRecord)
		},
		Question: "What was the PID of the postgres process that rejected the password of user reporting?",
		Answers:  []string{"24187"},
	},
	{
		ID: "b-journal-machine-id", Kind: "journal", Form: "fact",
		Make: func() (string, error) {
			return bJournal("b-journal-machine-id", 1400, false, 0, nil)
		},
		Question: "What's the machine ID of the host these journal entries come from?",
		Answers:  []string{bMachineID("b-journal-machine-id")},
		Deliver:  "inline",
	},
	{
		ID: "b-journal-mount-invocation", Kind: "journal", Form: "journal",
		Make: func() (string, error) {
			return bJournal("b-journal-mount-invocation", 2200, true, 0.41, bMountRecord)
		},
		Question: "I need the invocation ID of srv-backup.mount when its mount process failed.",
		Answers:  []string{"5c0b9e2d71f84a8fa3e6d40c19b7e52a"},
	},
	{
		ID: "b-journal-core-file", Kind: "journal", Form: "absent",
		Make: func() (string, error) {
			return bJournal("b-journal-core-file", 2400, false, 0.77, bCoredumpRecord)
		},
		Question: "Where was the core file of the crashed packagekitd written?",
	},
	{
		ID: "b-journal-ntp-server", Kind: "journal", Form: "fact",
		Make: func() (string, error) {
			return bJournal("b-journal-ntp-server", 1800, true, 0, nil)
		},
		Question: "Which NTP server did systemd-timesyncd contact (host name)?",
		Answers:  []string{"2.debian.pool.ntp.org"},
		Deliver:  "files",
	},
	{
		ID: "b-journal-coredump-signal", Kind: "journal", Form: "journal",
		Make: func() (string, error) {
			return bJournal("b-journal-coredump-signal", 2000, true, 0.18, bCoredumpRecord)
		},
		Question: "Which signal killed packagekitd when it dumped core?",
		Answers:  []string{"SIGSEGV", "11", "SIGSEGV (11)"},
	},

	// -------------------------------------------------------------- weblog
	{
		ID: "b-weblog-cert-mismatch", Kind: "weblog", Form: "log",
		Make: func() (string, error) {
			return bApacheLog("b-weblog-cert-mismatch", 9000, 0.57,
				"[ssl:emerg] [pid %d:tid %d] AH02565: Certificate and private key intranet.lan:443:0 from /etc/ssl/certs/intranet-2024.pem and /etc/ssl/private/intranet-2024.key do not match")
		},
		Question: "Which certificate file did Apache say does not match its private key?",
		Answers:  []string{"/etc/ssl/certs/intranet-2024.pem"},
	},
	{
		ID: "b-weblog-apache-version", Kind: "weblog", Form: "fact",
		Make: func() (string, error) {
			return bApacheLog("b-weblog-apache-version", 5000, 0, "")
		},
		Question: "What version of Apache is this server running?",
		Answers:  []string{"Apache/2.4.62 (Debian)", "2.4.62", "Apache/2.4.62", "Apache 2.4.62"},
		Deliver:  "inline-after",
	},
	{
		ID: "b-weblog-fqdn", Kind: "weblog", Form: "fact",
		Make: func() (string, error) {
			return bApacheLog("b-weblog-fqdn", 7000, 0, "")
		},
		Question: "Which address did Apache fall back to because it could not determine the server's fully qualified domain name?",
		Answers:  []string{"127.0.1.1"},
	},
	{
		ID: "b-weblog-server-status", Kind: "weblog", Form: "absent",
		Make: func() (string, error) {
			return bApacheLog("b-weblog-server-status", 8000, 0, "")
		},
		Question: "Which client was refused access to /server-status?",
	},
	{
		ID: "b-weblog-fpm-socket", Kind: "weblog", Form: "log",
		Make: func() (string, error) {
			return bLighttpdLog("b-weblog-fpm-socket", 12000, 0.33,
				"(gw_backend.c.238) establishing connection failed: Connection refused socket: unix:/run/php/php8.2-fpm.sock-0")
		},
		Question: "Which backend socket could lighttpd not connect to?",
		Answers:  []string{"unix:/run/php/php8.2-fpm.sock-0", "/run/php/php8.2-fpm.sock-0"},
		Deliver:  "files",
	},

	// --------------------------------------------------------------- fixed
	{
		ID: "b-fixed-acer-usb-id", Kind: "fixed", Form: "fact",
		Make:     bCameraReport,
		Question: "What is the USB ID of the Acer A3-A40?",
		Answers:  []string{"0502:387A"},
	},
	{
		ID: "b-fixed-camera-row", Kind: "fixed", Form: "fixed",
		Make:     bCameraReport,
		Needle:   fmt.Sprintf("%-10s %-13s %-6s %s", "04A9:33F1", "PTP", "no", "Canon PowerShot V10"),
		Depth:    0.248966733,
		Question: "What's the USB ID of the Canon PowerShot V10?",
		Answers:  []string{"04A9:33F1"},
	},
	{
		ID: "b-fixed-camera-absent", Kind: "fixed", Form: "absent",
		Make:     bCameraReport,
		Question: "Which driver handles the Nikon Z8?",
	},
	{
		ID: "b-fixed-submissions-port", Kind: "fixed", Form: "fact",
		Make:     bServicesReport,
		Question: "Which port does the submissions service use?",
		Answers:  []string{"465", "465/tcp"},
	},
	{
		ID: "b-fixed-service-row", Kind: "fixed", Form: "fixed",
		Make:     bServicesReport,
		Needle:   fmt.Sprintf("%-19s %5s  %-6s %-25s %s", "ledgerd", "7451", "tcp", "ledger-sync", "Ledgerline journal replication"),
		Depth:    0.093650339,
		Question: "What port is ledgerd on?",
		Answers:  []string{"7451", "7451/tcp"},
	},

	// ----------------------------------------------------------------- tsv
	{
		ID: "b-tsv-uk-currency", Kind: "tsv", Form: "fact",
		Make:     bLocalesTSV,
		Question: "What currency symbol does the uk_UA locale use?",
		Answers:  []string{"грн.", "грн"},
		Deliver:  "inline-after",
	},
	{
		ID: "b-tsv-lamda", Kind: "tsv", Form: "fact",
		Make:     bUnicodeTSV,
		Question: "What is the code point of GREEK SMALL LETTER LAMDA?",
		Answers:  []string{"U+03BB", "03BB", "0x03BB"},
	},
	{
		ID: "b-tsv-copyright-row", Kind: "tsv", Form: "tsv",
		Make:     bCopyrightTSV,
		Needle:   "libledger-sync1\tledger-sync\tHélène Marchetti <helene@ledgerline.example>\thttps://git.ledgerline.example/sync\t*\t2019-2024 Ledgerline contributors\tLGPL-2.1+",
		Depth:    0.543434894,
		Question: "Who is the upstream contact for libledger-sync1?",
		Answers:  []string{"Hélène Marchetti <helene@ledgerline.example>", "Hélène Marchetti", "helene@ledgerline.example"},
	},
	{
		ID: "b-tsv-copyright-contact-absent", Kind: "tsv", Form: "absent",
		Make:     bCopyrightTSV,
		Question: "Who is the upstream contact for " + bNoContactPackage() + "?",
	},

	// ----------------------------------------------------------------- sql
	{
		ID: "b-sql-uploader", Kind: "sql", Form: "fact",
		Make:     func() (string, error) { return bUploadsSQL(6_000_000) },
		Question: "Who uploaded bash 5.2-3?",
		Answers:  []string{"Matthias Klose", "Matthias Klose <doko@debian.org>"},
	},
	{
		ID: "b-sql-copy-row", Kind: "sql", Form: "sql",
		Make:     func() (string, error) { return bUploadsSQL(1_000_000) },
		Needle:   "10412\tledger-sync\t2.4.1-1~bpo12+1\tbookworm-backports\tmedium\tHélène Marchetti\thelene@ledgerline.example\t2024-05-02 16:41:07+02",
		Depth:    0.5,
		Question: "When was ledger-sync 2.4.1-1~bpo12+1 uploaded?",
		Answers:  []string{"2024-05-02 16:41:07+02", "2024-05-02"},
		Deliver:  "files",
	},
	{
		ID: "b-sql-urgency", Kind: "sql", Form: "fact",
		Make:     func() (string, error) { return bUploadsSQL(700_000) },
		Question: "What urgency was " + bSQLUrgencyPick() + " uploaded with?",
		Answers:  []string{bSQLUrgencyAnswer()},
	},
	{
		ID: "b-sql-bugs-absent", Kind: "sql", Form: "absent",
		Make:     func() (string, error) { return bUploadsSQL(700_000) },
		Question: "Which bug numbers did the bash 5.2-3 upload close?",
	},
	{
		ID: "b-sql-npm-license", Kind: "sql", Form: "fact",
		Make:     bNpmSQL,
		Question: "What license does the npm package cacache declare?",
		Answers:  []string{bNpmField("cacache", "license")},
	},
	{
		ID: "b-sql-npm-insert", Kind: "sql", Form: "sql",
		Make:     bNpmSQL,
		Needle:   "INSERT INTO `packages` VALUES (9001,'@ledgerline/wire','3.7.2','Binary framing for the Ledgerline replication protocol','MPL-2.0','Hélène Marchetti <helene@ledgerline.example>','https://git.ledgerline.example/wire','node_modules/@ledgerline/wire');",
		Depth:    0.246984839,
		Question: "Which license is @ledgerline/wire under?",
		Answers:  []string{"MPL-2.0"},
	},

	// ---------------------------------------------------------------- mbox
	{
		ID: "b-mbox-sender", Kind: "mbox", Form: "fact",
		Make:     func() (string, error) { return bMbox("", 0, "") },
		Question: "Who sent the announcement for " + bMboxPick(0) + "?",
		Answers:  bMboxSender(0),
	},
	{
		ID: "b-mbox-date", Kind: "mbox", Form: "fact",
		Make:     func() (string, error) { return bMbox("", 0, "") },
		Question: "When was the mail about " + bMboxPick(1) + " sent?",
		Answers:  bMboxDate(1),
	},
	{
		ID: "b-mbox-cc-absent", Kind: "mbox", Form: "absent",
		Make:     func() (string, error) { return bMbox("", 0, "") },
		Question: "Who was Cc'd on the mail about " + bMboxPick(2) + "?",
	},
	{
		ID: "b-mbox-message-id", Kind: "mbox", Form: "mail",
		Make: func() (string, error) {
			return bMbox(`From pkg-postgresql-public@alioth-lists.debian.net  Tue Apr 16 09:12:44 2024
Return-Path: <noreply@ledgerline.example>
From: =?utf-8?q?J=C3=B6rg_Wendland?= <joerg.wendland@ledgerline.example>
To: pkg-postgresql-public@alioth-lists.debian.net
Subject: Re: postinst fails on merged-/usr systems
Date: Tue, 16 Apr 2024 09:12:44 +0200
Message-ID: <87r0f3k2xq.fsf@ledgerline.example>
In-Reply-To: <20240415180233.GA27716@debian.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Hi,

the postinst of postgresql-common still calls the old path when /usr is
merged; the attached patch fixes it for me.

Jörg
`, 0.52, "")
		},
		Question: "What is the Message-ID of the mail with the subject \"Re: postinst fails on merged-/usr systems\"?",
		Answers:  []string{"<87r0f3k2xq.fsf@ledgerline.example>", "87r0f3k2xq.fsf@ledgerline.example"},
	},
	{
		ID: "b-mbox-bug-sender", Kind: "mbox", Form: "mail",
		Make: func() (string, error) {
			return bMbox(`From gudrun@vefsmidjan.example  Wed Feb 21 17:48:03 2024
Return-Path: <gudrun@vefsmidjan.example>
From: Guðrún Jónsdóttir <gudrun@vefsmidjan.example>
To: submit@bugs.debian.org
Subject: Bug#1064318: lighttpd: mod_openssl ignores ssl.ca-file in $HTTP["host"] blocks
Date: Wed, 21 Feb 2024 17:48:03 +0000
Message-ID: <170853768301.4471.9912830455103385516.reportbug@vefsmidjan.example>
X-Mailer: reportbug 12.0.0
MIME-Version: 1.0
Content-Type: text/plain; charset="utf-8"

Package: lighttpd
Version: 1.4.69-1
Severity: normal

Dear Maintainer,

since the upgrade to bookworm, ssl.ca-file set inside a $HTTP["host"]
conditional is silently ignored; client certificates are then rejected.

-- Guðrún Jónsdóttir
`, 0.71, "")
		},
		Question: "Who sent the bug report about mod_openssl ignoring ssl.ca-file?",
		Answers:  []string{"Guðrún Jónsdóttir <gudrun@vefsmidjan.example>", "Guðrún Jónsdóttir", "gudrun@vefsmidjan.example"},
	},
	{
		ID: "b-mbox-reporter", Kind: "mbox", Form: "prose",
		Make: func() (string, error) {
			return bMbox("", 0.3, `  * Build-depend on libpcre2-dev instead of the obsolete libpcre3-dev; the
    problem was reported by Göran Lindqvist during the bookworm freeze.`)
		},
		Question: "Who reported the problem with the obsolete libpcre3-dev build dependency?",
		Answers:  []string{"Göran Lindqvist"},
	},
}

// ------------------------------------------------------------------ helpers

// bGlob lists the files of each pattern, sorted, in pattern order.
func bGlob(patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		names, _ := filepath.Glob(p)
		sort.Strings(names)
		out = append(out, names...)
	}
	return out
}

// bHex returns n random lowercase hex digits.
func bHex(r *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[r.IntN(16)]
	}
	return string(b)
}

// bPick returns a random element of list.
func bPick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

// bBase returns the base names of the files matching pattern, skipping
// those that contain skip (when skip is not empty).
func bBase(pattern, skip string) []string {
	var out []string
	for _, n := range bGlob(pattern) {
		b := filepath.Base(n)
		if skip != "" && strings.Contains(b, skip) {
			continue
		}
		out = append(out, b)
	}
	return out
}

// bInsertAt inserts item into list at fraction d.
func bInsertAt[T any](list []T, d float64, item T) []T {
	at := int(d * float64(len(list)))
	list = append(list, item)
	copy(list[at+1:], list[at:])
	list[at] = item
	return list
}

// ------------------------------------------------------------------ journal

type bField struct{ k, v string }

type bRecord struct {
	t      time.Time
	fields []bField
}

// bMachineID is the machine ID of a journal case's host.
func bMachineID(id string) string { return bHex(seeded(id+"/machine"), 32) }

var bJournalStart = time.Date(2024, 3, 11, 5, 58, 12, 0, time.UTC)

// bJournal builds n journal records from the machine's real unit names and
// binaries, as journalctl -o verbose (or -o export) prints them, with the
// record of plant (when not nil) at fraction d.
func bJournal(id string, n int, export bool, d float64, plant func(r *rand.Rand, t time.Time) []bField) (string, error) {
	r := seeded(id)
	machine := bMachineID(id)
	boot := bHex(r, 32)
	host := "ci-runner-03"
	units := append(bBase("/lib/systemd/system/*.service", "@"), bBase("/lib/systemd/system/*.timer", "@")...)
	if len(units) == 0 {
		return "", fmt.Errorf("no unit files")
	}
	bins := bGlob("/usr/bin/*")
	manDirs := bBase("/usr/share/man/*", "")
	common := func(transport string) []bField {
		return []bField{{"_BOOT_ID", boot}, {"_MACHINE_ID", machine}, {"_HOSTNAME", host}, {"_TRANSPORT", transport}}
	}
	pid1 := func(unit, msg, msgID, codeFunc string, line int) []bField {
		f := append(common("journal"),
			bField{"PRIORITY", "6"}, bField{"SYSLOG_FACILITY", "3"}, bField{"SYSLOG_IDENTIFIER", "systemd"},
			bField{"CODE_FILE", "src/core/unit.c"}, bField{"CODE_LINE", strconv.Itoa(line)}, bField{"CODE_FUNC", codeFunc},
			bField{"MESSAGE_ID", msgID}, bField{"UNIT", unit}, bField{"MESSAGE", msg},
			bField{"INVOCATION_ID", bHex(r, 32)},
			bField{"_PID", "1"}, bField{"_UID", "0"}, bField{"_GID", "0"}, bField{"_COMM", "systemd"},
			bField{"_EXE", "/usr/lib/systemd/systemd"}, bField{"_CMDLINE", "/sbin/init"},
			bField{"_CAP_EFFECTIVE", "1ffffffffff"}, bField{"_SELINUX_CONTEXT", "unconfined\n"},
			bField{"_SYSTEMD_CGROUP", "/init.scope"}, bField{"_SYSTEMD_UNIT", "init.scope"}, bField{"_SYSTEMD_SLICE", "-.slice"})
		return f
	}
	var recs []bRecord
	t := bJournalStart
	add := func(f []bField) {
		t = t.Add(time.Duration(200_000+r.IntN(9_000_000)) * time.Microsecond)
		if r.IntN(5) == 0 {
			t = t.Add(time.Duration(r.IntN(120)) * time.Second)
		}
		recs = append(recs, bRecord{t, f})
	}
	// Boot-time records said once.
	add(append(common("journal"), bField{"PRIORITY", "6"}, bField{"SYSLOG_FACILITY", "3"},
		bField{"SYSLOG_IDENTIFIER", "systemd-timesyncd"}, bField{"MESSAGE_ID", "7c8a41f37b764941a0e1780b1be2f037"},
		bField{"MESSAGE", "Contacted time server 162.159.200.123:123 (2.debian.pool.ntp.org)."},
		bField{"_PID", "412"}, bField{"_UID", "997"}, bField{"_GID", "997"}, bField{"_COMM", "systemd-timesyn"},
		bField{"_EXE", "/usr/lib/systemd/systemd-timesyncd"}, bField{"_CMDLINE", "/lib/systemd/systemd-timesyncd"},
		bField{"_CAP_EFFECTIVE", "2000000"}, bField{"_SYSTEMD_CGROUP", "/system.slice/systemd-timesyncd.service"},
		bField{"_SYSTEMD_UNIT", "systemd-timesyncd.service"}, bField{"_SYSTEMD_SLICE", "system.slice"},
		bField{"_SYSTEMD_INVOCATION_ID", bHex(r, 32)}))
	session := 3
	for len(recs) < n {
		switch k := r.IntN(10); {
		case k < 4: // a unit's run, as PID 1 reports it
			u := bPick(r, units)
			add(pid1(u, "Starting "+u+"...", "7d4958e842da4a758f6c1cdc7b36dcc5", "job_emit_start_message", 581))
			if strings.HasSuffix(u, ".timer") {
				add(pid1(u, "Started "+u+".", "39f53479d3a045ac8e11786248231fbf", "job_emit_done_message", 768))
				continue
			}
			add(pid1(u, u+": Deactivated successfully.", "7ad2d189f7e94e70a38c781354912448", "unit_log_success", 5553))
			add(pid1(u, "Finished "+u+".", "39f53479d3a045ac8e11786248231fbf", "job_emit_done_message", 768))
			add(pid1(u, fmt.Sprintf("%s: Consumed %d.%03ds CPU time.", u, r.IntN(4), r.IntN(1000)),
				"ae8f7b866b0347b9af31fe1c80b127c0", "unit_log_resources", 2430))
		case k < 6: // postgres
			pid := 30000 + r.IntN(9000)
			msgs := []string{
				"LOG:  checkpoint starting: time",
				fmt.Sprintf("LOG:  checkpoint complete: wrote %d buffers (%d.%d%%); 0 WAL file(s) added, 0 removed, %d recycled; write=%d.%03d s, sync=0.0%02d s, total=%d.%03d s",
					r.IntN(900), r.IntN(5), r.IntN(10), r.IntN(3), r.IntN(90), r.IntN(1000), r.IntN(100), r.IntN(90), r.IntN(1000)),
				"LOG:  connection received: host=[local]",
				"LOG:  connection authorized: user=postgres database=postgres application_name=psql",
				"LOG:  automatic vacuum of table \"postgres.pg_catalog.pg_statistic\": index scans: 1",
			}
			add(append(common("stdout"), bField{"PRIORITY", "6"}, bField{"SYSLOG_FACILITY", "3"},
				bField{"SYSLOG_IDENTIFIER", "postgres"},
				bField{"MESSAGE", fmt.Sprintf("%s UTC [%d] %s", t.Format("2006-01-02 15:04:05.000"), pid, bPick(r, msgs))},
				bField{"_PID", strconv.Itoa(pid)}, bField{"_UID", "108"}, bField{"_GID", "114"}, bField{"_COMM", "postgres"},
				bField{"_EXE", "/usr/lib/postgresql/15/bin/postgres"},
				bField{"_CMDLINE", "/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf"},
				bField{"_CAP_EFFECTIVE", "0"}, bField{"_SYSTEMD_CGROUP", "/system.slice/system-postgresql.slice/postgresql@15-main.service"},
				bField{"_SYSTEMD_UNIT", "postgresql@15-main.service"}, bField{"_SYSTEMD_SLICE", "system-postgresql.slice"},
				bField{"_STREAM_ID", bHex(r, 32)}))
		case k < 7: // a user session
			session++
			uid := strconv.Itoa(1000 + r.IntN(3))
			user := map[string]string{"1000": "admin", "1001": "deploy", "1002": "builder"}[uid]
			add(append(common("journal"), bField{"PRIORITY", "6"}, bField{"SYSLOG_FACILITY", "4"},
				bField{"SYSLOG_IDENTIFIER", "systemd-logind"}, bField{"MESSAGE_ID", "8d45620c1a4348dbb17410da57c60c66"},
				bField{"MESSAGE", fmt.Sprintf("New session %d of user %s.", session, user)},
				bField{"SESSION_ID", strconv.Itoa(session)}, bField{"USER_ID", user}, bField{"LEADER", strconv.Itoa(3000 + r.IntN(5000))},
				bField{"_PID", "388"}, bField{"_UID", "0"}, bField{"_GID", "0"}, bField{"_COMM", "systemd-logind"},
				bField{"_EXE", "/usr/lib/systemd/systemd-logind"}, bField{"_CMDLINE", "/lib/systemd/systemd-logind"},
				bField{"_SYSTEMD_CGROUP", "/system.slice/systemd-logind.service"}, bField{"_SYSTEMD_UNIT", "systemd-logind.service"},
				bField{"_SYSTEMD_SLICE", "system.slice"}))
			bin := bPick(r, bins)
			add(append(common("stdout"), bField{"PRIORITY", "6"}, bField{"SYSLOG_FACILITY", "3"},
				bField{"SYSLOG_IDENTIFIER", filepath.Base(bin)},
				bField{"MESSAGE", fmt.Sprintf("%s: started by %s in /home/%s", filepath.Base(bin), user, user)},
				bField{"_PID", strconv.Itoa(3000 + r.IntN(5000))}, bField{"_UID", uid}, bField{"_GID", uid},
				bField{"_COMM", filepath.Base(bin)}, bField{"_EXE", bin}, bField{"_CMDLINE", bin},
				bField{"_AUDIT_SESSION", strconv.Itoa(session)}, bField{"_AUDIT_LOGINUID", uid},
				bField{"_SYSTEMD_CGROUP", fmt.Sprintf("/user.slice/user-%s.slice/session-%d.scope", uid, session)},
				bField{"_SYSTEMD_SESSION", strconv.Itoa(session)}, bField{"_SYSTEMD_OWNER_UID", uid},
				bField{"_SYSTEMD_UNIT", fmt.Sprintf("session-%d.scope", session)}, bField{"_SYSTEMD_SLICE", fmt.Sprintf("user-%s.slice", uid)}))
		case k < 8: // man-db's nightly run
			add(append(common("stdout"), bField{"PRIORITY", "6"}, bField{"SYSLOG_FACILITY", "3"},
				bField{"SYSLOG_IDENTIFIER", "mandb"},
				bField{"MESSAGE", "Processing manual pages under /usr/share/man/" + bPick(r, manDirs) + "..."},
				bField{"_PID", strconv.Itoa(5000 + r.IntN(9000))}, bField{"_UID", "6"}, bField{"_GID", "12"}, bField{"_COMM", "mandb"},
				bField{"_EXE", "/usr/bin/mandb"}, bField{"_CMDLINE", "/usr/bin/mandb --quiet"},
				bField{"_SYSTEMD_CGROUP", "/system.slice/man-db.service"}, bField{"_SYSTEMD_UNIT", "man-db.service"},
				bField{"_SYSTEMD_SLICE", "system.slice"}))
		default: // the kernel
			bin := bPick(r, bins)
			msgs := []string{
				fmt.Sprintf("audit: type=1400 audit(%d.%03d:%d): apparmor=\"ALLOWED\" operation=\"open\" profile=\"%s\" name=\"%s\" pid=%d comm=\"%s\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
					t.Unix(), r.IntN(1000), 100+r.IntN(900), filepath.Base(bin), bin, 1000+r.IntN(30000), filepath.Base(bin)),
				fmt.Sprintf("%s[%d]: segfault at %s ip %s sp %s error 4 in %s[%s+%x]", filepath.Base(bin), 1000+r.IntN(30000),
					bHex(r, 12), bHex(r, 12), bHex(r, 12), filepath.Base(bin), bHex(r, 12), 1000+r.IntN(90000)),
				fmt.Sprintf("EXT4-fs (vda1): re-mounted %s-%s-%s-%s-%s. Quota mode: none.", bHex(r, 8), bHex(r, 4), bHex(r, 4), bHex(r, 4), bHex(r, 12)),
			}
			add(append(common("kernel"), bField{"PRIORITY", strconv.Itoa(4 + r.IntN(3))}, bField{"SYSLOG_FACILITY", "0"},
				bField{"SYSLOG_IDENTIFIER", "kernel"}, bField{"MESSAGE", bPick(r, msgs)},
				bField{"_SOURCE_MONOTONIC_TIMESTAMP", strconv.FormatInt(int64(t.Sub(bJournalStart)/time.Microsecond)+8123456, 10)}))
		}
	}
	if plant != nil {
		at := int(d * float64(len(recs)))
		pt := recs[at-1].t.Add(recs[at].t.Sub(recs[at-1].t) / 2)
		recs = bInsertAt(recs, d, bRecord{pt, append(common("journal"), plant(r, pt)...)})
	}
	var b strings.Builder
	seqID := bHex(r, 32)
	for i, rec := range recs {
		usec := rec.t.UnixMicro()
		mono := usec - bJournalStart.UnixMicro() + 8123456
		cursor := fmt.Sprintf("s=%s;i=%x;b=%s;m=%x;t=%x;x=%s", seqID, 0x1c2a+i, boot, mono, usec, bHex(r, 16))
		if export {
			fmt.Fprintf(&b, "__CURSOR=%s\n__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n", cursor, usec, mono)
			for _, f := range rec.fields {
				fmt.Fprintf(&b, "%s=%s\n", f.k, strings.TrimRight(f.v, "\n"))
			}
			b.WriteString("\n")
			continue
		}
		fmt.Fprintf(&b, "%s [%s]\n", rec.t.Format("Mon 2006-01-02 15:04:05.000000 MST"), cursor)
		for _, f := range rec.fields {
			fmt.Fprintf(&b, "    %s=%s\n", f.k, strings.TrimRight(f.v, "\n"))
		}
	}
	return b.String(), nil
}

func bPgAuthRecord(r *rand.Rand, t time.Time) []bField {
	return []bField{{"PRIORITY", "3"}, {"SYSLOG_FACILITY", "3"}, {"SYSLOG_IDENTIFIER", "postgres"},
		{"MESSAGE", t.Format("2006-01-02 15:04:05.000") + " UTC [24187] reporting@analytics FATAL:  password authentication failed for user \"reporting\""},
		{"_PID", "24187"}, {"_UID", "108"}, {"_GID", "114"}, {"_COMM", "postgres"},
		{"_EXE", "/usr/lib/postgresql/15/bin/postgres"},
		{"_CMDLINE", "postgres: 15/main: reporting analytics 10.20.4.17(51522) authentication"},
		{"_CAP_EFFECTIVE", "0"}, {"_SYSTEMD_CGROUP", "/system.slice/system-postgresql.slice/postgresql@15-main.service"},
		{"_SYSTEMD_UNIT", "postgresql@15-main.service"}, {"_SYSTEMD_SLICE", "system-postgresql.slice"},
		{"_STREAM_ID", bHex(r, 32)}}
}

func bMountRecord(r *rand.Rand, t time.Time) []bField {
	return []bField{{"PRIORITY", "3"}, {"SYSLOG_FACILITY", "3"}, {"SYSLOG_IDENTIFIER", "systemd"},
		{"CODE_FILE", "src/core/mount.c"}, {"CODE_LINE", "875"}, {"CODE_FUNC", "mount_sigchld_event"},
		{"UNIT", "srv-backup.mount"}, {"MESSAGE", "srv-backup.mount: Mount process exited, code=exited, status=32/n/a"},
		{"INVOCATION_ID", "5c0b9e2d71f84a8fa3e6d40c19b7e52a"},
		{"_PID", "1"}, {"_UID", "0"}, {"_GID", "0"}, {"_COMM", "systemd"},
		{"_EXE", "/usr/lib/systemd/systemd"}, {"_CMDLINE", "/sbin/init"}, {"_CAP_EFFECTIVE", "1ffffffffff"},
		{"_SYSTEMD_CGROUP", "/init.scope"}, {"_SYSTEMD_UNIT", "init.scope"}, {"_SYSTEMD_SLICE", "-.slice"}}
}

func bCoredumpRecord(r *rand.Rand, t time.Time) []bField {
	return []bField{{"PRIORITY", "2"}, {"SYSLOG_FACILITY", "3"}, {"SYSLOG_IDENTIFIER", "systemd-coredump"},
		{"MESSAGE_ID", "fc2e22bc6ee647b6b90729ab34a250b1"},
		{"MESSAGE", "Process 31544 (packagekitd) of user 0 dumped core."},
		{"COREDUMP_PID", "31544"}, {"COREDUMP_UID", "0"}, {"COREDUMP_GID", "0"},
		{"COREDUMP_SIGNAL", "11"}, {"COREDUMP_SIGNAL_NAME", "SIGSEGV"},
		{"COREDUMP_COMM", "packagekitd"}, {"COREDUMP_EXE", "/usr/libexec/packagekitd"},
		{"COREDUMP_UNIT", "packagekit.service"}, {"COREDUMP_SLICE", "system.slice"},
		{"COREDUMP_TIMESTAMP", strconv.FormatInt(t.Add(-1840*time.Millisecond).UnixMicro(), 10)}, {"COREDUMP_RLIMIT", "0"},
		{"_PID", "31561"}, {"_UID", "0"}, {"_GID", "0"}, {"_COMM", "systemd-coredum"},
		{"_EXE", "/usr/lib/systemd/systemd-coredump"}, {"_CMDLINE", "/lib/systemd/systemd-coredump"},
		{"_SYSTEMD_CGROUP", "/system.slice/system-systemd\\x2dcoredump.slice/systemd-coredump@0-31560-0.service"},
		{"_SYSTEMD_UNIT", "systemd-coredump@0-31560-0.service"}, {"_SYSTEMD_SLICE", "system-systemd\\x2dcoredump.slice"}}
}

// ------------------------------------------------------------------ weblogs

// bDocFiles lists real files under /usr/share/doc and /usr/share/javascript.
func bDocFiles() []string {
	files := bGlob("/usr/share/doc/*/*", "/usr/share/javascript/*/*")
	var out []string
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			out = append(out, f)
		}
	}
	return out
}

var bProbes = []string{"/var/www/html/favicon.ico", "/var/www/html/.env", "/var/www/html/wp-login.php",
	"/var/www/html/robots.txt", "/var/www/html/.git/HEAD", "/var/www/html/xmlrpc.php",
	"/var/www/html/apple-touch-icon.png", "/var/www/html/phpmyadmin", "/var/www/html/vendor/phpunit"}

func bClient(r *rand.Rand) string {
	nets := []string{"192.0.2.", "198.51.100.", "203.0.113.", "10.20.4."}
	return fmt.Sprintf("%s%d:%d", bPick(r, nets), 2+r.IntN(250), 32768+r.IntN(28000))
}

// bApacheLog builds n lines of an Apache error_log from real paths of the
// machine, with plant (a format of pid and tid) at fraction d.
func bApacheLog(id string, n int, d float64, plant string) (string, error) {
	r := seeded(id)
	docs := bDocFiles()
	if len(docs) == 0 {
		return "", fmt.Errorf("no documents")
	}
	t := time.Date(2024, 3, 10, 0, 0, 3, 0, time.UTC)
	pid := 1201
	var lines []string
	stamp := func() string {
		t = t.Add(time.Duration(r.IntN(240_000_000)) * time.Microsecond)
		return "[" + t.Format("Mon Jan 02 15:04:05.000000 2006") + "]"
	}
	worker := func() string {
		return fmt.Sprintf("[pid %d:tid %d]", pid+1+r.IntN(3), 139900000000000+r.Int64N(99999999))
	}
	start := func() {
		lines = append(lines,
			"AH00558: apache2: Could not reliably determine the server's fully qualified domain name, using 127.0.1.1. Set the 'ServerName' directive globally to suppress this message",
			fmt.Sprintf("%s [mpm_event:notice] [pid %d:tid %d] AH00489: Apache/2.4.62 (Debian) OpenSSL/3.0.19 configured -- resuming normal operations", stamp(), pid, 139912345678912),
			fmt.Sprintf("%s [core:notice] [pid %d:tid %d] AH00094: Command line: '/usr/sbin/apache2'", stamp(), pid, 139912345678912))
	}
	start()
	for len(lines) < n {
		switch k := r.IntN(20); {
		case k < 7:
			f := bPick(r, docs)
			lines = append(lines, fmt.Sprintf("%s [authz_core:error] %s [client %s] AH01630: client denied by server configuration: %s", stamp(), worker(), bClient(r), f))
		case k < 11:
			lines = append(lines, fmt.Sprintf("%s [core:info] %s [client %s] AH00128: File does not exist: %s", stamp(), worker(), bClient(r), bPick(r, bProbes)))
		case k < 14:
			f := bPick(r, docs)
			lines = append(lines, fmt.Sprintf("%s [autoindex:error] %s [client %s] AH01276: Cannot serve directory %s/: No matching DirectoryIndex (index.html,index.cgi,index.pl,index.php,index.xhtml,index.htm) found, and server-generated directory index forbidden by Options directive",
				stamp(), worker(), bClient(r), filepath.Dir(f)))
		case k < 16:
			f := bPick(r, docs)
			lines = append(lines, fmt.Sprintf("%s [core:error] %s [client %s] AH00037: Symbolic link not allowed or link target not accessible: %s, referer: http://intranet.lan/doc/", stamp(), worker(), bClient(r), f))
		case k < 18:
			lines = append(lines, fmt.Sprintf("%s [ssl:info] %s [client %s] AH01964: Connection to child %d established (server intranet.lan:443)", stamp(), worker(), bClient(r), r.IntN(64)))
		case k < 19:
			lines = append(lines, fmt.Sprintf("%s [ssl:warn] [pid %d:tid %d] AH01909: intranet.lan:443:0 server certificate does NOT include an ID which matches the server name", stamp(), pid, 139912345678912))
		default:
			lines = append(lines, fmt.Sprintf("%s [mpm_event:notice] [pid %d:tid %d] AH00493: SIGUSR1 received.  Doing graceful restart", stamp(), pid, 139912345678912))
			start()
		}
	}
	if plant != "" {
		at := int(d * float64(len(lines)))
		line := lines[at]
		ts := line[:strings.IndexByte(line, ']')+1]
		if !strings.HasPrefix(ts, "[") {
			ts = lines[at+1][:strings.IndexByte(lines[at+1], ']')+1]
		}
		lines = bInsertAt(lines, d, ts+" "+fmt.Sprintf(plant, pid, 139912345678912))
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// bLighttpdLog builds n lines of a lighttpd error.log from real paths.
func bLighttpdLog(id string, n int, d float64, plant string) (string, error) {
	r := seeded(id)
	docs := bDocFiles()
	t := time.Date(2024, 3, 12, 0, 0, 1, 0, time.UTC)
	var lines []string
	stamp := func() string {
		t = t.Add(time.Duration(r.IntN(150)) * time.Second)
		return t.Format("2006-01-02 15:04:05") + ":"
	}
	start := func() {
		lines = append(lines, stamp()+" (server.c.1939) server started (lighttpd/1.4.69)")
	}
	start()
	for len(lines) < n {
		switch k := r.IntN(20); {
		case k < 8:
			f := bPick(r, docs)
			if g, ok := strings.CutSuffix(f, ".gz"); ok {
				f = g
			} else {
				f += ".html"
			}
			lines = append(lines, fmt.Sprintf("%s (response.c.642) file not found ... or so: No such file or directory /doc/%s -> %s", stamp(),
				strings.TrimPrefix(f, "/usr/share/doc/"), f))
		case k < 11:
			ip := bClient(r)
			lines = append(lines, fmt.Sprintf("%s (mod_openssl.c.3383) SSL: 1 error:0A00010B:SSL routines::wrong version number (%s)", stamp(), ip[:strings.IndexByte(ip, ':')]))
		case k < 14:
			lines = append(lines, fmt.Sprintf("%s (mod_openssl.c.3383) SSL: 1 error:0A000416:SSL routines::sslv3 alert certificate unknown (%s)", stamp(), strings.Split(bClient(r), ":")[0]))
		case k < 17:
			f := bPick(r, docs)
			lines = append(lines, fmt.Sprintf("%s (mod_dirlisting.c.1144) opendir failed: Permission denied %s/", stamp(), filepath.Dir(f)))
		case k < 19:
			lines = append(lines, fmt.Sprintf("%s (h1.c.1222) invalid character in header -> 400 (%s)", stamp(), strings.Split(bClient(r), ":")[0]))
		default:
			lines = append(lines, stamp()+" (server.c.1290) [note] graceful shutdown started")
			lines = append(lines, stamp()+" (server.c.2057) server stopped by UID = 0 PID = 1")
			start()
		}
	}
	if plant != "" {
		at := int(d * float64(len(lines)))
		lines = bInsertAt(lines, d, lines[at][:20]+" "+plant)
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// ------------------------------------------------------------ fixed reports

// bPaged lays rows out as a printed report: a header at the top of each
// page of 60 lines, pages separated by form feeds.
func bPaged(title string, columns string, rows []string) string {
	var b strings.Builder
	rule := strings.Repeat("-", 96)
	page := 0
	for i := 0; i < len(rows); i += 54 {
		page++
		if page > 1 {
			b.WriteString("\f\n")
		}
		head := fmt.Sprintf("%-60s%-26sPage %4d", title, "Run date: 2024-03-11", page)
		b.WriteString(head + "\n\n" + rule + "\n" + columns + "\n" + rule + "\n")
		for _, row := range rows[i:min(i+54, len(rows))] {
			b.WriteString(strings.TrimRight(row, " ") + "\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "*** END OF REPORT *** %d entries\n", len(rows))
	return b.String()
}

// bCameraReport is libgphoto2's USB device table as a paged report.
func bCameraReport() (string, error) {
	text, err := readFile("/lib/udev/hwdb.d/20-libgphoto2-6.hwdb")
	if err != nil {
		return "", err
	}
	var rows []string
	model, usb, driver, player := "", "", "", "no"
	flush := func() {
		if usb != "" {
			rows = append(rows, fmt.Sprintf("%-10s %-13s %-6s %s", usb, driver, player, model))
		}
		usb, driver, player = "", "", "no"
	}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "# ") && !strings.HasPrefix(l, "# hardware"):
			flush()
			model = strings.TrimSpace(strings.TrimPrefix(l, "# "))
		case strings.HasPrefix(l, "usb:v"):
			// usb:v0502p387A*
			v := strings.TrimSuffix(strings.TrimPrefix(l, "usb:v"), "*")
			if i := strings.IndexByte(v, 'p'); i > 0 {
				usb = v[:i] + ":" + v[i+1:]
			}
		case strings.HasPrefix(l, " GPHOTO2_DRIVER="):
			driver = strings.TrimPrefix(l, " GPHOTO2_DRIVER=")
		case strings.HasPrefix(l, " ID_MEDIA_PLAYER=1"):
			player = "yes"
		}
	}
	flush()
	return bPaged("LIBGPHOTO2 USB DEVICE TABLE", fmt.Sprintf("%-10s %-13s %-6s %s", "USB ID", "DRIVER", "PLAYER", "MODEL"), rows), nil
}

// bServicesReport is /etc/services, /etc/protocols and /etc/mime.types as
// paged reports.
func bServicesReport() (string, error) {
	var rows []string
	for _, name := range []string{"/etc/services"} {
		text, err := readFile(name)
		if err != nil {
			return "", err
		}
		for _, l := range strings.Split(text, "\n") {
			comment := ""
			if i := strings.IndexByte(l, '#'); i >= 0 {
				l, comment = l[:i], strings.TrimSpace(l[i+1:])
			}
			f := strings.Fields(l)
			if len(f) < 2 {
				continue
			}
			port, proto, _ := strings.Cut(f[1], "/")
			rows = append(rows, fmt.Sprintf("%-19s %5s  %-6s %-25s %s", f[0], port, proto, strings.Join(f[2:], " "), comment))
		}
	}
	text, err := readFile("/etc/protocols")
	if err != nil {
		return "", err
	}
	var protos []string
	for _, l := range strings.Split(text, "\n") {
		comment := ""
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l, comment = l[:i], strings.TrimSpace(l[i+1:])
		}
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		protos = append(protos, fmt.Sprintf("%-19s %5s  %-25s %s", f[0], f[1], strings.Join(f[2:], " "), comment))
	}
	text, err = readFile("/etc/mime.types")
	if err != nil {
		return "", err
	}
	var types []string
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		types = append(types, fmt.Sprintf("%-72s %s", f[0], strings.Join(f[1:], " ")))
	}
	return bPaged("NETWORK SERVICES REGISTER", fmt.Sprintf("%-19s %5s  %-6s %-25s %s", "SERVICE", "PORT", "PROTO", "ALIASES", "DESCRIPTION"), rows) +
		"\f\n" + bPaged("IP PROTOCOL NUMBERS", fmt.Sprintf("%-19s %5s  %-25s %s", "PROTOCOL", "NUM", "ALIASES", "DESCRIPTION"), protos) +
		"\f\n" + bPaged("MEDIA TYPES", fmt.Sprintf("%-72s %s", "MEDIA TYPE", "EXTENSIONS"), types), nil
}

// ---------------------------------------------------------------------- tsv

var bUniRE = regexp.MustCompile(`<U([0-9A-Fa-f]{4,6})>`)

// bDecodeLocale turns glibc's <Uxxxx> notation into UTF-8.
func bDecodeLocale(s string) string {
	return bUniRE.ReplaceAllStringFunc(s, func(m string) string {
		v, err := strconv.ParseUint(m[2:len(m)-1], 16, 32)
		if err != nil {
			return m
		}
		return string(rune(v))
	})
}

// bLocalesTSV is a table of glibc's locales.
func bLocalesTSV() (string, error) {
	keys := []string{"title", "language", "territory", "lang_name", "country_name", "lang_ab", "int_curr_symbol",
		"currency_symbol", "mon", "day", "d_fmt", "t_fmt", "tel_int_fmt", "postal_fmt"}
	lists := map[string]bool{"mon": true, "day": true}
	quoted := regexp.MustCompile(`"([^"]*)"`)
	var b strings.Builder
	b.WriteString("locale\t" + strings.Join(keys, "\t") + "\n")
	for _, name := range bGlob("/usr/share/i18n/locales/*_*") {
		base := filepath.Base(name)
		if strings.HasPrefix(base, "translit_") || strings.HasPrefix(base, "iso14651") {
			continue
		}
		text, err := readFile(name)
		if err != nil {
			return "", err
		}
		lines := strings.Split(text, "\n")
		vals := map[string]string{}
		for i := 0; i < len(lines); i++ {
			f := strings.Fields(lines[i])
			if len(f) < 2 {
				continue
			}
			k := f[0]
			if _, done := vals[k]; done {
				continue
			}
			stmt := lines[i]
			for strings.HasSuffix(strings.TrimSpace(stmt), "/") && i+1 < len(lines) {
				i++
				stmt = strings.TrimSuffix(strings.TrimSpace(stmt), "/") + " " + lines[i]
			}
			var vs []string
			for _, m := range quoted.FindAllStringSubmatch(stmt, -1) {
				vs = append(vs, strings.TrimSpace(strings.ReplaceAll(bDecodeLocale(m[1]), "//", "/")))
			}
			if len(vs) == 0 {
				continue
			}
			if lists[k] {
				vals[k] = strings.Join(vs, ", ")
			} else {
				vals[k] = vs[0]
			}
		}
		row := []string{base}
		for _, k := range keys {
			row = append(row, strings.ReplaceAll(vals[k], "\t", " "))
		}
		b.WriteString(strings.Join(row, "\t") + "\n")
	}
	return b.String(), nil
}

// bUnicodeTSV is perl's table of Unicode character names with their blocks.
func bUnicodeTSV() (string, error) {
	text, err := readFile("/usr/share/perl/5.36/unicore/Name.pl")
	if err != nil {
		return "", err
	}
	blocksText, err := readFile("/usr/share/perl/5.36/unicore/Blocks.txt")
	if err != nil {
		return "", err
	}
	type block struct {
		lo, hi uint64
		name   string
	}
	var blocks []block
	for _, l := range strings.Split(blocksText, "\n") {
		rng, name, ok := strings.Cut(l, "; ")
		lo, hi, ok2 := strings.Cut(rng, "..")
		if !ok || !ok2 || strings.HasPrefix(l, "#") {
			continue
		}
		a, _ := strconv.ParseUint(lo, 16, 32)
		z, _ := strconv.ParseUint(hi, 16, 32)
		blocks = append(blocks, block{a, z, name})
	}
	var b strings.Builder
	b.WriteString("code_point\tchar\tname\tblock\n")
	seen := map[string]bool{}
	parts := strings.Split(text, "\n\n")
	for _, p := range parts {
		p = strings.TrimPrefix(p, "\n")
		code, name, ok := strings.Cut(p, "\n")
		if !ok || strings.Contains(code, " ") || len(code) < 4 || len(code) > 6 {
			continue
		}
		v, err := strconv.ParseUint(code, 16, 32)
		if err != nil {
			continue
		}
		key := code + name
		if seen[key] {
			continue
		}
		seen[key] = true
		ch := ""
		if v >= 0x20 && !(v >= 0x7f && v < 0xa0) && !(v >= 0xd800 && v < 0xe000) {
			ch = string(rune(v))
		}
		blk := ""
		for _, bl := range blocks {
			if v >= bl.lo && v <= bl.hi {
				blk = bl.name
				break
			}
		}
		fmt.Fprintf(&b, "U+%04X\t%s\t%s\t%s\n", v, ch, name, blk)
	}
	return b.String(), nil
}

type bCopyright struct {
	pkg, name, contact, source string
	stanzas                    [][3]string // files, first copyright line, license
}

// bCopyrights reads the machine-readable copyright files of the packages.
func bCopyrights() []bCopyright {
	var out []bCopyright
	for _, f := range bGlob("/usr/share/doc/*/copyright") {
		text, err := readFile(f)
		if err != nil || !strings.HasPrefix(text, "Format:") {
			continue
		}
		paras := strings.Split(text, "\n\n")
		field := func(block, key string) string {
			for _, l := range strings.Split(block, "\n") {
				if v, ok := strings.CutPrefix(l, key+":"); ok {
					return strings.TrimSpace(v)
				}
			}
			return ""
		}
		c := bCopyright{pkg: filepath.Base(filepath.Dir(f)), name: field(paras[0], "Upstream-Name"),
			contact: field(paras[0], "Upstream-Contact"), source: field(paras[0], "Source")}
		if c.name == "" {
			continue
		}
		for _, para := range paras[1:] {
			if files := field(para, "Files"); files != "" {
				c.stanzas = append(c.stanzas, [3]string{files, field(para, "Copyright"), field(para, "License")})
			}
		}
		if len(c.stanzas) == 0 {
			c.stanzas = [][3]string{{"*", "", ""}}
		}
		out = append(out, c)
	}
	return out
}

// bCopyrightTSV is a table of the upstreams of the installed packages, a
// row for each group of files of a package.
func bCopyrightTSV() (string, error) {
	var b strings.Builder
	b.WriteString("package\tupstream_name\tupstream_contact\tsource\tfiles\tcopyright\tlicense\n")
	clean := strings.NewReplacer("\t", " ")
	for _, c := range bCopyrights() {
		for _, st := range c.stanzas {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.pkg, clean.Replace(c.name), clean.Replace(c.contact),
				clean.Replace(c.source), clean.Replace(st[0]), clean.Replace(st[1]), clean.Replace(st[2]))
		}
	}
	return b.String(), nil
}

// bNoContactPackage is a package whose row names no upstream contact
// (nor does any other row of the same upstream).
func bNoContactPackage() string {
	for _, c := range bCopyrights() {
		if c.contact == "" && c.name != "" && c.source != "" && strings.HasPrefix(c.pkg, "lib") {
			return c.pkg
		}
	}
	return "?"
}

// ---------------------------------------------------------------------- sql

type bUpload struct {
	source, version, dist, urgency, name, email, date string
	when                                              time.Time
	body                                              string
}

var bUploadsCache []bUpload

// bSkipSources are the packages another set reads.
var bSkipSources = map[string]bool{"git": true, "tar": true, "gzip": true, "coreutils": true, "tzdata": true,
	"systemd": true, "redis": true, "python3.11": true, "glibc": true}

var bChangeHead = regexp.MustCompile(`^([a-z0-9][a-z0-9.+-]*) \(([^)]+)\) ([^;]+); urgency=([a-zA-Z]+)`)

// bUploads parses the Debian changelogs of the installed packages.
func bUploads() []bUpload {
	if bUploadsCache != nil {
		return bUploadsCache
	}
	seen := map[string]bool{}
	var out []bUpload
	for _, f := range bGlob("/usr/share/doc/*/changelog.Debian.gz") {
		text, err := readFile(f)
		if err != nil {
			continue
		}
		var cur *bUpload
		var body []string
		for _, l := range strings.Split(text, "\n") {
			if m := bChangeHead.FindStringSubmatch(l); m != nil {
				cur = &bUpload{source: m[1], version: m[2], dist: m[3], urgency: strings.ToLower(m[4])}
				body = []string{l}
				continue
			}
			if cur == nil {
				continue
			}
			if rest, ok := strings.CutPrefix(l, " -- "); ok {
				who, date, ok := strings.Cut(rest, ">  ")
				name, email, ok2 := strings.Cut(who, " <")
				when, err := time.Parse(time.RFC1123Z, strings.TrimSpace(date))
				key := cur.source + " " + cur.version
				if ok && ok2 && err == nil && !seen[key] && !bSkipSources[cur.source] {
					seen[key] = true
					cur.name, cur.email, cur.date, cur.when = strings.TrimSpace(name), email, strings.TrimSpace(date), when
					cur.body = strings.TrimSpace(strings.Join(body, "\n"))
					out = append(out, *cur)
				}
				cur = nil
				continue
			}
			body = append(body, l)
		}
	}
	bUploadsCache = out
	return out
}

// bUploadsSQL is a pg_dump of a table of the uploads in the changelogs,
// with about limit bytes of rows.
func bUploadsSQL(limit int) (string, error) {
	ups := bUploads()
	if len(ups) == 0 {
		return "", fmt.Errorf("no changelogs")
	}
	var b strings.Builder
	b.WriteString(pgDumpHead("15.14") + `--
-- Name: uploads; Type: TABLE; Schema: public; Owner: archive
--

CREATE TABLE public.uploads (
    id integer NOT NULL,
    source text NOT NULL,
    version debversion NOT NULL,
    distribution text NOT NULL,
    urgency text DEFAULT 'medium'::text NOT NULL,
    changed_by text NOT NULL,
    changed_by_email text,
    uploaded_at timestamp with time zone NOT NULL
);


ALTER TABLE public.uploads OWNER TO archive;

--
-- Name: uploads_id_seq; Type: SEQUENCE; Schema: public; Owner: archive
--

CREATE SEQUENCE public.uploads_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE public.uploads_id_seq OWNER TO archive;

ALTER SEQUENCE public.uploads_id_seq OWNED BY public.uploads.id;

--
-- Data for Name: uploads; Type: TABLE DATA; Schema: public; Owner: archive
--

COPY public.uploads (id, source, version, distribution, urgency, changed_by, changed_by_email, uploaded_at) FROM stdin;
`)
	esc := strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n")
	rows := 0
	for i, u := range ups {
		if b.Len() > limit {
			break
		}
		rows++
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, u.source, u.version, esc.Replace(u.dist), u.urgency,
			esc.Replace(u.name), esc.Replace(u.email), u.when.Format("2006-01-02 15:04:05-07"))
	}
	fmt.Fprintf(&b, `\.


--
-- Name: uploads_id_seq; Type: SEQUENCE SET; Schema: public; Owner: archive
--

SELECT pg_catalog.setval('public.uploads_id_seq', %d, true);


--
-- Name: uploads uploads_pkey; Type: CONSTRAINT; Schema: public; Owner: archive
--

ALTER TABLE ONLY public.uploads
    ADD CONSTRAINT uploads_pkey PRIMARY KEY (id);


--
-- PostgreSQL database dump complete
--

`, rows)
	return b.String(), nil
}

// bSQLUrgencyUpload is an upload of a rarer urgency, early in the dump.
func bSQLUrgencyUpload() *bUpload {
	ups := bUploads()
	for i := range ups[:min(len(ups), 3000)] {
		u := &ups[i]
		if u.urgency == "high" && i > 500 {
			return u
		}
	}
	return nil
}

func bSQLUrgencyPick() string {
	if u := bSQLUrgencyUpload(); u != nil {
		return u.source + " " + u.version
	}
	return "?"
}

func bSQLUrgencyAnswer() string {
	if u := bSQLUrgencyUpload(); u != nil {
		return u.urgency
	}
	return "?"
}

type bNpm struct {
	path, name, version, description, license, author, homepage string
	deps                                                        [][2]string
}

// bNpmPackages reads the package.json files of the installed Node modules.
func bNpmPackages() []bNpm {
	var out []bNpm
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				if e.Name() == "test" || e.Name() == "dist" || e.Name() == "lib" {
					continue
				}
				walk(p)
				continue
			}
			if e.Name() != "package.json" {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			var m map[string]any
			if json.Unmarshal(data, &m) != nil {
				continue
			}
			s := func(k string) string {
				switch v := m[k].(type) {
				case string:
					return v
				case map[string]any:
					name, _ := v["name"].(string)
					if t, ok := v["type"].(string); ok && name == "" {
						return t
					}
					if mail, ok := v["email"].(string); ok {
						return name + " <" + mail + ">"
					}
					return name
				}
				return ""
			}
			if s("name") == "" || s("version") == "" {
				continue
			}
			var deps [][2]string
			for _, k := range []string{"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"} {
				m, _ := m[k].(map[string]any)
				for _, d := range slices.Sorted(maps.Keys(m)) {
					v, _ := m[d].(string)
					deps = append(deps, [2]string{d, k + "\t" + v})
				}
			}
			out = append(out, bNpm{strings.TrimPrefix(filepath.Dir(p), "/usr/lib/"), s("name"), s("version"),
				s("description"), s("license"), s("author"), s("homepage"), deps})
		}
	}
	walk("/usr/lib/node_modules")
	return out
}

// bNpmField is a field of the only package of that name.
func bNpmField(name, key string) string {
	for _, p := range bNpmPackages() {
		if p.name == name {
			if key == "license" {
				return p.license
			}
			return p.version
		}
	}
	return "?"
}

// bNpmSQL is a mysqldump of the installed Node modules.
func bNpmSQL() (string, error) {
	pkgs := bNpmPackages()
	if len(pkgs) == 0 {
		return "", fmt.Errorf("no node modules")
	}
	q := strings.NewReplacer("\\", "\\\\", "'", "\\'", "\n", "\\n")
	var b strings.Builder
	b.WriteString("-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n--\n-- Host: localhost    Database: registry_mirror\n-- ------------------------------------------------------\n-- Server version\t8.0.36\n\n")
	b.WriteString("/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n/*!40101 SET NAMES utf8mb4 */;\n/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n/*!40103 SET TIME_ZONE='+00:00' */;\n/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;\n\n")
	b.WriteString("--\n-- Table structure for table `packages`\n--\n\nDROP TABLE IF EXISTS `packages`;\n/*!40101 SET @saved_cs_client     = @@character_set_client */;\n/*!50503 SET character_set_client = utf8mb4 */;\n")
	b.WriteString("CREATE TABLE `packages` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `name` varchar(214) NOT NULL,\n  `version` varchar(64) NOT NULL,\n  `description` text,\n  `license` varchar(64) DEFAULT NULL,\n  `author` varchar(255) DEFAULT NULL,\n  `homepage` varchar(255) DEFAULT NULL,\n  `install_path` varchar(255) NOT NULL,\n  PRIMARY KEY (`id`),\n  KEY `name` (`name`)\n) ENGINE=InnoDB AUTO_INCREMENT=")
	fmt.Fprintf(&b, "%d DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;\n/*!40101 SET character_set_client = @saved_cs_client */;\n\n", len(pkgs)+1)
	b.WriteString("--\n-- Dumping data for table `packages`\n--\n\nLOCK TABLES `packages` WRITE;\n/*!40000 ALTER TABLE `packages` DISABLE KEYS */;\n")
	for i, p := range pkgs {
		fmt.Fprintf(&b, "INSERT INTO `packages` VALUES (%d,'%s','%s','%s','%s','%s','%s','%s');\n", i+1,
			q.Replace(p.name), q.Replace(p.version), q.Replace(p.description), q.Replace(p.license),
			q.Replace(p.author), q.Replace(p.homepage), q.Replace(p.path))
	}
	b.WriteString("/*!40000 ALTER TABLE `packages` ENABLE KEYS */;\nUNLOCK TABLES;\n\n")
	b.WriteString("--\n-- Table structure for table `dependencies`\n--\n\nDROP TABLE IF EXISTS `dependencies`;\n")
	b.WriteString("CREATE TABLE `dependencies` (\n  `package_id` int NOT NULL,\n  `name` varchar(214) NOT NULL,\n  `kind` enum('dependencies','devDependencies','peerDependencies','optionalDependencies') NOT NULL,\n  `version_range` varchar(128) NOT NULL,\n  PRIMARY KEY (`package_id`,`name`,`kind`),\n  CONSTRAINT `dependencies_ibfk_1` FOREIGN KEY (`package_id`) REFERENCES `packages` (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;\n\n")
	b.WriteString("--\n-- Dumping data for table `dependencies`\n--\n\nLOCK TABLES `dependencies` WRITE;\n/*!40000 ALTER TABLE `dependencies` DISABLE KEYS */;\n")
	for i, p := range pkgs {
		for _, d := range p.deps {
			kind, rng, _ := strings.Cut(d[1], "\t")
			fmt.Fprintf(&b, "INSERT INTO `dependencies` VALUES (%d,'%s','%s','%s');\n", i+1, q.Replace(d[0]), kind, q.Replace(rng))
		}
	}
	b.WriteString("/*!40000 ALTER TABLE `dependencies` ENABLE KEYS */;\nUNLOCK TABLES;\n/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;\n\n-- Dump completed on 2024-03-11  6:02:19\n")
	return b.String(), nil
}

// --------------------------------------------------------------------- mbox

// bMboxUploads are the uploads the mailbox announces: the three latest of
// each source package, oldest mail first.
func bMboxUploads() []bUpload {
	count := map[string]int{}
	var out []bUpload
	for _, u := range bUploads() {
		if count[u.source] >= 3 {
			continue
		}
		count[u.source]++
		out = append(out, u)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].when.Before(out[j].when) })
	// Keep the latest part of the archive, about 4 MB of mail.
	if len(out) > 1400 {
		out = out[len(out)-1400:]
	}
	return out
}

// bMboxPicks are uploads the questions ask about.
func bMboxPickUpload(i int) *bUpload {
	ups := bMboxUploads()
	if len(ups) == 0 {
		return nil
	}
	r := seeded("b-mbox-picks")
	var picks []*bUpload
	for len(picks) < 3 {
		u := &ups[r.IntN(len(ups))]
		if u.urgency == "" || strings.Contains(u.name, "Debian") {
			continue
		}
		picks = append(picks, u)
	}
	return picks[i]
}

func bMboxPick(i int) string {
	if u := bMboxPickUpload(i); u != nil {
		return u.source + " " + u.version
	}
	return "?"
}

func bMboxSender(i int) []string {
	if u := bMboxPickUpload(i); u != nil {
		return []string{u.name + " <" + u.email + ">", u.name, u.email}
	}
	return []string{"?"}
}

func bMboxDate(i int) []string {
	if u := bMboxPickUpload(i); u != nil {
		return []string{u.date, u.when.Format("2 Jan 2006"), u.when.Format("2006-01-02"), u.when.Format("January 2, 2006")}
	}
	return []string{"?"}
}

// bMbox is a debian-devel-changes style mailbox of the changelog entries,
// with the mail extra (when not empty) at fraction d, or else the lines
// change (when not empty) added to the changes of the mail at fraction d.
func bMbox(extra string, d float64, change string) (string, error) {
	ups := bMboxUploads()
	if len(ups) == 0 {
		return "", fmt.Errorf("no changelogs")
	}
	r := seeded("b-mbox")
	const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	id := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[r.IntN(len(alnum))]
		}
		return string(b)
	}
	var mails []string
	changeAt := -1
	if change != "" {
		changeAt = int(d * float64(len(ups)))
	}
	for k, u := range ups {
		var b strings.Builder
		fmt.Fprintf(&b, "From %s  %s\n", u.email, u.when.Format("Mon Jan _2 15:04:05 2006"))
		fmt.Fprintf(&b, "Return-Path: <envelope@ftp-master.debian.org>\n")
		fmt.Fprintf(&b, "From: %s <%s>\n", u.name, u.email)
		fmt.Fprintf(&b, "To: debian-devel-changes@lists.debian.org\n")
		fmt.Fprintf(&b, "Subject: Accepted %s %s (source) into %s\n", u.source, u.version, u.dist)
		fmt.Fprintf(&b, "Date: %s\n", u.date)
		fmt.Fprintf(&b, "Message-ID: <E1r%s-%s-%s@fasolo.debian.org>\n", id(4), id(6), id(2))
		fmt.Fprintf(&b, "MIME-Version: 1.0\nContent-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: 8bit\n\n")
		fmt.Fprintf(&b, "Format: 1.8\nDate: %s\nSource: %s\nArchitecture: source\nVersion: %s\nDistribution: %s\nUrgency: %s\nChanged-By: %s <%s>\nChanges:\n",
			u.date, u.source, u.version, u.dist, u.urgency, u.name, u.email)
		body := strings.Split(u.body, "\n")
		if k == changeAt {
			// after the entry's last change
			body = append(body, strings.Split(change, "\n")...)
		}
		for _, l := range body {
			if strings.TrimSpace(l) == "" {
				b.WriteString(" .\n")
				continue
			}
			b.WriteString(" " + l + "\n")
		}
		b.WriteString("\n")
		mails = append(mails, strings.ReplaceAll(b.String(), "\nFrom ", "\n>From "))
	}
	if extra != "" {
		mails = bInsertAt(mails, d, strings.TrimRight(extra, "\n")+"\n\n")
	}
	return strings.Join(mails, ""), nil
}
