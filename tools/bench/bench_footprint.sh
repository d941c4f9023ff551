#!/usr/bin/env bash
# Benchmark 4: the recorder's footprint.
#
# a) A long recording (default probes, 10 us bins, the eth0 of every lab
#    host: BENCH_FP_HOSTS, default 8, all busy) while iperf3 pairs
#    (h1 -> h2, h3 -> h4, ...) push a steady 500 Mbit/s of MTU-sized packets
#    in all: the recorder's RSS (VmRSS) and CPU (utime+stime) sampled every
#    second.  Memory must stay flat: the table gives RSS after warm-up, at
#    the end, the peak, the trend (Theil-Sen slope) after warm-up, and RSS
#    every 10 minutes of a long run (BENCH_FP_LONG=3600 for an hour).
# b) Capture size: h1 -> h2 at 500 Mbit/s for S seconds at --bin 10us and at
#    --bin 100us (alternating, repeated): capture bytes per second per busy
#    interface (the two eth0), beside the packet rate that fills the bins.
#    --no-phases here: the phase probes follow every process on the
#    machine, and other users' processes would make the size theirs.
# c) The phase probes reading a large C++ library: a recorder with the
#    default probes (phases on) before and after a PyTorch import
#    (/usr/bin/python3 -c 'import torch.distributed': libtorch_cpu and
#    libgloo get read for catalog functions): VmRSS and VmHWM, repeated.
#    Skipped where that python has no torch.
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_init footprint
bench_need iperf3

LONG=$(pick "${BENCH_FP_LONG:-180}" 15)
HOSTS=${BENCH_FP_HOSTS:-8}
S=$(pick 10 3)
REPS=$(reps 3 1)
RATE=500M
((HOSTS >= 2 && HOSTS % 2 == 0)) || die "BENCH_FP_HOSTS must be an even number >= 2"
PAIRS=$((HOSTS / 2))
PAIR_RATE=$((500 / PAIRS))M

bench_meta --busy "long_s=$LONG" "seconds=$S" "reps=$REPS" "rate=$RATE" "hosts=$HOSTS" "quick=$BENCH_QUICK"
bench_lab "$HOSTS"
W=$BENCH_TMP
bench_pair_servers "$HOSTS"
ALL_IFS=()
for ((h = 1; h <= HOSTS; h++)); do ALL_IFS+=(-i "$(lab_ns "$LAB" "$h")/eth0"); done
IFS_ARGS=(-i "$(lab_ns "$LAB" 1)/eth0" -i "$(lab_ns "$LAB" 2)/eth0")
say "lab $LAB: ${LONG}s recording of $HOSTS busy interfaces, then ${S}s captures at 10us/100us x $REPS"

start_rec() { # OUT BIN [RECORD-OPTIONS...] (the interfaces: IFS_ARGS)
	local out=$1 bin=$2
	shift 2
	bench_spawn "$W/rec.out" "$W/rec.err" "$FT" record --bin "$bin" "${IFS_ARGS[@]}" "$@" -o "$out"
	RPID=$SPAWNED
	wait_grep "$W/rec.err" 'recording to' "$RPID" 30 || die "fabtrace did not start: $(cat "$W/rec.err")"
	# the phase probes attach after that line (none with --no-phases)
	[[ " $* " == *" --no-phases "* ]] || wait_grep "$W/rec.err" 'phases:' "$RPID" 30 || true
	sleep 0.3
}

iperf_start() { # SECONDS [CLIENT-HOST RATE]: a client to the next host
	local c=${2:-1} rate=${3:-$RATE}
	bench_spawn "$W/iperf$c.json" "$W/iperf$c.err" ip netns exec "$(lab_ns "$LAB" "$c")" \
		iperf3 -c "$(lab_addr $((c + 1)))" -p 5201 -b "$rate" -t "$1" -J
	IPID=$SPAWNED
}

# a) the long recording: every host's eth0, every pair busy
IFS_ARGS=("${ALL_IFS[@]}")
start_rec "$W/long.ftr" 10us
PAIR_PIDS=()
for ((h = HOSTS - 1; h >= 1; h -= 2)); do
	iperf_start "$LONG" "$h" "$PAIR_RATE"
	PAIR_PIDS+=("$IPID")
