#!/usr/bin/env bash
# shellcheck disable=SC2154 # cc_* in_* rp_* own* left orphans: assigned by eval "$(rel ...)"
# Faults while recording (issue 6); every part asserts:
#  1. the output filesystem fills up (a 256 KiB tmpfs, a long path in it):
#     the recorder stops by itself with exit 1, one error line naming the
#     file, "No space left on device" and what the capture keeps, nothing
#     cut short; no crash or sanitizer report, no BPF left; the file ends
#     exactly at its last complete block and `info`/`report` read it.  A
#     filesystem where not even the header fits, or no file can be created:
#     one line, exit 1, no file left, no BPF left;
#  2. the traced process exits: `record -- CMD` stops when CMD exits (also
#     when CMD is killed), with a complete capture holding every call CMD
#     made; `record -p PID` (no command) stops when PID exits or is killed,
#     before its -d (as perf record -p), with stop reason 'processes exited',
#     and the capture holds the calls up to the exit;
#  3. a namespace disappears (its veth deleted, then `ip netns del`) while
#     two hosts are recorded: the recorder keeps going without spinning, and
#     the capture is complete with traffic on the surviving interface after
#     the deletion and none on the deleted one;
#  3a. namespaces created and deleted one after another (pods): two of the
#     recorder's ticks after each deletion it has closed its sockets in it,
#     its fds stay flat, and each namespace's interfaces are described;
#  4. an interface goes down and up: bins before, none while down, bins
#     after, complete capture;
#  5. a real capture whose header says format version 3 (CRC fixed): `info`
#     and `report` refuse it with one line and exit 1 (the same bytes with
#     version 2, their own, read fine, so the CRC fix-up is right).  Truncated, corrupt
#     and hand-made newer-version headers are in test_bad_input.sh and
#     tests/unit/test_capture.c.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd bpftool
need_cmd python3
source "$(dirname "$0")/reliability.sh"
LIB=$ROOT/$BUILD/tests/lib/libftphase_test.so
WL=$ROOT/$BUILD/tools/phase_workload
[[ -x $WL && -f $LIB ]] || { echo "FAIL: $WL or $LIB not built (run make)"; exit 1; }

lab_start 3
H1=$(lab_ns "$LAB" 1) H2=$(lab_ns "$LAB" 2) H3=$(lab_ns "$LAB" 3)
MOUNTS=()
BG=() # background processes of ours, killed at the end
end_test() {
	local m
	rel_kill_children "${BG[@]}"
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	cleanup
}
trap end_test EXIT

# mount_tmpfs OPTIONS: a fresh tmpfs under $TMPD in $MNT, unmounted at exit
mount_tmpfs() {
	MNT=$(mktemp -d "$TMPD/fs.XXXXXX") && mount -t tmpfs -o "$1,mode=0700" ftRtmpfs "$MNT" || return 1
	MOUNTS+=("$MNT")
}

# one_line FILE WORD...: FILE has exactly one line, containing every WORD
one_line() {
	local f=$1 w
	shift
	[[ $(wc -l <"$f") -eq 1 ]] || return 1
	for w in "$@"; do grep -qF -- "$w" "$f" || return 1; done
}

# ---- 1. the output filesystem fills up
echo "# 1. full filesystem [${SECONDS}s]"
mount_tmpfs size=256k || { bad "mount a 256 KiB tmpfs"; finish; }
FS=$MNT
DIR=$FS/captures-of-the-allreduce-incident-on-the-training-fabric-of-cluster-seven-rack-twelve-spine-three-leaf-nine-during-the-night-shift
mkdir -p "$DIR"
OUT=$DIR/fabric.ftr
rel baseline >"$TMPD/base.json"
ip netns exec "$H1" ping -q -f -s 1000 "$(lab_addr 2)" >/dev/null 2>&1 &
PF=$!
BG+=("$PF")
timeout -s KILL 60 "$FT" record --no-phases -o "$OUT" -i "$H1/eth0" -i "$H2/eth0" 2>"$TMPD/full.err" &
pid=$!
REC_PID=$pid # lib.sh's cleanup stops it if the test dies
for ((i = 0; i < 200; i++)); do grep -qs "recording to" "$TMPD/full.err" && break; sleep 0.05; done
pgrep -P "$pid" -x fabtrace >"$TMPD/fpid" || echo "$pid" >"$TMPD/fpid" # timeout's child
eval "$(rel owned "$(cat "$TMPD/fpid")" "$TMPD/owned.json")"
rc=0
wait "$pid" || rc=$?
REC_PID=
rel_kill_children "$PF"
echo "# recorder held $own; exit $rc; stderr:"
sed 's/^/#   /' "$TMPD/full.err"
check "full fs: the recorder stopped by itself with exit 1 (got $rc; 137 = still running after 60 s)" test "$rc" = 1
grep "No space left on device" "$TMPD/full.err" >"$TMPD/full.line"
check "full fs: one error line naming the file, the cause and what is kept, not cut short" \
	one_line "$TMPD/full.line" "fabtrace: record: $OUT: write failed at offset" "No space left on device" "records written before"
