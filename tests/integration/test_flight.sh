#!/usr/bin/env bash
# shellcheck disable=SC2154 # left orphans own own_*: assigned by eval "$(rel ...)"
# The flight recorder (issue 33, docs/flight-recorder.md), on one host with
# steady TCP traffic between two lab hosts:
#  - bad input: a missing or non-directory -o, bad --switch-output, snapshot
#    options without the ring, a --keep that cannot hold the pre-window, a
#    trigger with no recorder, a trigger by a user who is not root (refused by
#    the command, and by the recorder from the peer's credentials);
#  - a shortened soak (FT_SOAK_SECS, default 40; the hour is `make bench`):
#    1 s / 256 kB segments, --keep 8s, --keep-size 1M: the segments rotate and
#    the oldest go; disk within its bound (sampled every half second), the
#    recorder's RSS flat (not under the sanitizers), every closed segment
#    readable by info and report while recording goes on, and one after the
#    first (which is gone) carrying the configuration (issue 34);
#  - SIGUSR1: exactly one snapshot, holding its pre-window; `fabtrace trigger
#    --wait` and a second trigger inside its post-window: one snapshot,
#    extended, holding both triggers; Ctrl-C: the last segment closed
#    cleanly, nothing left under a .part name;
#  - rate limits: every:2 with a cool-down, and once-after:2, as the triggers'
#    answers and the snapshots on disk say;
#  - --snapshot-post 0: a trigger --at a moment the last snapshot saved is
#    covered, a later one's snapshot holds its moment;
#  - kill -9 at random moments: every closed segment readable, none of the
#    recorder's BPF objects left; the next recorder in that directory renames
#    the killed one's open segment into place, readable (truncated), and
#    removes one that holds no record; killed 3.5 s into a long segment, its
#    open segment reads all but the last second or two;
#  - after an idle spell, a snapshot and every segment of its window begin
#    within their own time: a CPU whose traffic stopped writes out its bins
#    within FT_STAGE_MAX_NS (a timer), not with its next packet or the stop;
#    with the raw_tp programs (no timer) a segment reaches back to the burst,
#    and the snapshot still leaves those bins out; unpinned timers (a kernel
#    before 6.7, FABTRACE_TIMER_NOPIN) are named by record -v.
# FT_SEED=N repeats the same random moments.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd bpftool
need_cmd python3
need_cmd setpriv
source "$(dirname "$0")/reliability.sh"
SEED=${FT_SEED:-$((RANDOM * 32768 + RANDOM))}
echo "seed $SEED (FT_SEED=$SEED repeats these moments)"
RANDOM=$SEED
SOAK=${FT_SOAK_SECS:-30}
CTL=ftT$$ # a control socket of our own: other recorders may run on this machine
lab_start 2
H1=$(lab_ns "$LAB" 1) H2=$(lab_ns "$LAB" 2)
IFS_ARGS=(-i "$H1/eth0" -i "$H2/eth0" --no-phases)
SINK='' SEND=''
FULL=$TMPD/full
end_test() {
	lab_kill "$SEND"
	lab_kill "$SINK"
	mountpoint -q "$FULL" && umount "$FULL"
	cleanup
}
trap end_test EXIT

# ---- bad input: one line, a non-zero exit, nothing started
bad_run() { # WANT_RC GREP DESCRIPTION ARGS...
	local want=$1 pat=$2 what=$3 rc=0
	shift 3
	"$FT" "$@" >"$TMPD/bad.out" 2>"$TMPD/bad.err" || rc=$?
	check "$what: exit $want, one line naming it ($rc: $(head -c 200 "$TMPD/bad.err"))" \
		test "$rc" = "$want" -a "$(wc -l <"$TMPD/bad.err")" = 1 -a -n "$(grep -E -e "$pat" "$TMPD/bad.err")"
}
: >"$TMPD/afile"
bad_run 1 "no-such/dir: No such file or directory; create the directory" "a missing -o directory's parent" \
	record --switch-output 1s -o "$TMPD/no-such/dir" --control "$CTL"
bad_run 1 "not a directory" "-o naming a file" record --switch-output 1s -o "$TMPD/afile" --control "$CTL"
bad_run 2 "--switch-output '10': not a time" "--switch-output 10 (no unit)" record --switch-output 10 -o "$TMPD"
bad_run 2 "--keep-size '10k': not a size" "--keep-size 10k" record --switch-output 1s --keep-size 10k -o "$TMPD"
bad_run 2 "--switch-output '1k': not a time" "--switch-output 1k" record --switch-output 1k -o "$TMPD"
bad_run 2 "--switch-output 500ms is too short: segments close to the second" "--switch-output 500ms (it was made 1 s)" \
	record --switch-output 500ms -o "$TMPD"
