#!/usr/bin/env bash
# Latency of trivial chat requests through `rlm serve --store redis` while
# its Redis is up, then killed (connections refused) or paused with SIGSTOP
# (hung: connections accepted, nothing answered). The upstream is a
# 20-line fake (a test double answering FINAL(hi) at once), so the times
# are the gateway's and its store's own.
#
#   bench/storefaults.sh [rlm binary]     (default: builds ./cmd/rlm)
#
# Needs redis-server, python3 and curl. Prints one line per request:
# status and seconds, plain and store:true.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-}
if [ -z "$BIN" ]; then
	BIN=$(mktemp -d)/rlm
	go build -o "$BIN" ./cmd/rlm
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run() { # $1: stop or pause
	local dir rport uport lport rpid upid spid
	dir=$(mktemp -d)
	rport=$(free_port) uport=$(free_port) lport=$(free_port)
	redis-server --port "$rport" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no >/dev/null 2>&1 &
	rpid=$!
	python3 - "$uport" <<'PY' &
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        b = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": "FINAL(hi)"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a): pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
	upid=$!
	sleep 0.5
	"$BIN" serve --listen "127.0.0.1:$lport" --store redis --redis-url "redis://127.0.0.1:$rport/0" \
		--redis-cache-dir "$dir/cache" --data-dir "$dir/data" --upstream "http://127.0.0.1:$uport/v1" \
		--root-model m --upstream-retries 0 --repl-workers 1 >/dev/null 2>"$dir/log" &
	spid=$!
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$lport/healthz" >/dev/null && break; sleep 0.1; done
	req() {
		curl -s -o /dev/null -w "%{http_code} %{time_total}s" -H 'Content-Type: application/json' \
			-d "{\"model\":\"rlm\",$1\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" "http://127.0.0.1:$lport/v1/chat/completions"
	}
	echo "redis up:     plain $(req '') | stored $(req '"store":true,')"
	if [ "$1" = stop ]; then kill -9 "$rpid"; else kill -STOP "$rpid"; fi
	sleep 0.2
	for _ in 1 2 3; do echo "redis $1:$( [ "$1" = stop ] && echo '  ' || echo ' ') plain $(req '') | stored $(req '"store":true,')"; done
	echo "readyz:       $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$lport/readyz")"
	kill -CONT "$rpid" 2>/dev/null || true
	kill "$spid" "$upid" "$rpid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$dir"
}
run stop
run pause
