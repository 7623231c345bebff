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
  if ! [[ "$last" =~ ^[a-z][a-z0-9\ _@-]*:\ -?[0-9.]+(e-?[0-9]+)?$ ]]; then
    echo "FAIL $f: last line is not 'name: value': $last"; status=1; continue
  fi
  echo "ok   $f ($(( $(date +%s) - start )) s): $last"
done
# The data-parallel example also runs on 2 ranks under mpirun, where it is
# installed (openmpi-bin), with a checkpoint: a second run resumes from the
# last epoch's checkpoint and must end with the same metric line.
if command -v mpirun >/dev/null 2>&1; then
  mpi=(mpirun --oversubscribe -np 2 -x OMPI_MCA_btl=self,vader)
  [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
  ckpt="$(dirname "$bin")/ddp_sage.safetensors"
  f=examples/ddp_sage.go
  start=$(date +%s)
  if ! out=$(DDP_SAGE_CHECKPOINT="$ckpt" DDP_SAGE_EPOCHS=10 "${mpi[@]}" -x DDP_SAGE_CHECKPOINT -x DDP_SAGE_EPOCHS "$bin" --data "$data" run "$f" 2>&1); then
    echo "FAIL mpirun -np 2 $f:"; echo "$out" | tail -20; status=1
  else
    last=$(printf '%s\n' "$out" | tail -1)
    again=$(DDP_SAGE_CHECKPOINT="$ckpt" DDP_SAGE_EPOCHS=10 "${mpi[@]}" -x DDP_SAGE_CHECKPOINT -x DDP_SAGE_EPOCHS "$bin" --data "$data" run "$f" 2>&1 | tail -1)
    if [ "$again" != "$last" ]; then
      echo "FAIL mpirun -np 2 $f: resumed from its checkpoint it ended with '$again', not '$last'"; status=1
    else
      echo "ok   mpirun -np 2 $f, then resumed ($(( $(date +%s) - start )) s): $last"
    fi
  fi
fi
rm -rf "$(dirname "$bin")"
exit $status