bad_run 2 "needs -o DIR" "the ring without -o" record --switch-output 1s
bad_run 2 "gives a time twice" "--switch-output, two times" record --switch-output 2s --switch-output 3s -o "$TMPD"
bad_run 2 "add --switch-output" "--snapshot-pre without the ring" record --snapshot-pre 5s -o "$TMPD/x.ftr"
bad_run 2 "cannot hold" "--keep shorter than the pre-window" record --switch-output 1s --keep 5s --snapshot-pre 30s -o "$TMPD"
bad_run 2 "--snapshot-policy 'every:0': not a rate" "--snapshot-policy every:0" record --switch-output 1s --snapshot-policy every:0 -o "$TMPD"
bad_run 1 "interface 'nosuch0' not found" "a missing interface, -o a new directory" \
	record -i nosuch0 --switch-output 1s -o "$TMPD/newdir" --control "$CTL"
check "  leaves no directory behind (it left DIR with its lock and summaries/)" test ! -e "$TMPD/newdir"
bad_run 1 "no flight recorder listens" "a trigger with no recorder" trigger --control "$CTL"
bad_run 2 "--at 'yesterday': not a time" "trigger --at yesterday" trigger --at yesterday
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$FT" trigger --control "$CTL" 2>"$TMPD/bad.err" || rc=$?
check "a trigger by a user who is not root: refused, exit 1 ($rc: $(cat "$TMPD/bad.err"))" \
	test "$rc" = 1 -a -n "$(grep "only root" "$TMPD/bad.err")"
chmod o+x "$TMPD" # reachable by that user: the refusal is the privileges', not the path's
mkdir -m 0777 "$TMPD/anyone"
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$FT" record --switch-output 1s -o "$TMPD/anyone" \
	--control "$CTL" 2>"$TMPD/bad.err" || rc=$?
check "a flight recorder started by a user who is not root: exit 1, one line ($rc: $(cat "$TMPD/bad.err"))" \
	test "$rc" = 1 -a "$(wc -l <"$TMPD/bad.err")" = 1 -a -n "$(grep "missing privileges" "$TMPD/bad.err")"

echo "# [${SECONDS}s] steady traffic"
# ---- steady traffic, h2 -> h1
lab_exec "$LAB" 1 "$LAB_BIN/incast" sink --port 5003 --duration 600 >/dev/null 2>&1 &
SINK=$!
lab_exec "$LAB" 2 "$LAB_BIN/incast" send --to "$(lab_addr 1):5003" --bytes 64k --rounds 1000000 \
	--gap-us 10000 >/dev/null 2>&1 &
SEND=$!

