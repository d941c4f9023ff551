# Sourced by the multi-host tests (test_multihost_*.sh), after lib.sh.
#
# Each lab host is recorded by its own recorder, restricted to its own
# namespace (record --netns), as if it were a separate machine; one more
# recorder takes the whole lab in one capture, the single-capture reference
# of the same run.  tools/capshift then gives every host capture its own
# clock: another boot time (--mono-shift) and a REALTIME that is off by a
# known amount (--clock-error), with a sync state claiming a maxerror that
# covers it.  fabtrace merge must find those errors from the traffic.

CAPSHIFT=$ROOT/$BUILD/tools/capshift
[[ -x $CAPSHIFT ]] || { echo "FAIL: $CAPSHIFT is not built (run make)"; exit 1; }
MH_PIDS=()
declare -A MH_PID_OF=() # recorder name -> pid

mh_cleanup() {
	local p
	for p in "${MH_PIDS[@]}"; do
		kill -INT "$p" 2>/dev/null
	done
	sleep 0.5
	for p in "${MH_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	MH_PIDS=()
	cleanup
}
trap mh_cleanup EXIT

# mh_launch OUT NAME ARGS...: a recorder in the background (its stderr in
# $TMPD/NAME.err); mh_wait NAME...: wait until each of them traces.  Started
# together, recorders load their probes side by side (each takes seconds on
# a busy machine).
mh_launch() {
	local out=$1 name=$2
	shift 2
	: >"$TMPD/$name.err"
	"$FT" record -o "$out" "$@" >"$TMPD/$name.out" 2>"$TMPD/$name.err" &
	MH_PIDS+=($!)
	MH_PID_OF[$name]=$!
}
mh_wait() {
	local name i
	for name in "$@"; do
		for ((i = 0; i < 300; i++)); do
			grep -q "recording to" "$TMPD/$name.err" 2>/dev/null && continue 2
			kill -0 "${MH_PID_OF[$name]}" 2>/dev/null || break
			sleep 0.1
		done
		echo "FAIL: recorder $name did not start:"
		cat "$TMPD/$name.err"
		exit 1
	done
}

# mh_start OUT NAME ARGS...: a recorder in the background; waits until it traces
mh_start() {
	mh_launch "$@"
	mh_wait "$2"
}

# mh_record_hosts N [PREFIX]: recorders for hosts 1..N, each in its own
# namespace, -o $TMPD/PREFIXhostI-%p.ftr (the %p pattern checked on the way)
mh_record_hosts() {
	local n=$1 pre=${2:-} i names=()
	for ((i = 1; i <= n; i++)); do
		mh_launch "$TMPD/${pre}host$i-%p.ftr" "${pre}h$i" --netns "$(lab_ns "$LAB" "$i")"
		names+=("${pre}h$i")
	done
	mh_wait "${names[@]}"
}

# mh_record_all N: recorders for hosts 1..N and then one for the whole lab
# ($TMPD/single.ftr; last, as it traces the phases of every process on the
# machine: the sooner it starts, the likelier another job's collectives)
mh_record_all() {
	mh_record_hosts "$1"
	# shellcheck disable=SC2046
	mh_start "$TMPD/single.ftr" single $(lab_iface_args)
}

# mh_stop_all: stop every recorder (SIGINT: a clean end); fails on a bad exit
mh_stop_all() {
	local p rc
	for p in "${MH_PIDS[@]}"; do
		kill -INT "$p" 2>/dev/null
	done
	for p in "${MH_PIDS[@]}"; do
		rc=0
		wait "$p" || rc=$?
		check "recorder $p stopped cleanly" test "$rc" = 0
	done
	MH_PIDS=()
}

# mh_shift N [PREFIX]: host I's capture ($TMPD/PREFIXhostI-*.ftr) ->
# $TMPD/PREFIXhI.ftr with the shifts in MH_SHIFT[I] (capshift options); the
# truth as JSON lines in $TMPD/PREFIXtruth.jsonl
mh_shift() {
	local n=$1 pre=${2:-} i f g
	: >"$TMPD/${pre}truth.jsonl"
	for ((i = 1; i <= n; i++)); do
		f=
		for g in "$TMPD/${pre}host$i"-*.ftr; do [[ -e $g ]] && f=$g; done
		check "host $i capture named by its -o pattern (${pre}host$i-PID.ftr)" test -n "$f"
		# shellcheck disable=SC2086
		"$CAPSHIFT" ${MH_SHIFT[$i]} --host "node$i" -o "$TMPD/${pre}h$i.ftr" "$f" >>"$TMPD/${pre}truth.jsonl" ||
			bad "capshift host $i"
	done
}

# mh_windows_report: $TMPD/job.ftr window by window into $TMPD/windows.json,
# in windows the docs ask for (known-issues.md, "Reports of a window"):
# their margin (half a window) longer than the whole report's ($TMPD/job.json)
# longest collective, and at least 1 s.  A collective of 1.03 s behind the
# throttled link was cut by 1 s windows: its drops fell outside, it looked
# clean, and its group's usual became the congested time.  The window, in
# seconds, into $TMPD/windows.dur.
mh_windows_report() {
	local w
	w=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
longest = max([c["duration_ns"] for c in j["collectives"]["items"]] or [0]) / 1e9
print("%.3f" % max(1.0, 2.5 * longest))' "$TMPD/job.json") || { bad "the longest collective of job.json"; return; }
	echo "$w" >"$TMPD/windows.dur"
	"$FT" report --json --windows "${w}s" "$TMPD/job.ftr" >"$TMPD/windows.json" 2>"$TMPD/windows.err" ||
		bad "report --windows ${w}s merged"
	check "--windows ${w}s: no collective said cut ($(cat "$TMPD/windows.err"))" \
		test "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["collectives"]["cut"])' \
			"$TMPD/windows.json")" = 0 -a ! -s "$TMPD/windows.err"
}
