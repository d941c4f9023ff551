#!/usr/bin/env bash
# Benchmark 0: where fabtrace's cost on a saturated link goes.
#
# The lab and traffic of benchmark 1 (iperf3 h1 -> h2 as fast as the CPUs
# go, h1's eth0 behind an htb root that never limits; GSO on and off), one
# run per mode, modes in an order rotated per repetition:
#   none        no tracer
#   counters    tools/bench/floor --counters --no-progs: only the counting
#               perf events per CPU on the network tracepoints, which the
#               recorder's coverage check opened before it read the kernel's
#               own count of skipped runs
#   floor       tools/bench/floor: an empty program on every hook fabtrace uses
#               (with -i on a kernel with tcx, iface_rx is a tcx ingress
#               program on h1's eth0, so the floor's is too: floor --tcx)
#   floor_min   tools/bench/floor --minimal eth0: nothing but the cheapest
#               per-packet binner, a tcx program on h1's eth0 egress and
#               ingress with one clock read and one add (Millisampler's
#               shape): the floor of any design that bins every packet
#   floor_pid1  the same plus a counting perf event per thread of PID 1 on the
#               network tracepoints (what --coverage pid1 opens: this VM's
#               default); against floor, what those events cost
#   fabtrace    fabtrace record --bin 10us -i h1/eth0 (default probes)
#   fabtrace_kcov  the same with --coverage kernel: skipped runs from the
#               kernel's recursion_misses, no perf counters (what 'auto' picks
#               on an unpatched kernel that counts skips; on this VM's kernel
#               it picks pid1: a perf counter per thread of PID 1)
#   fabtrace_ccov  the same with --coverage counters: a perf counter per CPU
#               on each tracepoint (what 'auto' picked on this VM before pid1)
#   fabtrace_nophases  the same with --no-phases
#   fabtrace_tp  the same with FABTRACE_VARIANTS=tp_btf: iface_rx on the
#               netif_receive_skb tracepoint (every device a packet crosses),
#               as before tcx and as on kernels without it
#   floor_nostats, floor_min_nostats, fabtrace_nostats  floor, floor_min and fabtrace with
#               kernel.bpf_stats_enabled=0: what a node that does not time
#               its programs pays (the timing is two clock reads per run)
# Per run: throughput; h1's eth0 tx packets; all CPUs' busy time (/proc/stat)
# per packet; per BPF program (bpf_stats): runs and run time; the tracer's
# CPU; fabtrace's records and ring-buffer wake-ups (record --json).
# kernel.bpf_stats_enabled is 1 for every mode but the *_nostats ones.
# Before the runs, floor --clock-cost: what one clock read costs a BPF
# program here (a row of type "clock"; the per-program table compares each
# program with an empty one plus that read).
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_init attrib
bench_need iperf3

T=$(pick "${BENCH_AT_SECONDS:-4}" 2)
REPS=$(reps 5 1)
MODES=(none counters floor floor_nostats floor_min floor_min_nostats floor_pid1 fabtrace fabtrace_nostats
	fabtrace_kcov fabtrace_ccov fabtrace_nophases fabtrace_tp)
[[ -n ${BENCH_AT_MODES:-} ]] && read -ra MODES <<<"$BENCH_AT_MODES"
CONFIGS=(gso mtu)
[[ -n ${BENCH_AT_CONFIGS:-} ]] && read -ra CONFIGS <<<"$BENCH_AT_CONFIGS"
[[ -x $BB/floor ]] || die "$BB/floor is not built; run 'make BUILD=${BUILD#"$ROOT"/} bench-bins'"

bench_bpf_stats_on
# fabtrace's iface_rx with -i: tcx where this kernel has it (the floor follows)
FLOOR_TCX=()
"$FT" features --json 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin)
sys.exit(0 if any(p.get("variant") == "tcx" for p in j["probes"]) else 1)' && FLOOR_TCX=(--tcx eth0)
bench_meta --busy "seconds=$T" "reps=$REPS" "quick=$BENCH_QUICK"
bench_clock_row

