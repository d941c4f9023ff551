#!/usr/bin/env bash
# Run the libFuzzer targets (docs/fuzzing.md).
#
#   tests/fuzz/run.sh replay [TARGET...]  every file of corpus/TARGET and regress/TARGET once
#   tests/fuzz/run.sh smoke  [TARGET...]  replay, then fuzz FUZZ_SMOKE_SECS (8) each (tests/run.sh fuzz)
#   tests/fuzz/run.sh long   [TARGET...]  fuzz FUZZ_TIME (600) seconds each, FUZZ_JOBS (2) processes;
#                                         the corpus grows in $BUILD/fuzz/corpus/TARGET (not in git)
#
# TARGET is fuzz_capture, fuzz_records, ...; none = all.  The targets are built
# first (make fuzz-build, clang).  Crashes are kept in $BUILD/fuzz/crashes/TARGET/
# and printed with the commands that reproduce them and add them to regress/.
# Exits 0 when nothing crashed, 1 when something did, 77 when clang's libFuzzer
# is missing (skipped).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
mode=${1:-smoke}
shift || true
smoke_secs=${FUZZ_SMOKE_SECS:-8}
long_secs=${FUZZ_TIME:-600}
jobs=${FUZZ_JOBS:-2}
clang=${FUZZ_CC:-clang}

case $mode in
replay | smoke | long) ;;
*) echo "usage: tests/fuzz/run.sh replay|smoke|long [TARGET...]" >&2; exit 2 ;;
esac

# clang with libFuzzer, or skip
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n ? 0 : 0; }' |
	"$clang" -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
	echo "skip: $clang with libFuzzer (-fsanitize=fuzzer) is not available; run make deps (clang, libclang-rt-14-dev)"
	exit 77
fi

targets=("$@")
if ((${#targets[@]} == 0)); then
	for f in tests/fuzz/fuzz_*.c; do
		t=${f##*/}
		targets+=("${t%.c}")
	done
fi
bins=()
for t in "${targets[@]}"; do
	[[ -f tests/fuzz/$t.c ]] || { echo "run.sh: no target $t (tests/fuzz/$t.c)" >&2; exit 2; }
	bins+=("$BUILD/fuzz/$t")
done
make -s -j"$(nproc)" BUILD="$BUILD" "${bins[@]}" || { echo "run.sh: building the fuzz targets failed" >&2; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# the targets' own temporary files go in here too (TMPDIR), so a crash leaves none behind;
# RAM when nothing else is asked for (fuzz_sysfs rebuilds a directory tree per input)
base=${TMPDIR:-/tmp}
[[ -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]] && base=/dev/shm
tmp=$(mktemp -d "$base/fabtrace-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
# -close_fd_mask=2: the code under test prints errors by the thousand; crash
# reports and failed invariants still come through (sanitizer report fd)
common=(-timeout=25 -rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1)
rc=0

crashed() { # target log artifacts-dir
	local t=$1 log=$2 dir=$3 f
	rc=1
	echo "FAIL  $t"
	grep -v -E '^(#[0-9]+|INFO:|stat::|	NEW_FUNC|MS: )' "$log" | tail -n 60 | sed 's/^/      | /'
	for f in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-unit-*; do
		[[ -f $f && $f -nt $tmp/mark ]] || continue   # this run's, not an older one's
		echo "      input: $f"
		echo "      reproduce: $BUILD/fuzz/$t $f"
		echo "      minimize:  $BUILD/fuzz/$t -minimize_crash=1 -max_total_time=60 $f"
		echo "      after the fix, keep it: cp $f tests/fuzz/regress/$t/<what-it-was>"
	done
}

stats() { # log -> "N runs, cov C, ft F" (one process, or -fork's "#N: cov: C ft: F" lines)
	awk '/^stat::number_of_executed_units/ { r = $2 }
	     /^#[0-9]+: cov:/ { r = substr($1, 2, length($1) - 2) }
	     /(DONE|INITED) +cov:|^#[0-9]+: cov:/ {
		for (i = 1; i <= NF; i++) { if ($i == "cov:") c = $(i + 1); if ($i == "ft:") f = $(i + 1) } }
	     END { printf "%s runs, cov %s, ft %s", r, c, f }' "$1"
}

for t in "${targets[@]}"; do
	bin=$BUILD/fuzz/$t
	art=$PWD/$BUILD/fuzz/crashes/$t   # absolute: fuzz_report_args changes directory
	mkdir -p "$art"
	files=() seeds=()
	for d in tests/fuzz/corpus/$t tests/fuzz/regress/$t; do
		[[ -d $d ]] || continue
		seeds+=("$d")
		for f in "$d"/*; do [[ -f $f ]] && files+=("$f"); done
	done
	start=$(date +%s)
	touch "$tmp/mark"
	if [[ $mode != long ]]; then
		# every seed and regression input exactly once (a crash stops here)
		log=$tmp/$t.replay.log
		if ((${#files[@]})) && ! "$bin" "${common[@]}" -artifact_prefix="$art/" "${files[@]}" >"$log" 2>&1; then
			crashed "$t" "$log" "$art"
			continue
		fi
		msg="replayed ${#files[@]} inputs"
		if [[ $mode == smoke ]]; then
			log=$tmp/$t.smoke.log
			mkdir -p "$tmp/$t"
			if ! "$bin" "${common[@]}" -max_total_time="$smoke_secs" -artifact_prefix="$art/" \
				"$tmp/$t" "${seeds[@]}" >"$log" 2>&1; then
				crashed "$t" "$log" "$art"
				continue
			fi
			msg+=", fuzzed ${smoke_secs}s: $(stats "$log")"
		fi
	else
		corpus=$BUILD/fuzz/corpus/$t
		mkdir -p "$corpus"
		log=$BUILD/fuzz/$t.log
		par=()
		((jobs > 1)) && par=(-fork="$jobs")
		echo "      $t: fuzzing ${long_secs}s with $jobs process(es), log $log"
		if ! "$bin" "${common[@]}" "${par[@]}" -max_total_time="$long_secs" -artifact_prefix="$art/" \
			"$corpus" "${seeds[@]}" >"$log" 2>&1; then
			crashed "$t" "$log" "$art"
			continue
		fi
		msg="fuzzed ${long_secs}s: $(stats "$log"), corpus $corpus ($(ls "$corpus" | wc -l) inputs)"
	fi
	printf 'ok    %-18s %4ss  %s\n' "$t" "$(($(date +%s) - start))" "$msg"
done
exit $rc
