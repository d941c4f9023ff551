#!/usr/bin/env bash
# Benchmark 9: the flight recorder left running (issue 33's recorder targets).
#
# Two flight recorders side by side, one per profile (--profile full, the
# default probes, and --profile always), each in its own directory, on the
# eth0 of every lab host (BENCH_FL_HOSTS, default 8, all busy: iperf3 pairs
# h1 -> h2, h3 -> h4, ... push a steady 500 Mbit/s of MTU-sized packets in
# all, the footprint benchmark's load), for BENCH_FL_LONG seconds (default
# 600; BENCH_FL_LONG=3600 for the hour; quick: 40).  Both record as a node
# would leave them: 100 us bins (the default), --switch-output 10s, --keep
# 5m, the phase probes on, --trigger 'lost > 0' (a snapshot if the rings
# ever lose an event), and a `fabtrace trigger` every BENCH_FL_TRIGGER
# seconds (default 600; quick: once, halfway) saving a snapshot under load.
# Every second: each recorder's RSS (VmRSS; its summaries' thread
# included), CPU (utime+stime), the segments' disk, and the size of every
# closed segment as it appears (so the bytes written per hour count the
# segments --keep later deletes).  At the end: VmHWM, lost events (the
# recorder's own count, --json), triggers and snapshots, and every closed
# segment and snapshot left on disk read back by `fabtrace info` (state
# complete).  Disk per hour per busy interface = the closed segments'
# bytes per second / the busy interfaces x 3600.
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_init flight
bench_need iperf3

LONG=$(pick "${BENCH_FL_LONG:-600}" 40)
TRIG=$(pick "${BENCH_FL_TRIGGER:-600}" 20)
HOSTS=${BENCH_FL_HOSTS:-8}
((HOSTS >= 2 && HOSTS % 2 == 0)) || die "BENCH_FL_HOSTS must be an even number >= 2"
PAIRS=$((HOSTS / 2))
PAIR_RATE=$((500 / PAIRS))M
PROFILES=(full always)
CTL=ftB$$

bench_meta --busy "long_s=$LONG" "trigger_s=$TRIG" "hosts=$HOSTS" "rate=500M" "quick=$BENCH_QUICK"
bench_lab "$HOSTS"
W=$BENCH_TMP
bench_pair_servers "$HOSTS"
IFS_ARGS=()
for ((h = 1; h <= HOSTS; h++)); do IFS_ARGS+=(-i "$(lab_ns "$LAB" "$h")/eth0"); done
say "lab $LAB: two flight recorders (${PROFILES[*]}) for ${LONG}s on $HOSTS busy interfaces"

declare -A RPID
for p in "${PROFILES[@]}"; do
	mkdir -p "$W/$p"
	bench_spawn "$W/rec_$p.json" "$W/rec_$p.err" "$FT" record --profile "$p" "${IFS_ARGS[@]}" \
		--switch-output 10s --keep 5m --control "$CTL$p" --trigger 'lost > 0' --json -o "$W/$p"
	RPID[$p]=$SPAWNED
done
for p in "${PROFILES[@]}"; do
	wait_grep "$W/rec_$p.err" 'recording to' "${RPID[$p]}" 30 || die "fabtrace ($p) did not start: $(cat "$W/rec_$p.err")"
done
sleep 1 # the phase probes attach after that line

PAIR_PIDS=()
for ((h = HOSTS - 1; h >= 1; h -= 2)); do
	bench_spawn "$W/iperf$h.json" "$W/iperf$h.err" ip netns exec "$(lab_ns "$LAB" "$h")" \
		iperf3 -c "$(lab_addr $((h + 1)))" -p 5201 -b "$PAIR_RATE" -t "$LONG" -J
	PAIR_PIDS+=("$SPAWNED")
done
IPID=${PAIR_PIDS[-1]} # h1's: the loop below follows it
t0=$(now_s)
declare -A SEEN
for p in "${PROFILES[@]}"; do : >"$W/samples_$p" && : >"$W/segs_$p" && : >"$W/trig_$p"; done
next_trig=$TRIG
while kill -0 "$IPID" 2>/dev/null && [[ $(awk '{print $3}' "/proc/$IPID/stat" 2>/dev/null) != Z ]]; do
	now=$(now_s)
	for p in "${PROFILES[@]}"; do
		d=0
		for f in "$W/$p"/seg-*; do
			[[ -f $f ]] || continue
			s=$(stat -c %s "$f" 2>/dev/null) || continue # deleted meanwhile
			d=$((d + s))
			# a closed segment never changes: its size once, as it appears
			if [[ $f == *.ftr && -z ${SEEN[$f]:-} ]]; then
				SEEN[$f]=1
				printf '%s %s %s\n' "$now" "${f##*/}" "$s" >>"$W/segs_$p"
			fi
		done
		printf '%s %s %s %s\n' "$now" "$(awk '/^VmRSS:/{print $2}' "/proc/${RPID[$p]}/status")" \
			"$(cpu_ticks "${RPID[$p]}")" "$d" >>"$W/samples_$p"
	done
	el=$(awk -v a="$now" -v b="$t0" 'BEGIN { printf "%d", a - b }')
	if ((el >= next_trig)); then
		for p in "${PROFILES[@]}"; do
			"$FT" trigger --control "$CTL$p" --reason "bench at ${el}s" >>"$W/trig_$p" 2>&1 ||
				say "warning: fabtrace trigger ($p) failed: $(tail -n 1 "$W/trig_$p")"
		done
		next_trig=$((next_trig + TRIG))
	fi
	sleep 1
done
for pp in "${PAIR_PIDS[@]}"; do bench_wait "$pp"; done
t1=$(now_s)
sleep 12 # the last snapshot's post-window (10 s) ends and is written
IPERFS=()
for ((h = 1; h < HOSTS; h += 2)); do IPERFS+=("$W/iperf$h.json"); done
for p in "${PROFILES[@]}"; do
	hwm=$(awk '/^VmHWM:/{print $2}' "/proc/${RPID[$p]}/status")
	bench_stop "${RPID[$p]}" INT
	# every closed segment and snapshot left on disk reads back whole
	: >"$W/read_$p"
	for f in "$W/$p"/seg-*.ftr "$W/$p"/snap-*.ftr; do
		[[ -f $f ]] || continue
		st=$("$FT" info --json "$f" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null)
		printf '%s %s %s\n' "${f##*/}" "$(stat -c %s "$f")" "${st:-unreadable}" >>"$W/read_$p"
	done
	python3 "$PY" flrow --profile "$p" --t0 "$t0" --t1 "$t1" --samples "$W/samples_$p" --segs "$W/segs_$p" \
		--read "$W/read_$p" --hwm "$hwm" --clk "$CLK_TCK" --summary "$W/rec_$p.json" --iperf "${IPERFS[@]}" \
		--busy "$HOSTS" --rc "$STOP_RC" >>"$BENCH_OUT" || die "no result for the $p recorder ($(tail -n 2 "$W/rec_$p.err"))"
	tail -n1 "$BENCH_OUT" | python3 "$PY" brief >&2
done
bench_meta "end=1"
