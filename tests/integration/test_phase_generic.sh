#!/usr/bin/env bash
# Phase probes without MPI: a generic --phase on a test library's symbol, a
# library dlopen()ed after the recording started, the marker API's steps, -p on a running process, and the errors
# for an unknown library, an unknown symbol and a PID that does not exist.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
LIB=$ROOT/$BUILD/tests/lib/libftphase_test.so
WL=$ROOT/$BUILD/tools/phase_workload
[[ -x $WL && -f $LIB ]] || { echo "FAIL: $WL or $LIB not built (run make)"; exit 1; }
J=$TMPD/r.json

# 1. -- COMMAND: the library is dlopen()ed 300 ms after the start, and every
#    call after that is a phase; the marker API marks one step per call.
"$FT" record -q -o "$TMPD/g.ftr" --phase "$LIB:fttest_work=work" -- \
	"$WL" --calls 20 --usec 2000 --other 3 --dlopen-after 300 --steps --json >"$TMPD/wl.json" 2>"$TMPD/rec.err"
_rc=$?
check "record -- phase_workload exits 0 ($(tail -n1 "$TMPD/rec.err"))" test "$_rc" = 0
"$FT" report --json "$TMPD/g.ftr" >"$J" || bad "report --json"
pid=$(jget "$TMPD/wl.json" "j['pid']")
n=$(jget "$J" "sum(o['calls'] for r in j['ranks'] if r['pid']==$pid for o in r['ops'] if o['op']=='custom' and o['name']=='work')")
check "20 calls of the dlopen()ed fttest_work traced as 'work' ($n)" test "$n" = 20
# the NAME given is what the text and the HTML page call them, not "custom"
"$FT" report "$TMPD/g.ftr" >"$TMPD/g.txt" 2>&1 || bad "report"
check "the text report lists them as 'work 20' ($(grep -m1 ' work \| custom ' "$TMPD/g.txt"))" \
	grep -q " work 20 (" "$TMPD/g.txt"
"$FT" report -q --html "$TMPD/g.html" "$TMPD/g.ftr" || bad "report --html"
check "the HTML page's op names hold 'work'" grep -q '"ops":\[[^]]*"work"' "$TMPD/g.html"
other=$(jget "$J" "sum(o['calls'] for r in j['ranks'] for o in r['ops'] if o['op'] not in ('custom','step','mark'))")
check "fttest_other (not asked for) not traced ($other)" test "$other" = 0
steps=$(jget "$J" "j['steps']['total']")
check "20 marker steps ($steps)" test "$steps" = 20

# 2. -p PID: attach to a process that is already running (and outlives the
#    recording's second, however long the recorder takes to start).
"$WL" --calls 1000 --usec 5000 >/dev/null 2>&1 &
WPID=$!
sleep 0.3
"$FT" record -q -o "$TMPD/p.ftr" -d 1s -p "$WPID" --phase "$LIB:fttest_work" 2>"$TMPD/p.err"
_rc=$?
check "record -p $WPID exits 0 ($(tail -n1 "$TMPD/p.err"))" test "$_rc" = 0
kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null
"$FT" report --json "$TMPD/p.ftr" >"$J" || bad "report --json (-p)"
n=$(jget "$J" "sum(o['calls'] for r in j['ranks'] if r['pid']==$WPID for o in r['ops'] if o['op']=='custom')")
# each call sleeps 5 ms: at most one per 5 ms of the time traced inside them,
# and that time fits in the capture's own span (a late stop makes it longer)
"$FT" info --json "$TMPD/p.ftr" >"$TMPD/p.info" || bad "info --json (-p)"
span=$(jget "$TMPD/p.info" "j['duration_ns']")
inside=$(jget "$J" "sum(o['time_ns'] for r in j['ranks'] if r['pid']==$WPID for o in r['ops'] if o['op']=='custom')")
check "-p -d 1s: the capture spans about 1 s, not the workload's 5 s ($span ns)" \
	test "$span" -ge 1000000000 -a "$span" -lt 3000000000
check "-p: about 1 s of 5 ms calls traced on pid $WPID ($n calls, $inside ns inside them)" \
	test "$n" -ge 100 -a "$n" -le $((inside / 5000000 + 1)) -a "$inside" -le "$span"
others=$(jget "$J" "len([r for r in j['ranks'] if r['pid']!=$WPID])")
check "-p: no other process traced ($others)" test "$others" = 0

# 2b. -p without -d: the recording ends by itself within a second or so of the
#     process's exit (as perf record -p does), not before it and not never.
"$WL" --calls 600 --usec 5000 >/dev/null 2>&1 &
WPID=$!
sleep 0.3
timeout 60 "$FT" record -q -o "$TMPD/pe.ftr" -p "$WPID" --phase "$LIB:fttest_work" 2>"$TMPD/pe.err" &
RPID=$!
wait "$WPID"
wl_end=$(date +%s%N)
wait "$RPID"
_rc=$?
check "record -p $WPID (no -d) ends by itself once it exited, exit 0 ($_rc: $(tail -n1 "$TMPD/pe.err"))" test "$_rc" = 0
"$FT" info --json "$TMPD/pe.ftr" >"$TMPD/pe.info" || bad "info --json (-p, no -d)"
check "-p, no -d: capture complete, stop reason 'processes exited'" \
	test "$(jget "$TMPD/pe.info" 'j["state"], j["stop_reason"]')" = "('complete', 'processes exited')"
# against the workload's own end (its exit as this shell saw it): the capture
# reaches it, and ends within a few seconds of it (the recorder looks once a second)
check "-p, no -d: the capture ends after the process's exit, not long after" python3 - "$TMPD/pe.info" "$wl_end" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
end = j["start"]["monotonic_ns"] + j["start"]["realtime_offset_ns"] + j["duration_ns"]
wl = int(sys.argv[2])
print("# capture ends %+.3f s from the workload's exit" % ((end - wl) / 1e9))
sys.exit(0 if wl - 0.1e9 <= end <= wl + 5e9 else 1)
PY
"$FT" report --json "$TMPD/pe.ftr" >"$J" || bad "report --json (-p, no -d)"
n=$(jget "$J" "sum(o['calls'] for r in j['ranks'] if r['pid']==$WPID for o in r['ops'] if o['op']=='custom')")
check "-p, no -d: its calls traced ($n of 600)" test "$n" -ge 100 -a "$n" -le 600

# 3. bad input: one line, exit 1 (2 for a usage error), no capture file left behind
bad_case() { # DESCRIPTION EXIT EXPECTED-WORD ARGS...
	local d=$1 want=$2 word=$3 rc
	shift 3
	rm -f "$TMPD/bad.ftr"
	"$FT" record -q -o "$TMPD/bad.ftr" -d 1s "$@" >"$TMPD/bad.out" 2>&1
	rc=$?
	if ((rc == want)) && [[ $(wc -l <"$TMPD/bad.out") -eq 1 ]] && grep -qi -- "$word" "$TMPD/bad.out" &&
		[[ ! -e $TMPD/bad.ftr ]]; then
		ok "$d: $(cat "$TMPD/bad.out")"
	else
		bad "$d: rc=$rc, output: $(head -c 300 "$TMPD/bad.out"), file: $(ls "$TMPD/bad.ftr" 2>&1)"
	fi
}
bad_case "unknown library" 1 "nosuchlib" --phase /nonexistent/libnosuchlib.so:f
bad_case "unknown symbol" 1 "no_such_symbol" --phase "$LIB:no_such_symbol"
bad_case "malformed --phase" 2 "phase" --phase "just-a-name"
bad_case "PID that does not exist" 1 "999999" -p 999999
finish
