# shellcheck shell=bash
# The `boards` section of examples/bench.sh (issue 6: live leaderboards), sourced by it after the
# other sections; it uses bench.sh's variables and functions (work, base, server_pid, measure,
# stop, connections, duration, match_connections, postgres_admin, baseline_rps).
#
# 1. The boards' memory: the warp binary's RSS on an empty database, after its boards are ready.
# 2. Seed: examples/leaderboard_seed.sql writes BOARDS_PLAYERS accounts and BOARDS_RESULTS match
#    log rows (1M and 10M by default) into a fresh database, migrated by starting the server once.
# 3. Rebuild: the warp binary started on the seeded database, on CPU 0: time from its start to
#    its address and to its `leaderboards ready` log line (and the line's own fields), and its
#    RSS (VmRSS, VmHWM) right after; the difference with (1) is the boards' memory. The node
#    writes a snapshot of its boards soon after (BOARDS_REUSE=1 deletes an earlier run's
#    first), so the restart in (5) starts from it: its time to ready and its memory.
# 4. Ingestion: BOARDS_DEVICES device accounts signed in over HTTP, then 100-player solo reports
#    over POST /internal/matches with wrk -c$MATCH_CONNECTIONS for $DURATION, as the matches
#    section does: player results per second with the boards loaded and following the log.
#    Then BOARDS_ROUNDS more solo matches for each of the first BOARDS_KEYS devices (the key
#    holders, so that they rank on ratio boards too), and how soon a new report shows on the
#    board of its reporter (a fresh device winning a one-player match; 5 samples).
# 5. Reads: wrk -t1 -c$CONNECTIONS -d$DURATION on CPU 1 against GET /api/leaderboard/live:
#    solo/all/wins without a key (top rows only), then with the key holders' keys in turn (top
#    rows + own rank) on solo/all/wins, solo/all/winrate and solo/24h/wins. With the default
#    INFO logs (one line per request, as every other row of bench.sh) and, after a restart (a
#    second rebuild measured too), with the per-request line off (RUST_LOG=info,safezone_core::http::access=warn)
#    like Redis, which logs nothing per command.
# 6. Redis reference: a private redis-server (Debian's package; installed with apt-get when
#    missing) on a free port, pinned to CPU 0 like the server, with one sorted set of the same
#    players scored by all-time solo wins (member: the account id), loaded from PostgreSQL with
#    COPY and redis-cli --pipe; INFO memory before and after; redis-benchmark on CPU 1, -c
#    $CONNECTIONS, for about $DURATION each: ZREVRANGE board 0 99 WITHSCORES and ZREVRANK of one
#    member.
#
# Environment: BOARDS_PLAYERS (1000000), BOARDS_RESULTS (10000000), BOARDS_DEVICES (8000),
# BOARDS_KEYS (1000), BOARDS_ROUNDS (20), BOARDS_READY_TIMEOUT (900 s), BOARDS_QUIET (1: the
# second run without request logs; 0 skips it), BOARDS_REUSE (1: keep using an already seeded
# database of the same size instead of seeding again; with KEEP=1 on the run that seeded it),
# BOARDS_REDIS (1: the Redis comparison; 0 skips it, as for ten million players),
# BOARDS_SNAPSHOT (keep: with BOARDS_REUSE, the first start reads the reused database's newest
# snapshot instead of the whole log), KEEP (1: keep the seeded database at the end).

