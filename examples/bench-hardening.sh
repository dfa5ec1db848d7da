# Section `hardening` of examples/bench.sh (issue 8), sourced by it: what the production
# features cost on the warp binary over SQLite, each configuration measured right after the
# other in one run, beside the run's bare hyper baseline.
#
# Workload: GET /api/config?platform=web (no database) and GET /api/user/{key} (one key, one
# account: the per-account limit's lookup included), each server on CPU 0 and wrk on CPU 1.
# Configurations: plain (no limits, no metrics, text logs); rate limits on with figures too high
# to refuse anything (so every request is counted by address and, for the user read, account);
# Prometheus recording on (--metrics-listen); JSON logs; all three together.

hardening_high_limits="read:address=100000000/s,read:account=100000000/s"

# hardening_run LABEL ENV... -- FLAGS...: starts the warp binary with ENV and FLAGS, measures both
# reads.
hardening_run() {
  local label=$1
  shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  start "hardening-$label" env "${envs[@]}" target/release/safezone-server-warp \
    --listen 127.0.0.1:0 --database-url "sqlite://$work/hardening.db" "$@"
  local key
  key=$(curl -sf -X POST "$base/api/validate/device/ios-bench-hardening" | grep -o '"key":"[0-9a-f]*"' | cut -d'"' -f4)
  measure "warp $label: GET /api/config" "$base/api/config?platform=web"
  measure "warp $label: GET /api/user/{key}" "$base/api/user/$key"
  stop
}

echo
echo "hardening: each configuration after the other, warp + SQLite"
hardening_run "plain" SAFEZONE_RATE_LIMITS=off --
hardening_run "rate limits" "SAFEZONE_RATE_LIMITS=$hardening_high_limits" --
hardening_run "metrics" SAFEZONE_RATE_LIMITS=off -- --metrics-listen 127.0.0.1:0
hardening_run "json logs" SAFEZONE_RATE_LIMITS=off -- --log-format json
hardening_run "all three" "SAFEZONE_RATE_LIMITS=$hardening_high_limits" -- \
  --metrics-listen 127.0.0.1:0 --log-format json
hardening_run "plain again" SAFEZONE_RATE_LIMITS=off --
