# Section `day` of examples/bench.sh (sourced; uses its fresh_database), not run by default: a
# realistic day of a live game against two nodes on one PostgreSQL database (issue 28, goal 4),
# played by examples/day/ (a Rust example: a hyper client, one thread).
#
# Workload: the warp and the rocket binary on one fresh PostgreSQL database, each with the
# game-server credential, a signed webhook to the generator's own receiver and NATS JetStream
# (127.0.0.1:4222, a stream of the run's own). The database first gets the history of a game
# that has run for a year: DAY_HISTORY_PLAYERS (1,000,000) players and DAY_HISTORY_RESULTS
# (10,000,000) match results, written by examples/leaderboard_seed.sql (0 players: no history);
# the nodes' first start reads it into their boards. DAY_PLAYERS (10,000) devices sign up and
# claim their welcome reward first, unmeasured; then for DAY_DURATION (60m), requests go to a
# random running node, open loop:
# - players at DAY_RATE (1200) requests/s, drawn per request from this mix (per 1,000): config
#   poll 312, account read 160, sign-in of an existing device 100 and of a new one 3 (which
#   claims its welcome reward at once), leaderboards 90 (random mode, window and category, with
#   the key), profiles 40, rewards list 45, claims 40, shop 45, quests 25, tracks 25, buys 35 (a
#   Basic Chest for coins or a Rare Chest for gems, when the player can pay), pack openings 25
#   (when the player holds one), poll list 25, votes 20, renames 8 and account deletions 2 (a
#   second sign-in, then delete-account with that key); a player who cannot do what was drawn
#   does the read the client would do instead. Every buy, opening, claim and rename carries an
#   Idempotency-Key;
# - the game server: DAY_MATCHES_PER_MIN (60) 100-player reports (solo, duo or squad) over
#   random players;
# - operators through the operator API: a lookup every 10 s, a grant every 20 s, a ban every
#   45 s (lifted at the next), a poll at the start and halfway, content published at a third and
#   two thirds of the run (the client's version changed) and rolled back at five sixths;
# - at DAY_RESTART_AT (a quarter) of the run, the rocket node is taken out of the rotation,
#   stopped with SIGTERM, started again DAY_RESTART_DOWN_SECS (5) later, and put back once its
#   /readyz answers 200 (as at the start). A request left
#   unanswered is sent again to the other node only when it may be: reads, writes with an
#   Idempotency-Key, match reports (idempotent by match id); never a sign-in, vote, deletion or
#   operator change.
# Recorded: per kind of request the rate, p50, p99, 2xx, 4xx (by code), 5xx, unanswered and
# retried (requests.csv); every 10 s the throughput, read and write p50 and p99, errors, each
# node's RSS, CPU and boards' memory (its safezone_leaderboard_memory_bytes), PostgreSQL's and
# the machine's CPU, pg_database_size, and the relay's lag: the age of the oldest event not
# sequenced yet, of the oldest each sink (webhook, NATS) has not delivered (from
# event_consumers), and the p99 from an event's `at` to its arrival at the
# receiver and at the NATS consumer (timeline.csv). At the end, once every sink caught up, the
# invariants from the database (examples/day/invariants.rs says each precisely): balances equal
# their ledgers, every committed change has exactly one event, every event reached the webhook
# receiver and the NATS consumer (duplicates allowed, no loss), and every economy change answered
# 2xx is in the database (summary.json; the run exits 1 when one is broken). Then
# examples/day-charts.py draws throughput, p99, RSS, database size, relay lag and CPU as PNGs
# (needs matplotlib: pip install matplotlib).
# DAY_OUT names the results folder (target/day-<time> by default). A run takes DAY_DURATION plus
# about 2 minutes (the nodes' start, the sign-ups, the drain and the checks).

day_out=${DAY_OUT:-target/day-$(date -u +%Y%m%dT%H%M%SZ)}
day_url=$(fresh_database day)
# A database that serves for an hour needs autovacuum (PostgreSQL's default; this machine's
# conf.d turns it off for the tests): without it, tables bloat with dead rows, are never
# analysed, and a plan a connection cached while a table was small stays (seen: a sequential
# scan of `progress` per account read, PostgreSQL's CPU up 50% in 25 minutes). When it is off,
# the run turns it on (ALTER SYSTEM) and resets it at the end.
if [ "$(psql -qAt "$postgres_admin" -c 'SHOW autovacuum')" = off ]; then
  echo "day: autovacuum is off on this PostgreSQL; on for the run"
  psql -q "$postgres_admin" -c "ALTER SYSTEM SET autovacuum = on" -c "SELECT pg_reload_conf()" >/dev/null
  day_reset_autovacuum() {
    psql -q "$postgres_admin" -c "ALTER SYSTEM RESET autovacuum" -c "SELECT pg_reload_conf()" >/dev/null
  }
else
  day_reset_autovacuum() { :; }
fi
day_history_players=${DAY_HISTORY_PLAYERS:-1000000}
day_history_results=${DAY_HISTORY_RESULTS:-10000000}
echo "day: $(nproc) CPUs; DAY_DURATION=${DAY_DURATION:-60m} DAY_RATE=${DAY_RATE:-1200}" \
  "DAY_MATCHES_PER_MIN=${DAY_MATCHES_PER_MIN:-60} DAY_PLAYERS=${DAY_PLAYERS:-10000}" \
  "DAY_HISTORY_PLAYERS=$day_history_players DAY_HISTORY_RESULTS=$day_history_results; results in $day_out"
if [ "$day_history_players" != 0 ]; then
  target/release/safezone-server-warp --database-url "$day_url" migrate apply >/dev/null
  day_seeded=$(date +%s)
  psql -q -v players="$day_history_players" -v results="$day_history_results" \
    -f examples/leaderboard_seed.sql "$day_url" >/dev/null
  echo "day: history seeded in $(($(date +%s) - day_seeded)) s"
fi
day_status=0
target/release/examples/day target/release/safezone-server-warp \
  target/release/safezone-server-rocket "$day_url" "$day_out" || day_status=$?
day_reset_autovacuum
python3 -c 'import matplotlib' 2>/dev/null || pip install -q matplotlib
python3 examples/day-charts.py "$day_out"
[ "$day_status" = 0 ] || { echo "day: an invariant was broken (exit $day_status)" >&2; exit "$day_status"; }
