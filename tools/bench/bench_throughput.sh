#!/usr/bin/env bash
# Benchmark 1: what tracing costs a saturated link.
#
# Two lab hosts, iperf3 TCP from h1 to h2 for T seconds, as fast as the CPU
# lets it, twice: with the kernel's offloads (GSO/TSO: 64 kB skbs) and with
# them off (MTU-sized packets, so the per-packet cost shows).  h1's eth0 has
# an htb root at 100 Gbit/s, never the limit, so every packet goes through
# qdisc enqueue/dequeue as on a NIC whose queue is in use (veth's default
# noqueue would skip those hooks).  Each repetition runs every mode once, in
# an order rotated from one repetition to the next:
#   none        no tracer
#   fabtrace    fabtrace record, default probes, --bin 10us, -i h1/eth0
#   fabtrace_stats  the same with kernel.bpf_stats_enabled=1: the only mode
#               that times its programs (the BPF column), and beside
#               fabtrace, what that timing itself costs (two clock reads
#               per program run)
#   fabtrace_kcov  the same with --coverage kernel (no perf counters; what
#               'auto' picks where the kernel counts skips: an unpatched
#               kernel, so what a node of the fleet pays)
#   fabtrace_100us  fabtrace record as 'fabtrace', but --bin 100us (issue 14's
#               second target: 2 % at 100 us bins)
#   fabtrace_ccov  the same with --coverage counters (a perf counter per CPU
#               on each tracepoint; what 'auto' picked on this VM before pid1)
#   fabtrace_wake0  the same with --wakeup 0: a wake-up per record, as before
#               batched wake-ups (docs/known-issues.md), to show what they save
#   fabtrace_notx  fabtrace as 'fabtrace' with --no-probes iface_tx: where
#               the full profile's cost goes, against tcpdump (the transmit
#               bins' tracepoint runs on every device a packet crosses)
#   fabtrace_notxrtt  the same with --no-probes iface_tx,rtt (no tcp_probe
#               hook either: the other per-packet tracepoint)
#   fabtrace_nophases  fabtrace as 'fabtrace' with --no-phases (no uprobes,
#               process or socket-owner tracepoints): what the phase probes
#               cost a saturated link
#   fabtrace_ctr100ms  fabtrace as 'fabtrace' with --counter-period 100ms
#               (the always profile's): what the full profile's 10 ms
#               counter samples cost
#   fabtrace_x1, fabtrace_x2, fabtrace_x3  fabtrace record --bin 100us -i
#               h1/eth0 with the options in $BENCH_TP_X1 (X2, X3), e.g.
#               BENCH_TP_X1="--no-probes qdisc": what leaving a family out
#               saves, side by side (not run by default)
#   always      fabtrace record --profile always, --bin 100us, -i h1/eth0:
#               the always-on profile (bins as tcx programs on h1's eth0,
#               drops, retransmits, CE, counters, phases; no qdisc, RTT,
#               congestion-state or socket-owner probes; counters every
#               100 ms, the profile's default)
#   always_post the always profile as a flight recorder (--switch-output 2s,
#               --post-probes qdisc,rtt,owners) inside an open post-window:
#               a `fabtrace trigger` before the run and a post-window longer
#               than it, so the deeper probes are attached throughout: what
#               a node pays in the seconds after a trigger (not run by default)
#   always_ctr10ms  the same with --counter-period 10ms (the full profile's
#               period): what the finer counters cost
#   always_10us the same as always at --bin 10us
#   tcpdump     tcpdump -w on h1's eth0, full snaplen, to disk
#   tcpdump128  the same with -s 128
#   bpftrace    tools/bench/throughput.bt: bins per interface, qdisc backlog,
#               retransmits on h1's eth0, 10 us bins
# Per run: iperf3 -J throughput, the CPU time all CPUs spent per bit received
# (busy less steal, from /proc/stat: what the traffic and the tracer cost,
# whatever share of the host's CPUs the hypervisor gave this VM), the tracer's CPU (utime+stime from
# /proc/PID/stat over the iperf3 run), its BPF programs' run time
# (bpf_stats), what it lost (tcpdump: dropped by kernel; fabtrace: lost
# events and skipped runs; bpftrace: lost events), what it wrote, and how
# many BPF tracing programs of others were loaded (they run on these hooks too).
# kernel.bpf_stats_enabled is 0 for every other mode, as on a node that does
# not time its programs: the timing would add its own cost to every traced
# mode (before 2026-11-27 it was 1 for all of them).
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_init throughput
bench_need iperf3 tcpdump bpftrace