segs() { find "$1" -maxdepth 1 -name 'seg-*.ftr' | sort; }
disk() { find "$1" -maxdepth 1 -name 'seg-*' -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# readable DESC FILE: info and report read it and exit 0; info says STATE (default complete)
readable() {
	local rc1=0 rc2=0 st
	"$FT" info --json "$2" >"$TMPD/i.json" 2>"$TMPD/i.err" || rc1=$?
	"$FT" report -q --json "$2" >/dev/null 2>"$TMPD/r.err" || rc2=$?
	st=$(jget "$TMPD/i.json" 'j["state"]' 2>/dev/null)
	[[ $rc1 == 0 && $rc2 == 0 && $st == "${3:-complete}" ]] && return 0
	echo "     $1: $2: info $rc1 report $rc2 state $st: $(head -c 300 "$TMPD/i.err" "$TMPD/r.err")"
	return 1
}

echo "# [${SECONDS}s] the soak"
# ---- the soak
D1=$TMPD/ring1
mkdir "$D1"
# start_flight N DIR ARGS...: a flight recorder in the background ($TMPD/recN.json, recN.err)
start_flight() {
	local k=$1 dir=$2
	shift 2
	"$FT" record "${IFS_ARGS[@]}" --control "$CTL" -o "$dir" --json "$@" >"$TMPD/rec$k.json" 2>"$TMPD/rec$k.err" &
	REC_PID=$!
	wait_recording "$TMPD/rec$k.err" "$REC_PID" 30 # the check below says whether it did
	check "flight recorder $k starts ($(tail -n 1 "$TMPD/rec$k.err"))" grep -q "recording to $dir (flight recorder" "$TMPD/rec$k.err"
}
start_flight 1 "$D1" --switch-output 1s --switch-output 16k --keep 8s --keep-size 64k --snapshot-pre 2s
declare -A SEEN
t0=$SECONDS maxdisk=0 rss_mid=0 rss_end=0 nread=0 unread=0
BOUND=$((64 * 1024 + 256 * 1024)) # --keep-size, and a block (256 kB before compression) before the oldest goes
while ((SECONDS - t0 < SOAK)); do
	d=$(disk "$D1")
	((d > maxdisk)) && maxdisk=$d
	r=$(rss_kb "$REC_PID")
	if ((SECONDS - t0 < SOAK / 2)); then
		((r > rss_mid)) && rss_mid=$r
	else
		((r > rss_end)) && rss_end=$r
	fi
	# closed segments are complete captures while recording goes on (one in five looked at)
	for f in $(segs "$D1"); do
		[[ -n ${SEEN[$f]:-} ]] || ((RANDOM % 5)) && continue
		if readable "while recording" "$f"; then nread=$((nread + 1)) SEEN[$f]=1; elif [[ -e $f ]]; then unread=$((unread + 1)); fi
	done
	sleep 0.5
done
echo "# soak: ${SOAK}s, disk at most $maxdisk bytes, RSS ${rss_mid} kB (first half) ${rss_end} kB (second), $nread segments read"
check "disk stays within --keep-size plus a block ($maxdisk <= $BOUND bytes)" test "$maxdisk" -le "$BOUND"
check "closed segments read by info and report while recording ($nread read, $unread not)" \
	test "$nread" -ge 3 -a "$unread" = 0
nseg=$(segs "$D1" | wc -l)
check "the ring holds what --keep and --keep-size allow ($nseg closed segments)" test "$nseg" -ge 2 -a "$nseg" -le 12
if [[ $BUILD == */san ]]; then
	echo "# RSS not bounded under the sanitizers (their quarantine grows)"
else
	check "RSS flat: the second half's peak within 2 MiB of the first's ($rss_mid -> $rss_end kB)" \
		test "$rss_end" -le $((rss_mid + 2048)) -a "$rss_end" -gt 0
fi

echo "# [${SECONDS}s] Ctrl-C: the last segment"
# ---- Ctrl-C: the last segment closed cleanly
stop_record INT
check "Ctrl-C: exit 0 ($REC_RC: $(tail -n 2 "$TMPD/rec1.err" | head -c 300))" test "$REC_RC" = 0
check "nothing left under a .part name" test -z "$(find "$D1" -name '*.part')"
last=$(segs "$D1" | tail -n 1)
check "the last segment is complete, stopped by the signal" sh -c \
	"'$FT' info --json '$last' | python3 -c 'import json,sys; j=json.load(sys.stdin); sys.exit(0 if j[\"state\"]==\"complete\" and j[\"stop_reason\"]==\"signal\" else 1)'"
check "the summary counts rotation and deletion" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["flight"]
sys.exit(0 if f["segments_written"] >= 10 and f["segments_deleted"] >= 5 and f["disk_bytes"] > 0 else 1)' "$TMPD/rec1.json"
nseg=0 ok=0
for f in $(segs "$D1"); do
	[[ -n ${SEEN[$f]:-} ]] && continue # read while recording
	nseg=$((nseg + 1))
	readable "after the stop" "$f" && ok=$((ok + 1))
done
check "every segment left reads ($ok of the $nseg not read while recording)" test "$ok" = "$nseg"
# two segments of one recorder are times of one host, not two hosts: merge refuses them, and says
# what to do (consecutive ones were refused as one interface traced twice, others merged as 2 hosts)
rc=0
mapfile -t two < <(segs "$D1" | head -n 2)
"$FT" merge -q -o "$TMPD/segs.ftr" "${two[@]}" 2>"$TMPD/segmerge.err" || rc=$?
check "merge of two segments of one recorder: exit 1, one line saying so ($rc: $(head -c 200 "$TMPD/segmerge.err"))" \
	test "$rc" = 1 -a "$(wc -l <"$TMPD/segmerge.err")" = 1 -a -n "$(grep 'come from one flight recorder' "$TMPD/segmerge.err")"
# the first segment, which held the start's readings, is gone (segments_deleted above)
first=$(segs "$D1" | head -n 1)
check "a later segment carries the configuration: namespaces' sysctls and the traced interfaces" python3 -c '
import json, subprocess, sys
out = subprocess.run([sys.argv[1], "info", "--json", sys.argv[2]], capture_output=True, text=True).stdout
c = json.loads(out).get("config", {})
sys.exit(0 if c.get("namespaces") and c.get("interfaces") else 1)' "$FT" "$first"

echo "# [${SECONDS}s] SIGUSR1: one snapshot"
# ---- SIGUSR1: one snapshot with its pre-window (a ring bound by time only)
D1=$TMPD/ring2
mkdir "$D1"
start_flight 2 "$D1" --switch-output 1s --keep 20s --keep-size 0 --snapshot-pre 4s --snapshot-post 2s
sleep 6
nsnap() { find "$1" -maxdepth 1 -name 'snap-*.ftr' | wc -l; }
wait_snaps() { # DIR N: until N snapshots are saved (at most 15 s)
	local i
	for ((i = 0; i < 150; i++)); do
		(($(nsnap "$1") >= $2)) && return 0
		sleep 0.1
	done
	return 1
}
kill -USR1 "$REC_PID"
wait_snaps "$D1" 1
sleep 1.5 # a second one would be saved by now
check "SIGUSR1: exactly one snapshot ($(nsnap "$D1"))" test "$(nsnap "$D1")" = 1
S1=$(find "$D1" -maxdepth 1 -name 'snap-*.ftr')
"$FT" info --json "$S1" >"$TMPD/s1.json" 2>&1
check "it reads ($(jget "$TMPD/s1.json" 'j["state"]'))" readable snapshot "$S1"
check "info calls it a snapshot, with its trigger (SIGUSR1, opened snapshot 1)" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
t = j["triggers"]
sys.exit(0 if j["flight_file"] == "snapshot" and len(t) == 1 and t[0]["kind"] == "signal"
         and t[0]["rule"] == "SIGUSR1" and t[0]["action"] == "snapshot" and t[0]["snapshot"] == 1 else 1)' "$TMPD/s1.json"
check "it holds its pre-window: it starts at least 4 s before the trigger" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
t = j["triggers"][0]
sys.exit(0 if t["mono_ns"] - j["start"]["monotonic_ns"] >= 4e9 and j["duration_ns"] >= 6e9 else 1)' "$TMPD/s1.json"
"$FT" report "$S1" >"$TMPD/s1.txt" 2>&1
check "report opens with why it was taken ($(head -n 1 "$TMPD/s1.txt"))" \
	test "$(head -n 1 "$TMPD/s1.txt" | grep -c "^Snapshot taken on .*: signal SIGUSR1 at ")" = 1

echo "# [${SECONDS}s] fabtrace trigger --wait"
# the recorder itself refuses a peer that is not root (SO_PEERCRED), whatever the client
got=$(setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect("\0fabtrace/" + sys.argv[1])
print(s.recv(2048).decode().strip())  # refused at once: the request is never read
try:
    s.send(b"trigger\nreason=not root\n")
except OSError:
    pass' "$CTL" 2>&1)
check "the recorder refuses a trigger from a user who is not root ($got)" grep -q "^error=only root" <<<"$got"
check "... and saves nothing for it ($(nsnap "$D1"))" test "$(nsnap "$D1")" = 1
sleep 3 # the next pre-window, whole after the first snapshot's end

# ---- fabtrace trigger --wait, and one more inside its post-window: one snapshot
"$FT" trigger --control "$CTL" --reason "first" --wait --json >"$TMPD/t1.json" 2>"$TMPD/t1.err" &
T1=$!
sleep 0.5
"$FT" trigger --control "$CTL" --reason "second" --json >"$TMPD/t2.json" 2>"$TMPD/t2.err"
rc=0
wait "$T1" || rc=$?
check "trigger --wait exits 0 once saved ($rc: $(cat "$TMPD/t1.err"))" test "$rc" = 0 -a "$(jget "$TMPD/t1.json" 'j["saved"]')" = True
check "the second trigger extended it ($(jget "$TMPD/t2.json" 'j["action"]'))" \
	test "$(jget "$TMPD/t2.json" 'j["action"]')" = extended -a "$(jget "$TMPD/t2.json" 'j["file"]')" = "$(jget "$TMPD/t1.json" 'j["file"]')"
sleep 1
check "one snapshot for both ($(nsnap "$D1") in all)" test "$(nsnap "$D1")" = 2
S2=$(jget "$TMPD/t1.json" 'j["file"]')
"$FT" report --json "$S2" >"$TMPD/s2.json" 2>&1
check "it holds its pre-window: it starts at least 4 s before the trigger" python3 -c '
import json, subprocess, sys
j = json.loads(subprocess.run([sys.argv[1], "info", "--json", sys.argv[2]], capture_output=True).stdout)
t = j["triggers"][0]
sys.exit(0 if t["mono_ns"] - j["start"]["monotonic_ns"] >= 4e9 else 1)' "$FT" "$S2"
check "its report's trigger: the command, reason 'first', extended by one" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["trigger"]
acts = [a["action"] for a in t["all"]]
sys.exit(0 if t["kind"] == "command" and t["reason"] == "first" and t["extended_by"] == 1
         and acts == ["snapshot", "extended"] else 1)' "$TMPD/s2.json"
check "its report's window ends where the extension left it (as the text's 'extended'), after the opener's own" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["trigger"]
sys.exit(0 if t["to_rel_ns"] == t["all"][1]["to_rel_ns"] > t["all"][0]["to_rel_ns"] else 1)' "$TMPD/s2.json"
# by their windows (the triggers' from/to): a file's start is its earliest
# record, and a bin on a quiet CPU closes only at that CPU's next packet, so a
# segment (and a snapshot's first one) can hold a bin opened seconds before it
check "the snapshots do not overlap" python3 -c '
import json, subprocess, sys
a, b = (json.loads(subprocess.run([sys.argv[1], "info", "--json", f], capture_output=True).stdout) for f in sys.argv[2:])
a_to = max(t["to_ns"] for t in a["triggers"])
b_from = min(t["from_ns"] for t in b["triggers"])
# and the first ends before the second window begins, give or take the one
# segment a window is rounded out by
sys.exit(0 if a_to <= b_from and a["start"]["monotonic_ns"] + a["duration_ns"] <= b_from + 1e9 else 1)' "$FT" "$S1" "$S2"

stop_record INT
check "recorder 2 stops cleanly, having saved 2 snapshots for 3 triggers" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["flight"]
sys.exit(0 if f["snapshots_saved"] == 2 and f["triggers"] == 3 and f["held_back"] == 0 else 1)' "$TMPD/rec2.json"

echo "# [${SECONDS}s] rate limits"
# ---- a full disk: a one-line error, exit 1, every closed segment readable
mkdir "$FULL"
mount -t tmpfs -o size=64k tmpfs "$FULL" || bad "mount a small tmpfs"
rc=0
"$FT" record -q "${IFS_ARGS[@]}" --control "$CTL" --switch-output 1s --keep 1m --keep-size 0 -o "$FULL" \
	2>"$TMPD/full.err" || rc=$?
check "the disk fills: exit 1, one line naming it ($rc: $(cat "$TMPD/full.err"))" \
	test "$rc" = 1 -a "$(wc -l <"$TMPD/full.err")" = 1 -a -n "$(grep "No space left on device" "$TMPD/full.err")"
nseg=0 ok=0
for f in $(segs "$FULL"); do
	nseg=$((nseg + 1))
	# the one being written when the disk filled: readable up to its last block
	if readable "full disk" "$f" || readable "full disk" "$f" truncated; then ok=$((ok + 1)); fi
done
check "every closed segment on the full disk reads ($ok of $nseg)" test "$ok" = "$nseg" -a "$nseg" -ge 1
umount "$FULL"

# ---- rate limits: every:2 with a cool-down, then once-after:2
rate_run() { # DIR POLICY... : four triggers 1.5 s apart (post-window 0.5 s); their actions in ACTS
	local dir=$1 k
	shift
	mkdir -p "$dir"
	"$FT" record -q "${IFS_ARGS[@]}" --control "$CTL" --switch-output 1s --keep 30s --snapshot-pre 2s \
		--snapshot-post 500ms -o "$dir" "$@" 2>"$TMPD/rate.err" &
	REC_PID=$!
	ACTS=
	for ((k = 0; k < 300; k++)); do # the first firing, once it listens
		"$FT" trigger --control "$CTL" --json >"$TMPD/first.json" 2>/dev/null && break
		sleep 0.1
	done
	ACTS="$(jget "$TMPD/first.json" 'j["action"]') "
	for k in 2 3 4; do
		sleep 1.5
		# kept, so that a failed trigger shows its error in the check's line; the
		# last waits (--wait), and its exit status is kept in WAIT_RC
		local wait=() rc=0
		((k < 4)) || wait=(--wait)
		"$FT" trigger --control "$CTL" --json "${wait[@]}" >"$TMPD/trig$k.json" 2>"$TMPD/trig$k.err" || rc=$?
		WAIT_RC="$rc: $(head -c 200 "$TMPD/trig$k.err")"
		ACTS+="$(jget "$TMPD/trig$k.json" 'j.get("action") or "error(" + j.get("error", "") + ")"' 2>/dev/null ||
			echo "unreadable($(head -c 200 "$TMPD/trig$k.json" "$TMPD/trig$k.err"))") "
	done
	sleep 2
	stop_record INT
}
# firings 1..4: every:2 lets 2 and 4 act; the cool-down holds 4 back
rate_run "$TMPD/rate1" --snapshot-policy every:2 --snapshot-cooldown 30s
check "every:2 with a cool-down: the firings are rate, snapshot, rate, cooldown ($ACTS)" test "$ACTS" = "rate snapshot rate cooldown "
check "... and one snapshot on disk ($(nsnap "$TMPD/rate1"))" test "$(nsnap "$TMPD/rate1")" = 1
check "... trigger --wait --json of the one held back exits 1, its answer the only output ($WAIT_RC)" \
	test "$WAIT_RC" = "1: "
rate_run "$TMPD/rate2" --snapshot-policy once-after:2
check "once-after:2: the firings are rate, snapshot, rate, rate ($ACTS)" test "$ACTS" = "rate snapshot rate rate "
check "... and one snapshot on disk ($(nsnap "$TMPD/rate2"))" test "$(nsnap "$TMPD/rate2")" = 1
check "... trigger --wait --json of the one held back exits 1 ($WAIT_RC)" test "$WAIT_RC" = "1: "
check "the held-back triggers are in the recording" python3 -c '
import json, subprocess, sys, glob
acts = []
for f in sorted(glob.glob(sys.argv[2] + "/seg-*.ftr")):
    j = json.loads(subprocess.run([sys.argv[1], "info", "--json", f], capture_output=True).stdout)
    acts += [t["action"] for t in j["triggers"]]
sys.exit(0 if acts.count("rate") == 3 and acts.count("snapshot") == 1 else 1)' "$FT" "$TMPD/rate2"

# ---- --snapshot-post 0 and a moment in the past (--at): a trigger whose moment
# the last saved snapshot holds is covered (before, it made a file of the time
# since its arrival, which began after its moment); a later one holds its own
D8=$TMPD/post0
mkdir -p "$D8"
"$FT" record -q "${IFS_ARGS[@]}" --control "$CTL" --switch-output 1s --keep 30s --snapshot-pre 2s \
	--snapshot-post 0 -o "$D8" 2>"$TMPD/post0.err" &
REC_PID=$!
for ((k = 0; k < 300; k++)); do
	"$FT" trigger --control "$CTL" --json --wait >"$TMPD/p0a.json" 2>/dev/null && break
	sleep 0.1
done
at=$(python3 -c 'import json, sys, datetime
t = datetime.datetime.strptime(json.load(open(sys.argv[1]))["at"], "%Y-%m-%dT%H:%M:%S.%fZ")
print("%.6f" % (t.replace(tzinfo=datetime.timezone.utc).timestamp() + 0.001))' "$TMPD/p0a.json")
"$FT" trigger --control "$CTL" --json --at "$at" >"$TMPD/p0b.json" 2>"$TMPD/p0b.err"
"$FT" trigger --control "$CTL" --at "$at" >"$TMPD/p0b.txt" 2>&1
"$FT" trigger --control "$CTL" --json --wait >"$TMPD/p0c.json" 2>"$TMPD/p0c.err"
stop_record INT
check "--snapshot-post 0: the first trigger opened a snapshot ($(jget "$TMPD/p0a.json" 'j["action"]'))" \
	test "$(jget "$TMPD/p0a.json" 'j["action"]')" = snapshot
check "... a trigger --at 1 ms after its moment, sent after it was saved, is covered ($(jget "$TMPD/p0b.json" 'j["action"]'))" \
	test "$(jget "$TMPD/p0b.json" 'j["action"]')" = covered
check "... and says so, not that it was held back ($(cat "$TMPD/p0b.txt"))" grep -q ': trigger already covered by a saved snapshot$' "$TMPD/p0b.txt"
check "... a later trigger's snapshot begins at or before its moment ($(jget "$TMPD/p0c.json" 'j["from"] + " " + j["at"]'))" \
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if j["action"] == "snapshot" and j["from"] <= j["at"] and j["saved"] else 1)' "$TMPD/p0c.json"
check "... and two snapshots on disk ($(nsnap "$D8"))" test "$(nsnap "$D8")" = 2

# ---- a missing -o directory whose parent exists is made (a service's first start)
"$FT" record -q "${IFS_ARGS[@]}" --control "$CTL" --switch-output 1s -d 2s -o "$TMPD/made" 2>"$TMPD/made.err" ||
	bad "record into a missing directory ($(tail -n 1 "$TMPD/made.err"))"
check "a missing -o directory is made, and its segments are in it ($(segs "$TMPD/made" | wc -l))" \
	test "$(segs "$TMPD/made" | wc -l)" -ge 1
# ---- --switch-max-files holds after the stop too (the last segment closed one over it)
D6=$TMPD/ring6
mkdir "$D6"
"$FT" record -q "${IFS_ARGS[@]}" --control "$CTL" --switch-output 1s --switch-max-files 2 -d 4s -o "$D6" \
	2>"$TMPD/rec6.err" || bad "record --switch-max-files 2 ($(tail -n 1 "$TMPD/rec6.err"))"
check "--switch-max-files 2: at most 2 segments after the stop ($(segs "$D6" | wc -l))" \
	test "$(segs "$D6" | wc -l)" -ge 1 -a "$(segs "$D6" | wc -l)" -le 2
# ... also when a snapshot held segments at the last close: a trigger at the very stop
# (the job's own exit, non-zero) pins every segment until its copy is saved
D7=$TMPD/ring7
mkdir "$D7"
"$FT" record -q -i "$H1/eth0" --control "$CTL" --switch-output 1s --switch-max-files 2 --trigger job.exit \
	-o "$D7" -- sh -c 'sleep 4; exit 3' 2>"$TMPD/rec7.err" || bad "record with a job.exit trigger ($(tail -n 1 "$TMPD/rec7.err"))"
check "a snapshot at the stop: saved ($(nsnap "$D7"))" test "$(nsnap "$D7")" = 1
check "... and still at most 2 segments after it ($(segs "$D7" | wc -l))" \
	test "$(segs "$D7" | wc -l)" -ge 1 -a "$(segs "$D7" | wc -l)" -le 2
# ---- SIGUSR1 to a recording that is not a flight recorder: ignored, said, the capture whole
"$FT" record -q "${IFS_ARGS[@]}" -d 3s -o "$TMPD/plain.ftr" 2>"$TMPD/plain.err" &
pid=$!
REC_PID=$pid
for ((i = 0; i < 200; i++)); do [[ -e $TMPD/plain.ftr ]] && break; sleep 0.05; done
kill -USR1 "$pid"
rc=0
wait "$pid" || rc=$?
REC_PID=
check "SIGUSR1 to a plain recording: it goes on and exits 0 (got $rc)" test "$rc" = 0
check "  says it ignored it" grep -q "SIGUSR1 ignored: this recording is not a flight recorder" "$TMPD/plain.err"
check "  its capture is complete" test "$("$FT" info --json "$TMPD/plain.ftr" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" = complete

echo "# [${SECONDS}s] kill -9 at random moments"
# ---- kill -9 at random moments
D5=$TMPD/ring5
mkdir "$D5"
rel baseline >"$TMPD/base.json"
for round in 1 2 3; do
	r="kill -9 #$round"
	"$FT" record -q "${IFS_ARGS[@]}" --control "$CTL" --switch-output 1s --keep 6s --snapshot-pre 2s \
		-o "$D5" 2>"$TMPD/rec5.err" &
	pid=$!
	REC_PID=$pid
	for ((i = 0; i < 300; i++)); do
		[[ -n $(find "$D5" -name '*.part' -newer "$TMPD/base.json") ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	((round == 2)) && kill -USR1 "$pid" # a snapshot in the making
	sleep "$(rel_ms_to_s "$((1000 + RANDOM % 2500))")"
	eval "$(rel owned "$pid" "$TMPD/owned.json")"
	kill -KILL "$pid"
	rc=0
	wait "$pid" 2>/dev/null || rc=$?
	REC_PID=
	check "$r: died of SIGKILL (exit $rc)" test "$rc" = 137
	eval "$(rel leaks "$TMPD/owned.json" "$TMPD/base.json" "$TMPD/base.json")"
	check "$r: none of its BPF programs, links or maps is left${left:+ (left: $left)}" test -z "$left"
	check "$r: no orphaned fabtrace BPF object${orphans:+ (found: $orphans)}" test -z "$orphans"
	nseg=0 ok=0
	for f in $(segs "$D5"); do
		[[ -n ${SEEN[$f]:-} ]] && continue # read after an earlier round
		SEEN[$f]=1
		nseg=$((nseg + 1))
		# an earlier round's open segment, renamed into place by this round's recorder: truncated
		if readable "$r" "$f" || readable "$r" "$f" truncated; then ok=$((ok + 1)); fi
	done
	check "$r: every closed segment reads ($ok of $nseg new)" test "$ok" = "$nseg" -a "$nseg" -ge 1
	check "$r: one open segment left, under its .part name" test "$(find "$D5" -name 'seg-*.part' | wc -l)" = 1
	touch "$TMPD/base.json"
done
# ... and, killed before it wrote a block (or its whole header), an open segment
# that holds no record: removed, not made a segment of a header alone
seg1=$(segs "$D5" | head -n 1)
python3 -c 'import struct, sys
h = open(sys.argv[1], "rb").read(16)
open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read(struct.unpack_from("<I", h, 12)[0]))
open(sys.argv[3], "wb").close()' "$seg1" "$D5/seg-99999998-20000101T000000Z.ftr.part" \
	"$D5/seg-99999999-20000101T000000Z.ftr.part"
"$FT" record -q "${IFS_ARGS[@]}" --control "$CTL" --switch-output 1s -d 1s -o "$D5" 2>"$TMPD/rec5.err"
check "the next recorder renames the killed one's open segment into place" \
	test -z "$(find "$D5" -name 'seg-*.part')"
check "... and removes the ones that held no record (a header alone, nothing): $(cd "$D5" && echo seg-9999999*)" \
	test -z "$(find "$D5" -name 'seg-9999999*')"

# ---- killed inside a long segment: its open segment reads up to about the
# last second, as a plain recording does (both flush every tick; a block
# used to reach the disk only when 256 kB of records filled it)
D6=$TMPD/ring6
mkdir "$D6"
"$FT" record -q "${IFS_ARGS[@]}" --control "$CTL" --switch-output 60s -o "$D6" 2>"$TMPD/rec6.err" &
pid=$!
REC_PID=$pid
for ((i = 0; i < 300; i++)); do
	[[ -n $(find "$D6" -name 'seg-*.part') ]] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
t0=$(date +%s%N)
sleep 3.5
t1=$(date +%s%N)
kill -KILL "$pid"
wait "$pid" 2>/dev/null
REC_PID=
part=$(find "$D6" -name 'seg-*.part' | head -n 1)
span=$("$FT" info --json "$part" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["duration_ns"])')
check "killed $(((t1 - t0) / 1000000)) ms into a 60 s segment: the open one reads $((${span:-0} / 1000000)) ms (at least all but 2 s)" \
	test "${span:-0}" -ge $((t1 - t0 - 2000000000))

# ---- a snapshot after the traffic stopped for a while: it begins with its
# first segment, and no segment reaches back to the burst 6 s before: a CPU's
# timer writes out the burst's last bins (staged or open) about 20 ms after
# their end.  With the raw_tp programs, which may not use a timer, the CPU
# holds them until its next packet or the stop (docs/known-issues.md): the
# last segment then reaches back to the burst, and the snapshot still leaves
# those bins out.
lab_kill "$SEND"
wait "$SEND" 2>/dev/null
SEND=''
# before_trigger FILE TRIGGER_JSON: how long before the trigger FILE's capture begins, in seconds
before_trigger() {
	python3 -c 'import json, sys, subprocess, datetime
def t(s): return datetime.datetime.strptime(s[:26], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
i = json.loads(subprocess.run([sys.argv[1], "info", "--json", sys.argv[2]], capture_output=True).stdout)
print("%.3f" % (t(json.load(open(sys.argv[3]))["at"]) - t(i["start"]["realtime"])))' "$FT" "$1" "$2"
}
# idle_spell K NAME [VAR=VALUE]: a recorder in $TMPD/NAME (with VAR=VALUE in
# its environment, and -v), a burst, 6 s idle, a trigger, the stop; sets
# b_snap and b_last
idle_spell() {
	local k=$1 name=$2 setting=${3:-} dir=$TMPD/$2 f b
	[[ -n $setting ]] && local -x "$setting"
	echo "# [${SECONDS}s] a snapshot after an idle spell${setting:+ ($setting)}"
	mkdir "$dir"
	pushd "$TMPD" >/dev/null # -o relative: the trigger's answer still names the snapshot whole
	start_flight "$k" "$name" --switch-output 1s --keep 30s --snapshot-pre 1s --snapshot-post 10s ${setting:+-v}
	popd >/dev/null
	lab_exec "$LAB" 2 "$LAB_BIN/incast" send --to "$(lab_addr 1):5003" --bytes 64k --rounds 100 >/dev/null 2>&1 ||
		bad "a burst of traffic"
	sleep 6
	"$FT" trigger --control "$CTL" --json >"$TMPD/$name.json" 2>"$TMPD/$name.err" ||
		bad "trigger ($(cat "$TMPD/$name.err"))"
	sleep 0.5
	stop_record INT
	snap=$(find "$dir" -maxdepth 1 -name 'snap-*.ftr' | head -n 1)
	check "after an idle spell: one snapshot, saved at the stop ($(nsnap "$dir"))" test "$(nsnap "$dir")" = 1
	b_snap=$(before_trigger "$snap" "$TMPD/$name.json") b_last=0
	for f in $(segs "$dir" | tail -n 3); do # the segments of its window
		b=$(before_trigger "$f" "$TMPD/$name.json")
		python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' "$b" "$b_last" && b_last=$b
	done
	check "... it begins with its first segment, at most 3.5 s before its trigger (1 s before, rounded out to segments of 1 s, looked at once a second: $b_snap s)" \
		python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 3.5 else 1)' "$b_snap"
}
idle_spell 9 idle
check "... the trigger's answer names it whole, though -o was relative ($(jget "$TMPD/idle.json" 'j["file"]'))" \
	test "$(jget "$TMPD/idle.json" 'j["file"]')" = "$snap"
# (the steady sender is stopped: no later packet releases the burst's last bins)
check "... and so does every segment of its window: none reaches back toward the burst 6 s before (the furthest: $b_last s before the trigger)" \
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 3.5 else 1)' "$b_last"
idle_spell 10 idle_raw FABTRACE_VARIANTS=raw_tp
check "... while with the raw_tp programs a segment of its window reaches back further, toward the burst (the furthest: $b_last s before the trigger)" \
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 3.5 else 1)' "$b_last"
# timers that cannot be pinned to their CPU (a kernel before 6.7): -v says
# so, with how many fired on another CPU; none reaches back unless one did
idle_spell 11 idle_nopin FABTRACE_TIMER_NOPIN=1
strays=$(sed -n 's/^fabtrace: the BPF timers .* ran unpinned .*: \([0-9]*\) fired on another CPU.*/\1/p' "$TMPD/rec11.err")
check "... unpinned timers: record -v says so, and how many strayed (${strays:-no such line})" test -n "$strays"
if [[ ${strays:-1} == 0 ]]; then
	check "... and none strayed, so no segment reaches back toward the burst (the furthest: $b_last s before the trigger)" \
		python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 3.5 else 1)' "$b_last"
else
	echo "# $strays unpinned timers fired on another CPU: a segment may reach back (the furthest: $b_last s)"
fi
finish
