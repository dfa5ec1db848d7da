#!/usr/bin/env bash
# The operator console's pages at 1,000,000 players (issue 30), recorded in BENCHMARKS.md.
#
# Workload: a fresh PostgreSQL database, migrated by the warp binary (`migrate apply`) and
# filled by examples/console_seed.sql (a copy of storage/tests/console_reads_at_scale.rs's fill,
# moved to the current hour: 1M accounts, account 1 with 100,000 ledger rows beside 900,000
# of others, a last sign-in for each account, 61 days of activity counters). Then the release
# warp binary is started on it with its operator listener and a webhook to a closed port (so
# that the Webhooks page has dead letters), and over its public API the script reports
# MATCHES 100-player matches (solo, duo, squad) of accounts 1 to 1,000 over the last six days
# (the leaderboards and players' recent matches) and publishes two content versions (the
# shipped file with one price changed, then changed back; the Content pages and the audit).
# Then it signs in to the console as a browser does (POST /operator/console/sign-in with the
# form field `secret` and the listener's own Origin, keeping the `safezone_console` cookie)
# and GETs each page RUNS times one after another with curl (a new connection each time),
# and the operator API's reads behind them with the token as bearer: per URL the median and
# slowest time to the whole answer (curl's time_total), every answer checked to be 200. The
# Matches pages (`/matches`, `/matches/bench-console-1`) are timed when the binary has them.
#
# The server and curl share the machine's CPUs with PostgreSQL (nothing is pinned: one page
# at a time is measured, not throughput).
#
# Usage: examples/bench-console.sh   (RUNS=30, MATCHES=60; SCREENSHOTS=1 also runs
#        tests/login-kit/console-screenshots.mjs against the server before stopping it, writing
#        docs/console/*.png; KEEP=1 keeps the database)
# Needs: PostgreSQL on 127.0.0.1:5432 (SAFEZONE_BENCH_POSTGRES_ADMIN), psql, curl, jq; for
# SCREENSHOTS, Node 20+, `npm ci --prefix tests/login-kit` and Chromium at /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-30}
matches=${MATCHES:-60}
postgres_admin=${SAFEZONE_BENCH_POSTGRES_ADMIN:-postgres://postgres@127.0.0.1:5432/postgres}
database=safezone_console_bench_$$
url=${postgres_admin%/*}/$database
export PGOPTIONS='--client-min-messages=warning'
# The pages come from one address: the per-node rate limits would answer some of them 429.
export SAFEZONE_RATE_LIMITS=off

cargo build --release -q -p safezone-server-warp --bins
S=${CARGO_TARGET_DIR:-target}/release/safezone-server-warp
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  [ "${KEEP:-0}" = 1 ] || psql -q "$postgres_admin" -c "DROP DATABASE IF EXISTS $database" || true
  rm -rf "$work"
}
trap cleanup EXIT

# free_port: a port nothing listens on.
free_port() {
  local port
  for port in $(shuf -i 20000-60000 -n 50); do
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
  return 1
}

# 1. The database.
started=$(date +%s)
psql -q "$postgres_admin" -c "CREATE DATABASE $database"
"$S" migrate apply --database-url "$url" >/dev/null
psql -q -f examples/console_seed.sql "$url"
echo "filled $(psql -qAt "$url" -c 'SELECT count(*) FROM accounts') accounts and" \
  "$(psql -qAt "$url" -c 'SELECT count(*) FROM ledger') ledger rows in $(($(date +%s) - started)) s"

# 2. The server.
game_token=bench-console-game-server-token
port=$(free_port)
operator_port=$(free_port)
"$S" --database-url "$url" --listen "127.0.0.1:$port" --operator-listen "127.0.0.1:$operator_port" \
  --game-server-token "$game_token" --events-webhook-url "http://127.0.0.1:$(free_port)/hook" \
  --events-webhook-secret bench-console-webhook-secret >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 1 600); do
  grep -qs "operator console on" "$work/server.out" "$work/server.err" && break
  kill -0 "$server_pid" || { cat "$work/server.err" >&2; exit 1; }
  sleep 0.1
done
base=http://127.0.0.1:$port
operator=http://127.0.0.1:$operator_port
secret=$("$S" operator-token create --name bench --role full --database-url "$url" | grep -oE '[0-9a-f]{48}')

# 3. Matches: solo, duo and squad reports of accounts 1 to 1,000 (banned ones are skipped by
# the server), ending over the last six days; placements a permutation, kills random (more
# for the better placed).
for match in $(seq 1 "$matches"); do
  mode=$(echo solo duo squad solo | cut -d' ' -f$((match % 4 + 1)))
  team=$(case $mode in solo) echo 1 ;; duo) echo 2 ;; squad) echo 4 ;; esac)
  ended=$(date -u -d "-$((match * 144 / matches)) hours -1 minute" +%FT%TZ)
  begun=$(date -u -d "$ended -20 minutes" +%FT%TZ)
  seq 0 99 | awk -v round="$match" -v team="$team" -v mode="$mode" -v begun="$begun" -v ended="$ended" '
    BEGIN { srand(round) }
    { player = (($1 * 10 + round * 7) % 1000) + 1
      place = int((($1 * 37 + round * 13) % 100) / team) + 1
      kills = int(rand() * rand() * 12 * (101 - place * team) / 100 + (place == 1 ? 2 : 0))
      rows = rows sprintf("%s{\"accountId\":%d,\"placement\":%d,\"kills\":%d,\"timeAlive\":%d}",
        NR > 1 ? "," : "", player, place, kills, 1200 - place * 10 * team) }
    END { printf "{\"matchId\":\"bench-console-%d\",\"mode\":\"%s\",\"startedAt\":\"%s\",\"endedAt\":\"%s\",\"players\":[%s]}",
      round, mode, begun, ended, rows }' >"$work/match.json"
  curl -sf -o /dev/null -X POST -H "Authorization: Bearer $game_token" \
    -H 'Content-Type: application/json' --data-binary @"$work/match.json" "$base/internal/matches"
done
echo "reported $matches matches: $(psql -qAt "$url" -c 'SELECT count(*) FROM match_log') match_log rows"

# 4. Two content versions: one price changed, then back.
publish() {
  jq -n --rawfile text "$1" --arg reason "$2" '{text: $text, reason: $reason}' |
    curl -sf -o /dev/null -X POST -H "Authorization: Bearer $secret" \
      -H 'Content-Type: application/json' --data-binary @- "$operator/operator/api/content/publish"
}
price_line=$(grep -n '^cost_coins = ' core/content/safezone.toml | head -n 1 | cut -d: -f1)
sed "${price_line}s/= .*/= 1234/" core/content/safezone.toml >"$work/sale.toml"
publish "$work/sale.toml" "bench: a price changed"
publish core/content/safezone.toml "bench: the price back"

# The API's view of the data: a ranked player's friend code, the polls' and tournaments' ids.
api() { curl -sf -H "Authorization: Bearer $secret" "$operator/operator/api$1"; }
ranked=$(api '/leaderboards?mode=solo&window=all&category=kills' | jq -r '.top[30].friendCode')
ranked_query=$(jq -rn --arg code "$ranked" '$code | @uri')
# The webhook's five attempts per batch end within seconds; let them and the boards settle.
sleep 10

# 5. Sign in as a browser does; keep the cookie.
curl -sf -o /dev/null -c "$work/cookies" -H "Origin: $operator" \
  --data-urlencode "secret=$secret" "$operator/operator/console/sign-in"
page() { curl -sf -b "$work/cookies" "$operator/operator/console$1"; }
# next_link PATH: the href of PATH's next-page link, unescaped.
next_link() {
  page "$1" | grep -o 'id="next-page" href="[^"]*"' | cut -d'"' -f4 |
    sed -e 's/&#38;/\&/g' -e 's/&amp;/\&/g' |
    sed 's|^/operator/console||'
}
deep=/players/list?list=newest
for _ in $(seq 1 20); do deep=$(next_link "$deep"); done

# time_urls LABEL URL [CURL ARGS...]: GETs URL RUNS times; prints LABEL, median and slowest.
time_urls() {
  local label=$1 target=$2
  shift 2
  local times
  times=$(for _ in $(seq 1 "$runs"); do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$@" "$target"
  done)
  if grep -qv '^200 ' <<<"$times"; then
    echo "$label: not 200: $(grep -v '^200 ' <<<"$times" | head -n 1)" >&2
    exit 1
  fi
  cut -d' ' -f2 <<<"$times" | sort -n | awk -v label="$label" -v runs="$runs" '
    { t[NR] = $1 * 1000 }
    END { printf "| %s | %.1f ms | %.1f ms |\n", label, t[int((runs + 1) / 2)], t[runs] }'
}

echo
echo "console pages, $runs GETs each ($(nproc) CPUs, load average $(cut -d" " -f1-3 /proc/loadavg), $(date -u +%F)):"
echo "| page | median | slowest |"
echo "|---|---:|---:|"
for path in / /overview '/players/list?list=newest' '/players/list?list=last_sign_in' \
  '/players/list?list=banned' '/players/list?search=snee' '/players/list?list=name&search=sneeza' \
  "$deep" '/players?accountId=1' /players/1/ledger '/players/1/ledger?currency=gems&reason=match' \
  /leaderboards "/leaderboards?mode=solo&window=all&category=kills&friendCode=$ranked_query" \
  /audit /status /polls /tournaments /content /content/versions/2 /webhooks; do
  time_urls "\`$path\`" "$operator/operator/console$path" -b "$work/cookies"
done
# The Matches pages (the match browser), when this checkout has them.
# has PATH [CURL ARGS...]: whether GET PATH answers 200.
has() { [ "$(curl -s -o /dev/null -w '%{http_code}' "${@:2}" "$1")" = 200 ]; }
if has "$operator/operator/console/matches" -b "$work/cookies"; then
  for path in /matches /matches/bench-console-1; do
    time_urls "\`$path\`" "$operator/operator/console$path" -b "$work/cookies"
  done
fi

echo
echo "operator API reads, $runs GETs each:"
echo "| API read | median | slowest |"
echo "|---|---:|---:|"
for path in '/activity?metric=sign_ins&bucket=hour' '/activity?metric=purchases&bucket=day' \
  '/players/list?list=newest' '/players/list?list=last_sign_in' '/players/list?list=banned' \
  '/players/list?search=snee' '/players/list?list=name&search=sneeza' '/players?accountId=1' \
  /players/1/ledger '/players/1/ledger?currency=gems&reason=match' \
  '/leaderboards?mode=solo&window=all&category=wins' \
  "/leaderboards?mode=solo&window=all&category=kills&friendCode=$ranked_query" \
  /audit /status /polls /tournaments /content /content/versions/2 '/content/versions/2/diff?from=1' \
  /webhooks /webhooks/replays; do
  time_urls "\`$path\`" "$operator/operator/api$path" -H "Authorization: Bearer $secret"
done
if has "$operator/operator/api/matches" -H "Authorization: Bearer $secret"; then
  for path in /matches /matches/bench-console-1; do
    time_urls "\`$path\`" "$operator/operator/api$path" -H "Authorization: Bearer $secret"
  done
fi

if [ "${SCREENSHOTS:-0}" = 1 ]; then
  node tests/login-kit/console-screenshots.mjs --console "$operator/operator/console" \
    --secret "$secret" --friend-code "$ranked" --out docs/console
fi
