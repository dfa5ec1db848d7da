#!/usr/bin/env bash
# Throughput benchmark, recorded in BENCHMARKS.md.
#
# Workload: wrk, 1 thread, 64 keep-alive connections, 10 s per endpoint, over loopback.
# The server under test is pinned to CPU 0 and wrk to CPU 1. A bare hyper hello server
# (examples/hello_hyper.rs) runs in the same script as the baseline, because this machine is
# shared and noisy: compare each figure with the baseline of the same run.
# Endpoints: GET /api/config?platform=web (no database) and GET /api/user/{key} (key lookup and
# account read), through the warp and the rocket binary, on SQLite and on PostgreSQL.
#
# Usage: examples/bench.sh            (DURATION=10s CONNECTIONS=64 by default)
# Needs: wrk (apt-get install wrk), taskset, curl, PostgreSQL on 127.0.0.1:5432 for its rows.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${DURATION:-10s}
connections=${CONNECTIONS:-64}
postgres_admin=${SAFEZONE_BENCH_POSTGRES_ADMIN:-postgres://postgres@127.0.0.1:5432/postgres}
postgres_url=${postgres_admin%/*}/safezone_bench

cargo build --release -q -p safezone-server-warp -p safezone-server-rocket
cargo build --release -q -p safezone-examples --example hello_hyper
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# start NAME COMMAND...: runs the server on CPU 0, waits for its "listening on" line.
start() {
  local out="$work/$1.out"
  shift
  taskset -c 0 "$@" >"$out" 2>"$out.err" &
  server_pid=$!
  for _ in $(seq 1 200); do
    grep -q 'listening on' "$out" && break
    sleep 0.1
  done
  base=$(grep -o 'http://[0-9.:]*' "$out" | head -n 1)
  [ -n "$base" ] || { cat "$out.err" >&2; exit 1; }
}

stop() { kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=; }

# measure LABEL URL: prints requests per second and latency percentiles.
measure() {
  taskset -c 1 wrk -t1 -c"$connections" -d"$duration" --latency "$2" >"$work/wrk.txt"
  awk -v label="$1" '
    /Requests\/sec/ { rps = $2 }
    $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
    /Non-2xx/ { errors = $NF }
    END { printf "%-44s %10s req/s   p50 %8s   p99 %8s%s\n", label, rps, p50, p99, errors ? "   NON-2XX: " errors : "" }
  ' "$work/wrk.txt"
}

echo "wrk -t1 -c$connections -d$duration; server on CPU 0, wrk on CPU 1; $(nproc) CPUs; $(date -u +%F)"
start hello target/release/examples/hello_hyper 127.0.0.1:0
measure "baseline: bare hyper hello" "$base/"
stop

for binary in warp rocket; do
  for database in sqlite postgres; do
    if [ "$database" = sqlite ]; then
      url="sqlite://$work/bench-$binary.db"
    else
      psql -q "$postgres_admin" -c 'DROP DATABASE IF EXISTS safezone_bench' -c 'CREATE DATABASE safezone_bench'
      url=$postgres_url
    fi
    start "$binary-$database" "target/release/safezone-server-$binary" --listen 127.0.0.1:0 --database-url "$url"
    key=$(curl -sf -X POST "$base/api/validate/device/ios-bench-device" | grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)
    if [ "$database" = sqlite ]; then
      measure "$binary: GET /api/config" "$base/api/config?platform=web"
    fi
    measure "$binary + $database: GET /api/user/{key}" "$base/api/user/$key"
    stop
  done
done
