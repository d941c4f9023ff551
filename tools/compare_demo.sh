#!/usr/bin/env bash
# The lab recipe of `fabtrace compare` (docs/compare.md): the demo's lab (4
# hosts on a bridge, host 2 behind a 100 Mbit/s tbf) runs a short job --
# an MPI all-reduce across the hosts and host 2 sending to host 1 in rounds
# -- under
# two configurations, several runs each, recorded by fabtrace; then
# compare sets them against each other:
#   1. a deep against a shallow tbf limit on host 2's link (both directions);
#   2. cubic against bbr as the hosts' congestion control (deep limit); where
#      the host does not let a namespace choose cubic (its
#      tcp_allowed_congestion_control), the demo allows it while it runs.
# This kernel has no ECN-marking qdisc and no dctcp; on a fleet kernel the
# same recipe compares dctcp against cubic, and an ECN-marking qdisc's
# threshold (fq_codel ce_threshold, red) in place of the tbf limit.
#
#   tools/compare_demo.sh [BUILD_DIR] [RUNS]       (root; RUNS per side, default 4)
#
# As a library (the test sources it): cdemo_up P, cdemo_limit P SIZE,
# cdemo_cc P NAME, cdemo_run P OUT [FT] -- one recorded run of the job;
# CDEMO_HOSTS, CDEMO_JOB (full or send), CDEMO_DEEP, CDEMO_SHALLOW, CDEMO_RATE.
# Everything it creates carries a prefix and is removed on exit.
_CDEMO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lab.sh
source "$_CDEMO_ROOT/tools/lab.sh"

CDEMO_RATE=${CDEMO_RATE:-100mbit}
CDEMO_DEEP=${CDEMO_DEEP:-2mb}
CDEMO_SHALLOW=${CDEMO_SHALLOW:-30kb}
CDEMO_HOSTS=${CDEMO_HOSTS:-4}
# full: the MPI all-reduce, then host 2's sends; send: host 2's sends alone
# (no phase probes: a shorter run, for the test)
CDEMO_JOB=${CDEMO_JOB:-full}

# cdemo_up P: the lab, host 2 behind the tbf (the deep limit)
cdemo_up() {
	lab_up "$1" "$CDEMO_HOSTS" "h2=$CDEMO_RATE:limit=$CDEMO_DEEP"
}

# cdemo_limit P SIZE: host 2's tbf limit, both directions (the rate and burst kept)
cdemo_limit() {
	lab_shape "$1" "h2=$CDEMO_RATE:limit=$2"
}

# cdemo_cc P NAME: every host's congestion control (new sockets)
cdemo_cc() {
	local i
	for i in $(seq 1 "$(lab_hosts "$1")"); do
		lab_exec "$1" "$i" sysctl -qw "net.ipv4.tcp_congestion_control=$2" || return 1
	done
}

# host 2 sends to host 1 through its tbf: 6 rounds of 512 KiB, 250 ms apart, on one
# connection (long enough for the recorder's socket scan, once a second)
_cdemo_send() {
	local p=$1 sink rc=0
	lab_exec "$p" 1 "$LAB_BIN/incast" sink --port 5001 --expect-bytes 3m --duration 60 >/dev/null &
	sink=$!
	lab_exec "$p" 2 "$LAB_BIN/incast" send --to "$(lab_addr 1):5001" --bytes 512k --rounds 6 \
		--gap-us 250000 --connect-timeout 10 >/dev/null || rc=1
	wait "$sink" || rc=1
	return $rc
}

# cdemo_run P OUT [FT]: record the lab's interfaces into OUT while the job runs
# (CDEMO_JOB); the hosts' cached TCP metrics are flushed first, so that no run
# starts from what the previous one learnt (ssthresh after its losses)
cdemo_run() {
	local p=$1 out=$2 ft=${3:-$_CDEMO_ROOT/build/fabtrace} args=() i n rec rc=0 err
	n=$(lab_hosts "$p") || return 1
	for ((i = 1; i <= n; i++)); do
		args+=(-i "$(lab_ns "$p" "$i")/eth0" -i "$(lab_sw "$p")/p$i")
		lab_exec "$p" "$i" ip tcp_metrics flush all >/dev/null 2>&1 || true
	done
	[[ $CDEMO_JOB == send ]] && args+=(--no-phases)
	err=$(mktemp /tmp/fabtrace-cdemo.XXXXXX)
	rm -f "$out"
	"$ft" record -o "$out" "${args[@]}" >/dev/null 2>"$err" &
	rec=$!
	for ((i = 0; i < 300; i++)); do
		grep -q "recording to" "$err" 2>/dev/null && break
		kill -0 "$rec" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q "recording to" "$err"; then
		echo "compare-demo: the recorder did not start: $(tail -n 2 "$err")" >&2
		kill -INT "$rec" 2>/dev/null
		wait "$rec" 2>/dev/null
		rm -f "$err"
		return 1
	fi
	if [[ $CDEMO_JOB == full ]]; then
		lab_mpi "$p" --bytes 1m --iters 4 --warmup 1 --timeout 120 --quiet || rc=1
	fi
	_cdemo_send "$p" || rc=1
	kill -INT "$rec"
	wait "$rec" || rc=1
	rm -f "$err"
	((rc == 0)) || echo "compare-demo: the run into $out failed" >&2
	return $rc
}