check "full fs: the line ends with what is kept" grep -qE "the capture keeps the [0-9]+ records written before$" "$TMPD/full.line"
kept=$(sed -n 's/.*the capture keeps the \([0-9]*\) records written before$/\1/p' "$TMPD/full.line")
check "full fs: summary says it stopped on an error" grep -q "recorded .* (error) to $OUT" "$TMPD/full.err"
asan=$(rel_asan "$TMPD/full.err")
check "full fs: no sanitizer report${asan:+ ($asan)}" test -z "$asan"
eval "$(rel leaks "$TMPD/owned.json" "$TMPD/base.json" "$TMPD/base.json")"
check "full fs: no BPF object of the recorder left${left:+ ($left)}${orphans:+ (orphans: $orphans)}" test -z "$left$orphans"
"$FT" info --json "$OUT" >"$TMPD/info.json" 2>"$TMPD/info.err"
"$FT" report --json "$OUT" >"$TMPD/report.json" 2>"$TMPD/report.err"
check "full fs: report works on the capture" test $? = 0
eval "$(rel capvars "$OUT" "$TMPD/info.json" "$TMPD/report.json")"
check "full fs: info: truncated, valid up to its last complete block, which is where the file ends ($in_state at $in_state_offset, file $cc_size bytes, $cc_blocks blocks)" \
	test "$in_state" = truncated -a "$in_state_offset" = "$cc_size" -a "$cc_good_off" = "$cc_size" -a "$in_blocks" = "$cc_blocks"
check "full fs: the capture holds the $kept records the message promised (info $in_records, independent reader $cc_records)" \
	test -n "$kept" -a "$in_records" = "$kept" -a "$cc_records" = "$kept"
check "full fs: bins recorded before the disk filled ($cc_bins)" test "$cc_bins" -gt 0 -a "$rp_traced_with_bins" = 2
df -k "$FS" | sed 's/^/# /'

# even the header does not fit / no file can be created
mount_tmpfs size=64k || bad "mount a 64 KiB tmpfs"
FS2=$MNT
dd if=/dev/zero of="$FS2/fill" bs=4k 2>/dev/null
mount_tmpfs size=64k,nr_inodes=1 || bad "mount a tmpfs without free inodes"
FS3=$MNT
for c in "header:$FS2:cannot write the capture header" "create:$FS3:cannot create"; do
	IFS=: read -r what fs msg <<<"$c"
	rel baseline >"$TMPD/base.json"
	rc=0
	timeout -s KILL 30 "$FT" record --no-phases -o "$fs/h.ftr" -d 2s -i "$H1/eth0" >"$TMPD/h.out" 2>&1 || rc=$?
	check "full fs ($what): exit 1 (got $rc), one line: $(head -c 200 "$TMPD/h.out")" \
		one_line "$TMPD/h.out" "fabtrace: record: $fs/h.ftr: $msg: No space left on device"
	check "full fs ($what): exit 1 (got $rc)" test "$rc" = 1
	check "full fs ($what): no file left" test ! -e "$fs/h.ftr"
	echo '{}' >"$TMPD/owned.json"
	eval "$(rel leaks "$TMPD/owned.json" "$TMPD/base.json")"
	check "full fs ($what): no BPF object left${orphans:+ ($orphans)}" test -z "$orphans"
done

