#!/usr/bin/env bash
# Multi-host merge at scale (docs/multihost.md, docs/performance.md):
# HOSTS per-node synthetic captures (tools/synthcap --only-host) of one job,
# RPH ranks per host, DURATION long, one host's REALTIME off by 3 ms; then
# `fabtrace merge`, `fabtrace report --json` on the merged capture, on one
# window of it (--from/--to) and window by window (--windows; both need
# DURATION in seconds, e.g. 600s), each with its wall time and peak RSS
# (/usr/bin/time).  No root, no lab.
#   HOSTS=64 RPH=8 DURATION=600s tools/bench/bench_merge.sh [DIR]
# Prints one markdown table row per step.  DIR (default: a temporary
# directory, removed at the end) holds the captures: about 23 MB per host
# per 10 minutes.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
HOSTS=${HOSTS:-64} RPH=${RPH:-8} DURATION=${DURATION:-600s}
FT=$BUILD/fabtrace SYNTH=$BUILD/tools/synthcap SHIFT=$BUILD/tools/capshift
for b in "$FT" "$SYNTH" "$SHIFT"; do [[ -x $b ]] || { echo "bench_merge: $b is not built (run make)" >&2; exit 1; }; done
[[ -x /usr/bin/time ]] || { echo "bench_merge: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
DIR=${1:-}
if [[ -z $DIR ]]; then
	DIR=$(mktemp -d /tmp/fabtrace-bench-merge.XXXXXX)
	trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR" || exit 1

# measure NAME CMD...: wall seconds and peak RSS of CMD as a table row
measure() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/err.txt" ||
		{ echo "bench_merge: $name failed: $(tail -n2 "$DIR/err.txt")" >&2; return 1; }
	read -r wall rss <"$DIR/time.txt"
	printf '| %s | %s hosts x %s ranks, %s | %s s | %s MiB |\n' "$name" "$HOSTS" "$RPH" "$DURATION" \
		"$wall" "$((rss / 1024))"
}

files=()
t0=$(date +%s.%N)
for ((h = 1; h <= HOSTS; h++)); do
	"$SYNTH" -q -o "$DIR/n$h.ftr" --hosts "$HOSTS" --ranks-per-host "$RPH" -d "$DURATION" --size 256k \
		--only-host "$h" || exit 1
	files+=("$DIR/n$h.ftr")
done
"$SHIFT" --clock-error 3ms --host node2 -o "$DIR/n2s.ftr" "$DIR/n2.ftr" >/dev/null && mv "$DIR/n2s.ftr" "$DIR/n2.ftr"
t1=$(date +%s.%N)
bytes=$(du -cb "${files[@]}" | tail -n1 | cut -f1)
printf '| synthcap (input) | %s hosts x %s ranks, %s | %.1f s | %s MB on disk |\n' "$HOSTS" "$RPH" "$DURATION" \
	"$(echo "$t1 - $t0" | bc)" "$((bytes / 1000000))"
measure "merge" "$FT" merge -q -o "$DIR/job.ftr" "${files[@]}" || exit 1
measure "report --json (merged)" "$FT" report --json "$DIR/job.ftr" || exit 1
# one window of the same merged capture: memory follows the window (report --from/--to)
dur_s=$(echo "$DURATION" | sed -n 's/^\([0-9]*\)s$/\1/p')
if [[ -n $dur_s ]] && ((dur_s >= 4)); then
	win=$((dur_s / 10 > 60 ? 60 : (dur_s / 10 > 0 ? dur_s / 10 : 1)))
	measure "report --json --from $((dur_s / 2)) --to +$((dur_s / 2 + win)) (merged, a ${win} s window)" \
		"$FT" report --json --from "$((dur_s / 2))" --to "$((dur_s / 2 + win))" "$DIR/job.ftr" || exit 1
	measure "report --json --windows ${win}s (merged, the whole job)" \
		"$FT" report --json --windows "${win}s" "$DIR/job.ftr" || exit 1
fi
