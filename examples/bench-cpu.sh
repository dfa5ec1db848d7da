# shellcheck shell=bash
# Section `cpu` of examples/bench.sh (issue 20), sourced by it; not among the default sections,
# since it needs perf (apt-get install linux-perf; root or kernel.perf_event_paranoid <= 1).
# Where the server's CPU goes on each everyday request: run it on two commits to compare them.
#
# Workload: the warp binary, each request type under its own wrk load (as in the sections
# above: GET /api/config?platform=web; GET /api/user/{key} and 100-player match reports on
# SQLite and on PostgreSQL, the reports with -c$MATCH_CONNECTIONS; the sign-in of an existing
# device and a buy on PostgreSQL); perf samples the server at 999 Hz for 5 s of each.
# Prints the request rate, latency and the server's CPU time per request, and the share of its
# samples by where they fall: the kernel (sockets, scheduling, futexes), allocation and copies,
# SQLite, sqlx, the async runtime and the HTTP servers (tokio, mio, hyper, warp), tower and
# the http types, tracing (the request's span and log line), JSON (serde), Safezone's own code,
# and the rest. Code inlined into a caller counts as the caller's.

# cpu_shares: the last profile's samples grouped by where they fall, one line.
cpu_shares() {
  perf report -i "$work/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null |
    awk '
      $1 ~ /%$/ {
        share = $1 + 0; dso = $2; symbol = ""
        for (i = 4; i <= NF; i++) symbol = symbol " " $i
        if (dso ~ /kernel/) group = "kernel"
        else if (symbol ~ /malloc|free|memmove|memcpy|memset|memcmp|_int_|realloc|unlink_chunk/) group = "alloc+copy"
        else if (symbol ~ /sqlite3|pcache1|btree[A-Z]|Vdbe|pager[A-Z]|walIndex|allocateCursor/) group = "sqlite"
        else if (symbol ~ /sqlx/) group = "sqlx"
        else if (symbol ~ /tokio|mio::|hyper|warp::|flume|futex|pthread|syscall/) group = "runtime+http"
        else if (symbol ~ /tower|http::/) group = "tower+http"
        else if (symbol ~ /tracing|nu_ansi_term/) group = "tracing"
        else if (symbol ~ /serde/) group = "json"
        else if (symbol ~ /safezone/) group = "safezone"
        else group = "other"
        shares[group] += share
      }
      END {
        n = split("kernel alloc+copy sqlite sqlx runtime+http tower+http tracing json safezone other", order, " ")
        for (i = 1; i <= n; i++) printf "%s %.0f%%  ", order[i], shares[order[i]]
        printf "\n"
      }'
}

# cpu_profile LABEL URL [LUA_SCRIPT] [CONNECTIONS]: measures the server for 7 s as every row of
# bench.sh is measured (rate, latency, CPU per request) while perf samples 5 s of it.
cpu_profile() {
  connections=${4:-$connections} duration=7s measure "$1" "$2" "${3:-}" &
  local load=$!
  sleep 1
  perf record -q -F 999 -p "$server_pid" -o "$work/perf.data" -- sleep 5 2>/dev/null
  wait "$load"
  echo "    $(cpu_shares)"
}

echo
echo "cpu: where the warp binary's CPU goes, per request type (perf, 999 Hz, 5 s each)"
start cpu-sqlite target/release/safezone-server-warp --listen 127.0.0.1:0 \
  --database-url "sqlite://$work/cpu.db" --game-server-token "$match_token"
cpu_key=$(curl -sf -X POST "$base/api/validate/device/ios-bench-cpu" | grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)
cpu_profile "GET /api/config" "$base/api/config?platform=web"
cpu_profile "sqlite: GET /api/user/{key}" "$base/api/user/$cpu_key"
cpu_profile "sqlite: match report, 100 players" "$base/" "$(match_script)" "$match_connections"
stop

cpu_url=$(fresh_database cpu)
start cpu-postgres target/release/safezone-server-warp --listen 127.0.0.1:0 \
  --database-url "$cpu_url" --game-server-token "$match_token"
cpu_key=$(curl -sf -X POST "$base/api/validate/device/ios-bench-cpu" | grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)
cpu_profile "postgres: GET /api/user/{key}" "$base/api/user/$cpu_key"
mapfile -t cpu_devices < <(signed_in_devices ios-bench-cpu-signer)
cpu_profile "postgres: sign-in, existing device" "$base/" "$(sign_in_script cpu-existing "${cpu_devices[@]}")"
cpu_profile "postgres: buy" "$base/" "$(buy_script "$cpu_url")"
cpu_profile "postgres: match report, 100 players" "$base/" "$(match_script)" "$match_connections"
stop
