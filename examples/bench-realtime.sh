#!/usr/bin/env bash
# The realtime channel's benchmark (issue 31), recorded in BENCHMARKS.md, section "Realtime
# channel".
#
# 1. Connections: the warp binary on SQLite (rate limits off); ACCOUNTS device accounts
#    (2,000) each open PER_ACCOUNT channels (5, the per-account limit): 10,000 WebSockets held
#    open and reading (examples/bench_realtime.rs `connections`), the server's RSS measured
#    before and with them open (VmRSS), and what each costs.
# 2. Latency across nodes: two nodes on one PostgreSQL database, the warp binary (A) and the
#    rocket binary (B); LATENCY_ACCOUNTS accounts (100) hold their channels on B while CHANGES
#    changes (2,000: each a sign-in of one of their devices again through A, which commits a
#    `signed_in` event) are made through A, each account's after the previous one arrived; each
#    timed from its request being sent (before the commit) to its message on B: p50, p99, max.
#
# Usage: examples/bench-realtime.sh   (ACCOUNTS, PER_ACCOUNT, HOLD_SECS, LATENCY_ACCOUNTS,
#        CHANGES, POSTGRES_ADMIN=postgres://postgres@127.0.0.1:5432/postgres)
# Needs: psql and PostgreSQL for part 2; a release build (made here).
set -euo pipefail
cd "$(dirname "$0")/.."
accounts=${ACCOUNTS:-2000}
per_account=${PER_ACCOUNT:-5}
hold=${HOLD_SECS:-10}
latency_accounts=${LATENCY_ACCOUNTS:-100}
changes=${CHANGES:-2000}
postgres_admin=${POSTGRES_ADMIN:-postgres://postgres@127.0.0.1:5432/postgres}
database="safezone_bench_realtime_$$"
postgres_url="${postgres_admin%/*}/$database"

cargo build --release --quiet -p safezone-server-warp -p safezone-server-rocket
cargo build --release --quiet -p safezone-examples --example bench_realtime
# 10,000 sockets on each side: as many files as the hard limit allows.
ulimit -n "$(ulimit -Hn)"

work=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  psql -q "$postgres_admin" -c "DROP DATABASE IF EXISTS $database" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# start NAME COMMAND...: runs a server, waits for its "listening on" line; sets base and pid.
start() {
  local out="$work/$1.out"
  shift
  SAFEZONE_RATE_LIMITS=off "$@" >"$out" 2>"$out.err" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 300); do
    grep -q 'listening on' "$out" && break
    sleep 0.1
  done
  base=$(grep -o 'http://[0-9.:]*' "$out" | head -n 1)
  [ -n "$base" ] || { cat "$out.err" >&2; exit 1; }
}

# rss_kb PID: the process's resident memory, in KiB.
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

release="${CARGO_TARGET_DIR:-target}/release"
client=$release/examples/bench_realtime
echo "realtime channel; $(nproc) CPUs; $(date -u +%F)"

start connections "$release/safezone-server-warp" --listen 127.0.0.1:0 \
  --database-url "sqlite://$work/realtime.db"
server=$pid
# The accounts are signed in first: the memory they leave (sessions kept in memory) is not the
# channels'.
"$client" connections "$base" "$accounts" 0 0 >/dev/null
before=$(rss_kb "$server")
"$client" connections "$base" "$accounts" "$per_account" "$hold" >"$work/connections.txt" &
loader=$!
for _ in $(seq 1 1200); do
  grep -q '^open' "$work/connections.txt" && break
  sleep 0.5
done
sleep 2
with=$(rss_kb "$server")
wait "$loader"
opened=$(awk '/^open/ { print $2 }' "$work/connections.txt")
echo "connections: $(head -n 1 "$work/connections.txt"); server RSS ${before} KiB before, ${with} KiB with them open:" \
  "$(( (with - before) * 1024 / opened )) bytes each"

psql -q "$postgres_admin" -c "CREATE DATABASE $database"
start node-a "$release/safezone-server-warp" --listen 127.0.0.1:0 --database-url "$postgres_url"
node_a=$base
start node-b "$release/safezone-server-rocket" --listen 127.0.0.1:0 --database-url "$postgres_url"
node_b=$base
echo -n "latency, changes through warp (A), channels on rocket (B), one PostgreSQL: "
"$client" latency "$node_a" "$node_b" "$latency_accounts" "$changes"
