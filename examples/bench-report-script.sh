#!/usr/bin/env bash
# The match reports' wrk script of the benchmarks, sourced by examples/bench.sh (for its match,
# boards and storage sections) and examples/bench-ab.sh; needs `match_token`, the game server's
# credential the server under test was started with.

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
