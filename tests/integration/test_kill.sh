#!/usr/bin/env bash
# shellcheck disable=SC2154 # cc_* in_* rp_* own* left orphans: assigned by eval "$(rel ...)"
# Killing the recorder, many times, at random moments (issue 6):
#  - kill -9 (12 rounds; 3 of them in the first ~120 ms, while the probes are
#    still loading and attaching): afterwards none of the BPF programs, links
#    and maps that recorder held exists and no object with one of our names
#    is orphaned; no qdisc, tc filter or BPF net attachment, bpffs pin, mount
#    or tracefs uprobe was added; no process was left in the lab; the capture
#    (when there is one) reads as truncated, exactly up to its last complete
#    block (an independent reader walks and CRC-checks the blocks), and
#    `report` works on it, with bins once a block was flushed (the recorder
#    flushes every second);
#  - SIGTERM (3) and Ctrl-C (3: SIGINT to the recorder's process group, as a
#    terminal sends it, with SIGINT's default disposition): exit 0, a
#    complete capture (END record, stop reason "signal"), bins on both
#    interfaces, the same leak checks; Ctrl-C during startup (2): either the
#    recorder dies before it created the file (exit 130, no file) or it stops
#    cleanly with a complete capture; never a half-written one;
#  - kill -9 while the phase uprobes are attached to a live MPI job (3: the
#    job run by `record -- CMD`, then by `record -p PID`, then -p with the
#    per-function perf uprobes): the int3 the uprobe put at MPI_Allreduce in
#    a running rank's memory is gone right after the kill, the job finishes
#    with verified results (no SIGTRAP), and no uprobe link, perf event or
#    tracefs uprobe is left;
#  - at the end, lab_down leaves no namespace, mount or state file of the lab.
# FT_SEED=N repeats the same random moments.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd bpftool
need_cmd python3
need_cmd readelf
source "$(dirname "$0")/reliability.sh"
SEED=${FT_SEED:-$((RANDOM * 32768 + RANDOM))}
echo "seed $SEED (FT_SEED=$SEED repeats these moments)"
RANDOM=$SEED
# rnd_ms LO HI: a random number of milliseconds in [LO, HI]
rnd_ms() { echo $(($1 + RANDOM % ($2 - $1 + 1))); }

lab_start 2
H1=$(lab_ns "$LAB" 1) H2=$(lab_ns "$LAB" 2)
ALLREDUCE=$ROOT/$BUILD/tools/allreduce
PING=
# Ctrl-C as a terminal sends it: the recorder leads its own process group and
# gets SIGINT's default disposition back (a background job of a script ignores it)
TTY_PY='import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setpgid(0, 0)
os.execvp(sys.argv[1], sys.argv[1:])'

end_test() {
	[[ -n $PING ]] && rel_kill_children "$PING"
	cleanup
}
trap end_test EXIT

# Background traffic so the recorder is busy when it dies (lab_mpi, later,
# kills every process of the lab when its job ends, this ping included).
ip netns exec "$H1" ping -q -i 0.002 -s 1200 "$(lab_addr 2)" >/dev/null 2>&1 &
PING=$! # ip netns exec execs ping: the same pid
sleep 0.2
NET0=$(rel_netstate)
MNT0=$(rel_mounts)
UPE0=$(rel_uprobe_events)
STATE0=$(cat "$LAB_STATE_DIR/$LAB")
rel baseline >"$TMPD/base.json"

# lab_procs: processes in the lab's namespaces other than our ping
lab_procs() {
	local ns
	for ns in $(rel_lab_ns); do ip netns pids "$ns"; done | grep -vx "${PING:-0}" | tr '\n' ' '
}

# leak_checks ROUND [SECS [running]]: nothing of the dead recorder is left
# after SECS (5) ($TMPD/owned.json: what it held; $TMPD/base.json: the
# baseline taken before it started, renewed); "running": a job runs in the lab
leak_checks() {
	local r=$1 left orphans p
	eval "$(rel leaks "$TMPD/owned.json" "$TMPD/base.json" "$TMPD/base.json" "${2:-5}")"
	check "$r: none of its BPF programs, links or maps exists${left:+ (left: $left)}" test -z "$left"
	check "$r: no orphaned fabtrace BPF object (names from bpf/)${orphans:+ (found: $orphans)}" test -z "$orphans"
	check "$r: no qdisc, tc filter or BPF net attachment added (root ns and lab)" test "$(rel_netstate)" = "$NET0"
	check "$r: no bpffs pin or mount left" test "$(rel_mounts)" = "$MNT0"
	check "$r: no tracefs uprobe left" test "$(rel_uprobe_events)" = "$UPE0"
	if [[ -z ${3:-} ]]; then
		p=$(lab_procs)
		check "$r: no process left in the lab${p:+ ($p)}" test -z "$p"
	fi
	check "$r: lab state file untouched" test "$(cat "$LAB_STATE_DIR/$LAB" 2>&1)" = "$STATE0"
}

