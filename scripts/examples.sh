#!/usr/bin/env bash
# Runs every examples/*.go with `gnnrepl run` on the shared data and checks
# that each exits 0 and ends with its metric line `name: value`.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${GNNREPL_SHARED_DATA:-$(cd .. && pwd)/shared/data}"
bin="$(mktemp -d)/gnnrepl"
go build -o "$bin" ./cmd/gnnrepl
status=0
for f in examples/*.go; do
  start=$(date +%s)
  if ! out=$("$bin" --data "$data" run "$f" 2>&1); then
    echo "FAIL $f:"; echo "$out" | tail -20; status=1; continue
  fi
  last=$(printf '%s\n' "$out" | tail -1)
  if ! [[ "$last" =~ ^[a-z][a-z0-9\ _-]*:\ -?[0-9.]+(e-?[0-9]+)?$ ]]; then
    echo "FAIL $f: last line is not 'name: value': $last"; status=1; continue
  fi
  echo "ok   $f ($(( $(date +%s) - start )) s): $last"
done
rm -rf "$(dirname "$bin")"
exit $status