start_tracer() { # MODE; its PID in TPID ('' for none)
	TPID=
	case $1 in
	none) return 0 ;;
	counters | floor | floor_pid1 | floor_min)
		local opt=()
		[[ $1 == counters ]] && opt=(--counters --no-progs)
		[[ $1 == floor_pid1 ]] && opt=(--pid1)
		[[ $1 == floor || $1 == floor_pid1 ]] && opt+=("${FLOOR_TCX[@]}")
		[[ $1 == floor_min ]] && opt=(--minimal eth0)
		bench_spawn "$W/tracer.out" "$W/tracer.err" ip netns exec "$(lab_ns "$LAB" 1)" "$BB/floor" "${opt[@]}"
		TPID=$SPAWNED
		wait_grep "$W/tracer.out" '^ready' "$TPID" 30 || die "floor did not start: $(cat "$W/tracer.err")"
		;;
	fabtrace | fabtrace_kcov | fabtrace_ccov | fabtrace_nophases | fabtrace_tp)
		local opt=() only=
		[[ $1 == fabtrace_tp ]] && only=tp_btf
		[[ $1 == fabtrace_nophases ]] && opt=(--no-phases)
		[[ $1 == fabtrace_kcov ]] && opt=(--coverage kernel)
		[[ $1 == fabtrace_ccov ]] && opt=(--coverage counters)
		FABTRACE_VARIANTS=$only bench_spawn "$W/tracer.out" "$W/tracer.err" "$FT" record --bin 10us --json "${opt[@]}" \
			-i "$(lab_ns "$LAB" 1)/eth0" -o "$W/cap.ftr"
		TPID=$SPAWNED
		wait_grep "$W/tracer.err" 'recording to' "$TPID" 30 || die "fabtrace did not start: $(cat "$W/tracer.err")"
		;;
	*) die "unknown mode $1" ;;
	esac
	sleep 0.5
}

one_run() { # CONFIG MODE REP
	local cfg=$1 mode=$2 rep=$3 t0 t1 c0='' c1='' b0 b1 p0 p1 ipid names=()
	[[ $mode == floor* ]] && names=(--names "$W/tracer.out")
	rm -f "$W"/tracer.* "$W"/cap.* "$W"/bpf0.json "$W"/bpf1.json
	if [[ $mode == *_nostats ]]; then bench_bpf_stats_set 0; else bench_bpf_stats_set 1; fi
	start_tracer "${mode%_nostats}"
	if [[ -n $TPID ]]; then
		python3 "$PY" bpfsnap "$TPID" "${names[@]}" >"$W/bpf0.json"
		c0=$(cpu_ticks "$TPID")
	fi
	p0=$(lab_counter "$LAB" 1 tx packets)
	read -r b0 _ < <(sys_busy)
	t0=$(now_s)
	bench_spawn "$W/iperf.json" "$W/iperf.err" ip netns exec "$(lab_ns "$LAB" 1)" \
		iperf3 -c "$(lab_addr 2)" -p 5201 -t "$T" -J
	ipid=$SPAWNED
	bench_wait "$ipid"
	t1=$(now_s)
	read -r b1 _ < <(sys_busy)
	p1=$(lab_counter "$LAB" 1 tx packets)
	if [[ -n $TPID ]]; then
		c1=$(cpu_ticks "$TPID")
		python3 "$PY" bpfsnap "$TPID" --prev "$W/bpf0.json" >"$W/bpf1.json"
		bench_stop "$TPID" INT
	fi
	python3 "$PY" atrow --config "$cfg" --mode "$mode" --rep "$rep" --iperf "$W/iperf.json" --seconds "$T" \
		--t0 "$t0" --t1 "$t1" --ticks0 "$c0" --ticks1 "$c1" --clk "$CLK_TCK" \
		--busy0 "$b0" --busy1 "$b1" --pkts $((p1 - p0)) --bpf0 "$W/bpf0.json" --bpf1 "$W/bpf1.json" \
		--out "$W/tracer.out" >>"$BENCH_OUT" ||
		die "no result for $cfg/$mode (iperf3: $(head -c 300 "$W/iperf.json") $(cat "$W/iperf.err"))"
	rm -f "$W"/cap.*
	tail -n1 "$BENCH_OUT" | python3 "$PY" brief >&2
}

W=$BENCH_TMP
for cfg in "${CONFIGS[@]}"; do
	case $cfg in
	gso) off=on ;;
	mtu) off=off ;;
	*) die "unknown config $cfg (gso, mtu)" ;;
	esac
	LAB_OFFLOAD=$off bench_lab 2 "h1=100gbit:dir=up:qdisc=htb:burst=1mb:limit=4mb"
	bench_spawn "$W/server.out" "$W/server.err" ip netns exec "$(lab_ns "$LAB" 2)" iperf3 -s -p 5201
	SERVER=$SPAWNED
	sleep 0.5
	say "$cfg: lab $LAB, ${T}s per run, $REPS repetitions of ${MODES[*]}"
	ip netns exec "$(lab_ns "$LAB" 1)" iperf3 -c "$(lab_addr 2)" -p 5201 -t 1 >/dev/null 2>&1
	for ((r = 1; r <= REPS; r++)); do
		n=${#MODES[@]}
		for ((k = 0; k < n; k++)); do
			one_run "$cfg" "${MODES[(k + r - 1) % n]}" "$r"
		done
	done
	bench_stop "$SERVER" TERM
	bench_lab_down "$LAB"
done
bench_meta "end=1"