# ---- 2. the traced process exits
echo "# 2. traced process exits [${SECONDS}s]"
# 2a. record -- CMD; CMD exits
rc=0
"$FT" record --json -o "$TMPD/cmd.ftr" -i "$H1/eth0" --phase "$LIB:fttest_work=work" -- \
	sh -c '"$0" "$@" >/dev/null' "$WL" --calls 30 --usec 20000 --steps \
	>"$TMPD/cmd.sum" 2>"$TMPD/cmd.err" || rc=$?
check "record -- CMD: exit 0 (got $rc)" test "$rc" = 0
check "record -- CMD: stops because the command exited, status 0" \
	test "$(jget "$TMPD/cmd.sum" 'j["stop_reason"], j["command_exit_status"]')" = "('command exited', 0)"
"$FT" report --json "$TMPD/cmd.ftr" >"$TMPD/report.json" 2>"$TMPD/report.err"
"$FT" info --json "$TMPD/cmd.ftr" >"$TMPD/info.json"
check "record -- CMD: capture complete, stop reason command" test "$(jget "$TMPD/info.json" 'j["state"], j["stop_reason"]')" = "('complete', 'command exited')"
check "record -- CMD: the 30 calls and 30 steps the command made are all there" \
	test "$(jget "$TMPD/report.json" 'sum(o["calls"] for r in j["ranks"] for o in r["ops"] if o["op"] == "custom"), j["steps"]["total"]')" = "(30, 30)"

# 2a''. -d ends CMD: the summary gives the status it ended with (it traps
# SIGTERM and exits 7; one that does not trap it was ended by the signal: -1)
"$FT" record -q --json -d 1s -o "$TMPD/cmdd.ftr" -i "$H1/eth0" --no-phases -- \
	sh -c 'trap "exit 7" TERM; while :; do sleep 0.1; done' >"$TMPD/cmdd.sum" 2>"$TMPD/cmdd.err"
check "record -d 1s -- CMD: stops at its duration, the command's status 7 from its SIGTERM trap" \
	test "$(jget "$TMPD/cmdd.sum" 'j["stop_reason"], j["command_exit_status"]')" = "('duration', 7)"
"$FT" record -q --json -d 1s -o "$TMPD/cmdd.ftr" -i "$H1/eth0" --no-phases -- sleep 100 \
	>"$TMPD/cmdd.sum" 2>"$TMPD/cmdd.err"
check "record -d 1s -- sleep 100: ended by the signal (-1), not 0" \
	test "$(jget "$TMPD/cmdd.sum" 'j["stop_reason"], j["command_exit_status"]')" = "('duration', -1)"

# 2a'. CMD killed mid-recording
"$FT" record --json -o "$TMPD/cmdk.ftr" -i "$H1/eth0" --phase "$LIB:fttest_work=work" -- \
	"$WL" --calls 2000 --usec 5000 --steps >"$TMPD/cmdk.sum" 2>"$TMPD/cmdk.err" &
pid=$!
REC_PID=$pid # lib.sh's cleanup stops it if the test dies
# (COMMAND is exec'd once tracing runs)
for ((i = 0; i < 200; i++)); do wpid=$(pgrep -P "$pid" -x phase_workload) && break; sleep 0.05; done
sleep 1.5
kill -KILL "$wpid"
t_kill=$(rel_us)
rc=0
wait "$pid" || rc=$?
REC_PID=
took=$(rel_secs_since "$t_kill")
check "record -- CMD (killed): the recorder stops by itself, exit 0 (got $rc, ${took}s after the kill)" \
	test "$rc" = 0 -a "${took%%.*}" -lt 5
check "record -- CMD (killed): stop reason 'command exited', no exit status (killed)" \
	test "$(jget "$TMPD/cmdk.sum" 'j["stop_reason"], j["command_exit_status"]')" = "('command exited', -1)"
"$FT" info --json "$TMPD/cmdk.ftr" >"$TMPD/info.json"
"$FT" report --json "$TMPD/cmdk.ftr" >"$TMPD/report.json"
check "record -- CMD (killed): capture complete" test "$(jget "$TMPD/info.json" 'j["state"], j["stop_reason"]')" = "('complete', 'command exited')"
calls=$(jget "$TMPD/report.json" "[(o['calls'], o['open']) for r in j['ranks'] if r['pid'] == $wpid for o in r['ops'] if o['op'] == 'custom']")
check "record -- CMD (killed): its calls up to the kill are there, at most one cut open by it ($calls)" \
	python3 -c "import sys; c = $calls; sys.exit(not (len(c) == 1 and c[0][0] >= 100 and c[0][1] <= 1))"
