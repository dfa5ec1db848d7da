#!/usr/bin/env bash
# Two builds of a server side by side, measured in turns (recorded in BENCHMARKS.md).
#
# This machine's speed drifts by 10-20% from one minute to the next, more than most changes a
# pair of consecutive runs would show. Here both servers run at once, each on its own fresh
# database, both pinned to CPU 0 (only the one under load works); wrk (on CPU 1) loads them in
# turns, ROUNDS times SECONDS_EACH seconds each, and the totals compare them: a drift hits both
# alike.
#
# Workloads (WHAT): `buy`, 64 devices granted coins through the operator's `grant` command
# buying one basic chest per request round-robin (`POST /api/user/{key}/buy?packId=1&quantity=1`),
# `read`, the 64 devices' accounts read in turn (`GET /api/user/{key}`), or `sign-in`, 64
# devices signed in before signed in again in turn (`POST
# /api/validate/device/{id}`), `wrk -t1 -c64`; or `match`, `bench.sh`'s 100-player solo reports
# (`POST /internal/matches`) over 2,000 devices in 20 blocks of 100, `wrk -t1 -c8`, each request
# printed as 100 player results. A 2 s warm-up each (its match ids apart from the measured ones).
#
# Usage: A=path/to/server-a B=path/to/server-b examples/bench-ab.sh
#   WHAT=buy|read|sign-in|match (buy), DATABASE=sqlite|postgres (sqlite), ROUNDS (8), SECONDS_EACH (4);
#   ENV_A / ENV_B: environment (NAME=value ...) for one server only; SQL_A / SQL_B: SQL run on
#   that server's SQLite database before the warm-up (for example `DROP INDEX ...`, to measure
#   what an index costs).
# Prints, per round, each server's requests and CPU per request, then the totals: requests per
# second, the server's CPU time per request (all its threads, from /proc/PID/stat; the
# database's own CPU is not in it on PostgreSQL) and the bytes it wrote per request through
# system calls (`wchar` of /proc/PID/io: on SQLite mostly its write-ahead log and checkpoints,
# the answers' bytes on the sockets besides).
# Needs: wrk, taskset, curl; sqlite3 for SQL_A / SQL_B; PostgreSQL on 127.0.0.1:5432 for
# DATABASE=postgres.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?the first server binary}" "${B:?the second server binary}"
what=${WHAT:-buy}
database=${DATABASE:-sqlite}
rounds=${ROUNDS:-8}
seconds=${SECONDS_EACH:-4}
connections=64
[ "$what" = match ] && connections=8
match_token=bench-game-server-credential
postgres_admin=${SAFEZONE_BENCH_POSTGRES_ADMIN:-postgres://postgres@127.0.0.1:5432/postgres}
export SAFEZONE_RATE_LIMITS=off PGOPTIONS='--client-min-messages=warning'
work=$(mktemp -d)
declare -A pid base url

# cleanup: stops both servers, drops their PostgreSQL databases, removes the work folder.
cleanup() {
  local side
  for side in a b; do
    if [ -n "${pid[$side]:-}" ]; then
      kill "${pid[$side]}" 2>/dev/null || true
      wait "${pid[$side]}" 2>/dev/null || true
    fi
    if [ "$database" = postgres ]; then
      psql -q "$postgres_admin" -c "DROP DATABASE IF EXISTS safezone_ab_${side}_$$" 2>/dev/null || true
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

# prepare SIDE BINARY: starts BINARY on a fresh database, sets up the workload's 64 devices and
# warms it up.
prepare() {
  local side=$1 binary=$2 n body key code env_name sql_name ids values=()
  if [ "$database" = sqlite ]; then
    url[$side]="sqlite://$work/$side.db"
  else
    psql -q "$postgres_admin" -c "DROP DATABASE IF EXISTS safezone_ab_${side}_$$" \
      -c "CREATE DATABASE safezone_ab_${side}_$$"
    url[$side]="${postgres_admin%/*}/safezone_ab_${side}_$$"
  fi
  env_name=ENV_${side^^}
  : >"$work/$side.out"
  # shellcheck disable=SC2086 # ENV_A / ENV_B are lists of NAME=value words.
  env ${!env_name:-} taskset -c 0 "$binary" --listen 127.0.0.1:0 --database-url "${url[$side]}" \
    --game-server-token "$match_token" >"$work/$side.out" 2>"$work/$side.err" &
  pid[$side]=$!
  for _ in $(seq 1 300); do
    grep -q 'listening on' "$work/$side.out" && break
    sleep 0.1
  done
  base[$side]=$(grep -o 'http://[0-9.:]*' "$work/$side.out" | head -n 1)
  [ -n "${base[$side]}" ] || { cat "$work/$side.err" >&2; exit 1; }
  case $what in
    match)
      ids=$(seq 1 2000 | xargs -P 16 -I{} curl -sf -X POST "${base[$side]}/api/validate/device/ios-bench-ab-{}" |
        grep -o '"user":{"id":[0-9]*' | cut -d: -f3 | paste -sd, -)
      echo "$ids" >"$work/$side.ids"
      report_script "$ids" warm "$work/$side-warm.lua"
      ;;
    buy)
      for n in $(seq 1 64); do
        body=$(curl -sf -X POST "${base[$side]}/api/validate/device/ios-bench-ab-$n")
        key=$(grep -o '"key":"[0-9a-f]*"' <<<"$body" | cut -d'"' -f4)
        code=$(grep -o '"friend_code":"[^"]*"' <<<"$body" | cut -d'"' -f4)
        "$binary" --database-url "${url[$side]}" grant --to "$code" --coins 100000000000 >/dev/null 2>&1
        values+=("$key")
      done
      keys_script "$work/$side.lua" POST "/buy?packId=1&quantity=1" "${values[@]}"
      ;;
    read)
      for n in $(seq 1 64); do
        key=$(curl -sf -X POST "${base[$side]}/api/validate/device/ios-bench-ab-$n" |
          grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)
        values+=("$key")
      done
      keys_script "$work/$side.lua" GET "" "${values[@]}"
      ;;
    sign-in)
      for n in $(seq 1 64); do
        curl -sf -X POST "${base[$side]}/api/validate/device/ios-bench-ab-$n" >/dev/null
        values+=("\"ios-bench-ab-$n\"")
      done
      sign_in_script "$side" "${values[@]}" >/dev/null
      ;;
    *)
      echo "WHAT is buy, read, sign-in or match, not $what" >&2
      exit 1
      ;;
  esac
  sql_name=SQL_${side^^}
  if [ -n "${!sql_name:-}" ]; then
    sqlite3 "$work/$side.db" "${!sql_name}"
  fi
  local warm="$work/$side.lua"
  [ "$what" = match ] && warm="$work/$side-warm.lua"
  taskset -c 1 wrk -t1 -c"$connections" -d2s -s "$warm" "${base[$side]}/" >/dev/null
}

