#!/usr/bin/env bash
# Benchmark 2: the cost of each fabtrace BPF program, per run, beside the
# floor of its hook.
#
# With kernel.bpf_stats_enabled=1 the kernel times every program run
# (run_time_ns, run_cnt).  tools/bench/floor attaches an empty program to
# every hook fabtrace uses (same tp_btf hooks; empty uprobes and uretprobes
# where fabtrace's phase_entry/phase_exit go), and `fabtrace record`
# (default probes, 10 us bins, every interface) runs beside it on the same
# hooks at the same time, so both see the same packets.  The workload
# touches every hook: iperf3 (4 streams, MTU-sized packets) h1 -> h2
# through a 200 Mbit/s tbf with a 30 kB queue at the switch port toward h2
# (enqueue/dequeue, drops, retransmits, congestion-state changes, RTT
# samples, send/recv), a loop of short-lived processes (fork/exec/exit) and
# nccl_sim calling the stand-in NCCL (ncclGroupStart/AllReduce/GroupEnd:
# uprobe and uretprobe) inside marker steps (uprobe only).  The two loaders start in
# alternating order, since the order of attachment is the order of the runs.
# Then a second window with the recorder stopped (SIGSTOP): the programs
# still run and fill the ring buffer, but no submit has a reader to wake,
# which separates the programs' own work from the wake-ups.  Each
# repetition runs this twice: with the recorder's default batched wake-ups,
# and with --wakeup 0 (a wake-up per record, as before they were batched).
# Per repetition and program: runs and ns per run; the table shows medians.
# Before the runs, floor --clock-cost: what one clock read costs a BPF
# program here (a row of type "clock"), the part of a binning program's cost
# no program can leave out.
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_init hooks
bench_need iperf3

T=$(pick "${BENCH_HOOKS_SECONDS:-8}" 3)
PAUSE=1
REPS=$(reps 3 1)
NCCL=$(readlink -f "$BUILD/tests/lib/libnccl.so.2")
MARKER=$(readlink -f "$BUILD/libfabtrace_marker.so.1")
[[ -x $BB/floor ]] || die "$BB/floor is not built; run 'make BUILD=${BUILD#"$ROOT"/} bench-bins'"
[[ -f $MARKER && -f $NCCL && -x $BUILD/tools/nccl_sim ]] || die "the marker library or nccl_sim is not built; run 'make'"
UPROBES=()
for f in ncclGroupStart ncclAllReduce ncclGroupEnd; do
	UPROBES+=(--uprobe "$NCCL:$f" --uretprobe "$NCCL:$f")
done
UPROBES+=(--uprobe "$MARKER:fabtrace_step_begin" --uprobe "$MARKER:fabtrace_step_end")

bench_bpf_stats_on
bench_meta --busy "seconds=$T" "reps=$REPS" "quick=$BENCH_QUICK"
bench_clock_row
bench_lab 2 "h2=200mbit:limit=30kb:dir=down"
W=$BENCH_TMP
bench_spawn "$W/server.out" "$W/server.err" ip netns exec "$(lab_ns "$LAB" 2)" iperf3 -s -p 5201
sleep 0.5
say "lab $LAB, ${T}s workload (+${PAUSE}s with the recorder stopped), $REPS repetitions"

start_floor() {
	bench_spawn "$W/floor.out" "$W/floor.err" "$BB/floor" "${UPROBES[@]}"
	FPID=$SPAWNED
	wait_grep "$W/floor.out" '^ready' "$FPID" 30 || die "floor did not start: $(cat "$W/floor.err")"
}

start_fabtrace() { # WAKE: batched or each
	local opt=()
	[[ $1 == each ]] && opt=(--wakeup 0)
	bench_spawn "$W/rec.out" "$W/rec.err" "$FT" record --bin 10us "${opt[@]}" -o "$W/cap.ftr"
	RPID=$SPAWNED
	wait_grep "$W/rec.err" 'recording to' "$RPID" 30 || die "fabtrace did not start: $(cat "$W/rec.err")"
	# the phase probes attach after that line
	wait_grep "$W/rec.err" 'phases:' "$RPID" 30 || true
}

# workload SECONDS: beside iperf3, processes (fork/exec/exit, a few hundred
# per second) and NCCL calls in marker steps
workload() {
	local end=$(($(date +%s%N) + $1 * 1000000000)) i
	while (($(date +%s%N) < end)); do
		for ((i = 0; i < 20; i++)); do /bin/true; done
		"$BUILD/tools/nccl_sim" --rank 0 --nranks 1 --iters 100 --bytes 4k --steps --quiet >/dev/null 2>&1
		sleep 0.05
	done
}

# snap FILE: both loaders' programs at once (names from the first snapshot)
snap() {
	python3 "$PY" bpfsnap "$FPID" "$RPID" --names "$W/floor.out" ${SNAP0:+--prev "$SNAP0"} >"$1"
}

for ((k = 0; k < 2 * REPS; k++)); do
	r=$((k / 2 + 1))
	wake=batched
	(((k + r) % 2)) && wake=each # alternate which window comes first
	if ((r % 2)); then start_floor; start_fabtrace $wake; first=floor; else start_fabtrace $wake; start_floor; first=fabtrace; fi
	sleep 0.5
	# iperf3 runs until stopped, past both windows
	bench_spawn "$W/iperf.out" "$W/iperf.err" ip netns exec "$(lab_ns "$LAB" 1)" \
		iperf3 -c "$(lab_addr 2)" -p 5201 -P 4 -t 600
	IPID=$SPAWNED
	sleep 1
	SNAP0=
	snap "$W/s0.json"
	SNAP0=$W/s0.json
	tx0=$(lab_counter "$LAB" 1 tx)
	t0=$(now_s)
	workload "$T"
	t1=$(now_s)
	tx1=$(lab_counter "$LAB" 1 tx)
	snap "$W/s1.json"
	# Second window, recorder stopped: the ring buffer keeps filling but
	# nothing consumes it, so no submit wakes a reader (what the programs
	# cost without the wake-ups).  One second: with every interface traced,
	# other users' traffic fills the 16 MB ring in a few.
	kill -STOP "$RPID"
	snap "$W/s2.json"
	t2=$(now_s)
	workload "$PAUSE"
	t3=$(now_s)
	snap "$W/s3.json"
	kill -CONT "$RPID"
	bench_stop "$IPID" INT
	bench_stop "$RPID" INT
	bench_stop "$FPID" INT
	"$FT" info --json "$W/cap.ftr" >"$W/info.json" 2>/dev/null
	python3 "$PY" hookrow --rep "$r" --wakeup "$wake" --first "$first" --t0 "$t0" --t1 "$t1" --t2 "$t2" --t3 "$t3" \
		--snap0 "$W/s0.json" --snap1 "$W/s1.json" --snap2 "$W/s2.json" --snap3 "$W/s3.json" \
		--txbytes $((tx1 - tx0)) --info "$W/info.json" >>"$BENCH_OUT" || die "no result for repetition $r"
	rm -f "$W/cap.ftr"
	say "repetition $r ($wake wake-ups) done"
done
bench_meta "end=1"
