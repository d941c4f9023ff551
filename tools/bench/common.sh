# Shared by the benchmark scripts (sourced).  Each script builds its own lab
# with a unique ftB prefix and registers every process it starts; the EXIT
# trap stops those (by PID), removes the lab (and with it the iptables rules
# and qdiscs inside), restores kernel.bpf_stats_enabled and deletes the work
# directory, also on failure or Ctrl-C.
# shellcheck shell=bash
set -u
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/../.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
export BUILD
FT=$BUILD/fabtrace
BB=$BUILD/bench
PY=$BENCH_DIR/benchlib.py
# lab.sh finds the lab tools through BUILD (relative to the repo) or LAB_BIN
export LAB_BIN=$BUILD/tools
# shellcheck source-path=SCRIPTDIR source=../lab.sh
source "$ROOT/tools/lab.sh"

BENCH_QUICK=${BENCH_QUICK:-0}
[[ $BENCH_QUICK == 0 || $BENCH_QUICK == 1 ]] || BENCH_QUICK=1
# where each benchmark leaves its raw rows (JSON lines) for run.sh to render
BENCH_RESULTS=${BENCH_RESULTS:-$BB/results}
# shellcheck disable=SC2034 # used by the benchmark scripts
CLK_TCK=$(getconf CLK_TCK)

BENCH_PIDS=()
BENCH_LABS=()
BENCH_STATS_OLD=
BENCH_TMP=

say() { printf '[%s] %s\n' "${BENCH_NAME:-bench}" "$*" >&2; }
die() { say "error: $*"; exit 1; }

bench_cleanup() {
	local pid i lab
	trap - EXIT INT TERM
	for pid in "${BENCH_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null || continue
		kill -CONT "$pid" 2>/dev/null # a recorder stopped by bench_hooks.sh
	done
	for pid in "${BENCH_PIDS[@]}"; do
		for ((i = 0; i < 30; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	BENCH_PIDS=()
	for lab in "${BENCH_LABS[@]}"; do
		lab_down "$lab" >/dev/null 2>&1 || say "warning: lab $lab not fully removed"
	done
	BENCH_LABS=()
	bench_bpf_stats_restore
	if [[ -n $BENCH_TMP && -d $BENCH_TMP ]]; then
		if [[ -n ${BENCH_KEEP:-} ]]; then
			mkdir -p "$BENCH_KEEP" && cp -a "$BENCH_TMP/." "$BENCH_KEEP/" && say "kept files in $BENCH_KEEP"
		fi
		rm -rf "$BENCH_TMP"
	fi
}

# bench_init NAME: root check, work dir, traps, results file $BENCH_OUT (emptied)
bench_init() {
	BENCH_NAME=$1
	[[ $(id -u) -eq 0 ]] || die "needs root (BPF, namespaces, iptables); run 'sudo make bench'"
	[[ -x $FT ]] || die "$FT is not built; run 'make BUILD=${BUILD#"$ROOT"/} bench'"
	BENCH_TMP=$(mktemp -d /tmp/fabtrace-bench.XXXXXX) || die "cannot create a work directory"
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir -p "$BENCH_RESULTS" || die "cannot create $BENCH_RESULTS"
	BENCH_OUT=$BENCH_RESULTS/$BENCH_NAME.jsonl
	: >"$BENCH_OUT"
}

# bench_need CMD...: every command must exist ('make bench' installs them)
bench_need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || die "$c not found; run 'make bench' (tools/deps.sh bench installs it)"
	done
}

# bench_lab N [SHAPE...]: a lab with a fresh ftB prefix, in $LAB
bench_lab() {
	LAB=ftB$(printf '%05d' $(((RANDOM * 32768 + RANDOM) % 100000)))
	BENCH_LABS+=("$LAB")
	lab_up "$LAB" "$@" || die "lab up $LAB failed"
}

bench_lab_down() {
	local lab=$1 l keep=()
	lab_down "$lab" >/dev/null 2>&1 || say "warning: lab $lab not fully removed"
	for l in "${BENCH_LABS[@]}"; do [[ $l == "$lab" ]] || keep+=("$l"); done
	BENCH_LABS=("${keep[@]}")
}

# bench_pair_servers HOSTS: an iperf3 server on port 5201 of every even lab
# host (h2, h4, ...), the other end of the pairs h1 -> h2, h3 -> h4, ...
bench_pair_servers() {
	local h
	for ((h = 2; h <= $1; h += 2)); do
		bench_spawn "$BENCH_TMP/server$h.out" "$BENCH_TMP/server$h.err" \
			ip netns exec "$(lab_ns "$LAB" "$h")" iperf3 -s -p 5201
	done
	sleep 0.5
}

# bench_spawn OUT ERR CMD...: start CMD in the background, registered for
# cleanup; its PID in $SPAWNED
bench_spawn() {
	local out=$1 err=$2
	shift 2
	"$@" >"$out" 2>"$err" </dev/null &
	SPAWNED=$!
	BENCH_PIDS+=("$SPAWNED")
}

# bench_stop PID [SIGNAL]: signal (default INT), wait up to 10 s, then KILL;
# the exit status in $STOP_RC
# shellcheck disable=SC2034 # STOP_RC is for callers
bench_stop() {
	local pid=$1 sig=${2:-INT} i p keep=()
	kill -"$sig" "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		# a zombie of ours counts as stopped
		[[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == Z ]] && break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	STOP_RC=0
	wait "$pid" 2>/dev/null || STOP_RC=$?
	for p in "${BENCH_PIDS[@]}"; do [[ $p == "$pid" ]] || keep+=("$p"); done
	BENCH_PIDS=("${keep[@]}")
}

# bench_wait PID: wait for a spawned process to exit by itself (interruptible
# by Ctrl-C, unlike a foreground command); its status in $WAIT_RC
# shellcheck disable=SC2034 # WAIT_RC is for callers
bench_wait() {
	local pid=$1 p keep=()
	WAIT_RC=0
	wait "$pid" || WAIT_RC=$?
	for p in "${BENCH_PIDS[@]}"; do [[ $p == "$pid" ]] || keep+=("$p"); done
	BENCH_PIDS=("${keep[@]}")
}

# wait_grep FILE REGEX PID [TIMEOUT_S]: until FILE matches (0), PID dies or
# the timeout passes (1)
wait_grep() {
	local f=$1 re=$2 pid=$3 t=${4:-20} i
	for ((i = 0; i < t * 20; i++)); do
		grep -qE "$re" "$f" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# cpu_ticks PID: utime+stime (all threads) in clock ticks, empty if gone
cpu_ticks() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	read -ra _f <<<"$s"
	echo $((_f[11] + _f[12]))
}

# sys_busy: "busy total steal" jiffies of all CPUs from /proc/stat (busy
# counts steal: the time the hypervisor gave this VM's CPUs to others)
sys_busy() {
	awk '/^cpu /{t=0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t, $9}' /proc/stat
}

now_s() { date +%s.%N; }

# kernel.bpf_stats_enabled on for the benchmark; the old value comes back on exit
bench_bpf_stats_on() {
	[[ -n $BENCH_STATS_OLD ]] || BENCH_STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled) || die "cannot read kernel.bpf_stats_enabled"
	sysctl -qw kernel.bpf_stats_enabled=1 || die "cannot set kernel.bpf_stats_enabled"
}

