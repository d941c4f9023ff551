#!/usr/bin/env bash
# The flight recorder's job.timeout on a real Gloo timeout (issue 33, "by
# the job: ... a Gloo/NCCL timeout, as the phase probes see it"): PyTorch
# DDP over Gloo (Debian's python3-torch, tools/ddp_gloo.py) on 2 lab hosts,
# the process group's timeout 4 s, rank 1 sleeping past it before step 3's
# backward.  Rank 0's gradient all-reduce times out inside Gloo, whose
# context closes its pairs (gloo::transport::tcp::Context::signalException,
# probes/catalog.c) and throws (PyTorch 1.13 then ends the process with
# std::terminate): `--trigger job.timeout` must save
# one snapshot (a cool-down holds back the second rank's failure), its
# trigger the job's, naming a Gloo failure of a rank's pid, at least the
# process group's timeout after the loop began, and holding Gloo's
# all-reduces of the steps before.  The same job without the hang fires
# nothing.
source "$(dirname "$0")/lib.sh"
need_root
if ! /usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip "needs Debian's python3-torch ('make deps' installs it)"
fi
lab_start 2
H1=$(lab_ns "$LAB" 1)
mono() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }
nsnap() { find "$1" -maxdepth 1 -name 'snap-*.ftr' | wc -l; }

# run NAME [ddp_gloo options]: the job under a flight recorder with job.timeout
run() {
	local n=$1 rc=0
	shift
	mkdir "$TMPD/$n"
	"$FT" record -i "$H1/eth0" --switch-output 1s --keep 60s --keep-size 0 --snapshot-pre 20s \
		--snapshot-post 1s --snapshot-cooldown 60s --trigger job.timeout --control "ftG$$" -o "$TMPD/$n" --json -- \
		"$ROOT/tools/ddp_gloo.py" --lab "$LAB" --ranks 2 --steps 6 --timeout 90 --ready "$TMPD/$n.ready" "$@" \
		>"$TMPD/$n.json" 2>"$TMPD/$n.err" || rc=$?
	check "$n: the recorder exits 0 ($rc: $(tail -n 2 "$TMPD/$n.err"))" test "$rc" = 0
}

run clean
check "clean: the job trained (no failure)" test "$(grep -c "a rank failed" "$TMPD/clean.err")" = 0
check "clean: no snapshot ($(nsnap "$TMPD/clean"))" test "$(nsnap "$TMPD/clean")" = 0

T0=$(mono)
run hang --pg-timeout 4 --hang 1:3
check "hang: the job failed, as Gloo's timeout makes it" grep -q "a rank failed" "$TMPD/hang.err"
check "hang: one snapshot ($(nsnap "$TMPD/hang"))" test "$(nsnap "$TMPD/hang")" = 1
S=$(find "$TMPD/hang" -maxdepth 1 -name 'snap-*.ftr' | head -1)
if [[ -n $S ]]; then
	"$FT" info --json "$S" >"$TMPD/info.json" 2>&1
	check "its trigger: job, job.timeout, a Gloo timeout, >= 4 s into the job ($(jget "$TMPD/info.json" 'j["triggers"]' 2>&1 | head -c 400))" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["triggers"]
t0 = int(sys.argv[2])
sys.exit(0 if t and t[0]["kind"] == "job" and t[0]["rule"] == "job.timeout"
         and "a Gloo operation timed out" in t[0]["reason"] and t[0]["mono_ns"] >= t0 + 4e9 else 1)' \
		"$TMPD/info.json" "$T0"
	"$FT" report --json "$S" >"$TMPD/snap.json" 2>&1
	check "it holds Gloo's gradient all-reduces of the steps before" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
n = sum(1 for c in j["collectives"]["items"] if c["op"] == "allreduce" and c["comm_kind"] == "library")
print("   ", n, "Gloo all-reduces")
sys.exit(0 if n >= 3 else 1)' "$TMPD/snap.json"
fi
finish