boards_players=${BOARDS_PLAYERS:-1000000}
boards_results=${BOARDS_RESULTS:-10000000}
boards_devices=${BOARDS_DEVICES:-8000}
boards_keys=${BOARDS_KEYS:-1000}
boards_rounds=${BOARDS_ROUNDS:-20}
boards_ready_timeout=${BOARDS_READY_TIMEOUT:-900}
boards_redis=${BOARDS_REDIS:-1}
boards_quiet=${BOARDS_QUIET:-1}
boards_db=safezone_bench_boards
boards_url=${postgres_admin%/*}/$boards_db
boards_empty_url=${postgres_admin%/*}/${boards_db}_empty
boards_run=$(date +%s)
board_path=/api/leaderboard/live
redis_pid=

boards_cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  server_pid=
  [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
  redis_pid=
  psql -q "$postgres_admin" -c "DROP DATABASE IF EXISTS ${boards_db}_empty" 2>/dev/null || true
  if [ -z "${KEEP:-}" ]; then
    psql -q "$postgres_admin" -c "DROP DATABASE IF EXISTS $boards_db" 2>/dev/null || true
  fi
}
trap 'boards_cleanup; cleanup' EXIT

now_ms() { date +%s%3N; }
# seconds_since START_MS: elapsed seconds with one decimal.
seconds_since() { awk -v ms=$(($(now_ms) - $1)) 'BEGIN { printf "%.1f", ms / 1000 }'; }
# cpu_seconds PID: the CPU time a process has used (user + system), in seconds.
cpu_seconds() {
  awk -v tick="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / tick }' "/proc/$1/stat"
}
# status_kb PID FIELD: VmRSS or VmHWM of a process, in kB.
status_kb() { awk -v field="$2:" '$1 == field { print $2 }' "/proc/$1/status"; }
mib() { awk -v kb="$1" 'BEGIN { printf "%.1f MiB", kb / 1024 }'; }

# boards_start NAME DATABASE_URL: runs the warp binary on CPU 0 and waits for its address and,
# when it serves leaderboards, for its `leaderboards ready` line. Sets base, listen_ms, ready_ms
# (empty when the binary has no leaderboards or the line did not come in time), ready_line and
# boards_served (0 when the binary answers 404 to the leaderboard path).
boards_start() {
  local out="$work/$1.out" started now served=unknown
  started=$(now_ms)
  NO_COLOR=1 RUST_LOG="${boards_log:-info}" taskset -c 0 target/release/safezone-server-warp \
    --listen 127.0.0.1:0 --database-url "$2" --game-server-token "$match_token" \
    >"$out" 2>"$out.err" &
  server_pid=$!
  base= listen_ms= ready_ms= ready_line= boards_served=1
  while :; do
    now=$(now_ms)
    if [ -z "$listen_ms" ] && grep -q 'listening on' "$out"; then
      listen_ms=$((now - started))
      base=$(grep -o 'http://[0-9.:]*' "$out" | head -n 1)
    fi
    if [ -z "$ready_ms" ] && grep -q 'leaderboards ready' "$out.err"; then
      ready_ms=$((now - started))
      ready_line=$(grep -m 1 'leaderboards ready' "$out.err" | sed 's/\x1b\[[0-9;]*m//g')
    fi
    [ -n "$listen_ms" ] && [ -n "$ready_ms" ] && break
    # One request in the background, once the address is known: what the node answers while it
    # loads (or 404 from a binary without leaderboards).
    if [ -n "$listen_ms" ] && [ "$served" = unknown ]; then
      served=asked
      rm -f "$work/probe.code"
      [ -z "$ready_ms" ] && probed_loading=1 || probed_loading=0
      curl -s -o "$work/probe.json" -w '%{http_code}' "$base$board_path" >"$work/probe.tmp" &&
        mv "$work/probe.tmp" "$work/probe.code" &
    fi
    if [ "$served" = asked ] && [ -s "$work/probe.code" ]; then
      served=$(cat "$work/probe.code")
      if [ "$probed_loading" = 1 ]; then
        echo "  answer while loading: HTTP $served $(head -c 160 "$work/probe.json")"
      fi
      if [ "$served" = 404 ]; then
        boards_served=0
        echo "  (this binary has no $board_path: no leaderboards to wait for)"
        break
      fi
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      cat "$out.err" >&2
      echo "the server stopped" >&2
      exit 1
    fi
    if ((now - started > boards_ready_timeout * 1000)); then
      echo "  NO 'leaderboards ready' LINE WITHIN ${boards_ready_timeout}s"
      [ -n "$listen_ms" ] && break
      exit 1
    fi
    sleep 0.05
  done
}

# ready_field NAME: a field of the ready line (results, players, millis; results_millis,
# players_millis (within results_millis), boards_millis for the phases).
ready_field() { grep -o "\b$1=[0-9]*" <<<"$ready_line" | cut -d= -f2; }

boards_report_start() {
  local rss hwm cpu
  cpu=$(cpu_seconds "$server_pid")
  rss=$(status_kb "$server_pid" VmRSS)
  hwm=$(status_kb "$server_pid" VmHWM)
  printf '  %-42s %s ms to the address, %s ms to "leaderboards ready"\n' "$1" "$listen_ms" \
    "${ready_ms:-(none)}"
  [ -n "$ready_line" ] && echo "  ready line: ${ready_line#*leaderboards ready}; server CPU time by then: $cpu s"
  printf '  %-42s VmRSS %s, VmHWM %s\n' "$1 memory" "$(mib "$rss")" "$(mib "$hwm")"
  start_rss=$rss start_hwm=$hwm start_cpu=$cpu
}

if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
  apt-get install -y -q redis-server redis-tools >/dev/null
fi

echo
echo "boards: $boards_players players, $boards_results player results; server on CPU 0, clients on CPU 1"

# 1. The same binary on an empty database.
quiet_psql() { PGOPTIONS='-c client_min_messages=warning' psql -q "$@"; }

quiet_psql "$postgres_admin" -c "DROP DATABASE IF EXISTS ${boards_db}_empty" -c "CREATE DATABASE ${boards_db}_empty"
boards_start boards-empty "$boards_empty_url"
boards_report_start "empty database:"
empty_rss=$start_rss
stop
psql -q "$postgres_admin" -c "DROP DATABASE ${boards_db}_empty"

# 2. Seed.
seeded=0
if [ -n "${BOARDS_REUSE:-}" ] && psql -qAt "$postgres_admin" \
  -c "SELECT 1 FROM pg_database WHERE datname = '$boards_db'" | grep -q 1; then
  seeded=$(psql -qAt "$boards_url" -c "SELECT count(*) FROM accounts WHERE provider = 'seed'")
  [ "$seeded" = "$boards_players" ] && echo "  reusing the seeded database $boards_db" || seeded=0
fi
if [ "$seeded" = 0 ]; then
  quiet_psql "$postgres_admin" -c "DROP DATABASE IF EXISTS $boards_db" -c "CREATE DATABASE $boards_db"
  boards_start boards-migrate "$boards_url"
  stop
  seed_started=$(now_ms)
  psql -q -v players="$boards_players" -v results="$boards_results" \
    -f examples/leaderboard_seed.sql "$boards_url" >"$work/seed.log"
  seed_seconds=$(seconds_since "$seed_started")
  awk '/^Time:/ { ms[label] += $2 }
       !/^Time:/ && !/^seeding/ { label = $0; order[++labels] = label }
       END { for (i = 1; i <= labels; i++) printf "    %-36s %6.1f s\n", order[i], ms[order[i]] / 1000 }' \
    "$work/seed.log"
  echo "  seed: $seed_seconds s ($(psql -qAt "$boards_url" \
    -c "SELECT pg_size_pretty(pg_database_size(current_database()))") on disk)"
fi
# The boards' snapshots (an earlier run's, or the empty one the migrating start wrote at its
# stop) go: the first start reads the whole log. BOARDS_SNAPSHOT=keep keeps a reused database's
# snapshots, so that the first start reads the newest (at ten million players, the whole log
# takes about 17 minutes).
if [ "${BOARDS_SNAPSHOT:-}" = keep ] && [ "$seeded" != 0 ]; then
  echo "  keeping the boards' snapshots: the first start reads the newest"
else
  psql -q "$boards_url" -c "DELETE FROM board_snapshot_parts" -c "DELETE FROM board_snapshots" \
    -c "UPDATE board_snapshot_claim SET claimed_at = 0"
fi

# 3. Rebuild.
boards_start boards "$boards_url"
boards_report_start "seeded database:"
boards_listen_ms=$listen_ms boards_ready_ms=$ready_ms boards_millis=$(ready_field millis)
if [ -n "$(ready_field snapshot)" ]; then
  boards_phases="from snapshot $(ready_field snapshot): read and installed $(ready_field snapshot_millis) ms, logs' tail $(ready_field tail_millis) ms"
else
  boards_phases="results $(ready_field results_millis) ms (of them $(ready_field players_millis) ms reading their players), boards $(ready_field boards_millis) ms"
fi
boards_rss=$start_rss boards_hwm=$start_hwm boards_cpu=$start_cpu
echo "  boards' memory (VmRSS seeded - empty): $(mib $((boards_rss - empty_rss)))"

# 4. Ingestion: sign in the devices, keep "id key" per line.
started=$(now_ms)
mkdir -p "$work/devices"
# A sign-in is retried (the same device again), and a failure says so: at 10M players the
# section once stopped here without a message while the node wrote its first 1.8 GB snapshot.
seq 1 "$boards_devices" | xargs -P 16 -I{} curl -sf --retry 5 --retry-all-errors --max-time 60 \
  -o "$work/devices/{}.json" -X POST "$base/api/validate/device/ios-bench-board-{}" ||
  { echo "boards: device sign-ins failed ($(ls "$work/devices" | wc -l) of $boards_devices answered)" >&2; exit 1; }
for file in "$work"/devices/*.json; do
  cat "$file"
  echo
done >"$work/devices.json"
paste -d' ' <(sed -nE 's/.*"user":\{"id":([0-9]+).*/\1/p' "$work/devices.json") \
  <(sed -nE 's/.*"key":"([0-9a-f]{48})".*/\1/p' "$work/devices.json") >"$work/devices.txt"
[ "$(wc -l <"$work/devices.txt")" = "$boards_devices" ] || { echo "sign-ins failed" >&2; exit 1; }
echo "  signed in $boards_devices devices in $(seconds_since "$started") s"

ids=$(cut -d' ' -f1 "$work/devices.txt" | paste -sd, -)
report_script "$ids" "boards-$boards_run" "$work/boards-match.lua"
connections=$match_connections measure "warp boards: POST /internal/matches -c$match_connections" \
  "$base/" "$work/boards-match.lua"
ingest_reports=$last_rps
ingest_results=$(awk -v r="$last_rps" 'BEGIN { printf "%.0f", r * 100 }')
echo "  = $ingest_results player results/s"

# The key holders' rounds: solo reports of blocks of 100 key holders, placements rotating.
started=$(now_ms)
mkdir -p "$work/prime"
head -n "$boards_keys" "$work/devices.txt" | cut -d' ' -f1 | awk \
  -v rounds="$boards_rounds" -v run="$boards_run" -v dir="$work/prime" \
  -v started="$(date -u -d '-21 minutes' +%FT%TZ)" -v ended="$(date -u -d '-1 minute' +%FT%TZ)" '
  { id[NR - 1] = $1 }
  END {
    blocks = int(NR / 100)
    for (round = 1; round <= rounds; round++) for (b = 0; b < blocks; b++) {
      file = sprintf("%s/%04d-%03d.json", dir, round, b)
      printf "{\"matchId\":\"boards-%s-prime-%d-%d\",\"mode\":\"solo\",\"startedAt\":\"%s\",\"endedAt\":\"%s\",\"players\":[", run, round, b, started, ended > file
      for (i = 0; i < 100; i++) {
        place = (i + round * 37) % 100 + 1
        printf "%s{\"accountId\":%d,\"placement\":%d,\"kills\":%d,\"timeAlive\":%d}", (i ? "," : ""), id[b * 100 + i], place, (101 - place) % 7, 1200 - place * 10 > file
      }
      printf "]}" > file
      close(file)
    }
  }'
ls "$work/prime"/*.json | xargs -P 4 -I{} curl -sf --retry 5 --retry-all-errors --max-time 60 \
  -o /dev/null -X POST -H "Authorization: Bearer $match_token" \
  -H 'Content-Type: application/json' --data-binary @{} "$base/internal/matches" ||
  { echo "boards: the key holders' reports failed" >&2; exit 1; }
echo "  reported $boards_rounds solo rounds for each of the $boards_keys key holders in $(seconds_since "$started") s"

# How soon a report shows: a fresh device wins a one-player match; poll its own row.
visible=()
for sample in 1 2 3 4 5; do
  [ "$boards_served" = 1 ] || break
  body=$(curl -sf -X POST "$base/api/validate/device/ios-bench-board-fresh-$boards_run-$sample")
  id=$(grep -o '"user":{"id":[0-9]*' <<<"$body" | cut -d: -f3)
  key=$(grep -oE '"key":"[0-9a-f]{48}"' <<<"$body" | head -n 1 | cut -d'"' -f4)
  curl -sf -o /dev/null -X POST -H "Authorization: Bearer $match_token" \
    -H 'Content-Type: application/json' "$base/internal/matches" --data-binary \
    "{\"matchId\":\"boards-$boards_run-fresh-$sample\",\"mode\":\"solo\",\"startedAt\":\"$(date -u -d '-11 minutes' +%FT%TZ)\",\"endedAt\":\"$(date -u -d '-1 minute' +%FT%TZ)\",\"players\":[{\"accountId\":$id,\"placement\":1,\"kills\":3,\"timeAlive\":600}]}"
  reported=$(now_ms)
  shown=
  while (($(now_ms) - reported < 10000)); do
    answer=$(curl -s "$base$board_path?mode=solo&time=24h&category=wins&userKey=$key" || true)
    if [[ "$answer" == *'"user":{'* ]]; then
      shown=$(($(now_ms) - reported))
      break
    fi
    sleep 0.01
  done
  visible+=("${shown:-never}")
done
echo "  a report shows on its player's board after (ms, 5 samples): ${visible[*]}"

# 5. Reads.
# keyed_script NAME QUERY: a wrk script asking QUERY with the key holders' keys in turn.
keyed_script() {
  local keys
  keys=$(head -n "$boards_keys" "$work/devices.txt" | cut -d' ' -f2 | sed 's/.*/"&"/' | paste -sd, -)
  cat >"$work/$1.lua" <<LUA
keys = {$keys}
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "$board_path?$2&userKey=" .. keys[(counter % #keys) + 1])
end
LUA
  echo "$work/$1.lua"
}

sample_key=$(head -n 1 "$work/devices.txt" | cut -d' ' -f2)
answer=$(curl -s "$base$board_path?mode=solo&time=all&category=wins&userKey=$sample_key")
answer_bytes=${#answer}
echo "  answer (solo/all/wins with a key): ${#answer} bytes, $(grep -o '"rank"' <<<"$answer" | wc -l) \"rank\" fields; starts ${answer:0:160}"
echo "  own row: $(grep -o '"user":.*' <<<"$answer" | head -c 200)"

# board_reads SUFFIX LABEL: the four read rows; sets reads_{top,own,winrate,day}_SUFFIX.
board_reads() {
  measure "$2: solo/all/wins, no key" "$base$board_path?mode=solo&time=all&category=wins"
  printf -v "reads_top_$1" %s "$last_rps"
  measure "$2: solo/all/wins + own rank" "$base/" \
    "$(keyed_script wins 'mode=solo&time=all&category=wins')"
  printf -v "reads_own_$1" %s "$last_rps"
  measure "$2: solo/all/winrate + own rank" "$base/" \
    "$(keyed_script winrate 'mode=solo&time=all&category=winrate')"
  printf -v "reads_winrate_$1" %s "$last_rps"
  measure "$2: solo/24h/wins + own rank" "$base/" \
    "$(keyed_script day 'mode=solo&time=24h&category=wins')"
  printf -v "reads_day_$1" %s "$last_rps"
}
board_reads logged "warp boards"
printf '  %-42s VmRSS %s, VmHWM %s\n' "after the runs:" "$(mib "$(status_kb "$server_pid" VmRSS)")" \
  "$(mib "$(status_kb "$server_pid" VmHWM)")"
stop

quiet_ready_ms=
if [ "$boards_quiet" = 1 ]; then
  boards_log=info,safezone_core::http::access=warn boards_start boards-quiet "$boards_url"
  boards_report_start "restart, no request log:"
  quiet_ready_ms=$ready_ms quiet_millis=$(ready_field millis) quiet_rss=$start_rss
  quiet_snapshot=$(ready_field snapshot)
  board_reads quiet "warp boards, no request log"
  stop
fi

# 6. Redis (BOARDS_REDIS=0 skips it: its loading queries read the whole match log).
if [ "$boards_redis" = 1 ]; then
  redis_port=
  for port in $(seq 16379 16479); do
    if ! (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      redis_port=$port
      break
    fi
  done
  taskset -c 0 redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$work" --logfile "$work/redis.log" &
  redis_pid=$!
  for _ in $(seq 1 100); do
    [ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" = PONG ] && break
    sleep 0.1
  done
  used_memory() { redis-cli -p "$redis_port" info memory | awk -F: '/^used_memory:/ { print $2 + 0 }'; }
  redis_empty=$(used_memory)
  started=$(now_ms)
  psql -qAt "$boards_url" -c "COPY (
      SELECT 'ZADD board ' || string_agg(wins || ' ' || id, ' ')
      FROM (
          SELECT accounts.id, coalesce(solo.wins, 0) AS wins
          FROM accounts LEFT JOIN (
              SELECT account_id, count(*) AS wins FROM match_log
              WHERE mode = 'solo' AND placement = 1 GROUP BY account_id
          ) solo ON solo.account_id = accounts.id
      ) players
      GROUP BY id / 1000
  ) TO STDOUT" | redis-cli -p "$redis_port" --pipe >"$work/redis-load.txt"
  redis_members=$(redis-cli -p "$redis_port" zcard board)
  redis_full=$(used_memory)
  redis_set=$((redis_full - redis_empty))
  echo "  redis: loaded $redis_members members in $(seconds_since "$started") s ($(tail -n 1 "$work/redis-load.txt"))"
  echo "  redis used_memory: $(mib $((redis_empty / 1024))) empty, $(mib $((redis_full / 1024))) loaded: the set $(mib $((redis_set / 1024))), $((redis_set / redis_members)) B/member; VmRSS $(mib "$(status_kb "$redis_pid" VmRSS)")"

  # Every board in Redis: one sorted set per mode, window and category, each holding the players
  # with a result in that mode and window. Members per (mode, window) from the match log; x 5
  # plain categories and, as an upper bound, x 7 (the ratio boards hold only players with enough
  # rounds), at the bytes per member just measured.
  board_members=$(psql -qAt "$boards_url" -c "
      SELECT sum((last > now_us - 86400000000)::int) + sum((last > now_us - 7 * 86400000000)::int)
          + sum((last > now_us - 30 * 86400000000)::int) + sum((last > now_us - 365 * 86400000000)::int)
          + count(*)
      FROM (SELECT account_id, mode, max(ended) AS last FROM match_log GROUP BY account_id, mode) players,
          (SELECT (extract(epoch FROM now()) * 1000000)::bigint AS now_us) clock")
  redis_all_low=$((board_members * 5 * redis_set / redis_members))
  redis_all_high=$((board_members * 7 * redis_set / redis_members))
  echo "  every board in Redis: $board_members members per category over 20 mode-window sets; x 5 to 7 categories: $(mib $((redis_all_low / 1024))) to $(mib $((redis_all_high / 1024)))"

  # redis_measure LABEL COMMAND...: redis-benchmark on CPU 1 for about DURATION (a short run
  # first tells the rate); prints like measure and sets last_rps.
  redis_measure() {
    local label=$1 n
    shift
    taskset -c 1 redis-benchmark -h 127.0.0.1 -p "$redis_port" -c "$connections" -n 20000 --csv "$@" \
      >"$work/redis-bench.csv"
    n=$(awk -F'","' -v seconds="${duration%s}" 'NR == 2 { printf "%d", $2 * seconds }' "$work/redis-bench.csv")
    taskset -c 1 redis-benchmark -h 127.0.0.1 -p "$redis_port" -c "$connections" -n "$n" --csv "$@" \
      >"$work/redis-bench.csv"
    last_rps=$(awk -F'","' 'NR == 2 { print $2 }' "$work/redis-bench.csv")
    awk -F'","' -v label="$label" 'NR == 2 {
      printf "%-44s %10s req/s   p50 %6s ms   p99 %6s ms\n", label, $2, $5, $7 }' "$work/redis-bench.csv"
  }
  redis_measure "redis: ZREVRANGE board 0 99 WITHSCORES" ZREVRANGE board 0 99 WITHSCORES
  redis_range=$last_rps
  redis_measure "redis: ZREVRANK board <member>" ZREVRANK board "$((boards_players / 2))"
  redis_rank=$last_rps
  kill "$redis_pid"
  wait "$redis_pid" 2>/dev/null || true
  redis_pid=
fi

# Summary.
echo
echo "boards summary ($boards_players players, $boards_results results; $(nproc) CPUs; $(date -u +%F))"
row() { printf '  %-52s %s\n' "$1" "$2"; }
row "baseline: bare hyper hello" "$baseline_rps req/s"
row "leaderboard, no key (solo/all/wins)" "$reads_top_logged req/s${reads_top_quiet:+ (no request log: $reads_top_quiet)}"
row "leaderboard + own rank (solo/all/wins)" "$reads_own_logged req/s${reads_own_quiet:+ (no request log: $reads_own_quiet)}"
row "leaderboard + own rank (solo/all/winrate)" "$reads_winrate_logged req/s${reads_winrate_quiet:+ (no request log: $reads_winrate_quiet)}"
row "leaderboard + own rank (solo/24h/wins)" "$reads_day_logged req/s${reads_day_quiet:+ (no request log: $reads_day_quiet)}"
row "answer of 100 rows + own row" "$answer_bytes bytes"
if [ "$boards_redis" = 1 ]; then
  row "redis ZREVRANGE 0 99 WITHSCORES" "$redis_range req/s"
  row "redis ZREVRANK" "$redis_rank req/s"
fi
row "boards' memory (RSS seeded - empty)" "$(mib $((boards_rss - empty_rss))) (RSS $(mib "$boards_rss"), peak $(mib "$boards_hwm"); empty $(mib "$empty_rss"))"
if [ "$boards_redis" = 1 ]; then
  row "redis sorted set (used_memory)" "$(mib $((redis_set / 1024))) for $redis_members members"
  row "redis, all 140 boards (estimate)" "$(mib $((redis_all_low / 1024))) to $(mib $((redis_all_high / 1024)))"
fi
row "rebuild (start to ready line; line's millis)" "${boards_ready_ms:-none} ms; ${boards_millis:-none} ms${quiet_ready_ms:+ (restart: $quiet_ready_ms ms; $quiet_millis ms)}; server CPU $boards_cpu s"
row "rebuild phases (the ready line's)" "$boards_phases"
[ -n "${quiet_snapshot:-}" ] && row "restart from snapshot $quiet_snapshot" "$quiet_ready_ms ms to ready (snapshot read $(ready_field snapshot_millis) ms, logs' tail $(ready_field tail_millis) ms); memory $(mib $((quiet_rss - empty_rss)))"
row "ingestion" "$ingest_results player results/s ($ingest_reports reports/s of 100)"
row "report visible on its board after" "${visible[*]} ms"
[ -n "${seed_seconds:-}" ] && row "seed" "$seed_seconds s"
true