# bench_bpf_stats_set 0|1: kernel.bpf_stats_enabled for the next run (the
# timing costs two clock reads per program run, so a run measured for its
# throughput has it off, as a node that does not time its programs)
bench_bpf_stats_set() {
	sysctl -qw kernel.bpf_stats_enabled="$1" || die "cannot set kernel.bpf_stats_enabled=$1"
}

# bench_clock_row: what one clock read costs a BPF program here (floor
# --clock-cost: a JSON row of type "clock") into this bench's results
bench_clock_row() {
	"$BB/floor" --clock-cost >>"$BENCH_OUT" || die "floor --clock-cost failed"
}

bench_bpf_stats_restore() {
	if [[ -n $BENCH_STATS_OLD ]]; then
		sysctl -qw kernel.bpf_stats_enabled="$BENCH_STATS_OLD" || say "warning: cannot restore kernel.bpf_stats_enabled=$BENCH_STATS_OLD"
		BENCH_STATS_OLD=
	fi
}

# reps DEFAULT QUICK: the repetition count (BENCH_REPS overrides)
reps() {
	if [[ -n ${BENCH_REPS:-} ]]; then echo "$BENCH_REPS"; elif ((BENCH_QUICK)); then echo "$2"; else echo "$1"; fi
}

# pick FULL QUICK
pick() { if ((BENCH_QUICK)); then echo "$2"; else echo "$1"; fi; }

# record the machine's state next to the rows: load average, time
# (bench_meta --busy KEY=VALUE...: also sample how busy the CPUs are, 2 s)
bench_meta() {
	local busy=()
	[[ ${1:-} == --busy ]] && { busy=(--busy); shift; }
	python3 "$PY" meta "${busy[@]}" "$BENCH_NAME" "$@" >>"$BENCH_OUT"
}
