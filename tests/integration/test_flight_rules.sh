#!/usr/bin/env bash
# shellcheck disable=SC2016 # the python programs are single-quoted on purpose
# The flight recorder's triggers by rule and by the job (issue 33,
# docs/flight-recorder.md "Rules"), with a busy loop on one core:
#  - bad rules: one line, exit 2, nothing started;
#  - `--trigger 'link.drops > 50/s on SW/p1'`: an incast storm into a tbf
#    port starts ~24 s into a recording of 2 s segments kept 12 s, so that
#    its first segments are gone by then, as in minute N of a long
#    recording (checked: the first is deleted before the storm); a second storm 9 s
#    after the first ends, outside the post-window, is held back by the
#    cool-down.  Exactly one snapshot; its trigger is the rule (its text, the
#    value over the threshold, 1/s), fired inside the first storm by the
#    workload's own CLOCK_MONOTONIC; the snapshot holds the pre-window (no
#    congestion drop before the storm, at least --snapshot-pre of it) and the
#    storm's drops; report opens with the rule, value and threshold;
#  - `--trigger job.exit` under `record -- COMMAND`: a child of COMMAND that
#    exits 3 saves one snapshot naming job.exit with the value 3; its
#    siblings that exit 0 do not;
#  - `rank.late > 100ms on rank:N` on a real MPICH job whose rank 2 sleeps
#    150 ms before each all-reduce: the rule on rank 2 fires, naming rank 2;
#    the one on rank 0 never fires for rank 2's lateness;
#  - `coll.slow > 8x usual 1m on rank:0` on a real MPICH job that turns
#    slow mid-run (rank 2 sleeps 900 ms before each all-reduce from the
#    20th on): it fires inside rank 0's first slow all-reduce, by the job's
#    own CLOCK_MONOTONIC, against a usual of the fast calls.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
[[ -x $LAB_BIN/incast ]] || skip "needs $LAB_BIN/incast (make)"
CTL=ftR$$
LAB_TAG=ftR lab_start 3 "h1=50mbit:limit=16kb:dir=down"
SW=$(lab_sw "$LAB")
H1=$(lab_ns "$LAB" 1)
SINK=''
end_test() {
	lab_kill "$SINK"
	cleanup
}
trap end_test EXIT
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
nsnap() { find "$1" -maxdepth 1 -name 'snap-*.ftr' | wc -l; }
# snap_triggers DIR: the triggers of every snapshot in DIR, one JSON list
snap_triggers() {
	local s
	for s in "$1"/snap-*.ftr; do
		[[ -e $s ]] && "$FT" info --json "$s"
	done | python3 -c '
import json, sys
from checks import json_docs
json.dump([t for j in json_docs(sys.stdin.read()) for t in j["triggers"]], sys.stdout)'
}

# ---- bad rules: one line, exit 2
bad_run() { # GREP DESCRIPTION ARGS...
	local pat=$1 what=$2 rc=0
	shift 2
	"$FT" "$@" >"$TMPD/bad.out" 2>"$TMPD/bad.err" || rc=$?
	check "$what: exit 2, one line naming it ($rc: $(head -c 200 "$TMPD/bad.err"))" \
		test "$rc" = 2 -a "$(wc -l <"$TMPD/bad.err")" = 1 -a -n "$(grep -E -e "$pat" "$TMPD/bad.err")"
}
bad_run "'link.drops > lots'.*not a rate" "a rate without /s" record --switch-output 1s -o "$TMPD" --trigger 'link.drops > lots'
bad_run "'bogus': not a metric" "an unknown metric" record --switch-output 1s -o "$TMPD" --trigger 'bogus > 1'
bad_run "needs a threshold" "a rule without its threshold" record --switch-output 1s -o "$TMPD" --trigger coll.slow
bad_run "not a rank; give rank:N" "'on' an interface for a rule per rank" record --switch-output 1s -o "$TMPD" --trigger 'rank.late > 5ms on eth0'
bad_run "takes no 'on'" "'on' for a rule neither per interface nor per rank" record --switch-output 1s -o "$TMPD" --trigger 'lost > 0 on rank:1'
bad_run "takes no 'usual'" "a usual's window for a rate" record --switch-output 1s -o "$TMPD" --trigger 'link.drops > 5/s usual 1m'
bad_run "'!=' is for job.exit only" "!= for a rate" record --switch-output 1s -o "$TMPD" --trigger 'link.ce != 3/s'
bad_run "needs the flight recorder" "--trigger without the ring" record -o "$TMPD/x.ftr" --trigger job.exit
# a rule that could never fire: what it reads is not attached
bad_run "reads the phase probes' records; drop --no-phases" "job.exit without the phase probes" \
	record --switch-output 1s -o "$TMPD" --no-phases --trigger job.exit