check "record -- CMD (killed): its exit is recorded, before the capture's end" \
	test "$(jget "$TMPD/report.json" "[p['exited'] and p['exit_rel_ns'] <= j['capture']['duration_ns'] for p in j['processes'] if p['pid'] == $wpid]")" = "[True]"

# 2a'. record -- CMD stopped by -d: the command's whole tree ends, not only
# its first process (a shell's child kept running untraced)
tok=$((7000 + RANDOM % 1000))
rc=0
"$FT" record -q -i lo -d 1s -o "$TMPD/tree.ftr" -- sh -c "sleep $tok.5; true" || rc=$?
sleep 0.3
left=$(pgrep -f "sleep $tok.5" || true)
check "record -- sh -c 'sleep; true' stopped by -d: exit 0, no process of its tree left (got $rc; left: ${left:-none})" \
	test "$rc" = 0 -a -z "$left"
[[ -n $left ]] && kill $left 2>/dev/null

# 2a''. a reader of the recorder's output that goes away (| head) does not
# kill the recording (SIGPIPE at its next line, exit 141): the capture is whole, exit 0
"$FT" record -i lo -d 1s -o "$TMPD/pipe.ftr" 2>&1 | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
"$FT" info --json "$TMPD/pipe.ftr" >"$TMPD/info.json" 2>/dev/null
check "record 2>&1 | head -c 1: the recording survives its reader, exit 0, capture complete (exit $rc)" \
	test "$rc" = 0 -a "$(jget "$TMPD/info.json" 'j["state"], j["stop_reason"]')" = "('complete', 'duration')"

# 2b. record -p PID; PID exits by itself, then PID is killed
for how in exits killed; do
	if [[ $how == exits ]]; then
		# held until the recorder runs, then exec'd (the same pid): every call is seen
		mkfifo "$TMPD/go"
		bash -c 'read -r _ <"$1"; exec "$0" --calls 100 --usec 5000 --json' "$WL" "$TMPD/go" >"$TMPD/wl.json" 2>&1 &
	else
		"$WL" --calls 4000 --usec 5000 >/dev/null 2>&1 &
	fi
	wpid=$!
	BG+=("$wpid")
	"$FT" record -o "$TMPD/p$how.ftr" -d 4s -i "$H1/eth0" -p "$wpid" --phase "$LIB:fttest_work=work" \
		2>"$TMPD/p.err" &
	pid=$!
	REC_PID=$pid # lib.sh's cleanup stops it if the test dies
	for ((i = 0; i < 200; i++)); do grep -q "recording to" "$TMPD/p.err" && break; sleep 0.05; done
	[[ $how == exits ]] && timeout 10 sh -c 'echo go >"$1"' sh "$TMPD/go"
	if [[ $how == killed ]]; then
		sleep 1.5
		kill -KILL "$wpid"
	fi
	wait "$wpid"
	wrc=$?
	rc=0
	wait "$pid" || rc=$?
	REC_PID=
	r="record -p (PID $how)"
	# the recording ends because the process exited (as perf record -p), before
	# -d; that it recorded up to the exit shows in the capture (below: the exit
	# inside it), not in a sleep a busy machine stretches
	"$FT" info --json "$TMPD/p$how.ftr" >"$TMPD/info.json"
	check "$r: exit 0 (got $rc), stopped because the process exited, as documented ($(grep -o "recorded .* (.*) to" "$TMPD/p.err"))" \
		test "$rc" = 0 -a "$(jget "$TMPD/info.json" 'j["stop_reason"]')" = "processes exited"
	"$FT" report --json "$TMPD/p$how.ftr" >"$TMPD/report.json"
	check "$r: capture complete" test "$(jget "$TMPD/info.json" 'j["state"]')" = complete
	calls=$(jget "$TMPD/report.json" "[(o['calls'], o['open']) for r in j['ranks'] if r['pid'] == $wpid for o in r['ops'] if o['op'] == 'custom']")
	if [[ $how == exits ]]; then
		check "$r: all 100 calls it made are there ($calls)" test "$calls" = "[(100, 0)]"
	else
		check "$r: its calls up to the kill are there, at most one cut open by it ($calls)" \
			python3 -c "import sys; c = $calls; sys.exit(not (len(c) == 1 and c[0][0] >= 100 and c[0][1] <= 1))"
	fi
	check "$r: the workload ended while recording (exit $wrc): its exit is recorded, before the capture's end" \
		test "$(jget "$TMPD/report.json" "[p['exited'] and p['exit_rel_ns'] < j['capture']['duration_ns'] for p in j['processes'] if p['pid'] == $wpid]")" = "[True]"
