#!/usr/bin/env bash
# Vendors the API reference page's renderer, Swagger UI, from the npm registry into
# core/assets/docs/ (compiled into the binaries by core/src/api/docs.rs): the browser bundle,
# its stylesheet and licence files, unchanged. `npm pack` checks the tarball against the
# registry's integrity hash.
#
#   scripts/update-docs-renderer.sh            the version named in core/assets/docs/VERSION
#   scripts/update-docs-renderer.sh 5.36.0     another version (written to VERSION)
#
# Then run `cargo nextest run -p safezone-tests -E 'test(/reference_page/)'` (the page in
# headless Chromium under the service's content policy) and commit the folder.
set -euo pipefail
cd "$(dirname "$0")/.."

assets=core/assets/docs
version="${1:-$(cat "$assets/VERSION")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

tarball="$(npm pack --silent --pack-destination "$work" "swagger-ui-dist@$version")"
tar -xzf "$work/$tarball" -C "$work"
for file in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css LICENSE NOTICE; do
  cp "$work/package/$file" "$assets/$file"
done
echo "$version" > "$assets/VERSION"
echo "swagger-ui-dist $version vendored in $assets"