bad_run "reads the qdisc_dequeue probe's records, which --profile always leaves out" \
	"queue.sojourn in the always profile" record --switch-output 1s -o "$TMPD" --profile always --trigger 'queue.sojourn > 1ms'
bad_run "reads the drop probe's records, which --no-probes leaves out" "link.drops without the drop probe" \
	record --switch-output 1s -o "$TMPD" --no-probes drop --trigger 'link.drops > 1/s'
bad_run "reads the iface_rx probe's records, which --no-probes leaves out" "link.ce without the receive bins" \
	record --switch-output 1s -o "$TMPD" --no-probes iface_rx --trigger 'link.ce > 1/s'
bad_run "reads the RDMA and NIC counters; drop --no-rdma or --no-nic-stats" "link.pause without the counters" \
	record --switch-output 1s -o "$TMPD" --no-rdma --no-nic-stats --trigger 'link.pause > 1/s'
# ... and 'on' an interface that -i does not trace (a typo: it was silence)
bad_run "'link.drops > 50/s on $SW/p9': $SW/p9 is not one of the -i interfaces, so the rule could never fire" \
	"a rule on an interface -i leaves out" \
	record -i "$SW/p1" --switch-output 1s -o "$TMPD" --trigger "link.drops > 50/s on $SW/p9"
"$FT" record -q --no-phases --switch-output 1s -d 1s -o "$TMPD/ring0" --trigger "link.drops > 50/s on $SW/p9" \
	2>"$TMPD/warn.err" >/dev/null
check "without -i, a rule on an interface its namespace lacks now: a warning that says so ($(head -c 200 "$TMPD/warn.err"))" \
	grep -q "no interface 'p9' in namespace $SW now" "$TMPD/warn.err"
rm -rf "$TMPD/ring0"
check "nothing was written by the bad runs" test -z "$(find "$TMPD" -name 'seg-*' -o -name 'x.ftr')"

busy_start
# ---- link.drops: two storms, one snapshot
D=$TMPD/ring
mkdir "$D"
RULE="link.drops > 50/s on $SW/p1"
"$FT" record -i "$SW/p1" -i "$H1/eth0" --no-phases --switch-output 2s --keep 12s --keep-size 0 \
	--snapshot-pre 8s --snapshot-post 3s --snapshot-cooldown 60s --trigger "$RULE" --control "$CTL" \
	-o "$D" --json >"$TMPD/rec.json" 2>"$TMPD/rec.err" &
REC_PID=$!
wait_recording "$TMPD/rec.err" "$REC_PID" || bad "the flight recorder did not start: $(tail -n 2 "$TMPD/rec.err")"
T_REC=$(mono)
lab_exec "$LAB" 1 "$LAB_BIN/incast" sink --port 5004 --duration 120 >/dev/null 2>&1 &
SINK=$!
# 24 s of the workload's clock with no storm: the ring rotates past its
# first segments, and the last 8 s are the pre-window
while (($(mono) < T_REC + 24000000000)); do sleep 0.2; done
FIRST_GONE=0
compgen -G "$D/seg-00000001-*" >/dev/null || FIRST_GONE=1
storm() { # one incast from hosts 2 and 3 into host 1's shaped port
	local s=() h
	for h in 2 3; do
		lab_exec "$LAB" "$h" "$LAB_BIN/incast" send --to "$(lab_addr 1):5004" --bytes 4m --conns 2 \
			>"$TMPD/send$h.out" 2>&1 &
		s+=($!)
	done
	wait "${s[@]}" || bad "incast sender: $(cat "$TMPD"/send*.out)"
}
T0=$(mono)
storm
T1=$(mono)
while (($(mono) < T1 + 9000000000)); do sleep 0.2; done
T2=$(mono)
storm
T3=$(mono)
sleep 4 # past the post-window a second snapshot would have
stop_record INT
check "the recorder exits 0 ($REC_RC: $(tail -n 2 "$TMPD/rec.err"))" test "$REC_RC" = 0
echo "storms at +$(((T0 - T_REC) / 1000000)) ms for $(((T1 - T0) / 1000000)) ms and +$(((T2 - T_REC) / 1000000)) ms for $(((T3 - T2) / 1000000)) ms"
check "the ring had deleted its first segment before the storm" test "$FIRST_GONE" = 1
check "exactly one snapshot ($(nsnap "$D"))" test "$(nsnap "$D")" = 1
S=$(find "$D" -maxdepth 1 -name 'snap-*.ftr' | head -1)
check "the recorder's summary: 2 triggers, 1 held back, 1 snapshot ($(jget "$TMPD/rec.json" 'j["flight"]' 2>&1 | head -c 300))" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["flight"]
sys.exit(0 if f["triggers"] == 2 and f["held_back"] == 1 and f["snapshots_saved"] == 1 else 1)' "$TMPD/rec.json"
"$FT" info --json "$S" >"$TMPD/info.json" 2>"$TMPD/info.err" || bad "info on the snapshot: $(cat "$TMPD/info.err")"
check "its trigger is the rule, fired inside the first storm, value over the threshold ($(jget "$TMPD/info.json" 'j["triggers"]' 2>&1 | head -c 400))" python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); rule, t0, t1 = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
t = j["triggers"][0]
sys.exit(0 if j["flight_file"] == "snapshot" and t["kind"] == "rule" and t["rule"] == rule
         and t["action"] == "snapshot" and t["unit"] == "1/s" and t["threshold"] == 50
         and t["value"] > 50 and t0 <= t["mono_ns"] <= t1 else 1)' "$TMPD/info.json" "$RULE" "$T0" "$T1"
