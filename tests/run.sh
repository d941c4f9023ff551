#!/usr/bin/env bash
# Run fabtrace's tests: cmocka unit tests (no root), then integration tests
# (root, in the netns lab), with the fuzz targets' short run in between
# (tests/fuzz, docs/fuzzing.md).  Usage: tests/run.sh [unit|fuzz|integration] [NAME-FILTER]
# A test exiting 77 is skipped (it prints why).  Ends with one line
# "N passed, N failed, N skipped" and exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD FABTRACE="$PWD/$BUILD/fabtrace"
what=${1:-all}
filter=${2:-}
pass=0 fail=0 skip=0
failed=()
logdir=$(mktemp -d /tmp/fabtrace-tests.XXXXXX)
# a failed integration test keeps its files (captures, reports) here
export FT_KEEP_FAILED=${FT_KEEP_FAILED:-$logdir/files}

run_one() { # name, timeout, command...
	local name=$1 tmo=$2 start rc log
	shift 2
	log="$logdir/${name//\//_}.log"
	[[ -n $filter && $name != *"$filter"* ]] && return
	start=$(date +%s)
	timeout --kill-after=10 "$tmo" "$@" >"$log" 2>&1
	rc=$?
	local secs=$(($(date +%s) - start))
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-40s %4ss\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(tail -n 1 "$log")" ;;
	*)
		fail=$((fail + 1)); failed+=("$name")
		printf 'FAIL  %-40s %4ss (exit %s)\n' "$name" "$secs" "$rc"
		# the failed checks first (a long log's tail may not hold them), then the tail
		grep -E '^(FAIL|\[  FAILED|==[0-9]+==ERROR|.*runtime error:)' "$log" | head -n 15 | sed 's/^/      ! /'
		sed 's/^/      | /' "$log" | tail -n 40
		;;
	esac
}

if [[ $what == all || $what == unit ]]; then
	echo "== unit tests (cmocka)"
	for t in "$BUILD"/tests/test_*; do
		[[ -x $t ]] || continue
		run_one "unit/$(basename "$t")" 300 "$t"
	done
fi
if [[ $what == all || $what == fuzz ]]; then
	# per target: every corpus and regression input once, then FUZZ_SMOKE_SECS of fuzzing;
	# the first one builds the targets (clang; skipped without libFuzzer)
	echo "== fuzz targets (libFuzzer, ${FUZZ_SMOKE_SECS:-8} s each)"
	for t in tests/fuzz/fuzz_*.c; do
		[[ -f $t ]] || continue
		t=$(basename "$t" .c)
		run_one "fuzz/$t" 900 tests/fuzz/run.sh smoke "$t"
	done
fi
if [[ $what == all || $what == integration ]]; then
	echo "== integration tests (root, netns lab)"
	for t in tests/integration/test_*.sh; do
		[[ -f $t ]] || continue
		run_one "integration/$(basename "$t" .sh)" 900 bash "$t"
	done
fi
echo "logs: $logdir"
((fail)) && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0))