done

# ---- 3a'. with the capabilities record --help names but not CAP_SYS_ADMIN,
# --netns of a namespace it cannot enter is an error that names the
# capability (it recorded no interface and exited 0)
if command -v setpriv >/dev/null && setpriv --help 2>&1 | grep -q -- --ambient-caps; then
	npd=$(mktemp -d "$TMPD/nopriv.XXXXXX") && chmod 0777 "$npd"
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+bpf,+perfmon,+net_admin \
		--ambient-caps=+bpf,+perfmon,+net_admin "$FT" record -q --no-phases --netns "$H1" -d 1s \
		-o "$npd/np.ftr" >/dev/null 2>"$TMPD/np.err" || rc=$?
	check "no CAP_SYS_ADMIN: --netns $H1 fails, naming the capability (exit $rc: $(head -c 200 "$TMPD/np.err"))" \
		test "$rc" = 1 -a "$(grep -c 'CAP_SYS_ADMIN' "$TMPD/np.err")" -ge 1
else
	echo "# setpriv with --ambient-caps not available: skipped the CAP_SYS_ADMIN check"
fi

# ---- 3a. namespaces come and go (pods on a node): a tick after one is
# deleted, the recorder has closed the sockets it opened there (2-3 fds,
# which kept the namespace alive in the kernel until the next full scan).
# Counted on the recorder's own ticks; its sockets in other tests'
# namespaces, which come and go, are left out of the fd counts
echo "# 3a. namespace churn [${SECONDS}s]"
start_record "$TMPD/churn.ftr" --no-phases -d 10m # stopped below; -d: should the test die
GONE=()   # the deleted namespaces' inodes
ENTERED=0 # how many of them the recorder held sockets in before the deletion
HELD=()   # "after N: SOCKET..." where it still held some two ticks after a deletion
churn() { # N: a namespace with a veth pair and traffic in it, entered by the recorder, then deleted
	local ns=${LAB}c$1 ino='' holds=0 socks=
	ip netns add "$ns" && ino=$(stat -L -c %i "/run/netns/$ns") &&
		ip -n "$ns" link add ca type veth peer name cb &&
		ip -n "$ns" addr add 10.99.0.1/24 dev ca && ip -n "$ns" link set ca up && ip -n "$ns" link set cb up &&
		ip netns exec "$ns" ping -q -c 3 -i 0.05 -w 0.3 10.99.0.3 >/dev/null 2>&1 # ARP requests on ca
	# the recorder sees the new interfaces in its records, describes them and reads their settings
	[[ $ino ]] && eval "$(rel holds "$REC_PID" "$TMPD/churn.ftr" "$ino" 5)" && GONE+=("$ino")
	ENTERED=$((ENTERED + holds))
	ip netns del "$ns"
	eval "$(rel ticks "$TMPD/churn.ftr" 2)" # the second begins after the deletion
	# shellcheck disable=SC2086 # one socket a word
	eval "$(rel still "$REC_PID" $socks)"
	[[ -z $still && $ticks -ge 2 ]] || HELD+=("after $1 ($ticks ticks): ${still:-none}")
}
churn 1; churn 2
eval "$(rel socknets "$REC_PID")"
fd0=$steady kinds0=$kinds
for i in 3 4 5 6 7 8; do churn "$i"; done
eval "$(rel socknets "$REC_PID")"
fd1=$steady
check "churn: the recorder entered each of the 8 namespaces before its deletion ($ENTERED)" test "$ENTERED" = 8
check "churn: two of its ticks after each deletion it has closed its sockets there (${HELD[*]:-none left})" \
	test "${#HELD[@]}" = 0
((fd1 <= fd0 + 2)) || printf '#   before: %s\n#   after:  %s\n' "$kinds0" "$kinds"
check "churn: the recorder's fds stay flat over 6 deleted namespaces ($fd0 -> $fd1; its sockets in other namespaces left out)" \
	test "$fd1" -gt 0 -a "$fd1" -le $((fd0 + 2))
