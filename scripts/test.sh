#!/usr/bin/env bash
# The project's test command: vet, every Go test (GPU tests skip without a
# GPU), and every notebook in notebooks/ executed by a real Jupyter client
# against the gnnrepl kernel when Jupyter is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
export GNNREPL_SHARED_DATA="${GNNREPL_SHARED_DATA:-$(cd .. && pwd)/shared/data}"
unformatted=$(gofmt -l $(git ls-files '*.go' | grep -v '/testdata/'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on: $unformatted" >&2
  exit 1
fi
go vet ./...
go test -count=1 -timeout 25m ./...
scripts/examples.sh
if [ -x scripts/notebooks.sh ]; then
  scripts/notebooks.sh
fi
