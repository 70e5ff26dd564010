#!/usr/bin/env bash
# Regenerates the @noble/curves known-answer vectors with the pinned noble version
# (package-lock.json) and checks that they reproduce tests/data/noble_vectors.txt byte for
# byte. Exits non-zero on any difference. Needs node and npm (the npm registry on first run).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --silent --no-audit --no-fund
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
node gen.mjs >"$tmp"
if cmp "$tmp" ../../tests/data/noble_vectors.txt; then
  echo "noble vectors: regeneration matches tests/data/noble_vectors.txt"
else
  echo "noble vectors: regenerated output differs from tests/data/noble_vectors.txt" >&2
  diff "$tmp" ../../tests/data/noble_vectors.txt | head -20 >&2 || true
  exit 1
fi