# shellcheck source=examples/bench-wrk-scripts.sh
source examples/bench-wrk-scripts.sh

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
written() { awk '/^wchar/ { print $2 }' "/proc/$1/io"; }

prepare a "$A"
prepare b "$B"
hz=$(getconf CLK_TCK)
declare -A ticks=([a]=0 [b]=0) requests=([a]=0 [b]=0) bytes=([a]=0 [b]=0)
echo "$what on $database, $rounds rounds of ${seconds}s each; A=$A B=$B"
for round in $(seq 1 "$rounds"); do
  printf 'round %2d:' "$round"
  for side in a b; do
    if [ "$what" = match ]; then
      # Each round's own match ids: a match id reported again is answered from its record.
      report_script "$(cat "$work/$side.ids")" "round-$round" "$work/$side.lua"
    fi
    before=$(cpu_ticks "${pid[$side]}")
    written_before=$(written "${pid[$side]}")
    taskset -c 1 wrk -t1 -c"$connections" -d"${seconds}s" -s "$work/$side.lua" "${base[$side]}/" >"$work/wrk.txt"
    after=$(cpu_ticks "${pid[$side]}")
    bytes[$side]=$((bytes[$side] + $(written "${pid[$side]}") - written_before))
    done_now=$(awk '/requests in/ { print $1 }' "$work/wrk.txt")
    if grep -q 'Non-2xx' "$work/wrk.txt"; then
      echo "server $side answered $(awk '/Non-2xx/ { print $NF }' "$work/wrk.txt") requests with errors" >&2
      exit 1
    fi
    ticks[$side]=$((ticks[$side] + after - before))
    requests[$side]=$((requests[$side] + done_now))
    awk -v side="${side^^}" -v n="$done_now" -v t=$((after - before)) -v hz="$hz" \
      'BEGIN { printf "   %s %7d requests %6.1f us", side, n, t / hz * 1e6 / n }'
  done
  echo
done
for side in a b; do
  awk -v side="${side^^}" -v n="${requests[$side]}" -v t="${ticks[$side]}" -v hz="$hz" \
    -v w="${bytes[$side]}" -v d=$((rounds * seconds)) -v reports=$([ "$what" = match ] && echo 1 || echo 0) '
    BEGIN {
      printf "%s: %8.0f req/s   cpu %6.1f us/req   written %7.0f B/req", side, n / d, t / hz * 1e6 / n, w / n
      if (reports) printf "   (%.0f player results/s, %.1f us each)", n * 100 / d, t / hz * 1e4 / n
      print ""
    }'
done
