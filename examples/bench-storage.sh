# Section `storage` of examples/bench.sh (sourced; uses its start, stop, measure, fresh_database,
# sign_in_script, signed_in_devices and report_script): what each everyday write keeps in the
# database, as live bytes per table, on SQLite and on PostgreSQL.
#
# Workload, per database, through the warp binary: 2,000 device players and 64 sign-in devices
# are made first, and the players play STORAGE_DURATION (default 10s) of 100-player solo reports
# unmeasured, so that the rows a player's first results create once (progress counters, hourly
# statistics, the first level's rewards) are there, as in a game that runs; then wrk signs in the
# 64 existing devices for STORAGE_DURATION, then posts reports over the same players for
# STORAGE_DURATION. Around each
# phase the server is stopped and every table measured: PostgreSQL after `VACUUM FULL` and a
# `CHECKPOINT` (`pg_total_relation_size`: heap, indexes and TOAST), SQLite after a WAL
# checkpoint and `VACUUM` (the pages of each table and its indexes, from `dbstat`); so only live
# rows count. Printed per table: bytes and rows per existing-device sign-in (the phase's growth
# over the sign-ins wrk saw answered 2xx) and per player result (over the match log's new rows),
# then the totals. The retention sweep runs at start with its defaults; a phase of 10 s is well
# inside every retention window, so these are the bytes written, not the bytes kept.

storage_duration=${STORAGE_DURATION:-10s}

# table_sizes DATABASE URL FILE: writes `table bytes rows` for every table of the database to
# FILE, live rows only. The server must be stopped (SQLite's VACUUM needs the file to itself).
table_sizes() {
  if [ "$1" = sqlite ]; then
    local file=${2#sqlite://}
    sqlite3 "$file" 'PRAGMA wal_checkpoint(TRUNCATE);' 'VACUUM;' >/dev/null
    local table
    sqlite3 -separator ' ' "$file" "
      SELECT m.tbl_name, SUM(d.pgsize) FROM dbstat d JOIN sqlite_master m ON m.name = d.name
      WHERE m.tbl_name NOT LIKE 'sqlite_%' AND m.tbl_name NOT LIKE '_sqlx%'
      GROUP BY m.tbl_name ORDER BY m.tbl_name" >"$3.bytes"
    while read -r table _; do
      echo "$table $(sqlite3 "$file" "SELECT COUNT(*) FROM \"$table\"")"
    done <"$3.bytes" >"$3.rows"
  else
    # A dead row that a transaction still running may see (another database's, on a shared
    # server) survives VACUUM FULL: vacuum again until the sizes hold still (at most 5 times).
    local previous= sizes
    for _ in 1 2 3 4 5; do
      psql -qAt "$2" -c 'VACUUM FULL' -c 'CHECKPOINT' >/dev/null
      sizes=$(psql -qAt -F ' ' "$2" -c "
        SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname NOT LIKE '_sqlx%'
        ORDER BY c.relname")
      [ "$sizes" = "$previous" ] && break
      previous=$sizes
      sleep 1
    done
    echo "$sizes" >"$3.bytes"
    local table
    while read -r table _; do
      echo "$table $(psql -qAt "$2" -c "SELECT COUNT(*) FROM \"$table\"")"
    done <"$3.bytes" >"$3.rows"
  fi
  LC_ALL=C join <(LC_ALL=C sort "$3.bytes") <(LC_ALL=C sort "$3.rows") >"$3"
}

# answered_2xx: the requests of the last wrk run that were answered 2xx.
answered_2xx() {
  awk '/requests in/ { requests = $1 } /Non-2xx/ { errors = $NF }
    END { print requests - errors }' "$work/wrk.txt"
}

# growth LABEL BEFORE AFTER COUNT COUNTED: prints each table's growth from BEFORE to AFTER in
# bytes and rows per COUNT (what COUNTED names), largest first, and the total.
growth() {
  echo "$1 ($4 $5)"
  LC_ALL=C join -a 2 -e 0 -o 0,1.2,1.3,2.2,2.3 "$2" "$3" >"$work/growth"
  awk -v n="$4" '{ bytes = ($4 - $2) / n; rows = ($5 - $3) / n
      if (bytes != 0 || rows != 0) printf "  %-28s %8.1f bytes %7.3f rows\n", $1, bytes, rows }' \
    "$work/growth" | sort -k2 -n -r
  awk -v n="$4" '{ total += ($4 - $2) / n } END { printf "  %-28s %8.1f bytes\n", "total", total }' \
    "$work/growth"
}

for database in sqlite postgres; do
  if [ "$database" = sqlite ]; then
    url="sqlite://$work/bench-storage.db"
  else
    url=$(fresh_database storage)
  fi
  serve() {
    start "warp-storage-$database" target/release/safezone-server-warp --listen 127.0.0.1:0 \
      --database-url "$url" --game-server-token "$match_token"
  }
  serve
  mapfile -t devices < <(signed_in_devices ios-bench-keeper)
  storage_ids=$(seq 1 2000 | xargs -P 16 -I{} curl -sf -X POST "$base/api/validate/device/ios-bench-stored-{}" \
    | grep -o '"user":{"id":[0-9]*' | cut -d: -f3 | paste -sd, -)
  report_script "$storage_ids" "storage-warm-up-$database" "$work/storage-warm-up.lua"
  connections=$match_connections duration=$storage_duration \
    measure "warp + $database: warm-up reports (unmeasured)" "$base/" "$work/storage-warm-up.lua"
  stop
  table_sizes "$database" "$url" "$work/sizes-0"

  serve
  duration=$storage_duration measure "warp + $database: sign-in, existing device" "$base/" \
    "$(sign_in_script storage-existing "${devices[@]}")"
  sign_ins=$(answered_2xx)
  stop
  table_sizes "$database" "$url" "$work/sizes-1"

  serve
  report_script "$storage_ids" "storage-$database" "$work/storage-match.lua"
  connections=$match_connections duration=$storage_duration \
    measure "warp + $database: POST /internal/matches" "$base/" "$work/storage-match.lua"
  stop
  table_sizes "$database" "$url" "$work/sizes-2"
  results=$(LC_ALL=C join "$work/sizes-1" "$work/sizes-2" | awk '$1 == "match_log" { print $5 - $3 }')

  growth "$database: live bytes per existing-device sign-in" "$work/sizes-0" "$work/sizes-1" \
    "$sign_ins" "sign-ins"
  growth "$database: live bytes per player result" "$work/sizes-1" "$work/sizes-2" \
    "$results" "player results"
done
