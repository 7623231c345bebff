#!/usr/bin/env bash
# gpu-check.sh: the GPU check of gnnrepl, for a machine with an NVIDIA GPU
# and no Go toolchain. It runs test binaries built elsewhere, all GPU parity
# tests (-test.v) and the GPU benchmarks, and prints one summary. The whole
# run stays under 5 minutes.
#
# Build the binaries on a machine with Go (from the repository root):
#
#   scripts/gpu-check.sh build        # = CGO_ENABLED=0 go test -c -o .devbin/kernels.test ./kernels/ (and every package in PKGS)
#
# Tests reading real datasets (tensor's Cora GCN) find them through
# $GNNREPL_SHARED_DATA; when it is unset and .devdata/ exists (a git-ignored
# copy of the needed ../shared/data folders, carried with the tree), the
# script points it there.
#
# then, on the GPU machine, from the repository root (.devbin travels with
# the tree; it is git-ignored):
#
#   scripts/gpu-check.sh              # tests + benchmarks
#   scripts/gpu-check.sh tests        # tests only
#
# A binary .devbin/A__B.test is the test binary of package ./A/B and runs in
# that directory (tests read their package's files). Logs go to $OUT when it
# is set (the device tool's output folder), else to /tmp/gpu-check. Exit
# status 0 only when every test binary passed.
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
PKGS=(kernels tensor tensor/backendtest nn optim profile sampling dist)   # packages whose test binaries `build` makes (backendtest: RunAll on cuda:0, every dtype; nn, optim: training and optimizer steps on cuda vs cpu; profile: CUDA time from events; sampling: DataLoader on cuda with and without PinMemory, products epoch on the GPU; dist: TestNCCLGPU, NCCL comm init + all-reduce of a device tensor with one rank, when libnccl.so.2 is there)
# Per-package selections (default: every test and benchmark of the binary).
# sampling's CPU tests and products-scale CPU benchmarks are not GPU checks
# (the CPU epochs alone would take many minutes): only its CUDA ones run.
# Its products benchmark builds the 2.45M-node graph first, hence the
# longer time limit.
declare -A TESTS_RE=([sampling]='CUDA|PinMemory')
declare -A BENCH_RE=([sampling]='CUDA')
declare -A BENCH_TIMEOUT=([sampling]=280)

if [ "${1:-}" = "build" ]; then
	mkdir -p .devbin
	for p in "${PKGS[@]}"; do
		echo "building .devbin/${p//\//__}.test"
		CGO_ENABLED=0 go test -c -o ".devbin/${p//\//__}.test" "./$p/" || exit 1
	done
	exit 0
fi
MODE=${1:-all}
LOG=${OUT:-/tmp/gpu-check}
mkdir -p "$LOG"
T0=$(date +%s)

echo "== machine"
HAVE_GPU=0
nvidia-smi -L >/dev/null 2>&1 && HAVE_GPU=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader 2>&1 | head -4
# cuBLAS may live outside the loader's path (CUDA toolkit, Python wheels):
# hand its directories to the kernels package.
LIBDIRS=$(find /usr/local /usr/lib /usr/lib64 /opt -maxdepth 9 \( -name 'libcublas.so.1[0-9]*' -o -name 'libcuda.so.1' \) 2>/dev/null |
	xargs -r -n1 dirname | sort -u | tr '\n' ':')
export GNNREPL_CUDA_LIB_PATH="${GNNREPL_CUDA_LIB_PATH:-}${GNNREPL_CUDA_LIB_PATH:+:}${LIBDIRS%:}"
echo "CUDA library dirs: $GNNREPL_CUDA_LIB_PATH"
if [ -z "${GNNREPL_SHARED_DATA:-}" ] && [ -d .devdata ]; then
	export GNNREPL_SHARED_DATA="$ROOT/.devdata"
fi

shopt -s nullglob
BINS=(.devbin/*.test)
if [ ${#BINS[@]} -eq 0 ]; then
	echo "no test binaries in .devbin: run scripts/gpu-check.sh build where Go is installed" >&2
	exit 2
fi

status=0
for bin in "${BINS[@]}"; do
	name=$(basename "$bin" .test)
	dir=${name//__//}
	[ -d "$dir" ] || { echo "no package directory $dir for $bin" >&2; status=1; continue; }
	chmod +x "$bin"
	# Each test and each benchmark runs in its own process, so a crash or a
	# hang in one (each is time-limited) does not hide the others' results.
	tests=$(cd "$dir" && "$ROOT/$bin" -test.list '.*' | grep '^Test' | grep -E -- "${TESTS_RE[$name]:-.}")
	benches=$(cd "$dir" && "$ROOT/$bin" -test.list '.*' | grep '^Benchmark' | grep -E -- "${BENCH_RE[$name]:-.}")
	btime=${BENCH_TIMEOUT[$name]:-150}
	echo "== $name: $(echo $tests | wc -w) tests"
	: >"$LOG/$name-tests.log"
	for tn in $tests; do
		(cd "$dir" && timeout 90 "$ROOT/$bin" -test.run="^${tn}\$" -test.v -test.count=1 -test.timeout=85s) >>"$LOG/$name-tests.log" 2>&1
		rc=$?
		if [ $rc -ne 0 ]; then
			status=1
			echo "--- FAIL: $tn (process exit $rc)" >>"$LOG/$name-tests.log"
		fi
	done
	if [ $HAVE_GPU = 1 ] && grep -q 'no CUDA GPU' "$LOG/$name-tests.log"; then
		echo "nvidia-smi sees a GPU but $name skipped GPU tests:"; grep -m1 'no CUDA GPU' "$LOG/$name-tests.log"
		status=1
	fi
	grep -E '^(--- FAIL|--- SKIP|panic|FAIL)|^ +--- FAIL' "$LOG/$name-tests.log" | head -40
	echo "$name: $(grep -c -- '^--- PASS' "$LOG/$name-tests.log") passed, $(grep -c -- '^--- FAIL' "$LOG/$name-tests.log") failed, $(grep -c -- '^--- SKIP' "$LOG/$name-tests.log") skipped"
	if [ "$MODE" = "all" ] && [ -n "$benches" ]; then
		echo "== $name: benchmarks"
		: >"$LOG/$name-bench.log"
		for bn in $benches; do
			(cd "$dir" && timeout "$btime" "$ROOT/$bin" -test.run='^$' -test.bench="^${bn}\$" -test.benchtime=20x -test.timeout=$((btime - 5))s) >>"$LOG/$name-bench.log" 2>&1
			brc=$?
			if [ $brc -ne 0 ]; then
				status=1
				echo "FAIL: $bn (process exit $brc)" >>"$LOG/$name-bench.log"
			fi
		done
		grep -E '^(Benchmark|FAIL|panic)' "$LOG/$name-bench.log" | head -40
	fi
done

echo
echo "================ gpu-check summary ================"
for f in "$LOG"/*-tests.log; do
	n=$(basename "$f" -tests.log)
	echo "$n: $(grep -c -- '^--- PASS' "$f") tests passed, $(grep -c -- '^--- FAIL' "$f") failed, $(grep -c -- '^--- SKIP' "$f") skipped"
	grep -E -- '^ *--- FAIL' "$f" | sed 's/^/  /'
	grep -E 'no CUDA GPU' "$f" | head -1 | sed 's/^ */  skip reason: /'
done
grep -h 'SUMMARY' "$LOG"/*-tests.log "$LOG"/*-bench.log 2>/dev/null | sed 's/^.*SUMMARY /  /'
echo "elapsed $(( $(date +%s) - T0 )) s; logs in $LOG; status $status"
exit $status
