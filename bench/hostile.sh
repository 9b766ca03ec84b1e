#!/usr/bin/env bash
# The four size attacks of issue 10 at once against one `rlm serve`
# (tests/hostile BenchmarkConcurrentAttacks), for a base build without the
# caps and for this tree, in the same run: peak RSS of the server, data it
# wrote per request, its largest file, and the latency of a trivial request
# sent every 200 ms meanwhile. The base build is measured with a 6 GiB RSS
# safety stop (reported when hit), so that it cannot take the machine down.
# Usage: bench/hostile.sh [base-commit]   (default 3adc2a5, main before the caps)
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-3adc2a5}"
tmp=$(mktemp -d)
wt="$tmp/base"
cleanup() { git worktree remove --force "$wt" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
echo "machine: $(nproc) threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GB; $(date -u +%F)"
echo "building base $base and this tree..."
git worktree add --detach "$wt" "$base" >/dev/null 2>&1
(cd "$wt" && go build -o "$tmp/rlm-base" ./cmd/rlm)
go build -o "$tmp/rlm-new" ./cmd/rlm
go test -c -o "$tmp/hostile.test" ./tests/hostile
for build in base new; do
  echo "== $build"
  (cd tests/hostile && RLM_HOSTILE_BINARY="$tmp/rlm-$build" "$tmp/hostile.test" -test.run XXX \
    -test.bench BenchmarkConcurrentAttacks -test.benchtime 1x -test.v 2>&1 | grep -E 'Benchmark|bench_test' )
done