# capture_checks ROUND FILE STATE SECS: STATE truncated|complete; SECS recorded
capture_checks() {
	local r=$1 out=$2 state=$3 secs=$4
	local irc=0 rrc=0 san
	"$FT" info --json "$out" >"$TMPD/info.json" 2>"$TMPD/info.err" || irc=$?
	check "$r: info reads the capture (exit $irc)" test "$irc" = 0
	"$FT" report --json "$out" >"$TMPD/report.json" 2>"$TMPD/report.err" || rrc=$?
	check "$r: report works on it (exit $rrc$(grep -v warning "$TMPD/report.err" | head -c 200 | sed 's/^/: /'))" test "$rrc" = 0
	eval "$(rel capvars "$out" "$TMPD/info.json" "$TMPD/report.json")"
	san=$(rel_asan "$TMPD/rec.err"; rel_asan "$TMPD/info.err"; rel_asan "$TMPD/report.err")
	check "$r: no sanitizer report from record, info or report${san:+ ($san)}" test -z "$san"
	check "$r: info says $state ($in_state)" test "$in_state" = "$state"
	check "$r: header valid (independent reader)" test "$cc_header_ok" = 1
	if [[ $state == truncated ]]; then
		check "$r: readable exactly up to its last complete block (independent reader: $cc_blocks blocks up to offset $cc_good_off of $cc_size)" \
			test "$in_state_offset" = "$cc_good_off" -a "$in_blocks" = "$cc_blocks" -a "$cc_end" = 0
	else
		check "$r: ends with END, stop reason signal, nothing after it (independent reader: $cc_blocks blocks, ${cc_why:-clean})" \
			test "$cc_end" = 1 -a "$cc_stop" = 1 -a "$cc_good_off" = "$cc_size" -a "$in_stop" = signal
	fi
	check "$r: info and report count the records the independent reader finds ($cc_records)" \
		test "$in_records" = "$cc_records" -a "$rp_records" = "$cc_records" -a "$rp_state" = "$in_state"
	# a tick (every second) flushes a block; a signal flushes everything
	if [[ $state == complete ]] || ((10#${secs/./} >= 1600)); then
		check "$r: bins on both interfaces after $secs s ($cc_bins)" test "$rp_traced" = 2 -a "$rp_traced_with_bins" = 2
	fi
}

# wait_recording ERRFILE PID: wait for "recording to"; prints the time (us)
wait_recording() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "recording to" "$1" 2>/dev/null && { rel_us; return 0; }
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}

# ---- kill -9 at random moments
for round in $(seq 1 12); do
	r="kill -9 #$round"
	out=$TMPD/kill$round.ftr
	if ((round <= 3)); then ms=$(rnd_ms 5 120); else ms=$(rnd_ms 100 2500); fi
	"$FT" record -o "$out" -i "$H1/eth0" -i "$H2/eth0" 2>"$TMPD/rec.err" &
	pid=$!
	REC_PID=$pid # lib.sh's cleanup stops it if the test dies
	t0=
	if ((round > 3)); then
		t0=$(wait_recording "$TMPD/rec.err" "$pid") || { bad "$r: recorder did not start: $(cat "$TMPD/rec.err")"; wait "$pid"; REC_PID=; continue; }
	fi
	sleep "$(rel_ms_to_s "$ms")" # rounds 1-3: while the probes load and attach
	secs=0.000
	if ((round % 2)); then
		kill -STOP "$pid" # frozen first, so the snapshot of what it holds is exact
		[[ -n $t0 ]] && secs=$(rel_secs_since "$t0")
		eval "$(rel owned "$pid" "$TMPD/owned.json")"
		kill -KILL "$pid"
	else
		eval "$(rel owned "$pid" "$TMPD/owned.json")"
		kill -KILL "$pid"
		[[ -n $t0 ]] && secs=$(rel_secs_since "$t0")
	fi
	rc=0
	wait "$pid" 2>/dev/null || rc=$?
	REC_PID=
	if [[ -n $t0 ]]; then when="$secs s after recording started"; else when="$(rel_ms_to_s "$ms") s after exec"; fi
	echo "# $r: killed $when, holding $own [${SECONDS}s]"
	check "$r: died of SIGKILL (exit $rc)" test "$rc" = 137
	check "$r: every BPF object it held has a known name${own_unknown:+ (unknown: $own_unknown)}" test -z "$own_unknown"
	if [[ -n $t0 ]]; then
		check "$r: it was tracing ($own)" test "$own_links" -gt 0 -a "$own_progs" -gt 0
	fi
	leak_checks "$r"
	if [[ -e $out ]]; then
		capture_checks "$r" "$out" truncated "$secs"
	else
		check "$r: no capture file: killed before it created it (only possible during startup)" test -z "$t0"
	fi
done

# ---- SIGTERM, and Ctrl-C to the process group
for round in 1 2 3 4 5 6; do
	if ((round <= 3)); then sig=TERM; else sig=INT; fi
	r="SIG$sig #$round"
	out=$TMPD/sig$round.ftr
	ms=$(rnd_ms 500 2000)
	if [[ $sig == INT ]]; then
		python3 -c "$TTY_PY" "$FT" record -o "$out" -i "$H1/eth0" -i "$H2/eth0" 2>"$TMPD/rec.err" &
	else
		"$FT" record -o "$out" -i "$H1/eth0" -i "$H2/eth0" 2>"$TMPD/rec.err" &
	fi
	pid=$!
	REC_PID=$pid # lib.sh's cleanup stops it if the test dies
	t0=$(wait_recording "$TMPD/rec.err" "$pid") || { bad "$r: recorder did not start: $(cat "$TMPD/rec.err")"; wait "$pid"; REC_PID=; continue; }
	sleep "$(rel_ms_to_s "$ms")"
	eval "$(rel owned "$pid" "$TMPD/owned.json")"
	if [[ $sig == INT ]]; then kill -INT -- "-$pid"; else kill -TERM "$pid"; fi
	secs=$(rel_secs_since "$t0")
	rc=0
	wait "$pid" || rc=$?
	REC_PID=
	echo "# $r: signalled $secs s after recording started, holding $own [${SECONDS}s]"
	check "$r: recorder exits 0 (got $rc)" test "$rc" = 0
	check "$r: summary line printed" grep -q "recorded .* (signal)" "$TMPD/rec.err"
	leak_checks "$r"
	capture_checks "$r" "$out" complete "$secs"
done

# ---- Ctrl-C during startup: nothing written, or a complete capture
for round in 1 2; do
	r="early Ctrl-C #$round"
	out=$TMPD/early$round.ftr
	ms=$(rnd_ms 0 300)
	python3 -c "$TTY_PY" "$FT" record -o "$out" -i "$H1/eth0" -i "$H2/eth0" 2>"$TMPD/rec.err" &
	pid=$!
	REC_PID=$pid # lib.sh's cleanup stops it if the test dies
	for ((i = 0; i < 200; i++)); do
		[[ $(cat "/proc/$pid/comm" 2>/dev/null) == fabtrace ]] && break # exec'd: own group, SIG_DFL
		sleep 0.01
	done
	sleep "$(rel_ms_to_s "$ms")"
	kill -INT -- "-$pid"
	rc=0
	wait "$pid" || rc=$?
	REC_PID=
	echo "# $r: SIGINT $(rel_ms_to_s "$ms") s after exec: exit $rc, $(ls -l "$out" 2>&1) [${SECONDS}s]"
	if ((rc == 130)); then
		check "$r: died of SIGINT before creating the capture: no file" test ! -e "$out"
	else
		check "$r: stopped cleanly (exit $rc)" test "$rc" = 0
		capture_checks "$r" "$out" complete 0
	fi
	echo '{}' >"$TMPD/owned.json"
	leak_checks "$r"
done

# ---- kill -9 while the phase uprobes sit in a live MPI job
# ranks: the allreduce processes of the lab
ranks() {
	local ns p
	for ns in "$H1" "$H2"; do
		for p in $(ip netns pids "$ns"); do
			[[ $(cat "/proc/$p/comm" 2>/dev/null) == allreduce ]] && echo "$p"
		done
	done
}
# mpi_checks ROUND JOB: the job ended well ($TMPD/JOB.rc, JOB.out, JOB.err):
# exit 0 with its results verified, nothing else printed (no SIGTRAP, no bad
# termination; reliability.sh, rel_mpi_job)
mpi_checks() {
	local r=$1 f=$TMPD/$2 i res
	for ((i = 0; i < 1200; i++)); do [[ -s $f.rc ]] && break; sleep 0.1; done
	check "$r: every rank verified its all-reduce results" grep -q '"verify":"ok"' "$f.out"
	res=$(rel_mpi_job "$(cat "$f.rc" 2>/dev/null)" "$f.out" "$f.err")
	check "$r: the MPI job finished cleanly, no SIGTRAP or bad termination ($res)" test "$res" = ok
}
# mpi_kill ROUND PID RANK WAIT: the kill -9 and what must hold after it; WAIT:
# seconds the kernel may take to remove the uprobes (perf uprobes: one
# RCU-tasks-trace grace period each, ~0.1 s x 125 here)
mpi_kill() {
	local r=$1 pid=$2 rank=$3 w=$4 byte res
	byte=$(rel byte "$rank" libmpi MPI_Allreduce cc 10)
	check "$r: uprobe in place: MPI_Allreduce of rank pid $rank starts with int3 (byte $byte)" test "$byte" = cc
	sleep "$(rel_ms_to_s "$(rnd_ms 200 1500)")"
	eval "$(rel owned "$pid" "$TMPD/owned.json")"
	kill -KILL "$pid"
	check "$r: the MPI job is still running" kill -0 "$rank"
	res=$(rel unprobed "$rank" libmpi MPI_Allreduce "$w" "$TMPD/owned.json")
	wait "$pid" 2>/dev/null
	REC_PID=
	echo "# $r: killed the recorder holding $own; MPI_Allreduce in the live rank: $res [${SECONDS}s]"
	# another tracer's live uprobe (a recorder of another test on this
	# machine) keeps an int3 there; ours must be gone (leak checks below)
	check "$r: int3 gone from the live rank's MPI_Allreduce, unless another tracer's live uprobe keeps it ($res)" \
		test "${res%% *}" = restored -o "${res%% *}" = others
	leak_checks "$r" "$w" running
	check "$r: no perf event of the recorder left (bpftool perf)" test -z "$(bpftool perf show 2>/dev/null | grep -E "^pid $pid ")"
	capture_checks "$r" "$TMPD/mpi$round.ftr" truncated 0
}

# 1. record -- CMD: the job is the recorder's child and outlives it (>= 6 s: 1200 x 5 ms
#    of compute, so that it still runs after a slow attach and the random wait)
r="MPI kill -9 #1 (record -- CMD)"
"$FT" record -o "$TMPD/mpi1.ftr" -i "$H1/eth0" -i "$H2/eth0" -- bash -c \
	'd=$1; shift; "$0" mpi -p "$@" >"$d/job1.out" 2>"$d/job1.err"; echo $? >"$d/job1.rc"' \
	"$ROOT/tools/lab.sh" "$TMPD" "$LAB" --bytes 64k --iters 1200 --warmup 2 --json --timeout 90 \
	--bin "$ALLREDUCE" -- --compute 5000 2>"$TMPD/rec.err" &
pid=$!
REC_PID=$pid # lib.sh's cleanup stops it if the test dies
rank=
for ((i = 0; i < 150; i++)); do rank=$(ranks | head -n 1); [[ -n $rank ]] && break; sleep 0.1; done
PING= # lab.sh mpi kills every process of the lab at its end
round=1
mpi_kill "$r" "$pid" "$rank" 5
mpi_checks "$r" job1

# 2. and 3. one long job (>= 24 s: 1200 x 20 ms of compute); record -p attaches
#    to it twice, the second time with a perf uprobe per function
(lab_mpi "$LAB" --bytes 64k --iters 1200 --warmup 2 --json --timeout 120 --bin "$ALLREDUCE" -- --compute 20000 \
	>"$TMPD/job2.out" 2>"$TMPD/job2.err"; echo $? >"$TMPD/job2.rc") &
job=$!
for ((i = 0; i < 150; i++)); do [[ $(ranks | wc -l) == 2 ]] && break; sleep 0.1; done
rank=$(ranks | head -n 1)
for round in 2 3; do
	env=()
	w=5
	if ((round == 3)); then env=(FABTRACE_UPROBE_PERF=1); w=30; fi
	r="MPI kill -9 #$round (record -p${env[*]:+, ${env[*]}})"
	env "${env[@]}" "$FT" record -o "$TMPD/mpi$round.ftr" -i "$H1/eth0" -i "$H2/eth0" -p "$job" 2>"$TMPD/rec.err" &
	pid=$!
	REC_PID=$pid # lib.sh's cleanup stops it if the test dies
	wait_recording "$TMPD/rec.err" "$pid" >/dev/null || bad "$r: recorder did not start: $(cat "$TMPD/rec.err")"
	mpi_kill "$r" "$pid" "$rank" "$w"
done
wait "$job"
mpi_checks "MPI kill -9 #2, #3" job2
leak_checks "after the MPI job"

# ---- the lab goes away without leftovers
lab=$LAB
check "lab_down succeeds" lab_down "$lab"
LAB=
check "no namespace of lab $lab left" test -z "$(ip netns list | grep -F "$lab")"
check "no link named after lab $lab in the root namespace" test -z "$(ip -o link show | grep -F "$lab")"
check "no mount of lab $lab left" test -z "$(grep -F "$lab" /proc/self/mountinfo)"
check "no lab state file left" test ! -e "$LAB_STATE_DIR/$lab"
echo "# done [${SECONDS}s]"
finish