check "it holds the pre-window: it starts at least 8 s before the trigger" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["triggers"][0]["mono_ns"] - j["start"]["monotonic_ns"] >= 8e9 else 1)' "$TMPD/info.json"
"$FT" export --what events --format jsonl "$S" >"$TMPD/events.jsonl" 2>"$TMPD/export.err" || bad "export: $(cat "$TMPD/export.err")"
check "it holds the storm's drops on p1, and none in the pre-window" python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); t0, t1 = int(sys.argv[3]), int(sys.argv[4])
start = j["start"]["monotonic_ns"]
d = [start + e["ts_rel_ns"] for e in map(json.loads, open(sys.argv[2]))
     if e.get("kind") == "drop" and e.get("what") == "QDISC_DROP" and e.get("interface", "").startswith("p1@")]
print("  %d QDISC_DROP drops, first %.3f s after the storm began, %d before it" %
      (len(d), (min(d) - t0) / 1e9 if d else -1, sum(x < t0 for x in d)))
sys.exit(0 if len(d) > 50 and min(d) >= t0 and all(x <= t1 + 1e9 for x in d) else 1)' \
	"$TMPD/info.json" "$TMPD/events.jsonl" "$T0" "$T1"
"$FT" report "$S" >"$TMPD/report.txt" 2>&1
check "report opens with the rule that fired ($(head -n 2 "$TMPD/report.txt" | tr '\n' '|'))" \
	test "$(head -n 1 "$TMPD/report.txt" | grep -cF "Snapshot taken on" )" = 1 -a \
	"$(head -n 1 "$TMPD/report.txt" | grep -cF "rule $RULE")" = 1 -a \
	-n "$(sed -n 2p "$TMPD/report.txt" | grep -E '^  value [0-9]+ 1/s, threshold 50 1/s$')"
lab_kill "$SINK"
wait "$SINK" 2>/dev/null
SINK=''

# ---- job.exit: a child of COMMAND exits 3
D2=$TMPD/job
mkdir "$D2"
rc=0
"$FT" record -i "$H1/eth0" --switch-output 1s --keep 30s --keep-size 0 --snapshot-pre 2s --snapshot-post 1s \
	--trigger job.exit --control "$CTL" -o "$D2" --json \
	-- sh -c 'sleep 2; (sleep 0.5; exit 3); sleep 0.2; sleep 3' >"$TMPD/job.json" 2>"$TMPD/job.err" || rc=$?
check "the recorder exits 0 ($rc: $(tail -n 2 "$TMPD/job.err"))" test "$rc" = 0
check "exactly one snapshot ($(nsnap "$D2"))" test "$(nsnap "$D2")" = 1
S2=$(find "$D2" -maxdepth 1 -name 'snap-*.ftr' | head -1)
"$FT" info --json "$S2" >"$TMPD/info2.json" 2>&1
check "its trigger: job, job.exit, value 3 ($(jget "$TMPD/info2.json" 'j["triggers"]' 2>&1 | head -c 400))" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["triggers"]
sys.exit(0 if len(t) == 1 and t[0]["kind"] == "job" and t[0]["rule"] == "job.exit"
         and t[0]["value"] == 3 and "exited 3" in t[0]["reason"] else 1)' "$TMPD/info2.json"
"$FT" report "$S2" >"$TMPD/report2.txt" 2>&1
check "report opens with job.exit ($(head -n 1 "$TMPD/report2.txt"))" \
	test "$(head -n 1 "$TMPD/report2.txt" | grep -c "^Snapshot taken on .*: job job.exit (\"pid [0-9]* (sh) exited 3\")")" = 1

# ---- a rule's own rate policy: the second firing only
D3=$TMPD/policy
mkdir "$D3"
rc=0
"$FT" record -i "$H1/eth0" --switch-output 1s --keep 30s --keep-size 0 --snapshot-pre 1s --snapshot-post 1s \
	--trigger 'job.exit policy once-after:2' --control "$CTL" -o "$D3" --json \
	-- sh -c 'sleep 1; (exit 3); sleep 2; (exit 4); sleep 2' >"$TMPD/policy.json" 2>"$TMPD/policy.err" || rc=$?
