# Section `profile` of examples/bench.sh (issue 8), sourced by it; not among the default
# sections, since it needs perf (apt-get install linux-perf; root or
# kernel.perf_event_paranoid <= 1). Where the warp binary's CPU goes with the production
# features on: rate limits counting every request (read limits far too high to refuse
# anything), Prometheus recording and JSON logs. A throughput comparison cannot see a few
# percent on this shared 2-CPU machine (two runs of one configuration differ by up to 15%); a
# CPU profile of one run can.
#
# Workload: the warp binary on SQLite; wrk sends GET /api/config?platform=web (no database),
# then GET /api/user/{key} (one key: the per-account limit looks its account up); perf samples
# the server at 999 Hz for 9 s of each. Prints each read's req/s and the share of the server's
# samples in each feature's symbols (code inlined into other functions counts there).

profile_limits="read:address=100000000/s,read:account=100000000/s"

# profile_share PATTERN: the percentage of the last profile's samples in symbols matching PATTERN.
profile_share() {
  perf report -i "$work/perf.data" --no-children --sort symbol --stdio 2>/dev/null |
    grep -E "$1" | awk '{ sum += $1 } END { printf "%5.2f%%", sum }'
}

echo
echo "profile: warp + SQLite with rate limits, metrics and JSON logs on; share of its CPU samples"
start profile env "SAFEZONE_RATE_LIMITS=$profile_limits" target/release/safezone-server-warp \
  --listen 127.0.0.1:0 --database-url "sqlite://$work/profile.db" \
  --metrics-listen 127.0.0.1:0 --log-format json
profile_key=$(curl -sf -X POST "$base/api/validate/device/ios-bench-profile" | grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)
for profile_path in "/api/config?platform=web" "/api/user/$profile_key"; do
  taskset -c 1 wrk -t1 -c"$connections" -d12s "$base$profile_path" >"$work/wrk.txt" &
  profile_wrk=$!
  sleep 1
  perf record -q -F 999 -p "$server_pid" -o "$work/perf.data" -- sleep 9 2>/dev/null
  wait "$profile_wrk"
  echo "warp GET ${profile_path/$profile_key/\{key\}}: $(awk '/Requests\/sec/ { print $2 }' "$work/wrk.txt") req/s"
  echo "  rate limits (governor, rate_limiter):       $(profile_share 'governor|rate_limiter|presented_keys')"
  echo "  metrics (prometheus_client, core metrics):   $(profile_share 'prometheus_client|safezone_core::metrics')"
  echo "  JSON log lines (tracing_subscriber json):    $(profile_share 'tracing_subscriber::fmt::format::json|JsonVisitor')"
done
stop
