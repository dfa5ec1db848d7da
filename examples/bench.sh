#!/usr/bin/env bash
# Throughput benchmark, recorded in BENCHMARKS.md.
#
# Workload: wrk, 1 thread, 64 keep-alive connections, 10 s per endpoint, over loopback.
# The server under test is pinned to CPU 0 and wrk to CPU 1. A bare hyper hello server
# (examples/hello_hyper.rs) runs in the same script as the baseline, because this machine is
# shared and noisy: compare each figure with the baseline of the same run. Every server row
# also prints the server's CPU time per request (all its threads, from /proc/PID/stat), beside
# hyper's own.
# Endpoints: GET /api/config?platform=web (no database) and GET /api/user/{key} (key lookup and
# account read: one account's key on every request, then, as many players do, the keys of 512
# accounts in turn; both fit in the node's session cache, which answers them from memory while
# nothing changed them; on warp both again with the cache off, `--session-cache-entries 0`),
# through the warp and the rocket binary, on SQLite and on PostgreSQL; the rocket
# rows beside a rocket hello route on the binary's own rocket settings
# (server-rocket/examples/hello_rocket.rs); the PostgreSQL rows beside their own baseline:
# examples/read_rate.rs, raw primary-key reads over Safezone's pool settings (16 connections,
# no test query), 64 tasks, on CPU 0 like the server.
# Buys: POST /api/user/{key}/buy?packId=1&quantity=1 (one transaction: lock the account, debit
# 750 coins, add a pack, write the ledger row; then the answer reads the account and holdings),
# round-robin over 64 accounts granted coins beforehand, through the warp binary on SQLite and
# on PostgreSQL, each beside its baseline: examples/commit_rate.rs, the raw single-row update
# commit rate of the same database (64 tasks, 10 s, on CPU 0 like the server).
#
# Sign-ins (section `signins`): POST /api/validate/device/{id} of an existing device (cycling over
# 64 devices signed in beforehand: the account's view read, or kept in memory by the node's
# session cache, and the `signed_in` event appended with those of the concurrent sign-ins; the
# key is signed, not stored; then again with the cache off) and of a new device (a fresh id per
# request: create the account and its events in one transaction), through the warp
# binary on SQLite and on PostgreSQL, each beside its baseline: `commit_rate URL insert`, the
# raw single-row insert commit rate of the same database.
#
# Match reports: POST /internal/matches, each a 100-player solo match (placements 1 to 100, kills,
# time alive, a damage counter) over 8,000 device accounts in 80 blocks of 100, so the reports in
# flight have distinct players; one transaction per report records the match and 100 log rows,
# adds 100 players' hourly statistics and applies 100 planned changes (experience, levels and
# their rewards, quests, two reward tracks). Through the warp binary on SQLite and PostgreSQL,
# each printed as player results per second (reports x 100) beside its baseline:
# examples/bulk_insert.rs, the raw rate of 100-row inserts of match-log-like rows into the same
# database (8 tasks, 10 s, on CPU 0 like the server).
#
# Leaderboards (section `boards`, examples/bench-boards.sh, issue 6): PostgreSQL seeded with 1M
# players and 10M match results over a year (examples/leaderboard_seed.sql); the warp binary's
# rebuild time and memory, match ingestion with the boards loaded, GET /api/leaderboard/live
# without and with a key (own rank), and a Redis sorted set of the same players side by side
# (ZREVRANGE 0 99 WITHSCORES and ZREVRANK with redis-benchmark). Takes about 10 minutes at the
# default size; BOARDS_PLAYERS and BOARDS_RESULTS shrink it (see examples/bench-boards.sh).
#
# Storage (section `storage`, examples/bench-storage.sh, issue 28): live bytes per table that an
# existing device's sign-in and a player result of a 100-player report keep, on SQLite and on
# PostgreSQL, beside the rows each adds.
#
# Hardening (section `hardening`, examples/bench-hardening.sh, issue 8): the warp binary on SQLite
# plain, with rate limits counting every request, with Prometheus recording, with JSON logs, and
# all three; GET /api/config and GET /api/user/{key}. Section `profile` (examples/bench-profile.sh,
# not run by default: it needs perf) shows the share of the server's CPU each of the three takes.
# Section `cpu` (examples/bench-cpu.sh, not run by default: it needs perf) shows where the
# server's CPU goes on each everyday request, grouped (kernel, allocation, SQLite, sqlx, runtime
# and HTTP, tower, tracing, JSON, Safezone's own code); run it on two commits to compare them.
#
# A day (section `day`, examples/bench-day.sh, issue 28, not run by default: it takes an hour):
# the warp and the rocket binary on one PostgreSQL database under a live game's mixed traffic
# (sign-ins, config polls, account reads, boards, profiles, claims, buys, openings, votes,
# renames, deletions, 100-player match reports, operators granting, banning and publishing
# content, one node restarted), a webhook receiver and NATS consuming the events; per request
# kind rate, p50, p99 and errors, every 10 s RSS, database size and relay lag, then the
# invariants checked from the database and the timeline drawn as PNG charts.
#
# Usage: examples/bench.sh            (DURATION=10s CONNECTIONS=64 MATCH_CONNECTIONS=8 by default;
#        SECTIONS="reads signins buys matches boards hardening storage" by default: name fewer to run only those
#        after the baseline, e.g. SECTIONS=boards examples/bench.sh; SECTIONS=profile or
#        SECTIONS=cpu for the CPU profiles; SECTIONS=day for the day, DAY_DURATION=3m for a short one)
# Needs: wrk (apt-get install wrk), taskset, curl, PostgreSQL on 127.0.0.1:5432 for its rows;
# psql and redis-server, redis-tools (installed with apt-get when missing) for `boards`; psql and
# sqlite3 for `storage`.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${DURATION:-10s}
connections=${CONNECTIONS:-64}
match_connections=${MATCH_CONNECTIONS:-8}
sections=${SECTIONS:-reads signins buys matches boards hardening storage}
postgres_admin=${SAFEZONE_BENCH_POSTGRES_ADMIN:-postgres://postgres@127.0.0.1:5432/postgres}
# Each run's PostgreSQL databases carry the run's process id, so that two runs never share one.
bench_db=safezone_bench_$$
# psql's notices (a database to drop that does not exist) say nothing here.
export PGOPTIONS='--client-min-messages=warning'
# The load comes from one address: the servers' per-node rate limits would answer it 429.
export SAFEZONE_RATE_LIMITS=off

# wanted SECTION: whether SECTIONS names it.
wanted() { [[ " $sections " == *" $1 "* ]]; }

# Both servers whatever the sections: the packages built together decide their dependencies'
# features, and another set rebuilds every dependency (about 12 minutes on 2 CPUs).
cargo build --release -q -p safezone-server-warp --bins -p safezone-server-rocket \
  $(wanted reads && echo --example hello_rocket)
cargo build --release -q -p safezone-examples --example hello_hyper \
  $( (wanted buys || wanted signins) && echo --example commit_rate) \
  $(wanted reads && echo --example read_rate) $(wanted matches && echo --example bulk_insert) \
  $(wanted day && echo --example day)
work=$(mktemp -d)
server_pid=
# cleanup: stops the server, drops this run's databases, removes the work folder.
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  local database
  for database in $(psql -qAt "$postgres_admin" \
    -c "SELECT datname FROM pg_database WHERE datname LIKE '${bench_db}\\_%'" 2>/dev/null); do
    psql -q "$postgres_admin" -c "DROP DATABASE IF EXISTS $database" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=examples/bench-wrk-scripts.sh
source examples/bench-wrk-scripts.sh

# start NAME COMMAND...: runs the server on CPU 0, waits for its "listening on" line.
start() {
  local out="$work/$1.out"
  shift
  : >"$out"
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

# cpu_ticks PID: the CPU time the process PID has used so far, user and system, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# measure LABEL URL [LUA_SCRIPT]: prints requests per second, latency percentiles and the
# server's CPU time per request (all its threads, user and system, from /proc/PID/stat; the
# database's own CPU is not in it); sets last_rps.
measure() {
  local script=() ticks_before ticks_after
  [ -n "${3:-}" ] && script=(-s "$3")
  ticks_before=$(cpu_ticks "$server_pid")
  taskset -c 1 wrk -t1 -c"$connections" -d"$duration" --latency "${script[@]}" "$2" >"$work/wrk.txt"
  ticks_after=$(cpu_ticks "$server_pid")
  awk -v label="$1" -v ticks=$((ticks_after - ticks_before)) -v hz="$(getconf CLK_TCK)" '
    /Requests\/sec/ { rps = $2 }
    /requests in/ { requests = $1 }
    $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
    /Non-2xx/ { errors = $NF }
    /Socket errors/ { timeouts = $NF }
    END {
      cpu = requests ? sprintf("%.0f", ticks / hz * 1e6 / requests) : "?"
      printf "%-44s %10s req/s   p50 %8s   p99 %8s   cpu %5s us/req%s%s\n", label, rps, p50, p99, cpu,
        errors ? "   NON-2XX: " errors : "", timeouts ? "   TIMEOUTS: " timeouts : ""
    }
  ' "$work/wrk.txt"
  last_rps=$(awk '/Requests\/sec/ { print $2 }' "$work/wrk.txt")
}

echo "wrk -t1 -c$connections -d$duration; server on CPU 0, wrk on CPU 1; $(nproc) CPUs; $(date -u +%F)"
start hello target/release/examples/hello_hyper 127.0.0.1:0
measure "baseline: bare hyper hello" "$base/"
baseline_rps=$last_rps
stop

# fresh_database NAME: (re)creates this run's PostgreSQL database NAME and prints its URL.
fresh_database() {
  local database=${bench_db}_$1
  psql -q "$postgres_admin" -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
  echo "${postgres_admin%/*}/$database"
}

if wanted reads; then
  start hello-rocket target/release/examples/hello_rocket 127.0.0.1:0
  measure "baseline: rocket hello" "$base/"
  stop
  read_url=$(fresh_database read_rate)
  printf '%-44s ' "baseline: postgres primary-key reads"
  BENCH_SECONDS=${duration%s} taskset -c 0 target/release/examples/read_rate "$read_url"
fi

# account_reads_script NAME: signs in 512 new devices and writes a wrk script reading their
# accounts in turn (`GET /api/user/{key}`); prints its path.
account_reads_script() {
  local script="$work/$1-accounts.lua" keys=() n
  for n in $(seq 1 512); do
    keys+=("$(curl -sf -X POST "$base/api/validate/device/ios-bench-reader-$1-$n" |
      grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)")
  done
  keys_script "$script" GET "" "${keys[@]}"
  echo "$script"
}

for binary in warp rocket; do
  wanted reads || break
  for database in sqlite postgres; do
    if [ "$database" = sqlite ]; then
      url="sqlite://$work/bench-$binary.db"
    else
      url=$(fresh_database reads)
    fi
    start "$binary-$database" "target/release/safezone-server-$binary" --listen 127.0.0.1:0 --database-url "$url"
    key=$(curl -sf -X POST "$base/api/validate/device/ios-bench-device" | grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)
    if [ "$database" = sqlite ]; then
      measure "$binary: GET /api/config" "$base/api/config?platform=web"
    fi
    measure "$binary + $database: GET /api/user/{key}" "$base/api/user/$key"
    reads_script=$(account_reads_script "$binary-$database")
    measure "$binary + $database: GET /api/user/{key}, 512 accounts" "$base/" "$reads_script"
    stop
    if [ "$binary" = warp ]; then
      # The same reads with no session kept in memory: every key checked in the database.
      start "$binary-$database-uncached" "target/release/safezone-server-$binary" --listen 127.0.0.1:0 \
        --database-url "$url" --session-cache-entries 0
      measure "$binary + $database: GET /api/user/{key}, no cache" "$base/api/user/$key"
      measure "$binary + $database: 512 accounts, no cache" "$base/" "$reads_script"
      stop
    fi
  done
done

# signed_in_devices PREFIX: signs in 64 devices PREFIX-1 to PREFIX-64 and prints their ids, each
# quoted for a wrk script, one per line.
signed_in_devices() {
  local n
  for n in $(seq 1 64); do
    curl -sf -X POST "$base/api/validate/device/$1-$n" >/dev/null
    echo "\"$1-$n\""
  done
}

for database in sqlite postgres; do
  wanted signins || break
  if [ "$database" = sqlite ]; then
    url="sqlite://$work/bench-sign-in.db"
    rate_url="sqlite://$work/insert-rate.db"
  else
    url=$(fresh_database sign_ins)
    rate_url=$(fresh_database insert_rate)
  fi
  printf '%-44s ' "baseline: $database single-row insert commits"
  BENCH_SECONDS=${duration%s} taskset -c 0 target/release/examples/commit_rate "$rate_url" insert
  start "warp-sign-in-$database" target/release/safezone-server-warp --listen 127.0.0.1:0 --database-url "$url"
  mapfile -t devices < <(signed_in_devices ios-bench-signer)
  measure "warp + $database: sign-in, existing device" "$base/" "$(sign_in_script existing "${devices[@]}")"
  measure "warp + $database: sign-in, new device" "$base/" "$(sign_in_script new)"
  stop
  start "warp-sign-in-$database-uncached" target/release/safezone-server-warp --listen 127.0.0.1:0 \
    --database-url "$url" --session-cache-entries 0
  measure "warp + $database: existing device, no cache" "$base/" "$(sign_in_script existing "${devices[@]}")"
  stop
done

# buy_script DATABASE_URL: signs in 64 devices, grants each 10^11 coins through the operator's
# `grant` command, and writes a wrk script that buys one basic chest per request, round-robin.
buy_script() {
  local script="$work/buy.lua" keys=()
  for n in $(seq 1 64); do
    local body key code
    body=$(curl -sf -X POST "$base/api/validate/device/ios-bench-buyer-$n")
    key=$(grep -o '"key":"[0-9a-f]*"' <<<"$body" | cut -d'"' -f4)
    code=$(grep -o '"friend_code":"[^"]*"' <<<"$body" | cut -d'"' -f4)
    target/release/safezone-server-warp --database-url "$1" grant --to "$code" --coins 100000000000 >/dev/null 2>&1
    keys+=("$key")
  done
  keys_script "$script" POST "/buy?packId=1&quantity=1" "${keys[@]}"
  echo "$script"
}

for database in sqlite postgres; do
  wanted buys || break
  if [ "$database" = sqlite ]; then
    url="sqlite://$work/bench-buy.db"
    rate_url="sqlite://$work/commit-rate.db"
  else
    url=$(fresh_database buys)
    rate_url=$(fresh_database commit_rate)
  fi
  printf '%-44s ' "baseline: $database single-row update commits"
  BENCH_SECONDS=${duration%s} taskset -c 0 target/release/examples/commit_rate "$rate_url"
  start "warp-buy-$database" target/release/safezone-server-warp --listen 127.0.0.1:0 --database-url "$url"
  measure "warp + $database: POST /api/user/{key}/buy" "$base/" "$(buy_script "$url")"
  stop
done

# match_script: signs in 8,000 devices and writes a wrk script that posts one 100-player report
# per request, cycling over 80 blocks of 100 players.
match_script() {
  local script="$work/match.lua" ids
  ids=$(seq 1 8000 | xargs -P 16 -I{} curl -sf -X POST "$base/api/validate/device/ios-bench-player-{}" \
    | grep -o '"user":{"id":[0-9]*' | cut -d: -f3 | paste -sd, -)
  report_script "$ids" bench "$script"
  echo "$script"
}

match_token=bench-game-server-credential
for database in sqlite postgres; do
  wanted matches || break
  if [ "$database" = sqlite ]; then
    url="sqlite://$work/bench-match.db"
    bulk_url="sqlite://$work/bulk-insert.db"
  else
    url=$(fresh_database matches)
    bulk_url=$(fresh_database bulk_insert)
  fi
  printf '%-44s ' "baseline: $database bulk insert, 100 rows/tx"
  BENCH_SECONDS=${duration%s} BENCH_TASKS=$match_connections taskset -c 0 \
    target/release/examples/bulk_insert "$bulk_url"
  start "warp-match-$database" target/release/safezone-server-warp --listen 127.0.0.1:0 \
    --database-url "$url" --game-server-token "$match_token"
  connections=$match_connections measure "warp + $database: POST /internal/matches -c$match_connections" "$base/" "$(match_script)"
  awk -v rps="$last_rps" 'BEGIN { printf "%-44s %10.0f player results/s (100 per report)\n", "", rps * 100 }'
  stop
done

if wanted boards; then
  # shellcheck source=examples/bench-boards.sh
  source examples/bench-boards.sh
fi

if wanted hardening; then
  # shellcheck source=examples/bench-hardening.sh
  source examples/bench-hardening.sh
fi

if wanted storage; then
  # shellcheck source=examples/bench-storage.sh
  source examples/bench-storage.sh
fi

if wanted profile; then
  # shellcheck source=examples/bench-profile.sh
  source examples/bench-profile.sh
fi

if wanted cpu; then
  # shellcheck source=examples/bench-cpu.sh
  source examples/bench-cpu.sh
fi

if wanted day; then
  # shellcheck source=examples/bench-day.sh
  source examples/bench-day.sh
fi