check "policy: the recorder exits 0 ($rc: $(tail -n 2 "$TMPD/policy.err"))" test "$rc" = 0
check "policy: one snapshot ($(nsnap "$D3"))" test "$(nsnap "$D3")" = 1
S3=$(find "$D3" -maxdepth 1 -name 'snap-*.ftr' | head -1)
"$FT" info --json "$S3" >"$TMPD/info3.json" 2>&1
check "policy: once-after:2 saved the second exit, 4, and held back the first ($(jget "$TMPD/policy.json" 'j["flight"]' 2>&1 | head -c 200))" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["triggers"]
f = json.load(open(sys.argv[2]))["flight"]
sys.exit(0 if len(t) == 1 and t[0]["value"] == 4 and f["triggers"] == 2 and f["held_back"] == 1 else 1)' \
	"$TMPD/info3.json" "$TMPD/policy.json"

# ---- rank.late on one rank: real MPICH, rank 2 late by 150 ms each all-reduce
D4=$TMPD/late
mkdir "$D4"
rc=0
"$FT" record -i "$H1/eth0" --switch-output 1s --keep 60s --keep-size 0 --snapshot-pre 1s --snapshot-post 1s \
	--trigger 'rank.late > 100ms on rank:2' --trigger 'rank.late > 100ms on rank:0' --control "$CTL" -o "$D4" --json \
	-- "$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 64k --iters 8 --warmup 0 --delay 2:150000 --timeout 120 \
	>"$TMPD/late.json" 2>"$TMPD/late.err" || rc=$?
check "rank.late on rank:N: the recorder and the MPI job exit 0 ($rc: $(tail -n 2 "$TMPD/late.err"))" test "$rc" = 0
snap_triggers "$D4" >"$TMPD/late.info"
check "rank.late on rank:2 fired naming rank 2; on rank:0 never for another rank" python3 -c '
import json, sys
trig = json.load(open(sys.argv[1]))
r2 = [t for t in trig if t["rule"] == "rank.late > 100ms on rank:2"]
r0 = [t for t in trig if t["rule"] == "rank.late > 100ms on rank:0"]
print("# %d firings on rank:2 (%s), %d on rank:0" % (len(r2), r2[0]["reason"] if r2 else "-", len(r0)))
sys.exit(0 if r2 and all("(rank 2)" in t["reason"] and t["value"] > 100e6 for t in r2)
         and all("(rank 0)" in t["reason"] for t in r0) else 1)' "$TMPD/late.info"

# ---- coll.slow against a usual over a window: real MPICH turning slow at its 20th all-reduce
D5=$TMPD/slow
mkdir "$D5"
rc=0
"$FT" record -i "$H1/eth0" --switch-output 1s --keep 60s --keep-size 0 --snapshot-pre 1s --snapshot-post 1s \
	--trigger 'coll.slow > 8x usual 1m on rank:0' --control "$CTL" -o "$D5" --json \
	-- "$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 64k --iters 24 --warmup 0 --delay 2:900000 --timeout 120 \
	-- --delay-from 20 --times-file "$TMPD/slow.times" >"$TMPD/slow.json" 2>"$TMPD/slow.err" || rc=$?
check "coll.slow usual: the recorder and the MPI job exit 0 ($rc: $(tail -n 2 "$TMPD/slow.err"))" test "$rc" = 0
snap_triggers "$D5" >"$TMPD/slow.info"
check "coll.slow > 8x usual 1m on rank:0 fired inside rank 0's first slow all-reduce" python3 -c '
import json, sys
trig = json.load(open(sys.argv[1]))
# the job clock: rank 0 entered its 20th all-reduce at t_in and left at t_out
seq, t_in, t_out = [l.split() for l in open(sys.argv[2] + ".0")][20]
t_in, t_out = float(t_in), float(t_out)
hit = [t for t in trig if t["rule"] == "coll.slow > 8x usual 1m on rank:0" and t_in - 1e6 <= t["mono_ns"] <= t_out
       and t["value"] >= 8000 and "allreduce" in t["reason"]]
print("# %d firings; rank 0 entered its 20th all-reduce at %.0f, left %.1f ms later; %s" %
      (len(trig), t_in, (t_out - t_in) / 1e6, "; ".join("%s at %+.1f ms: %s" % (t["rule"], (t["mono_ns"] - t_in) / 1e6,
                                                           t["reason"]) for t in trig)))
sys.exit(0 if seq == "20" and hit else 1)' "$TMPD/slow.info" "$TMPD/slow.times"
busy_stop
finish