# short runs, many repetitions: a traced run is compared with the untraced
# run of its own repetition, and on a shared machine closer is better
T=$(pick "${BENCH_TP_SECONDS:-4}" 2)
REPS=$(reps 7 1)
MODES=(none fabtrace fabtrace_kcov fabtrace_100us fabtrace_stats fabtrace_wake0 always always_ctr10ms always_10us tcpdump tcpdump128
	bpftrace)
[[ -n ${BENCH_TP_MODES:-} ]] && read -ra MODES <<<"$BENCH_TP_MODES"
CONFIGS=(gso mtu)
[[ -n ${BENCH_TP_CONFIGS:-} ]] && read -ra CONFIGS <<<"$BENCH_TP_CONFIGS"
BIN_NS=10000

bench_bpf_stats_on
bench_meta --busy "seconds=$T" "reps=$REPS" "quick=$BENCH_QUICK"

# start_tracer MODE: start it, wait until it traces; its PID in TPID ('' for none)
start_tracer() {
	local mode=$1 ns_inum
	TPID=
	case $mode in
	none) return 0 ;;
	fabtrace | fabtrace_stats | fabtrace_wake0 | fabtrace_kcov | fabtrace_ccov | fabtrace_100us | fabtrace_notx | fabtrace_notxrtt | \
		fabtrace_nophases | fabtrace_ctr100ms | fabtrace_x1 | fabtrace_x2 | fabtrace_x3 | always | always_10us | always_ctr10ms | \
		always_post)
		local wake=() bin=10us out=$W/cap.ftr
		[[ $mode == fabtrace_100us || $mode == always || $mode == always_ctr10ms || $mode == always_post ]] && bin=100us
		[[ $mode == always* ]] && wake=(--profile always)
		[[ $mode == always_ctr10ms ]] && wake=(--profile always --counter-period 10ms)
		[[ $mode == fabtrace_wake0 ]] && wake=(--wakeup 0)
		[[ $mode == fabtrace_kcov ]] && wake=(--coverage kernel)
		[[ $mode == fabtrace_ccov ]] && wake=(--coverage counters)
		[[ $mode == fabtrace_notx ]] && wake=(--no-probes iface_tx)
		[[ $mode == fabtrace_notxrtt ]] && wake=(--no-probes iface_tx,rtt)
		[[ $mode == fabtrace_nophases ]] && wake=(--no-phases)
		[[ $mode == fabtrace_ctr100ms ]] && wake=(--counter-period 100ms)
		if [[ $mode == fabtrace_x[123] ]]; then
			local xv=BENCH_TP_X${mode#fabtrace_x}
			bin=100us
			read -ra wake <<<"${!xv:-}"
		fi
		if [[ $mode == always_post ]]; then
			out=$W/cap.d
			mkdir -p "$out"
			wake=(--profile always --post-probes qdisc,rtt,owners --switch-output 2s --keep 60s
				--snapshot-pre 1s --snapshot-post 120s --control "ftbench$$")
		fi
		bench_spawn "$W/tracer.out" "$W/tracer.err" "$FT" record --bin "$bin" "${wake[@]}" \
			-i "$(lab_ns "$LAB" 1)/eth0" -o "$out"
		TPID=$SPAWNED
		wait_grep "$W/tracer.err" 'recording to' "$TPID" 30 || die "fabtrace did not start: $(cat "$W/tracer.err")"
		[[ $mode == always_post ]] && open_post_window
		;;
	tcpdump | tcpdump128)
		local snap=()
		[[ $mode == tcpdump128 ]] && snap=(-s 128)
		# -Z root: write into our private work directory
		bench_spawn "$W/tracer.out" "$W/tracer.err" ip netns exec "$(lab_ns "$LAB" 1)" \
			tcpdump -i eth0 -n -Z root "${snap[@]}" -w "$W/cap.pcap"
		TPID=$SPAWNED
		wait_grep "$W/tracer.err" 'listening on' "$TPID" 30 || die "tcpdump did not start: $(cat "$W/tracer.err")"
		;;
	bpftrace)
		ns_inum=$(ip netns exec "$(lab_ns "$LAB" 1)" stat -L -c %i /proc/self/ns/net)
		bench_spawn "$W/tracer.out" "$W/tracer.err" bpftrace "$BENCH_DIR/throughput.bt" "$BIN_NS" "$ns_inum" "$IFX"
		TPID=$SPAWNED
		wait_grep "$W/tracer.out" '^Attaching' "$TPID" 60 || die "bpftrace did not start: $(cat "$W/tracer.err")"
		;;
	*) die "unknown mode $mode" ;;
	esac
	sleep 0.5 # let the tracer settle (fabtrace attaches its phase probes after the line)
}

