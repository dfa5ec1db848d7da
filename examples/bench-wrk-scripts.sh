#!/usr/bin/env bash
# The wrk scripts of the benchmarks, sourced by examples/bench.sh (and the sections it sources)
# and examples/bench-ab.sh: account keys in turn, device sign-ins, 100-player match reports.
# `sign_in_script` writes into `$work`; `report_script` needs `match_token`, the game server's
# credential the server under test was started with.

# keys_script FILE METHOD SUFFIX KEYS...: writes to FILE a wrk script sending
# METHOD /api/user/{key}SUFFIX with the user keys KEYS in turn.
keys_script() {
  local file=$1 method=$2 suffix=$3 quoted=() key
  shift 3
  for key in "$@"; do
    quoted+=("\"$key\"")
  done
  local IFS=,
  cat >"$file" <<LUA
keys = {${quoted[*]}}
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("$method", "/api/user/" .. keys[(counter % #keys) + 1] .. "$suffix")
end
LUA
}

# sign_in_script NAME IDS...: writes a wrk script that signs in a device per request, cycling
# over the device ids IDS (`new`: a fresh id per request), and prints its path.
sign_in_script() {
  local script="$work/$1.lua"
  shift
  local ids=("$@") IFS=,
  cat >"$script" <<LUA
ids = {${ids[*]}}
counter = 0
request = function()
  counter = counter + 1
  local id = #ids > 0 and ids[(counter % #ids) + 1] or ("ios-bench-new-" .. counter)
  return wrk.format("POST", "/api/validate/device/" .. id)
end
LUA
  echo "$script"
}

# report_script IDS PREFIX FILE: writes to FILE a wrk script that posts one 100-player solo report
# per request, cycling over the blocks of 100 of the comma-separated account IDS, with match ids
# PREFIX-1, PREFIX-2, ...
report_script() {
  cat >"$3" <<LUA
ids = {$1}
blocks = math.floor(#ids / 100)
counter = 0
started = "$(date -u -d '-21 minutes' +%FT%TZ)"
ended = "$(date -u -d '-1 minute' +%FT%TZ)"
headers = {["Authorization"] = "Bearer $match_token", ["Content-Type"] = "application/json"}
request = function()
  counter = counter + 1
  local block = counter % blocks
  local players = {}
  for place = 1, 100 do
    players[place] = string.format(
      '{"accountId":%d,"placement":%d,"kills":%d,"timeAlive":%d,"stats":{"damage":%d}}',
      ids[block * 100 + place], place, (101 - place) % 10, 1200 - place * 10, 50 * (101 - place))
  end
  local body = string.format(
    '{"matchId":"$2-%d","mode":"solo","startedAt":"%s","endedAt":"%s","players":[%s]}',
    counter, started, ended, table.concat(players, ","))
  return wrk.format("POST", "/internal/matches", headers, body)
end
LUA
}
