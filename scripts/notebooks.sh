#!/usr/bin/env bash
# Executes every notebook in notebooks/ with a real Jupyter client
# (jupyter nbconvert --execute) against a freshly built gnnrepl kernel and
# fails on any cell error. The kernelspec goes into a temporary Jupyter data
# directory, so nothing outside the temporary directory is touched. Skips
# with a message when Jupyter's nbconvert is not installed (Debian:
# jupyter-nbconvert, python3-nbclient, jupyter-client).
#
# Environment: GNNREPL_DATA (default ../shared/data relative to the repo,
# or $GNNREPL_SHARED_DATA) is where the kernel loads datasets from;
# NOTEBOOK_TIMEOUT is the per-cell timeout in seconds (default 600);
# KEEP_OUTPUT=DIR copies the executed notebooks to DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if ! command -v jupyter >/dev/null 2>&1 || ! jupyter nbconvert --version >/dev/null 2>&1; then
  echo "notebooks.sh: jupyter nbconvert is not installed; skipping the notebooks (apt-get install jupyter-nbconvert python3-nbclient jupyter-client)" >&2
  exit 0
fi

shopt -s nullglob
notebooks=(notebooks/*.ipynb)
if [ ${#notebooks[@]} -eq 0 ]; then
  echo "notebooks.sh: no notebooks in notebooks/" >&2
  exit 0
fi

export GNNREPL_DATA="${GNNREPL_DATA:-${GNNREPL_SHARED_DATA:-$(cd "$root/.." && pwd)/shared/data}}"
timeout="${NOTEBOOK_TIMEOUT:-600}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/bin/gnnrepl" ./cmd/gnnrepl
"$tmp/bin/gnnrepl" kernel install --prefix "$tmp/jupyter" --name gnnrepl >/dev/null
# Only our data directory: the kernel under test, not one installed elsewhere.
export JUPYTER_PATH="$tmp/jupyter/share/jupyter"
export JUPYTER_DATA_DIR="$tmp/jupyter-data"
export JUPYTER_RUNTIME_DIR="$tmp/jupyter-runtime"
export JUPYTER_CONFIG_DIR="$tmp/jupyter-config"
export PYDEVD_DISABLE_FILE_VALIDATION=1

status=0
for nb in "${notebooks[@]}"; do
  start=$(date +%s)
  if jupyter nbconvert --to notebook --execute \
      --ExecutePreprocessor.kernel_name=gnnrepl \
      --ExecutePreprocessor.timeout="$timeout" \
      --output-dir "$tmp/out" "$nb" >"$tmp/log" 2>&1; then
    echo "ok   $nb ($(( $(date +%s) - start )) s)"
  else
    echo "FAIL $nb" >&2
    if grep -q CellExecutionError "$tmp/log"; then
      sed -n '/^nbclient.exceptions.CellExecutionError/,$p' "$tmp/log" | head -60 >&2
    else
      grep -v -e 'frozen modules' -e 'Debugger' -e 'PYDEVD' -e 'Xfrozen_modules' "$tmp/log" | tail -40 >&2
    fi
    status=1
  fi
done
if [ -n "${KEEP_OUTPUT:-}" ] && [ -d "$tmp/out" ]; then
  mkdir -p "$KEEP_OUTPUT"
  cp "$tmp/out"/*.ipynb "$KEEP_OUTPUT"/
fi
exit $status