_cdemo_main() {
	local build=${1:-build} runs=${2:-4} ft dir p i base allowed
	ft=$_CDEMO_ROOT/$build/fabtrace
	export LAB_BIN=$_CDEMO_ROOT/$build/tools
	[[ $(id -u) -eq 0 ]] || { echo "compare-demo: needs root (network namespaces, BPF); run 'sudo make compare-demo'" >&2; return 1; }
	[[ $runs =~ ^[0-9]+$ ]] && ((runs >= 1)) || { echo "compare-demo: runs '$runs' is not a count; e.g. 4" >&2; return 2; }
	dir=$_CDEMO_ROOT/$build/compare-demo
	mkdir -p "$dir"
	p=ftC$((RANDOM % 1000))
	# a namespace may only choose what the init namespace allows: where the kernel
	# has cubic but the list leaves it out, allow it for the demo, restored at exit
	allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	# expanded now: at exit this function's locals are gone (set -u made the
	# trap fail, and `make compare-demo` with it, after a whole run)
	# shellcheck disable=SC2064
	trap "lab_down '$p' >/dev/null 2>&1; sysctl -qw net.ipv4.tcp_allowed_congestion_control='$allowed'" EXIT
	if grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control && ! grep -qw cubic <<<"$allowed"; then
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed cubic" || true
	fi
	trap 'exit 130' INT TERM
	lab_gc >/dev/null 2>&1 || true
	echo "== lab $p: 4 hosts, host 2 behind tbf $CDEMO_RATE; $runs runs per configuration into $dir"
	cdemo_up "$p" || return 1
	for i in $(seq 1 "$runs"); do
		# the configurations alternate, so that a drift of the machine falls on both
		cdemo_limit "$p" "$CDEMO_DEEP" && cdemo_run "$p" "$dir/deep-$i.ftr" "$ft" || return 1
		cdemo_limit "$p" "$CDEMO_SHALLOW" && cdemo_run "$p" "$dir/shallow-$i.ftr" "$ft" || return 1
		echo "   run $i of $runs: deep (limit $CDEMO_DEEP) and shallow (limit $CDEMO_SHALLOW) recorded"
	done
	cdemo_limit "$p" "$CDEMO_DEEP" || return 1
	# the lab's loss-based default: cubic (reno where the kernel lacks it)
	base=$(lab_exec "$p" 1 sysctl -n net.ipv4.tcp_congestion_control) || return 1
	for i in $(seq 1 "$runs"); do
		cdemo_cc "$p" bbr && cdemo_run "$p" "$dir/bbr-$i.ftr" "$ft" || return 1
		cdemo_cc "$p" "$base" && cdemo_run "$p" "$dir/$base-$i.ftr" "$ft" || return 1
		echo "   run $i of $runs: $base and bbr recorded"
	done
	lab_down "$p"
	echo
	echo "== fabtrace compare: shallow (A) against deep (B) tbf limit"
	"$ft" compare --html "$dir/limit.html" "$dir"/shallow-*.ftr -- "$dir"/deep-*.ftr
	echo
	echo "== fabtrace compare: $base (A) against bbr (B)"
	"$ft" compare --html "$dir/cc.html" "$dir/$base"-*.ftr -- "$dir"/bbr-*.ftr
	cat <<EOT

The captures stay in $dir, the pages in $dir/limit.html and $dir/cc.html:
  $build/fabtrace compare --json $dir/shallow-*.ftr -- $dir/deep-*.ftr | jq '.metrics[] | select(.significant)'
  $build/fabtrace compare --aa $dir/$base-*.ftr -- $dir/bbr-*.ftr     # with the A/A noise floor
EOT
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	rc=0
	_cdemo_main "$@" || rc=$?
	exit $rc
fi