stop_record INT
check "churn: exit 0 after Ctrl-C (got $REC_RC)" test "$REC_RC" = 0
asan=$(rel_asan "$TMPD/record.err")
check "churn: no sanitizer report${asan:+ ($asan)}" test -z "$asan"
# a namespace freed at once lends its inode number to the next one, whose
# interfaces have the same ifindexes: each is described all the same (ca or
# cb, whichever's bins came while it lived: closed bins may wait for a batch)
described=$(rel ifaces "$TMPD/churn.ftr" | awk -v p="${LAB}c" 'index($4, p) == 1 { print $4 }' | sort -u | wc -l)
check "churn: the capture describes interfaces of each of the 8 namespaces ($described; inodes: ${GONE[*]})" \
	test "$described" = 8

# ---- 3. a namespace disappears mid-recording
echo "# 3. namespace disappears [${SECONDS}s]"
ip netns exec "$H1" ping -q -i 0.005 "$(lab_addr 3)" >/dev/null 2>&1 &
BG+=($!)
ip netns exec "$H2" ping -q -i 0.005 "$(lab_addr 3)" >/dev/null 2>&1 &
BG+=($!)
start_record "$TMPD/ns.ftr" --no-phases -i "$H1/eth0" -i "$H2/eth0"
sleep 1.5
for p in $(ip netns pids "$H2"); do kill "$p"; done
ip -n "$H2" link del eth0
ip netns del "$H2"
t_del=$(rel_us) # once gone (commands are slow on a busy machine)
check "netns: $H2 is gone" test -z "$(ip netns list | grep -w "$H2")"
sleep 1
r0=$(rel_runnable_ns "$REC_PID") w0=$(rel_us)
sleep 2
r1=$(rel_runnable_ns "$REC_PID") w1=$(rel_us)
pct=$(((r1 - r0) / 10 / (w1 - w0)))
check "netns: the recorder keeps running" kill -0 "$REC_PID"
check "netns: and does not spin: runnable $pct % of the 2 s after the deletion ($(((r1 - r0) / 1000000)) ms; a spinning loop: ~100 %)" test "$pct" -lt 50
stop_record INT
echo "# recorder stderr:"
sed 's/^/#   /' "$TMPD/record.err"
check "netns: exit 0 after Ctrl-C (got $REC_RC)" test "$REC_RC" = 0
asan=$(rel_asan "$TMPD/record.err")
check "netns: no sanitizer report${asan:+ ($asan)}" test -z "$asan"
"$FT" info --json "$TMPD/ns.ftr" >"$TMPD/info.json"
check "netns: capture complete" test "$(jget "$TMPD/info.json" 'j["state"], j["stop_reason"]')" = "('complete', 'signal')"
"$FT" report --json --threshold 0.0001 --top 0 "$TMPD/ns.ftr" >"$TMPD/report.json"
check "netns: report works" test $? = 0
# bins as bursts (threshold ~0), relative to the deletion
python3 - "$TMPD/report.json" "$t_del" "$H1" "$H2" >"$TMPD/ns.vars" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t_del = int(sys.argv[2]) * 1000 - j["capture"]["start_wall_ns"]   # ns since the capture start
def n(ns, lo, hi):
    return sum(1 for b in j["microbursts"]["items"] if b["interface"] == "eth0@" + ns and lo <= b["start_rel_ns"] < hi)
end = j["capture"]["duration_ns"]
print(f"h1_after={n(sys.argv[3], t_del + 300_000_000, end)} h2_before={n(sys.argv[4], 0, t_del - 200_000_000)} "
      f"h2_after={n(sys.argv[4], t_del + 20_000_000, end)} after_s={(end - t_del) / 1e9:.1f}")
PY
source "$TMPD/ns.vars"
check "netns: traffic on the surviving $H1/eth0 in the $after_s s after the deletion ($h1_after bins)" test "${h1_after:-0}" -gt 100
check "netns: $H2/eth0 had traffic before ($h2_before bins), none after its deletion ($h2_after)" \
	test "${h2_before:-0}" -gt 50 -a "${h2_after:-1}" = 0