done
# IPID (the last started) is h1's: the loop below follows it
t0=$(now_s)
: >"$W/samples"
while kill -0 "$IPID" 2>/dev/null && [[ $(awk '{print $3}' "/proc/$IPID/stat" 2>/dev/null) != Z ]]; do
	printf '%s %s %s %s\n' "$(now_s)" "$(awk '/^VmRSS:/{print $2}' "/proc/$RPID/status")" \
		"$(cpu_ticks "$RPID")" "$(stat -c %s "$W/long.ftr" 2>/dev/null || echo 0)" >>"$W/samples"
	sleep 1
done
for p in "${PAIR_PIDS[@]}"; do bench_wait "$p"; done
t1=$(now_s)
hwm=$(awk '/^VmHWM:/{print $2}' "/proc/$RPID/status")
bench_stop "$RPID" INT
IPERFS=()
for ((h = 1; h < HOSTS; h += 2)); do IPERFS+=("$W/iperf$h.json"); done
python3 "$PY" fprow --kind long --t0 "$t0" --t1 "$t1" --samples "$W/samples" --hwm "$hwm" \
	--clk "$CLK_TCK" --capture "$W/long.ftr" --iperf "${IPERFS[@]}" --err "$W/rec.err" \
	--busy "$HOSTS" >>"$BENCH_OUT" || die "no result for the long recording"
IFS_ARGS=(-i "$(lab_ns "$LAB" 1)/eth0" -i "$(lab_ns "$LAB" 2)/eth0")
tail -n1 "$BENCH_OUT" | python3 "$PY" brief >&2
rm -f "$W/long.ftr"

# b) capture bytes per second at two bin widths
for ((r = 1; r <= REPS; r++)); do
	for bin in 10us 100us; do
		start_rec "$W/cap.ftr" "$bin" --no-phases
		k0=$(cpu_ticks "$RPID")
		p0=$(($(lab_counter "$LAB" 1 tx packets) + $(lab_counter "$LAB" 1 rx packets)))
		t0=$(now_s)
		iperf_start "$S"
		bench_wait "$IPID"
		t1=$(now_s)
		p1=$(($(lab_counter "$LAB" 1 tx packets) + $(lab_counter "$LAB" 1 rx packets)))
		k1=$(cpu_ticks "$RPID")
		bench_stop "$RPID" INT
		"$FT" info --json "$W/cap.ftr" >"$W/info.json" 2>/dev/null
		python3 "$PY" fprow --kind bin --bin "$bin" --rep "$r" --t0 "$t0" --t1 "$t1" --clk "$CLK_TCK" \
			--ticks0 "$k0" --ticks1 "$k1" --capture "$W/cap.ftr" --info "$W/info.json" \
			--iperf "$W/iperf1.json" --busy 2 --pkts $((p1 - p0)) >>"$BENCH_OUT" || die "no result for --bin $bin"
		tail -n1 "$BENCH_OUT" | python3 "$PY" brief >&2
		rm -f "$W/cap.ftr"
	done
done
# c) the phase probes reading a large library
TORCH=(/usr/bin/python3 -c 'import torch.distributed')
if "${TORCH[@]}" 2>/dev/null; then
	for ((r = 1; r <= REPS; r++)); do
		start_rec "$W/lib.ftr" 100us
		sleep 1
		before=$(awk '/^(VmRSS|VmHWM):/{printf "%s ", $2}' "/proc/$RPID/status")
		"${TORCH[@]}" || die "the torch import failed"
		sleep 1.5 # the phase probes look at new processes every 150 ms
		after=$(awk '/^(VmRSS|VmHWM):/{printf "%s ", $2}' "/proc/$RPID/status")
		bench_stop "$RPID" INT
		read -r hwm0 rss0 <<<"$before"
		read -r hwm1 rss1 <<<"$after"
		printf '{"type":"row","kind":"lib","rep":%d,"cmd":"import torch.distributed","hwm_before_kb":%d,"rss_before_kb":%d,"hwm_after_kb":%d,"rss_after_kb":%d}\n' \
			"$r" "$hwm0" "$rss0" "$hwm1" "$rss1" >>"$BENCH_OUT"
		tail -n1 "$BENCH_OUT" | python3 "$PY" brief >&2
		rm -f "$W/lib.ftr"
	done
else
	say "c) skipped: /usr/bin/python3 cannot import torch"
fi
bench_meta "end=1"
