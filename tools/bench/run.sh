#!/usr/bin/env bash
# fabtrace benchmarks: run them and rewrite their tables in docs/performance.md.
#
#   sudo tools/bench/run.sh                 every benchmark (~35 min)
#   sudo BENCH_QUICK=1 tools/bench/run.sh   short smoke run (~3 min); the tables go to
#                                           $BUILD/bench/performance.md, not docs/
#   sudo BENCH=hooks tools/bench/run.sh     one benchmark (or a comma list)
#
# `make bench` does the same after installing the tools (tools/deps.sh bench)
# and building.  Environment: BUILD (default build), BENCH, BENCH_QUICK,
# BENCH_REPS (repetitions of every benchmark), BENCH_DOC (the document to
# update), BENCH_KEEP=DIR (keep the work files), and per benchmark the knobs
# at the top of each tools/bench/bench_*.sh.  Each benchmark cleans up after
# itself (labs, processes, iptables rules, bpf_stats_enabled) on any exit.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
export BUILD
BENCH_QUICK=${BENCH_QUICK:-0}
[[ $BENCH_QUICK == 0 ]] || BENCH_QUICK=1
export BENCH_QUICK
ALL=(attrib coverage throughput hooks ringbuf footprint report ncclplugin flight)
PY=$HERE/benchlib.py

usage() {
	# the header comment
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
	echo "benchmarks: ${ALL[*]}"
}
case ${1:-} in -h | --help) usage; exit 0 ;; '') ;; *) usage >&2; exit 2 ;; esac

if [[ -n ${BENCH:-} ]]; then
	IFS=', ' read -ra SEL <<<"$BENCH"
	for b in "${SEL[@]}"; do
		[[ " ${ALL[*]} " == *" $b "* ]] || { echo "bench: unknown benchmark '$b'; one of: ${ALL[*]}" >&2; exit 2; }
	done
else
	SEL=("${ALL[@]}")
fi

export BENCH_RESULTS=$BUILD/bench/results
mkdir -p "$BENCH_RESULTS" || exit 1
SRC_DOC=$ROOT/docs/performance.md
if [[ -n ${BENCH_DOC:-} ]]; then
	DOC=$BENCH_DOC
	[[ -f $DOC ]] || cp "$SRC_DOC" "$DOC" || exit 1
elif ((BENCH_QUICK)); then
	# a smoke run leaves the real tables alone: a fresh copy of the page
	DOC=$BUILD/bench/performance.md
	cp "$SRC_DOC" "$DOC" || exit 1
else
	DOC=$SRC_DOC
fi

# Each benchmark runs as a background job with job control on: in its own
# process group.  Ctrl-C or a TERM reaches this script, which passes a TERM
# on (SIGINT may be ignored there: background jobs of a script without job
# control ignore it) and waits until the benchmark has cleaned up.
set -m
CHILD=
on_signal() {
	if [[ -n $CHILD ]]; then
		kill -TERM "$CHILD" 2>/dev/null
		wait "$CHILD" 2>/dev/null
	fi
	echo "bench: interrupted" >&2
	exit 130
}
trap on_signal INT TERM HUP

start=$(date +%s)
python3 "$PY" meta --busy run "quick=$BENCH_QUICK" >"$BENCH_RESULTS/run.jsonl"
failed=()
for b in "${SEL[@]}"; do
	echo "bench: $b$( ((BENCH_QUICK)) && echo ' (quick)')" >&2
	t0=$(date +%s)
	if [[ $b != report && $(id -u) -ne 0 ]]; then
		echo "bench: $b skipped: needs root (BPF, namespaces); run 'sudo make bench'" >&2
		failed+=("$b")
		continue
	fi
	"$HERE/bench_$b.sh" &
	CHILD=$!
	rc=0
	wait "$CHILD" || rc=$?
	CHILD=
	if ((rc == 130 || rc == 143)); then
		echo "bench: $b interrupted" >&2
		exit 130
	elif ((rc != 0)); then
		echo "bench: $b failed (exit $rc); its table is left as it was" >&2
		failed+=("$b")
		continue
	fi
	if ! python3 "$PY" render "$b" "$BENCH_RESULTS/$b.jsonl" >"$BENCH_RESULTS/$b.md" ||
		! python3 "$PY" splice "$DOC" "$b" "$BENCH_RESULTS/$b.md"; then
		echo "bench: $b: cannot update $DOC" >&2
		failed+=("$b")
		continue
	fi
	echo "bench: $b took $(($(date +%s) - t0)) s" >&2
done
python3 "$PY" meta --busy run "quick=$BENCH_QUICK" "seconds=$(($(date +%s) - start))" \
	"benches=${SEL[*]}" "failed=${failed[*]}" >>"$BENCH_RESULTS/run.jsonl"
if ! python3 "$PY" render machine "$BENCH_RESULTS/run.jsonl" >"$BENCH_RESULTS/machine.md" ||
	! python3 "$PY" splice "$DOC" machine "$BENCH_RESULTS/machine.md"; then
	echo "bench: cannot update the machine section of $DOC" >&2
fi
echo "bench: done in $(($(date +%s) - start)) s; tables in ${DOC#"$ROOT"/}, raw rows in ${BENCH_RESULTS#"$ROOT"/}" >&2
((${#failed[@]} == 0)) || { echo "bench: failed or skipped: ${failed[*]}" >&2; exit 1; }