# open_post_window: trigger the flight recorder TPID and wait (at most 10 s)
# until its deeper probes are attached: the recorder attaches them at its next tick
open_post_window() {
	local i
	"$FT" trigger --control "ftbench$$" --reason "bench: an open post-window" >/dev/null 2>"$W/trigger.err" ||
		die "fabtrace trigger: $(cat "$W/trigger.err")"
	for ((i = 0; i < 100; i++)); do
		python3 "$PY" linked "$TPID" | grep -qx qdisc_enq_btf && return 0
		sleep 0.1
	done
	die "the post-window's probes did not attach: $(python3 "$PY" linked "$TPID" | tr '\n' ' ')"
}

# one_run CONFIG MODE REP
one_run() {
	local cfg=$1 mode=$2 rep=$3 t0 t1 c0='' c1='' b0 b1 s0 s1 ipid bytes=0
	rm -rf "$W"/tracer.* "$W"/cap.* "$W"/bpf0.json "$W"/bpf1.json
	if [[ $mode == *_stats ]]; then bench_bpf_stats_set 1; else bench_bpf_stats_set 0; fi
	start_tracer "$mode"
	if [[ -n $TPID ]]; then
		python3 "$PY" bpfsnap "$TPID" >"$W/bpf0.json"
		c0=$(cpu_ticks "$TPID")
	fi
	read -r b0 _ s0 < <(sys_busy)
	t0=$(now_s)
	bench_spawn "$W/iperf.json" "$W/iperf.err" ip netns exec "$(lab_ns "$LAB" 1)" \
		iperf3 -c "$(lab_addr 2)" -p 5201 -t "$T" -J
	ipid=$SPAWNED
	bench_wait "$ipid"
	t1=$(now_s)
	read -r b1 _ s1 < <(sys_busy)
	if [[ -n $TPID ]]; then
		c1=$(cpu_ticks "$TPID")
		python3 "$PY" bpfsnap "$TPID" >"$W/bpf1.json"
		bench_stop "$TPID" INT
	fi
	for f in "$W"/cap.*; do [[ -f $f ]] && bytes=$(stat -c %s "$f"); done
	[[ ($mode == fabtrace* || $mode == always*) && -f $W/cap.ftr ]] && "$FT" info --json "$W/cap.ftr" >"$W/info.json" 2>/dev/null
	if [[ -d $W/cap.d ]]; then # a flight recorder: its segments and its snapshot (the window, lost events)
		bytes=$(du -sb "$W/cap.d" | cut -f1)
		for f in "$W"/cap.d/snap-*.ftr; do [[ -f $f ]] && "$FT" info --json "$f" >"$W/info.json" 2>/dev/null; done
	fi
	python3 "$PY" tprow --config "$cfg" --mode "$mode" --rep "$rep" --iperf "$W/iperf.json" --seconds "$T" \
		--t0 "$t0" --t1 "$t1" --ticks0 "$c0" --ticks1 "$c1" --clk "$CLK_TCK" \
		--busy0 "$b0" --busy1 "$b1" --steal0 "$s0" --steal1 "$s1" --bpf0 "$W/bpf0.json" --bpf1 "$W/bpf1.json" \
		--bpf-stats "$(sysctl -n kernel.bpf_stats_enabled)" --out "$W/tracer.out" --err "$W/tracer.err" --info "$W/info.json" --bytes "$bytes" >>"$BENCH_OUT" ||
		die "no result for $cfg/$mode (iperf3: $(head -c 300 "$W/iperf.json") $(cat "$W/iperf.err"))"
	rm -rf "$W"/cap.* "$W/info.json"
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
	IFX=$(ip netns exec "$(lab_ns "$LAB" 1)" cat /sys/class/net/eth0/ifindex)
	bench_spawn "$W/server.out" "$W/server.err" ip netns exec "$(lab_ns "$LAB" 2)" iperf3 -s -p 5201
	SERVER=$SPAWNED
	sleep 0.5
	say "$cfg: lab $LAB, ${T}s per run, $REPS repetitions of ${MODES[*]}"
	# warm-up (connection setup, caches, CPU frequency), not recorded
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
