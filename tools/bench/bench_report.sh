#!/usr/bin/env bash
# Benchmark 5: how `fabtrace report` scales with the capture.
#
# tools/synthcap writes synthetic captures of about 10^5, 10^6 and 10^7
# records (4 hosts, one rank each: bins, queues, drops, retransmits,
# collectives, steps, counters).  Each repetition then renders every size
# as text (the summary, to a file), HTML and Perfetto JSON, and window by
# window (--windows 10s, -q: the reading alone), sizes and
# outputs interleaved, under /usr/bin/time -f '%e %M': wall seconds and
# peak RSS.  No root needed, no lab.
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BENCH_NAME=report
[[ -x $FT && -x $BUILD/tools/synthcap ]] || die "$FT or $BUILD/tools/synthcap is not built; run 'make'"
BENCH_TMP=$(mktemp -d /tmp/fabtrace-bench.XXXXXX) || die "cannot create a work directory"
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$BENCH_RESULTS" || die "cannot create $BENCH_RESULTS"
BENCH_OUT=$BENCH_RESULTS/report.jsonl
: >"$BENCH_OUT"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found; run 'make bench' (tools/deps.sh bench installs it)"

REPS=$(reps 3 1)
if ((BENCH_QUICK)); then SIZES=(100000 1000000); else SIZES=(100000 1000000 10000000); fi
[[ -n ${BENCH_REPORT_SIZES:-} ]] && read -ra SIZES <<<"$BENCH_REPORT_SIZES"
OUTS=(text html perfetto windows)
W=$BENCH_TMP
bench_meta --busy "reps=$REPS" "quick=$BENCH_QUICK"

for n in "${SIZES[@]}"; do
	/usr/bin/time -f '%e %M' -o "$W/synth.time" "$BUILD/tools/synthcap" -q -o "$W/s$n.ftr" --hosts 4 --events "$n" ||
		die "synthcap --events $n failed"
	"$FT" info --json "$W/s$n.ftr" >"$W/s$n.info" || die "fabtrace info on the $n-event capture failed"
	say "capture of ~$n events: $(stat -c %s "$W/s$n.ftr") bytes, written in $(cut -d' ' -f1 "$W/synth.time") s"
done

for ((r = 1; r <= REPS; r++)); do
	for ((k = 0; k < ${#OUTS[@]}; k++)); do
		out=${OUTS[(k + r - 1) % ${#OUTS[@]}]}
		for n in "${SIZES[@]}"; do
			case $out in
			text) args=("$W/s$n.ftr") dest=$W/stdout ;;
			html) args=(-q --html "$W/out.html" "$W/s$n.ftr") dest=$W/out.html ;;
			perfetto) args=(-q --perfetto "$W/out.json" "$W/s$n.ftr") dest=$W/out.json ;;
			windows) args=(-q --windows 10s "$W/s$n.ftr") dest=$W/stdout ;; # every window read, nothing printed
			esac
			rc=0
			/usr/bin/time -f '%e %M' -o "$W/rep.time" "$FT" report "${args[@]}" >"$W/stdout" 2>"$W/stderr" || rc=$?
			((rc == 0)) || die "report ($out, $n events) failed: $(head -c 300 "$W/stderr")"
			bytes=$(stat -c %s "$dest")
			python3 "$PY" reprow --events "$n" --out "$out" --rep "$r" --time "$W/rep.time" \
				--info "$W/s$n.info" --capture "$W/s$n.ftr" --bytes "$bytes" >>"$BENCH_OUT" ||
				die "no result for $out/$n"
			tail -n1 "$BENCH_OUT" | python3 "$PY" brief >&2
			rm -f "$W/out.html" "$W/out.json"
		done
	done
done
bench_meta "end=1"
