package lookup

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// filler is text around the facts: lines of a made-up program and prose.
func filler(seed uint64, lines int) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := strings.Fields("the buffer reader writes each block to the queue and the worker drains it when the timer fires " +
		"configuration options are read once at start and logged with their source file and line numbers for review")
	var b strings.Builder
	for i := 0; i < lines; i++ {
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "func step%d(x int) int { return x * %d }\n", i, rng.IntN(90)+2)
		case 1:
			fmt.Fprintf(&b, "// %s %s %s %s.\n", words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		case 2:
			b.WriteString("\n")
		default:
			n := 6 + rng.IntN(8)
			ws := make([]string, n)
			for j := range ws {
				ws[j] = words[rng.IntN(len(words))]
			}
			b.WriteString(strings.Join(ws, " ") + ".\n")
		}
	}
	return b.String()
}

// wrap puts fact in the middle of filler text.
func wrap(fact string) string {
	return filler(1, 300) + "\n" + fact + "\n\n" + filler(2, 300)
}

func TestFind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text, question, want string
	}{
		{"key colon", "deploy_key: QX-99120", "What is the deploy key?", "QX-99120"},
		{"key equals camel", "maxRetryCount = 11", "what is the max retry count", "11"},
		{"kebab to words", "--cache-ttl=90s", "What is the cache ttl?", "90s"},
		{"prose is", "The gate code of the north warehouse is 7720-B.", "What is the gate code of the north warehouse?", "7720-B"},
		{"prose by name", "The quarterly audit was signed off by Henrike Vasquez-Ortega last week.", "Who signed off the quarterly audit?", "Henrike Vasquez-Ortega"},
		{"prose date", "The lease on unit 14 ends on 12 March 2027, after which it renews yearly.", "When does the lease on unit 14 end?", "12 March 2027"},
		{"unit kept", "2023-01-04 10:00:01 job compact-db finished in 73 seconds", "How long did compact-db take?", "73 seconds"},
		{"email", "Reach the payroll desk at payroll-desk@corp.example for corrections.", "What is the payroll desk's e-mail address?", "payroll-desk@corp.example"},
		{"path", "# staging artifacts are kept under /data/stage/artifacts", "Where are the staging artifacts kept?", "/data/stage/artifacts"},
		{"markdown table column", "| Host | Rack | Contact |\n|---|---|---|\n| web-7 | C4 | Lars Eklund |\n| web-8 | C5 | Noor Haddad |",
			"Who is the contact for web-8?", "Noor Haddad"},
		{"markdown table number", "| Host | Rack | Port |\n|---|---|---|\n| web-7 | C4 | 8101 |\n| web-8 | C5 | 8102 |",
			"Which port does web-7 listen on?", "8101"},
		{"csv with header", "sku,product,price_eur,warehouse\n1001,garden hose,12.50,Gdansk\n1002,rake,8.99,Poznan\n1003,shovel,15.00,Lodz",
			"What does the rake cost in euros (price_eur)?", "8.99"},
		{"tsv", "user\tshell\thome\nmira\t/bin/zsh\t/home/mira\nolek\t/bin/bash\t/srv/olek", "What is olek's home directory?", "/srv/olek"},
		{"json line", `{"id": 311, "city": "Kraków", "mayor": "Ewa Zielińska", "population": 800000}`, "Who is the mayor of Kraków?", "Ewa Zielińska"},
		{"json line number", `{"id": 311, "city": "Kraków", "mayor": "Ewa Zielińska", "population": 800000}`, "What is the population of Kraków?", "800000"},
		{"stanza", "Package: orbit-tools\nVersion: 4.1.2-3\nMaintainer: Sanne Visser <sanne@orbit.example>\nSection: utils\n",
			"What version of orbit-tools is this?", "4.1.2-3"},
		{"ini section", "[Unit]\nDescription=Photo thumbnail generator\n\n[Service]\nExecStart=/usr/bin/thumbd\nNice=12\n",
			"What nice level does the photo thumbnail generator run at?", "12"},
		{"ini sections alike", "[AllowedValues]\ntype = array\n\n[NoEcho]\ntype = boolean\n\n[MaxLength]\nmaximum = 4096\ntype = integer\n",
			"What is the type of NoEcho?", "boolean"},
		{"define string with a colon", "#define PLATFORM \"platform: BSD-x86\"\n#define DATE \"built on: Tue Jan 27 00:00:00 2026 UTC\"\n",
			"What is PLATFORM defined as?", "platform: BSD-x86"},
		{"define named as a date", "#define PLATFORM \"platform: BSD-x86\"\n#define DATE \"built on: Tue Jan 27 00:00:00 2026 UTC\"\n",
			"What is the value of DATE?", "built on: Tue Jan 27 00:00:00 2026 UTC"},
		{"define string part of its name", "#define XFT_CORE\t\t\"core\"\n#define XFT_RENDER\t\"render\"\n#define XFT_XLFD\t\t\"xlfd\"\n",
			"What is XFT_XLFD defined as?", "xlfd"},
		{"define after a comment", "#define ICRNL\t0x100\t/* Map CR to NL on input */\n#define ISTRIP\t0x020\t\t\t/* Strip 8th bit off characters */\n",
			"What is the value of ISTRIP?", "0x020"},
		{"code comment after a value", "const (\n\tflagRawStruct = 0x1 // do not print braces on structs\n\tflagOther = 0x2\n)\n",
			"What is flagRawStruct set to?", "0x1"},
		{"go typed constant", "const (\n\tImageTypeJpeg    ImageType = \"jpeg\"\n\tImageTypeWebp    ImageType = \"webp\"\n\tImageTypePng     ImageType = \"png\"\n)\n",
			"What is ImageTypeWebp?", "webp"},
		{"python dunder", "__author__ = \"Artur Maciag\"\n__version__ = \"0.9.0\"\n__license__ = \"Apache License, Version 2.0\"\n",
			"What is __version__ set to?", "0.9.0"},
		{"python private name", "_OPT = 'opt-'\n_PYCACHE = '__pycache__'\n\ndef cache(head):\n    return _path_join(head, _PYCACHE, filename)\n",
			"What is _PYCACHE set to?", "__pycache__"},
		{"the kind of the field, not of its owner", "port:\n  type: integer\n  description: Specifies the destination port to match against.\nhost:\n  type: string\n",
			"What is the description of port?", "Specifies the destination port to match against"},
		{"package and architecture", "2025-06-24 14:38:24 install libnspr4:amd64 <none> 2:4.35-1\n2025-06-24 14:38:24 status half-installed libnspr4:amd64 2:4.35-1\n",
			"What version of libnspr4 got installed?", "2:4.35-1"},
		{"version without a dot", "2025-06-24 14:37:48 install ca-certificates-java:all <none> 20230710~deb12u1\n2025-06-24 14:37:49 install libfoo1:amd64 <none> 1.2-3\n",
			"What version of ca-certificates-java got installed?", "20230710~deb12u1"},
		{"man page option with aliases", ".TH BASE32 1\n.SH OPTIONS\n" + strings.Repeat(".TP\n\\fB\\-\\-version\\fR\noutput version information and exit\n", 6) + ".TP\n\\fB\\-i\\fR, \\fB\\-\\-ignore\\-garbage\\fR\nwhen decoding, ignore non\\-alphabet characters\n.TP\n\\fB\\-w\\fR, \\fB\\-\\-wrap\\fR=\\fI\\,COLS\\/\\fR\nwrap encoded lines after COLS character (default 76).\nUse 0 to disable line wrapping\n",
			"What does -w default to?", "76"},
		{"option named inside a longer one", ".TH GPG-AGENT 1\n.SH OPTIONS\n" + strings.Repeat(".TP\n.B \\-\\-quiet\nTry to be as quiet as possible.\n", 6) + ".TP\n.B \\-\\-default\\-cache\\-ttl \\fIn\\fP\nSet the time a cache entry is valid to \\fIn\\fP seconds.  The default is 600 seconds.\n.TP\n.B \\-\\-default\\-cache\\-ttl\\-ssh \\fIn\\fP\nSet the time a cache entry used for SSH keys is valid to \\fIn\\fP seconds.  The default is 1800 seconds.\n",
			"What is the default of --default-cache-ttl?", "600 seconds"},
		{"man page sentence broken early", ".TH BASH 1\n.SH PARAMETERS\n.TP\n.B MAILPATH\nA colon-separated list of file names to be checked for mail.\n.TP\n.B MAILCHECK\nSpecifies how\noften (in seconds)\n.B bash\nchecks for mail.  The default is 60 seconds.  When it is time to check\nfor mail, the shell does so before displaying the primary prompt.\n",
			"What is the default of MAILCHECK?", "60 seconds"},
		{"html table", "<p>Instants are taken from the system clock:</p>\n<table>\n<thead><tr><th>Platform</th><th>System call</th></tr></thead>\n<tbody>\n<tr><td>SGX</td><td><a href=\"https://example.org/usercall\"><code>insecure_time</code> usercall</a></td></tr>\n<tr><td>UNIX</td><td>clock_gettime (Monotonic Clock)</td></tr>\n<tr><td>Windows</td><td>QueryPerformanceCounter</td></tr>\n</tbody></table>\n",
			"What is the System call of Windows?", "QueryPerformanceCounter"},
		{"html table, cell on its own line", "<table>\n<tr>\n<th>Literal</th>\n<th>Base</th>\n</tr>\n<tr>\n<td><code>&quot;rv32e&quot;</code></td>\n<td>RV32E</td>\n</tr>\n<tr>\n<td><code>&quot;rv64i&quot;</code></td>\n<td>RV64I</td>\n</tr>\n</table>\n",
			"What is the Literal of RV64I?", "\"rv64i\""},
		{"mdoc page name alone", ".Dd May 1 2025\n.Dt TMUX 1\n.Sh NAME\n.Nm tmux\n.Nd terminal multiplexer\n.Sh OPTIONS\n.Bl -tag -width Ds\n" +
			strings.Repeat(".It Ic display-time Ar time\nSet the amount of time for which status line messages are displayed.\n", 4) +
			".It Ic escape-time Ar time\nSet the time in milliseconds for which\n.Nm\nwaits after an escape is input to determine if it is part of a function or meta\nkey sequences.\nThe default is 500 milliseconds.\n.El\n",
			"What is the default escape-time?", "500 milliseconds"},
		{"man page option described a word a line", ".TH LESS 1\n.SH OPTIONS\n" + strings.Repeat(".IP \"\\-\\-help\"\nThis option displays a summary of the commands accepted by less.\n", 8) +
			".IP \"\\-\\-idle\\-exit[=\\fIn\\fP]\"\nCauses\n.B less\nto exit by itself after \\fIn\\fP minutes without keyboard input.\nIf the option is given without a number, less exits after 45 minutes.\n",
			"If I give less its idle-exit option without a number, after how long does it quit by itself?", "45 minutes"},
		{"a digest asked for", "2025-01-01T19:37:40+0000 pybuilder python-build[8498]: downloading Python-3.10.13.tar.xz\n2025-01-01T19:37:52+0000 pybuilder python-build[8498]: checksum ok: sha256 5c88848668640d3e152b35b4536ef1c23b2ca4bd2c957ef1ecbb053f571dd3f6  Python-3.10.13.tar.xz\n",
			"What sha256 did the build host verify for the Python-3.10.13.tar.xz download?", "5c88848668640d3e152b35b4536ef1c23b2ca4bd2c957ef1ecbb053f571dd3f6"},
		{"yaml block named by the path", "connector:\n  name: connector\n  collection: vpcaccess.projects.locations.connectors\n  request_id_field: connector.id\n\nconnector_v1:\n  name: connector\n  collection: vpcaccess.projects.locations.connectors\n  request_id_field: connectorId\n",
			"What is connector.request_id_field?", "connector.id"},
		{"yaml block named by the question", "labels:\n  api_field: node.labels\n  arg_name: labels\n\nnetwork_config:\n  api_field: queuedResource.tpu.nodeSpec.node.networkConfigs\n  arg_name: network-config\n  type:\n    arg_dict:\n      flatten: false\n      spec:\n      - api_field: network\n        arg_name: network\n        required: false\n      - api_field: subnetwork\n        arg_name: subnetwork\n        required: false\n\nservice_account:\n  api_field: node.serviceAccount.email\n  arg_name: service-account\n",
			"What is the api_field of network_config?", "queuedResource.tpu.nodeSpec.node.networkConfigs"},
		{"the document's own field", "{\n  \"$schema\": \"http://json-schema.org/draft-04/schema#\",\n  \"title\": \"Schema for AWS SAM Policy Templates\",\n  \"type\": \"object\",\n  \"definitions\": {\n    \"parameters\": {\n      \"title\": \"Object containing all parameters of a template\",\n      \"type\": \"object\"\n    },\n    \"definition\": {\n      \"title\": \"Policy definition\",\n      \"type\": \"object\"\n    }\n  }\n}\n",
			"What is the title?", "Schema for AWS SAM Policy Templates"},
		{"a percentage", ".TH MKE2FS 8\n.SH OPTIONS\n" + strings.Repeat(".TP\n.B \\-q\nQuiet execution.  Useful if mke2fs is run in a script.\n", 8) +
			".TP\n.BI \\-m \" reserved-blocks-percentage\"\nSpecify the percentage of the file system blocks reserved for the super-user.  The default percentage\nis 5%.\n",
			"What is the default value for -m?", "5%"},
		{"an option's placeholder is no value", ".TH NODE 1\n.SH OPTIONS\n" + strings.Repeat(".It Fl -help\nPrint node command-line options.\n", 8) +
			".It Fl -max-http-header-size Ns = Ns Ar size\nSpecify the maximum size of HTTP headers in bytes. Defaults to 16 KiB.\n",
			"What does --max-http-header-size default to?", "16 KiB"},
		{"an option's placeholder in angle brackets is no value", "--pattern-length-limit=<N>\n    Truncate patterns of tag entries after <N> characters.\n\n--tag-relative=(yes|no)\n    Output tag file names relative to the tag file.\n",
			"What is the default value for --pattern-length-limit?", ""},
		{"ini section named like the field", "[NoEcho]\ntype = boolean\n\n[Type]\ntype = string\n\n[MaxLength]\ntype = integer\n",
			"What is the type of NoEcho?", "boolean"},
		{"markdown escaped pipe", "| name | pattern | title |\n| --- | --- | --- |\n| tagsMap | a \\| b | Tags of a resource |\n| tagList | c \\| d | Tags as a list |\n",
			"What is the title of tagList?", "Tags as a list"},
		{"ini section named by a part", "[ ca ]\ndefault_ca = CA_default\n\n[ CA_default ]\ndir = ./demoCA\ndefault_days = 365 # how long to certify for\n",
			"How many days does the ca command certify for?", "365"},
		{"json dotted path", "{\n  \"swagger\": \"2.0\",\n  \"info\": {\n    \"title\": \"echo.proto\",\n    \"version\": \"version not set\"\n  },\n  \"tags\": [\n    {\n      \"name\": \"Greeter\"\n    }\n  ]\n}\n",
			"What is info.version?", "version not set"},
		{"json of a second file", "{\n  \"name\": \"first\",\n  \"version\": \"1.0.0\"\n}\n\n{\n  \"name\": \"second\",\n  \"engines\": {\n    \"node\": \">=20\"\n  },\n  \"scripts\": {\n    \"node\": \"node index.js\"\n  }\n}\n",
			"What is engines.node?", ">=20"},
		{"json key path asked whole", "{\n  \"properties\": {\n    \"Tags\": {\n      \"type\": \"object\",\n      \"maxProperties\": 50,\n      \"additionalProperties\": false\n    },\n    \"Labels\": {\n      \"maxProperties\": 10,\n      \"additionalProperties\": false\n    }\n  },\n  \"definitions\": {\n    \"Tag\": {\n      \"additionalProperties\": false\n    }\n  }\n}\n",
			"What is properties.Tags.maxProperties?", "50"},
		{"json line nested key", `{"name": "demo", "engines": {"node": ">=18"}, "version": "1.2.0", "node": "v9"}`, "What is engines.node?", ">=18"},
		{"json nested title", `{"title": "Schema for templates", "definitions": {"input": {"title": "What comes in", "type": "object"}, "output": {"title": "What goes out", "type": "object"}}}`,
			"What is the title of output in definitions?", "What goes out"},
		{"json key as written", `{"definitions": {"parameter": {"title": "One parameter", "type": "object"}, "parameters": {"title": "All parameters", "type": "object"}}}`,
			"What is the title of parameters in definitions?", ""},
		{"json long line", `{"regions": {` + strings.Repeat(`"r-000": {"enum": ["a.large", "b.large", "c.large"]}, `, 120) + `"r-last": {"enum": []}}, "description": "Updated from pricing"}`,
			"What is the description?", "Updated from pricing"},
		{"json long description", `{"definitions": {"simpleMessage": {"properties": {"id": {"description": "Id represents the message identifier."}}}, "embedded": {"description": "Embedded represents a message embedded in a simple message."}}}`,
			"What is definitions.embedded.description?", "Embedded represents a message embedded in a simple message."},
		{"column the question names", "name,argNum,comment,expr,type\nPerson,1,,pp.Person,string\nPlace,3,Place the person is visiting.,pp.Place,string\nExtra,2,,pp.extra,int\n",
			"What is the expr of Person?", "pp.Person"},
		{"column the question half names", "package\tupstream_name\tupstream_contact\tlicense\nlibfoo3\tAlliance for Open Codecs\t\tBSD-2-clause\nlibbar1\tBar Project\tbar@example.org\tMIT\n",
			"Who is the upstream contact for libfoo3?", ""},
		{"json dependency version", `{"name": "npm", "version": "11.19.1", "dependencies": {"semver": "^7.8.5", "tar": "^7.5.4"}}`,
			"Which version of semver does npm depend on?", "^7.8.5"},
		{"yaml block", "jobs:\n  nightly-report:\n    cron: \"0 4 * * *\"\n    retries: 3\n  weekly-cleanup:\n    cron: \"0 5 * * 0\"\n    retries: 1\n",
			"How many retries does weekly-cleanup get?", "1"},
		{"sql insert", "INSERT INTO public.rooms (id, name, floor, capacity) VALUES (12, 'Aurora', '3', '16');",
			"What is the capacity of the Aurora room?", "16"},
		{"define", "#define RING_SLOTS\t512\t/* slots per ring */", "What is RING_SLOTS defined as?", "512"},
		{"changelog", "kestrel (2.4.1-2) unstable; urgency=medium\n\n  * Fix crash on empty input.\n\n -- Paula Reyes <preyes@debian.example>  Wed, 05 Jul 2023 09:30:00 +0200\n",
			"Who uploaded kestrel 2.4.1-2?", "Paula Reyes <preyes@debian.example>"},
		{"changelog date", "kestrel (2.4.1-2) unstable; urgency=medium\n\n  * Fix crash on empty input.\n\n -- Paula Reyes <preyes@debian.example>  Wed, 05 Jul 2023 09:30:00 +0200\n",
			"When was kestrel 2.4.1-2 released?", "Wed, 05 Jul 2023 09:30:00 +0200"},
		{"sniah", "One of the special magic numbers for quiet-harbor is: 4419027.", "What is the special magic number for quiet-harbor mentioned in the provided text?", "4419027"},
		{"absent key", "deploy_key: QX-99120", "What is the deploy key of orion-7?", ""},
		{"absent name", "The lease on unit 14 ends on 12 March 2027.", "When does Marguerite Okafor's lease end?", ""},
		{"list", "## Contacts\n\n- Security lead: Ingmar Solberg\n- Release lead: Fatima Qureshi\n", "Who is the release lead?", "Fatima Qureshi"},
		{"fixed width", "CODE   CITY            COUNTRY\n------ --------------- -------\nGDN    Gdansk          PL\nTLL    Tallinn         EE\n",
			"Which city has the code TLL?", "Tallinn"},
		{"mail", "From ops@corp.example Tue Feb  4 10:00:00 2025\nFrom: Ops <ops@corp.example>\nDate: Tue, 04 Feb 2025 10:00:00 +0000\nSubject: Maintenance window CHG-4471\n\nThe window for CHG-4471 is owned by Rui Tavares.\n",
			"Who owns CHG-4471?", "Rui Tavares"},
		{"commented default", "[Journal]\n#Storage=auto\n#RateLimitBurst=10000\n#SystemMaxUse=\n", "What is the default RateLimitBurst?", "10000"},
		{"exact key over longer", "#HandleLidSwitch=suspend\n#HandleLidSwitchDocked=ignore\n", "What does HandleLidSwitch default to?", "suspend"},
		{"ragged csv", "name,born,died,birthplace\nAda Lovelace,1815-12-10,1852-11-27,London\nGrace Hopper,1906-12-09\nEdsger Dijkstra,1930-05-11,2002-08-06,Rotterdam\n",
			"What is Edsger Dijkstra's birthplace?", "Rotterdam"},
		{"header above word rows", "name,port,notes\nkaul,quinga,ok\nzukadel,50,check\n", "What's the port of zukadel?", "50"},
		{"roff term", ".TP\n.B HISTLEN\nThe number of lines kept in the history list.\nThe shell sets the default value to 700 after reading the startup files.\n.TP\n.B HOME\nThe home directory.\n",
			"What is the default value of HISTLEN?", "700"},
		{"bracketed default", "--max-frames=<number> [default: 24]\n    Maximum number of frames kept per trace.\n--min-frames=<number> [default: 2]\n", "What is the default of --max-frames?", "24"},
		{"parenthesized default", "  -j, --jobs=N   run N jobs at once (default: 4)\n  -k, --keep     keep going\n", "How many jobs run at once by default?", "4"},
		{"changelog body", "zeta (1.2-1) unstable; urgency=high\n\n  * Fix heap overflow in the header parser (CVE-2031-11111)\n  * Fix a leak (CVE-2031-22222)\n\n -- Jo Park <jo@debian.example>  Mon, 01 Jan 2031 10:00:00 +0000\n",
			"Which CVE is the heap overflow in the header parser?", "CVE-2031-11111"},
		{"stanza subject", "Package: dpkg\nVersion: 1.21.22\nDepends: tar (>= 1.28-1)\nMaintainer: Dpkg Developers <debian-dpkg@lists.debian.org>\n\n" +
			"Package: tar\nVersion: 1.34+dfsg-1.2\nMaintainer: Janos Lenart <ocsi@debian.org>\n\nPackage: cpio\nVersion: 2.13\nSuggests: tar\n",
			"Which version of tar is installed?", "1.34+dfsg-1.2"},
		{"stanza subject person", "Package: dpkg\nVersion: 1.21.22\nDepends: tar (>= 1.28-1)\nMaintainer: Dpkg Developers <debian-dpkg@lists.debian.org>\n\n" +
			"Package: tar\nVersion: 1.34+dfsg-1.2\nMaintainer: Janos Lenart <ocsi@debian.org>\n\nPackage: cpio\nVersion: 2.13\nSuggests: tar\n",
			"Who maintains tar?", "Janos Lenart <ocsi@debian.org>"},
		{"version inside a field", "Start-Date: 2024-01-02  10:00:00\nCommandline: apt-get install orbit-agent\nInstall: orbit-agent:amd64 (3.1.4-2)\nEnd-Date: 2024-01-02  10:00:09\n",
			"Which version of orbit-agent was installed?", "3.1.4-2"},
		{"log entry which", "2026-03-04 10:21:41 worker-200 processed batch 1400 items\n2026-03-04 10:21:42 worker-201 processed batch 1407 items\n2026-03-05 10:22:43 worker-202 processed batch 1414 items\n",
			"Which worker processed 1407 items?", "worker-201"},
		{"log entry count", "2026-03-04 10:21:41 worker-200 processed batch 1400 items\n2026-03-04 10:21:42 worker-201 processed batch 1407 items\n2026-03-05 10:22:43 worker-202 processed batch 1414 items\n",
			"How many items did worker-202 process?", "1414"},
		{"yaml sibling", "services:\n  database:\n    replica:\n      host: db2.internal\n      port: 5433\n  cache:\n    host: cache.internal\n    port: 6379\n",
			"What is the host of the cache?", "cache.internal"},
		{"mail sender", "From a@example.org Mon Mar  2 10:00:00 2026\nFrom: Alice Martin <a@example.org>\nTo: team@example.org\nSubject: Release schedule\n\nPlanned for April.\n\n" +
			"From b@example.org Tue Mar  3 11:00:00 2026\nFrom: Bob Chen <b@example.org>\nTo: team@example.org\nSubject: Build farm outage\n\nDown on Friday.\n",
			"Who sent the mail about the build farm outage?", "Bob Chen <b@example.org>"},
		{"sql copy", "CREATE TABLE public.hosts (\n    id integer,\n    hostname text,\n    rack text\n);\n\nCOPY public.hosts (id, hostname, rack) FROM stdin;\n1\tweb-01\tA3\n2\tweb-02\tA4\n\\.\n",
			"Which rack is web-02 in?", "A4"},
		{"journal field", "Tue 2026-03-03 11:02:17.123456 UTC [s=1a2b;i=4f1]\n    PRIORITY=6\n    SYSLOG_IDENTIFIER=cron\n    _PID=4412\n" +
			"Tue 2026-03-03 11:02:18.000001 UTC [s=1a2b;i=4f2]\n    PRIORITY=3\n    SYSLOG_IDENTIFIER=lighttpd\n    _PID=911\n",
			"What priority did the cron record have?", "6"},
		{"xml entry", `<entries>\n  <entry key="quiet_heron">QX-1</entry>\n  <entry key="ancient_zephyr">3285266</entry>\n</entries>`,
			"Which number or code is recorded for ancient_zephyr?", "3285266"},
		{"tell me who", "kestrel (2.4.1-2) unstable; urgency=medium\n\n  * Fix crash on empty input.\n\n -- Paula Reyes <preyes@debian.example>  Wed, 05 Jul 2023 09:30:00 +0200\n",
			"Tell me who uploaded kestrel 2.4.1-2.", "Paula Reyes <preyes@debian.example>"},
		{"what section", "package,source,version,section\nlibvtparse2,vtparse,0.9.4-2,libs\nvtwm,vtwm,5.4.7-6,x11\n",
			"What section is libvtparse2 in?", "libs"},
		{"key in the column's name", "ID,STATE,ZONE,DATUM,EPSG_PCS_CODE\n10201,ARIZONA,EAST,NAD27,26748\n10202,ARIZONA,CENTRAL,NAD27,26749\n10202,ARIZONA,CENTRAL,NAD83,26949\n",
			"What is the EPSG code of the Arizona Central zone on NAD27?", "26749"},
		{"a time span answers when", "## Mirrors\n\n- Primary mirror: https://npm.mirror.example.net/\n- Sync window: 02:00–02:45 UTC\n- Contact: ops@mirror.example.net\n",
			"When is the mirror sync window?", "02:00–02:45 UTC"},
		{"fixed-width field by its head", "MODEL              USB ID     DRIVER  PLAYER\n------------------ ---------- ------- ------\nAcer A3-A30        0502:3879  PTP     no\nAcer A3-A40        0502:387A  PTP     yes\n",
			"What is the USB ID of the Acer A3-A40?", "0502:387A"},
		{"aligned heads without a rule", "# /etc/fstab: static file system information.\n#\n# <file system>  <mount point>  <type>  <options>          <dump>  <pass>\n" +
			"UUID=4f1e-77aa   /              ext4    errors=remount-ro  0       1\nUUID=9c0d-12be   /srv/backup    xfs     noatime,nofail     0       2\n",
			"Which type is the file system mounted at /srv/backup?", "xfs"},
		{"compound setting name", "# Specify the server's log file name.\nlogfile /var/log/orbit/orbit.log\n\n# Where the pid goes.\npidfile /run/orbit.pid\n",
			"Where does the server write its log file?", "/var/log/orbit/orbit.log"},
		{"signal and its name", "Tue 2026-03-03 11:02:17 UTC [s=1a2b]\n    COREDUMP_SIGNAL=11\n    COREDUMP_SIGNAL_NAME=SIGSEGV\n    COREDUMP_COMM=packagekitd\n",
			"Which coredump signal killed packagekitd?", "11"},
		{"log source location", "2024-03-15 11:13:32: (gw_backend.c.238) establishing connection failed: Connection refused socket: unix:/run/php/php8.2-fpm.sock-0\n",
			"Which backend socket could lighttpd not connect to?", "unix:/run/php/php8.2-fpm.sock-0"},
		{"a date for when it was sent", "From: Ana <ana@example.org>\nDate: Sat, 21 Dec 2019 03:11:40 +0100\nSubject: fribidi 1.0.8-2 uploaded\n\nDone.\n",
			"When was the mail about fribidi 1.0.8-2 sent?", "Sat, 21 Dec 2019 03:11:40 +0100"},
		{"not the tail of a token", "Name: fontconfig/hinting_style\nType: select\nChoices: Native, Slight, Medium, Full\nDefault: hintslight\n",
			"Which hinting style does fontconfig use by default?", "hintslight"},
		{"a log's process id is no value", "2025-03-04 01:08:14.101 UTC [812] LOG:  received SIGHUP, reloading configuration files\n" +
			"2025-03-04 01:08:14.103 UTC [812] LOG:  parameter \"work_mem\" changed to \"64MB\"\n" +
			"2025-03-04 01:08:14.104 UTC [812] LOG:  parameter \"log_min_duration_statement\" changed to \"250ms\"\n",
			"What was work_mem changed to when the configuration was reloaded?", "64MB"},
		{"defaults to", "The cache directory defaults to /var/cache/orbit unless ORBIT_CACHE is set.", "Where is the cache directory by default?", "/var/cache/orbit"},
		{"pid file", "[Service]\nType=forking\nPIDFile=/run/cachesrv/main.pid\nTimeoutStartSec=0\n", "Which PID file does the service use?", "/run/cachesrv/main.pid"},
		{"value names the key", "#define LIBFOO_VERSION_TEXT \"LibFoo 2.4.1 3 Mar 2026\"\n#define LIBFOO_API 7\n", "What is the LIBFOO_VERSION_TEXT?", "LibFoo 2.4.1 3 Mar 2026"},
		{"a number in words", "The default is to disable untrusted X11 forwarding after twenty minutes has elapsed.\n",
			"After how long is untrusted X11 forwarding disabled by default?", "twenty minutes"},
		{"no number from a token's head", "--stacksize=<number> [default: 1MB]\n    For each thread, Valgrind needs its own private stack.\n" +
			"--aspace-minaddr=<address>\n    Must be page aligned and equal or bigger to 0x1000 (4KB).\n",
			"How big is the private stack Valgrind uses for each thread by default?", "1MB"},
		{"markdown section", "### `server.requestTimeout`\n\n* {number} **Default:** `300000`\n\nSets the timeout value in milliseconds for receiving the entire request.\n\n" +
			"### `server.headersTimeout`\n\n* {number} **Default:** `60000`\n\nLimits the time the parser waits for the headers.\n",
			"What is the default requestTimeout of a server?", "300000"},
		{"list under its heading", "#### `fetch-retry-mintimeout`\n\n* Default: 10000 (10 seconds)\n* Type: Number\n\n#### `fetch-retry-maxtimeout`\n\n* Default: 60000 (1 minute)\n* Type: Number\n",
			"How long does npm wait at minimum before retrying a fetch, by default?", "10 seconds"},
		{"version after its name", "2025-03-04 00:00:01.990 UTC [812] LOG:  starting PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu\n" +
			"2025-03-04 00:28:32.595 UTC [30554] LOG:  duration: 1376.354 ms  statement: VACUUM\n",
			"Which PostgreSQL version is this server running?", "15.18"},
		{"language tag", "[Desktop Entry]\nName=Vim\nGenericName=Text Editor\nGenericName[de]=Texteditor\nGenericName[ru]=Текстовый редактор\nExec=vim %F\n",
			"What is Vim's generic name in Russian?", "Текстовый редактор"},
		{"a date as the text writes it", "## Security release stewards\n\n| Company | Person | Release Date |\n| --- | --- | --- |\n| Datadog | Vladimir | 2022-Sep-23 |\n| Vercel | Hiroshi | 2023-Apr-27 |\n",
			"Who was the security steward for the release of April 27, 2023?", "Hiroshi"},
		{"out of the box", "  -L, --location\n      Follow redirects. By default, the limit is set to 50 redirects.\n  -m, --max-time <secs>\n      Maximum time allowed.\n",
			"Out of the box, how many redirects will curl follow with -L?", "50"},
		{"an identifier run together", "Package: smbclient\nVersion: 4.17.12\nSize: 442756\nSHA256: d5ec281d1c9e969a3e0e\n\nPackage: winbind\nVersion: 4.17.12\nSHA256: 0a1b2c3d4e5f60718293\n",
			"I need the SHA-256 checksum of the smbclient .deb.", "d5ec281d1c9e969a3e0e"},
		{"a request's lead", "This is version 0.21 of the Shared MIME-info Database specification, last updated 2 October 2018.\n",
			"Can you find when this version of the spec was last updated?", "2 October 2018"},
		{"how long is a time, not a size", "[General]\n; Network settings\nnetwork = on\n; Cache of grid chunks downloaded from the network\n" +
			"cache_enabled = on\ncache_size_MB = 300\ncache_ttl_sec = 86400\n",
			"How long do cached network grid chunks stay valid?", "86400"},
		{"a list item's wrapped line", "   * Fix build on ia64. Closes: #1008576.\n   * Build-depend on libpcre2-dev instead of the obsolete libpcre3-dev; the\n" +
			"     problem was reported by Göran Lindqvist during the freeze.\n",
			"Who reported the problem with the obsolete libpcre3-dev build dependency?", "Göran Lindqvist"},
		{"an ID is a token with a digit", "_TRANSPORT=journal\nPRIORITY=3\nSYSLOG_IDENTIFIER=systemd\nCODE_FILE=src/core/mount.c\nUNIT=srv-backup.mount\n" +
			"MESSAGE=srv-backup.mount: Mount process exited, code=exited, status=32/n/a\n_PID=1\n_COMM=systemd\n",
			"I need the invocation ID of srv-backup.mount when its mount process failed.", ""},
		{"an ID, given", "MESSAGE=srv-backup.mount: Mount process exited, code=exited, status=32/n/a\nINVOCATION_ID=5c0b9e2d71f84a8fa3e6d40c19b7e52a\n",
			"I need the invocation ID of srv-backup.mount when its mount process failed.", "5c0b9e2d71f84a8fa3e6d40c19b7e52a"},
		{"a size is no version", "Package: prometheus-pgbackrest-exporter\nStatus: install ok installed\nInstalled-Size: 18432\nArchitecture: amd64\n",
			"Which version of the pgBackRest Prometheus exporter is installed?", ""},
		{"address and port, in a log of dated lines", "2024/03/04 07:33:35 [error] 11074#11074: *174652 open() \"/var/www/cgi-bin/test\" failed (2: No such file or directory), client: 192.0.2.103, server: docs.example.net\n" +
			"2024/03/04 07:33:37 [emerg] 11070#11070: bind() to 0.0.0.0:8443 failed (98: Address already in use)\n" +
			"2024/03/04 07:33:39 [error] 11071#11071: *174660 upstream timed out (110: Connection timed out), client: 203.0.113.49, server: api.example.net\n",
			"Tell me which address and port nginx failed to bind to.", "0.0.0.0:8443"},
		{"a CSV row with a comma of its own", "#AgencyID,Token,Code,AgencyName\n1,AE,530,Ministry of Communications, United Arab Emirates\n" +
			"2,AR,1,Servicio de Hidrografia Naval, Argentina\n249,6G,35871,Geodatastyrelsen Grønland, Greenland\n250,GD,22,Land Survey Office, Grenada\n",
			"What is the code of the Greenland geodata office?", "35871"},
		{"a file name asked for", "Packaging note: this build ships the trimmed data archive icudt72l-trim.dat (26 locales) instead of the full one.",
			"What's the file name of the trimmed data archive this build ships?", "icudt72l-trim.dat"},
		{"a shell default", "perf_data_limit_mb=${PERF_DATA_LIMIT_MB:-512}\nperf_record_freq=${PERF_RECORD_FREQ:-99}\n",
			"How big may perf data get, in MB?", "512"},
		{"a script's own name is no value", "JETTY_SH=$0\nJETTY_HOME=/opt/jetty\n",
			"How many seconds will jetty.sh wait for Jetty to start?", ""},
		{"a duration as Go writes it", "// sentinelSwitchGrace is how long a failover client keeps the old master's connections.\nconst sentinelSwitchGrace = 2500 * time.Millisecond\n",
			"How long does a failover client keep the old master's connections?", "2500 * time.Millisecond"},
		{"the name asked about is no answer", "  104476  BADGER PUMP & VALVE INC           4         0.00        813.45\n  104477  ACME TOOLS LLC                    2         0.00        100.00\n",
			"What payment terms are on file for Badger Pump & Valve?", ""},
		{"a changelog entry of several hands", "postgresql-15 (15.2-2) unstable; urgency=medium\n\n  * Fix update-alternatives when doc package is installed stand-alone.\n\n" +
			"  [ Émilie Fournier ]\n  * d/tests: add an autopkgtest exercising pg_basebackup --compress=server-zstd.\n  * d/control: bump Standards-Version, no changes needed.\n\n" +
			" -- Christoph Berg <myon@debian.org>  Mon, 27 Feb 2023 10:30:23 +0100\n",
			"Who added the autopkgtest for pg_basebackup --compress=server-zstd?", "Émilie Fournier"},
		{"a record named for something else", "Package: jo\nMaintainer: ChangZhuo Chen <czchen@debian.org>\nDescription: JSON output from a shell\n\n" +
			"Package: yq\nMaintainer: Debian Python Team <team+python@tracker.debian.org>\nDescription: Command-line YAML processor - jq wrapper for YAML documents\n",
			"Who maintains the jq package?", ""},
		{"an identifier parted by other marks", "WARNING: The TCP backlog cannot be enforced because /proc/sys/net/core/somaxconn is set to the lower value of 64.\n",
			"What is net.core.somaxconn set to?", "64"},
		{"an identifier's last word inflected", "Keys added with destination constraints expire after 90 minutes unless renewed.\n",
			"How long until a destination-constraint key expires?", "90 minutes"},
		{"a hyphenated key's words in another order", "jobs:\n  rotate:\n    name: Rotate logs\n    timeout-minutes: 10\n  prune:\n    name: Prune caches\n    timeout-minutes: 25\n",
			"How many minutes may the cache-pruning job run?", "25"},
		{"an identifier's words are not the identifier", "idle_in_transaction_session_timeout = 0\nlock_timeout = 0\n",
			"What is transaction_timeout set to?", ""},
		{"who did what the verb says", "tinyproxy (1.11.1-3) unstable; urgency=medium\n\n  * Fix the crash on an empty Host header, reported by Ana Lima\n    (closes: #1000001).\n\n" +
			" -- Sam Roe <sam@example.org>  Mon, 02 Sep 2024 10:00:00 +0200\n",
			"Who reported the empty Host header crash?", "Ana Lima"},
		{"who reported is not who uploaded", "tinyproxy (1.11.1-3) unstable; urgency=medium\n\n  * Fix the crash on an empty Host header (closes: #1000001).\n  * Tighten the filter, found by Bo Ek.\n\n" +
			" -- Sam Roe <sam@example.org>  Mon, 02 Sep 2024 10:00:00 +0200\n",
			"Who reported the empty Host header crash?", ""},
		{"who sent a mail is not whom it went to", "From: Ana Lima <ana@example.org>\nTo: submit@bugs.example.org\nSubject: frobnicate crashes on empty input\n\nIt crashes.\n",
			"Who sent the bug report about frobnicate crashing on empty input?", "Ana Lima <ana@example.org>"},
		{"whom a mail went to is not who sent it", "To: submit@bugs.example.org\nSubject: frobnicate crashes on empty input\n\nIt crashes.\n",
			"Who sent the bug report about frobnicate crashing on empty input?", ""},
		{"a version inside a longer one is another", "From: Ftpmaster <ftp@example.org>\nSubject: Accepted fribidi 1.0.8-2.1 (source) into unstable\nDate: Tue, 05 Apr 2022 22:03:02 +0200\n\nAccepted.\n",
			"When was the mail about fribidi 1.0.8-2 sent?", ""},
		{"pairs parted by spaces", ") ENGINE=InnoDB AUTO_INCREMENT=538 DEFAULT CHARSET=binary;\n",
			"What is the AUTO_INCREMENT?", "538"},
		{"a mail's body holds its settings", "From: Ana Lima <ana@example.org>\nTo: ops@example.org\nDate: Wed, 16 Dec 2026 09:00:37 +0000\nSubject: Moving the Redis cache\nMessage-ID: <46C8F1@example.org>\n\n" +
			"Hi all,\n\nfrom Monday point your clients at the new one:\n\n    host = cache2.example.org\n    port = 6390\n\nThanks,\nAna\n",
			"Which port will the new Redis cache listen on?", "6390"},
		{"a default that is another variable's path", "  TOOL_CACHE_PATH=\"${BUILD_CACHE_PATH:-${TOOL_ROOT}/cache}\"\n",
			"Where does the tool cache its downloads when BUILD_CACHE_PATH is not set?", "${TOOL_ROOT}/cache"},
		{"Python's None is no value", "def make_server(address, *, backlog=None, reuse=False):\n",
			"What backlog does make_server use?", ""},
		{"a setting that reads unset is no answer", "    def listen(self, backlog=None, timeout=5):\n",
			"What backlog does listen use?", ""},
		{"when is the day, not its hour", "The staging database moves to the new host on Thursday 20 March, starting at 02:00 UTC.\n",
			"When is the staging database moving to the new host?", "Thursday 20 March"},
		{"a signature is a name, not a pair", "From: Ingrid Solberg <ingrid@example.no>\nSubject: Re: gateway latency\n\nThe upgrade went fine.\n\nIngrid Solberg\n",
			"What did Ingrid's gateway latency drop to?", ""},
		{"JSON lines are no table", "{\"pattern\":\"*.html\",\"mime_type\":\"text/html\",\"weight\":80}\n{\"pattern\":\"*.qcow2\",\"mime_type\":\"application/x-qemu-disk\",\"weight\":50}\n",
			"Which MIME type do .qcow2 files get?", "application/x-qemu-disk"},
		{"a phrase written as one word is no name", "{\"pattern\":\"*.html\",\"mime_type\":\"text/html\",\"weight\":80}\n{\"pattern\":\"*.qcow2\",\"mime_type\":\"application/x-qemu-disk\",\"weight\":50}\n",
			"What's the mime type for QEMU copy-on-write images (.qcow2)?", "application/x-qemu-disk"},
		{"which release", "## 2.3.0\n\n- Added the Frobnicate API (#812).\n\n## 2.2.0\n\n- Fixed a leak in the reader (#790).\n",
			"Which release added the Frobnicate API?", "2.3.0"},
		{"which release, under a part's heading", "# 2.3.0 (2024-06-17)\n\n## New features\n\n- Frobnicate API (#812).\n\n## Fixes\n\n- A leak in the reader (#790).\n\n# 2.2.0\n\n- Faster start.\n",
			"Which release first fixed the leak in the reader?", "2.3.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, text := range []string{c.text, wrap(c.text)} {
				if got := Explain(text, c.question); got.Value != c.want {
					t.Errorf("Find(%q) = %q (line %q, score %.2f), want %q", c.question, got.Value, got.Line, got.Score, c.want)
				}
			}
		})
	}
}

