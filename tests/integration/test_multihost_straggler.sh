#!/usr/bin/env bash
# Per-host captures of one MPI run (MPICH, 3 ranks on 3 lab hosts, rank 1
# sleeping 30 ms before each all-reduce), each host recorded by its own
# recorder restricted to its own namespace, then given its own clock by
# tools/capshift: booted at another time, and its REALTIME off by -25 ms
# (host 2) and +40 ms (host 3, whose clock also runs 200 ppm slow) -- more
# than the straggler's delay, so a
# merge on the realtime anchors alone would blame the wrong rank.  fabtrace
# merge must find the errors from the traffic (within the bound measured in
# docs/multihost.md), and the report of the merged capture must name the
# same straggler as the single capture of the same run.
#
# Every rank computes 80 ms before each all-reduce, more than host 3's 40 ms
# error: on the anchors alone, rank 2's calls then overlap neither their own
# collective nor the next one on the other ranks, so the seq alignment of
# late-attached jobs (userspace/correlate/seq_align.h) leaves them be, and
# the control below sees rank 2 entering 40 ms late.  With a 5 ms compute
# the next collective began within those 40 ms whenever rank 1's sleep came
# out close to 30 ms; rank 2's calls were then realigned by one, and the
# control's outcome hung on the timing of the run.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
source "$(dirname "$0")/multihost.sh"
lab_start 3
# shellcheck disable=SC2034 # read by mh_shift (multihost.sh)
# Host 3 booted 1500 s before host 1: host 1 is shifted forward instead of
# host 3 back, which a machine up for less than 1500 s cannot do (capshift
# refuses times before the clock's zero); the checks are relative to host 1.
MH_SHIFT=([1]="--mono-shift 1800s --maxerror 60000"
	[2]="--mono-shift 9000s --clock-error -25ms --maxerror 60000"
	[3]="--mono-shift 300s --clock-error 40ms --drift -200000 --maxerror 60000")

mh_record_all 3
"$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 256k --iters 24 --warmup 2 --delay 1:30000 --json \
	--timeout 120 -- --compute 80000 >"$TMPD/wl.json" 2>"$TMPD/wl.err"
rc=$?
check "lab.sh mpi exits 0 ($(tail -n1 "$TMPD/wl.err"))" test $rc = 0
sleep 0.3
mh_stop_all
mh_shift 3
"$FT" merge --json -o "$TMPD/job.ftr" "$TMPD/h1.ftr" "$TMPD/h2.ftr" "$TMPD/h3.ftr" >"$TMPD/merge.json" 2>"$TMPD/merge.err"
rc=$?
check "merge exits 0 ($(tail -n1 "$TMPD/merge.err"))" test $rc = 0
"$FT" report --json "$TMPD/single.ftr" >"$TMPD/single.json" || bad "report single"
"$FT" report --json "$TMPD/job.ftr" >"$TMPD/job.json" || bad "report merged"
# the same merged capture one window at a time (report --windows: memory follows a window)
mh_windows_report
"$FT" info --json "$TMPD/job.ftr" >"$TMPD/info.json" || bad "info merged"
# merged on the realtime anchors alone: what the traffic refinement saves us from
"$FT" merge --anchors-only -q -o "$TMPD/coarse.ftr" "$TMPD/h1.ftr" "$TMPD/h2.ftr" "$TMPD/h3.ftr" 2>/dev/null
"$FT" report --json "$TMPD/coarse.ftr" >"$TMPD/coarse.json" || bad "report anchors-only merge"

python3 "$(dirname "$0")/multihost_check.py" straggler "$TMPD" || bad "multi-host checks (see above)"
finish
