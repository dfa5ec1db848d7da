#!/usr/bin/env bash
# Where the warp binary's CPU goes with the production features on: rate limits counting every
# request (read limits far too high to refuse anything), Prometheus recording and JSON logs.
# A throughput comparison cannot see a few percent on this shared 2-CPU machine (two runs of
# one configuration differ by up to 15%); a CPU profile of one run can.
#
# Workload: the release warp binary on SQLite pinned to CPU 0; wrk -t1 -c64 on CPU 1 sends
# GET /api/config?platform=web (no database), then GET /api/user/{key} (one key: the
# per-account limit looks its account up); perf samples the server at 999 Hz for 9 s of each.
# Prints each run's req/s and the share of the server's samples in each feature's code.
#
# Run from the workspace root: examples/profile-hardening.sh
# Needs: perf (apt-get install linux-perf), wrk, taskset, curl; root or
# kernel.perf_event_paranoid <= 1.
set -euo pipefail

cargo build --release -q -p safezone-server-warp
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

SAFEZONE_RATE_LIMITS="read:address=100000000/s,read:account=100000000/s" \
  taskset -c 0 target/release/safezone-server-warp --listen 127.0.0.1:0 \
  --database-url "sqlite://$work/profile.db" --metrics-listen 127.0.0.1:0 --log-format json \
  >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 1 200); do
  grep -q 'listening on' "$work/server.out" && break
  sleep 0.1
done
base=$(grep -o 'http://[0-9.:]*' "$work/server.out" | head -n 1)
key=$(curl -sf -X POST "$base/api/validate/device/ios-profile" | grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)

# share PATTERN: the percentage of the profile's samples in symbols matching PATTERN.
share() {
  perf report -i "$work/perf.data" --no-children --sort symbol --stdio 2>/dev/null |
    grep -E "$1" | awk '{ sum += $1 } END { printf "%5.2f%%", sum }'
}

for path in "/api/config?platform=web" "/api/user/$key"; do
  taskset -c 1 wrk -t1 -c64 -d12s "$base$path" >"$work/wrk.txt" &
  wrk_pid=$!
  sleep 1
  perf record -q -F 999 -p "$server_pid" -o "$work/perf.data" -- sleep 9 2>/dev/null
  wait "$wrk_pid"
  echo "GET ${path/$key/\{key\}}: $(awk '/Requests\/sec/ { print $2 }' "$work/wrk.txt") req/s"
  echo "  rate limits (governor, rate_limiter):       $(share 'governor|rate_limiter|presented_keys')"
  echo "  metrics (prometheus_client, core metrics):   $(share 'prometheus_client|safezone_core::metrics')"
  echo "  JSON log lines (tracing_subscriber json):    $(share 'tracing_subscriber::fmt::format::json|JsonVisitor')"
done
