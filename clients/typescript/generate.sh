#!/usr/bin/env bash
# Regenerates the client's types (src/schema.d.ts) from the API's OpenAPI 3.1 document, written
# by the server binary's `openapi` subcommand (no database, no server), with openapi-typescript.
# Needs `npm ci` in this folder. CI runs it and fails when the committed file differs.
#
#   clients/typescript/generate.sh
#
# SAFEZONE_BIN names a built server binary to use instead of `cargo run`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ -n "${SAFEZONE_BIN:-}" ]; then
  "$SAFEZONE_BIN" openapi --out "$work/openapi.json"
else
  cargo run --quiet --manifest-path "$root/Cargo.toml" -p safezone-server-warp -- \
    openapi --out "$work/openapi.json"
fi
"$here/node_modules/.bin/openapi-typescript" "$work/openapi.json" \
  --output "$here/src/schema.d.ts" --silent