func TestQuestionInMessage(t *testing.T) {
	t.Parallel()
	doc := wrap("The vault combination is 31-17-4.")
	for _, msg := range []string{doc + "\n\nWhat is the vault combination?", "What is the vault combination?\n\n" + doc} {
		if got := Find(msg, ""); got != "31-17-4" {
			t.Errorf("Find(message, \"\") = %q, want 31-17-4", got)
		}
	}
}

func TestParts(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"maxRetries": "max retries", "max_retries": "max retries", "max-retries": "max retries",
		"HTTPServer": "http server", "ipv6Addr": "ipv6 addr", "gc.auto": "gc auto",
	} {
		if got := strings.Join(parts(in), " "); got != want {
			t.Errorf("parts(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkFind10MTokens is a lookup in 40 MB of text (10M tokens), the
// largest input the project evaluates.
func BenchmarkFind10MTokens(b *testing.B) {
	page := filler(3, 2000)
	var sb strings.Builder
	for sb.Len() < 40<<20 {
		sb.WriteString(page)
		if sb.Len() > 20<<20 && sb.Len() < 20<<20+len(page) {
			sb.WriteString("One of the special magic numbers for amber-quarry is: 5521904.\n")
		}
	}
	text := sb.String()
	b.ResetTimer()
	for range b.N {
		if got := Find(text, "What is the special magic number for amber-quarry mentioned in the provided text?"); got != "5521904" {
			b.Fatalf("got %q", got)
		}
	}
}

// TestFindIn checks what knowing where each attached file starts buys: a
// key near a file's start is what that file is about (Redis, in the log
// that is the second file), and a man page that is not the first file is
// read as rendered.
func TestFindIn(t *testing.T) {
	t.Parallel()
	log := "1:C 11 Mar 2025 03:10:05.497 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n" +
		"1:C 11 Mar 2025 03:10:12.181 # Redis version=7.0.15, bits=64, commit=00000000, modified=0, pid=1, just started\n" +
		"1:C 11 Mar 2025 03:10:17.742 # Configuration loaded\n" +
		"1:M 11 Mar 2025 03:10:30.606 * Running mode=standalone, port=6380.\n" +
		"1:M 11 Mar 2025 03:10:35.176 # Server initialized\n"
	var page strings.Builder
	page.WriteString(".Dd $Mdocdate: May 1 2025 $\n.Dt SSH_CONFIG 5\n.Sh DESCRIPTION\n.Bl -tag -width Ds\n")
	for i := range 30 {
		fmt.Fprintf(&page, ".It Cm Option%d\nWhat option %d does, in a sentence.\n", i, i)
	}
	page.WriteString(".It Cm ForwardX11Timeout\nSpecify a timeout for untrusted X11 forwarding\nusing the format described in the\n.Sx TIME FORMATS\n" +
		"section of\n.Xr sshd_config 5 .\nX11 connections received by\n.Xr ssh 1\nafter this time will be refused.\n" +
		"The default is to disable untrusted X11 forwarding after twenty minutes has elapsed.\n.El\n")
	for _, c := range []struct {
		name     string
		files    []string
		question string
		want     string
		joined   bool // Find, not told where the files start, finds it too
	}{
		{"topic near a file's start", []string{filler(3, 400), log, filler(4, 400)}, "Which port is the Redis server listening on?", "6380", false},
		{"man page after a file", []string{filler(5, 1500), page.String()}, "By default, after how long does ssh stop accepting untrusted X11 forwarding connections?", "twenty minutes", true},
		{"a table cut in parts", []string{"port,host,rack\n" + csvRows(0, 200), csvRows(200, 400), csvRows(400, 600)}, "Which port does host-517 use?", "9517", true},
	} {
		var text strings.Builder
		var starts []int
		for i, f := range c.files {
			if i > 0 {
				text.WriteString("\n\n")
			}
			starts = append(starts, text.Len())
			text.WriteString(f)
		}
		if got := FindIn(text.String(), starts, c.question); got != c.want {
			t.Errorf("%s: FindIn = %q, want %q", c.name, got, c.want)
		}
		if got := Find(text.String(), c.question); c.joined && got != c.want {
			t.Errorf("%s: Find = %q, want %q", c.name, got, c.want)
		}
	}
}

// csvRows returns rows i..j of a CSV table of ports, hosts and racks.
func csvRows(i, j int) string {
	var b strings.Builder
	for ; i < j; i++ {
		fmt.Fprintf(&b, "%d,host-%d,%d\n", 9000+i, i, i%40)
	}
	return b.String()
}

// TestProseLine checks which lines can be part of a sentence that runs
// over several lines: not a fixed-width table's row, whose neighbours are
// rows of their own.
func TestProseLine(t *testing.T) {
	t.Parallel()
	for l, want := range map[string]bool{
		"AcmeSans-Regular.otf                OpenType       184,332  /usr/local/share/fonts/acme": false,
		"The server disconnects after this time if the user has not logged in.":                   true,
		"is the default.  Setting it to zero disables the limit.  See also":                       true,
		"| host | port |": false,
	} {
		if got := proseLine(l); got != want {
			t.Errorf("proseLine(%q) = %v, want %v", l, got, want)
		}
	}
}

// TestCopyBlockFarBelowItsHead checks that a row of a dump's COPY block
// is read under the block's columns however far below them it is.
func TestCopyBlockFarBelowItsHead(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("COPY public.customers (id, email, full_name, country_code) FROM stdin;\n")
	for i := range 30000 {
		fmt.Fprintf(&b, "%d\tuser%d@example.net\tUser Number%d\tSE\n", i, i, i)
	}
	b.WriteString("16121\tingrid.solberg@fjordpost.no\tIngrid Solberg\tNO\n\\.\n\n")
	if got := Find(b.String(), "What's Ingrid Solberg's email address in the shop database?"); got != "ingrid.solberg@fjordpost.no" {
		t.Errorf("Find = %q, want ingrid.solberg@fjordpost.no", got)
	}
}

// TestOnlyOfKind checks which value is the only one of the kind asked for
// in a record: one IP address among other values is; two are not, nor is
// a kind as common as a number.
func TestOnlyOfKind(t *testing.T) {
	t.Parallel()
	text := "_SYSTEMD_UNIT=ssh.service\nMESSAGE=Accepted publickey for ops-oncall from 192.0.2.144 port 50022 ssh2\n"
	cands := func(vs ...string) []cand {
		var out []cand
		for _, v := range vs {
			out = append(out, cand{value: v})
		}
		return out
	}
	for _, c := range []struct {
		question string
		values   []string
		want     string
	}{
		{"From which IP address did ops-oncall log in over SSH?", []string{"Accepted publickey", "192.0.2.144", "50022"}, "192.0.2.144"},
		{"From which IP address did ops-oncall log in over SSH?", []string{"192.0.2.144", "198.51.100.7"}, ""},
		{"How many ports did ops-oncall use over SSH?", []string{"50022", "ops"}, ""},
	} {
		f := newFinder(text, parseQuery(c.question))
		if f == nil {
			t.Fatalf("%q: no keys found", c.question)
		}
		if got := f.onlyOfKind(cands(c.values...)); got != c.want {
			t.Errorf("%q over %q: onlyOfKind = %q, want %q", c.question, c.values, got, c.want)
		}
	}
}

// A key the text is about, found by its stem just before a version,
// once read past the text's end (util-linux's "Linux 2.38").
func TestFindTopicBeforeVersion(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("util-linux is a package of system utilities.\n", 25) +
		"lsfd, a modern lsof replacement, first shipped with Linux 2.38\n"
	got := Find(text, "Which util-linux release first shipped the lsof replacement?")
	if got != "2.38" {
		t.Errorf("Find = %q, want 2.38", got)
	}
}

// A name the table is full of still picks the row that holds it.
func TestFindFrequentCell(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("channel\tpackage\ttarget\turl\n")
	targets := []string{"x86_64-unknown-linux-gnu", "riscv64gc-unknown-linux-gnu", "aarch64-apple-darwin", "i686-pc-windows-gnu"}
	for _, channel := range []string{"stable", "beta", "nightly"} {
		for i := range 25 {
			pkg := fmt.Sprintf("tool%d", i)
			if i == 7 {
				pkg = "clippy"
			}
			for _, target := range targets {
				fmt.Fprintf(&b, "%s\t%s\t%s\thttps://dl.example/%s/%s-%s.tar.gz\n", channel, pkg, target, channel, pkg, target)
			}
		}
	}
	want := "https://dl.example/stable/clippy-riscv64gc-unknown-linux-gnu.tar.gz"
	if got := Find(b.String(), "On the stable channel, what's the download link for clippy on riscv64gc-unknown-linux-gnu?"); got != want {
		t.Errorf("Find = %q, want %q", got, want)
	}
}

func TestDayMonth(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, want string
	}{
		{"moves on Thursday 20 March, at 02:00", "Thursday 20 March"},
		{"due March 20th", "March 20th"},
		{"earns 3 marks", ""},
		{"has 5 decks and 2 junctions", ""},
	} {
		if got := dayMonthRE.FindString(c.text); got != c.want {
			t.Errorf("dayMonthRE in %q = %q, want %q", c.text, got, c.want)
		}
	}
}
