#!/usr/bin/env bash
# Benchmark 0b: what the coverage check's perf events cost per packet.
#
# One lab host; tools/bench/udpgen sends 64-byte UDP datagrams on its lo to
# a socket that never reads (net_dev_start_xmit, netif_receive_skb and a
# kfree_skb drop per datagram), as fast as one CPU allows, pinned to the
# last CPU.  The empty programs of tools/bench/floor are on every hook in
# every mode, as fabtrace's are when it records, so the tracepoints are
# enabled throughout; the modes, in an order rotated per repetition, add:
#   floor       nothing
#   floor_pid1  a counting perf event per thread of PID 1 on each network
#               tracepoint (--coverage pid1)
#   floor_cpu   a counting perf event per CPU on each (--coverage counters)
# The datagrams per second of one CPU give the CPU time per datagram; the
# difference to floor is what the events cost.  No fabtrace program runs.
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_init coverage
bench_need taskset python3

T=$(pick "${BENCH_COV_SECONDS:-3}" 1)
REPS=$(reps 6 1)
MODES=(floor floor_pid1 floor_cpu)
[[ -x $BB/floor && -x $BB/udpgen ]] || die "$BB/floor or udpgen is not built; run 'make BUILD=${BUILD#"$ROOT"/} bench-bins'"
CPU=$(($(nproc) - 1))

bench_meta --busy "seconds=$T" "reps=$REPS" "quick=$BENCH_QUICK" "send_cpu=$CPU"
bench_lab 1
NS=$(lab_ns "$LAB" 1)
W=$BENCH_TMP
ip netns exec "$NS" ip link set lo up || die "lo up in $NS"
bench_spawn /dev/null "$W/sink.err" ip netns exec "$NS" python3 -c \
	'import socket, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 9999)); time.sleep(86400)'
sleep 0.5
say "lab $LAB, ${T}s per run on CPU $CPU, $REPS repetitions of ${MODES[*]}"

one_run() { # MODE REP
	local mode=$1 rep=$2 opt=() tpid pps
	[[ $mode == floor_pid1 ]] && opt=(--pid1)
	[[ $mode == floor_cpu ]] && opt=(--counters)
	bench_spawn "$W/floor.out" "$W/floor.err" "$BB/floor" "${opt[@]}"
	tpid=$SPAWNED
	wait_grep "$W/floor.out" '^ready' "$tpid" 30 || die "floor did not start: $(cat "$W/floor.err")"
	pps=$(ip netns exec "$NS" taskset -c "$CPU" "$BB/udpgen" --dst 127.0.0.1 --port 9999 --rate 0 \
		--duration "$T" --size 64 | python3 -c 'import json, sys; print(json.load(sys.stdin)["pps"])') ||
		die "udpgen failed"
	kill -INT "$tpid"
	wait "$tpid" 2>/dev/null
	printf '{"bench": "coverage", "mode": "%s", "rep": %d, "seconds": %s, "pps": %s}\n' \
		"$mode" "$rep" "$T" "$pps" >>"$BENCH_OUT"
	say "  $mode rep=$rep pps=$pps"
}

for ((r = 1; r <= REPS; r++)); do
	n=${#MODES[@]}
	for ((k = 0; k < n; k++)); do
		one_run "${MODES[(k + r - 1) % n]}" "$r"
	done
done
bench_meta "seconds=$T" "reps=$REPS" "quick=$BENCH_QUICK" "send_cpu=$CPU"