# ---- 4. an interface goes down and up
echo "# 4. interface down and up [${SECONDS}s]"
ip netns exec "$H3" ping -q -i 0.005 "$(lab_addr 1)" >/dev/null 2>&1 &
BG+=($!)
start_record "$TMPD/updown.ftr" --no-phases -i "$H1/eth0" -i "$H3/eth0"
sleep 1.2
ip -n "$H1" link set eth0 down
t_down=$(rel_us) # down from here (ip is slow to start on a busy machine)
sleep 1.2
t_up=$(rel_us)   # still down until here
ip -n "$H1" link set eth0 up
sleep 1.5
check "updown: the recorder keeps running" kill -0 "$REC_PID"
stop_record INT
check "updown: exit 0 after Ctrl-C (got $REC_RC)" test "$REC_RC" = 0
"$FT" info --json "$TMPD/updown.ftr" >"$TMPD/info.json"
check "updown: capture complete" test "$(jget "$TMPD/info.json" 'j["state"], j["stop_reason"]')" = "('complete', 'signal')"
"$FT" report --json --threshold 0.0001 --top 0 "$TMPD/updown.ftr" >"$TMPD/report.json"
check "updown: report works" test $? = 0
python3 - "$TMPD/report.json" "$t_down" "$t_up" "$H1" >"$TMPD/ud.vars" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t0 = j["capture"]["start_wall_ns"]
down, up = int(sys.argv[2]) * 1000 - t0, int(sys.argv[3]) * 1000 - t0
def n(d, lo, hi):
    return sum(1 for b in j["microbursts"]["items"] if b["interface"] == "eth0@" + sys.argv[4]
               and b["dir"] == d and lo <= b["start_rel_ns"] < hi)
end = j["capture"]["duration_ns"]
for d in ("rx", "tx"):
    print(f"{d}_before={n(d, 0, down - 100_000_000)} {d}_down={n(d, down + 20_000_000, up - 20_000_000)} "
          f"{d}_after={n(d, up + 300_000_000, end)}")
PY
source "$TMPD/ud.vars"
check "updown: $H1/eth0 rx and tx bins before the down ($rx_before, $tx_before)" test "${rx_before:-0}" -gt 50 -a "${tx_before:-0}" -gt 50
check "updown: none while it was down ($rx_down, $tx_down)" test "${rx_down:-1}" = 0 -a "${tx_down:-1}" = 0
check "updown: rx and tx bins again after the up ($rx_after, $tx_after)" test "${rx_after:-0}" -gt 50 -a "${tx_after:-0}" -gt 50

# ---- 5. a capture from a newer format version
echo "# 5. newer format version [${SECONDS}s]"
rel setversion "$TMPD/updown.ftr" "$TMPD/vcur.ftr" 2
"$FT" info --json "$TMPD/vcur.ftr" | grep -v '"file"' >"$TMPD/vcur.info"
"$FT" info --json "$TMPD/updown.ftr" | grep -v '"file"' >"$TMPD/v0.info"
check "version: the header rewritten with its own version (2) and a recomputed CRC reads as before" cmp -s "$TMPD/vcur.info" "$TMPD/v0.info"
rel setversion "$TMPD/updown.ftr" "$TMPD/v3.ftr" 3
want="$TMPD/v3.ftr: capture format version 3 is newer than this fabtrace supports (2); upgrade fabtrace"
for cmd in info report; do
	rc=0
	"$FT" "$cmd" "$TMPD/v3.ftr" >"$TMPD/v3.out" 2>&1 || rc=$?
	out=$(cat "$TMPD/v3.out")
	check "version: $cmd refuses it: exit 1 (got $rc), one line: $(head -c 200 "$TMPD/v3.out")" \
		test "$rc" = 1 -a "$out" = "fabtrace: $cmd: $want"
	rc=0
	"$FT" "$cmd" --json "$TMPD/v3.ftr" >"$TMPD/v3.json" 2>"$TMPD/v3.err" || rc=$?
	check "version: $cmd --json: exit 1, the error as one JSON object" \
		test "$rc" = 1 -a "$(jget "$TMPD/v3.json" '"newer than this fabtrace supports" in j["error"]')" = True
done
san=$(for f in "$TMPD"/*.err; do rel_asan "$f"; done)
check "no sanitizer report in any recorder's output${san:+ ($san)}" test -z "$san"
echo "# done [${SECONDS}s]"
finish
