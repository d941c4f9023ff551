#!/usr/bin/env bash
# Four per-host flight recorders (issue 33): each lab host recorded by its own
# `record --netns H --switch-output` (as one recorder per node would), an MPI
# all-reduce over host 2's throttled link (tbf, 100 Mbit/s, 30 kB queue),
# then `fabtrace trigger` on every host with one --at, as
#   pdsh -w nodes "fabtrace trigger --at $(date +%s.%N)"
# sends it (two hosts reached with `ip netns exec`, two with --netns): one
# snapshot per host, each holding the job in its pre-window.  The snapshots,
# given clocks of their own by tools/capshift (boot times, REALTIME errors,
# one host unsynchronised), merge; merge finds the clock errors from the
# traffic; the merged report opens with the four triggers at one moment and
# names host 2's link for the slow all-reduces.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
source "$(dirname "$0")/multihost.sh"
lab_start 4 "h2=100mbit:limit=30kb"
H2=$(lab_ns "$LAB" 2)
CTL=ftM$$ # control sockets of our own name (one per host namespace)
# shellcheck disable=SC2034 # read by mh_shift (multihost.sh)
MH_SHIFT=([1]="--mono-shift 0 --maxerror 50000"
	[2]="--mono-shift 86400s --clock-error 12ms --maxerror 50000"
	[3]="--mono-shift 300s --clock-error -30ms --unsynced"
	[4]="--mono-shift 7200s --clock-error 20ms --maxerror 50000")

for i in 1 2 3 4; do
	mkdir "$TMPD/f$i"
	mh_start "$TMPD/f$i" "h$i" --netns "$(lab_ns "$LAB" "$i")" --switch-output 2s --keep 90s \
		--snapshot-pre 60s --snapshot-post 2s --control "$CTL"
done
# 24 all-reduces (about 2-3 s over host 2's link): merge matches traffic in
# windows of 2 s spread over the snapshots, so a job shorter than one window
# left each pair one window, and once none for host 3
"$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 512k --iters 24 --warmup 1 --json --timeout 120 \
	-- --compute 20000 >"$TMPD/wl.json" 2>"$TMPD/wl.err"
rc=$?
check "lab.sh mpi exits 0 ($(tail -n1 "$TMPD/wl.err"))" test $rc = 0

# one moment for every node
at=$(date +%s.%N)
pids=()
for i in 1 2; do
	ip netns exec "$(lab_ns "$LAB" "$i")" "$FT" trigger --control "$CTL" --at "$at" --reason "job done" \
		--wait --json >"$TMPD/t$i.json" 2>"$TMPD/t$i.err" &
	pids+=($!)
done
for i in 3 4; do
	"$FT" trigger --netns "$(lab_ns "$LAB" "$i")" --control "$CTL" --at "$at" --reason "job done" \
		--wait --json >"$TMPD/t$i.json" 2>"$TMPD/t$i.err" &
	pids+=($!)
done
for i in 1 2 3 4; do
	rc=0
	wait "${pids[$((i - 1))]}" || rc=$?
	check "host $i: trigger --wait exits 0 with its snapshot saved ($rc: $(head -c 200 "$TMPD/t$i.err"))" \
		test "$rc" = 0 -a "$(jget "$TMPD/t$i.json" 'j["saved"]' 2>/dev/null)" = True
done
mh_stop_all
for i in 1 2 3 4; do
	n=$(find "$TMPD/f$i" -name 'snap-*.ftr' | wc -l)
	check "host $i: one snapshot ($n)" test "$n" = 1
	cp "$TMPD"/f"$i"/snap-*.ftr "$TMPD/host$i-snap.ftr"
done
check "every host's trigger took the same wall-clock moment" python3 -c '
import json, sys
ats = {json.load(open(f"{sys.argv[1]}/t{i}.json"))["at"] for i in (1, 2, 3, 4)}
sys.exit(0 if len(ats) == 1 else 1)' "$TMPD"
mh_shift 4
"$FT" merge --json -o "$TMPD/job.ftr" "$TMPD"/h{1,2,3,4}.ftr >"$TMPD/merge.json" 2>"$TMPD/merge.err"
rc=$?
check "merge of the snapshots exits 0 ($(tail -n1 "$TMPD/merge.err"))" test $rc = 0
"$FT" report --json "$TMPD/job.ftr" >"$TMPD/job.json" 2>"$TMPD/job.err" || bad "report of the merged snapshots"
"$FT" report "$TMPD/job.ftr" >"$TMPD/job.txt" 2>&1 || bad "text report of the merged snapshots"
check "the text report opens with the snapshot's trigger ($(head -n 1 "$TMPD/job.txt"))" \
	grep -q "^Snapshot taken on .*: command fabtrace trigger (\"job done\") at " <(head -n 1 "$TMPD/job.txt")
python3 - "$TMPD" "eth0@$H2" <<'PY' || bad "the merged snapshots (see above)"
import json, sys
from checks import check, done
d, link = sys.argv[1], sys.argv[2]
truth = [json.loads(l) for l in open(f"{d}/truth.jsonl")]
m = json.load(open(f"{d}/merge.json"))
e0 = truth[0]["clock_error_ns"]
for p in m["pairs"]:  # what placed them, for a failure's diagnosis
    off = "-" if p["offset_ns"] is None else f"{p['offset_ns'] / 1e6:+.3f} +- {p['uncertainty_ns'] / 1e6:.3f} ms"
    print(f"     pair {p['a']}-{p['b']}: {p['windows']} windows, {off}")
for w in m["warnings"]:
    print(f"     merge: {w}")
for h, t in zip(m["hosts"], truth):
    if h["reference"]:
        continue
    want, got = t["clock_error_ns"] - e0, h["clock_error_ns"]
    print(f"     {h['label']}: clock error {want / 1e6:+.3f} ms made, {got / 1e6:+.3f} ms found, {h['method']}")
    check(h["method"] == "traffic", f"{h['label']} placed from the traffic")
    check(abs(got - want) <= 1_000_000, f"{h['label']}: its clock error recovered within 1 ms")
j = json.load(open(f"{d}/job.json"))
t = j["trigger"]
opened = [a for a in t["all"] if a["action"] == "snapshot"]
check(len(opened) == 4 and all(a["kind"] == "command" and a["reason"] == "job done" for a in opened),
      f"the merged report holds the four hosts' triggers ({[a['action'] for a in t['all']]})")
spread = max(a["mono_ns"] for a in opened) - min(a["mono_ns"] for a in opened)
check(spread <= 2_000_000, f"on the merged clock the four triggers are one moment ({spread} ns apart)")
slow = [x for x in j["slowest"]["items"] if x["op"] == "allreduce"]
net = [x for x in slow if x["verdict"] == "network"]
check(len(slow) >= 3 and len(net) >= len(slow) - 1, f"{len(net)} of {len(slow)} slowest all-reduces network-bound")
links = sorted({x["evidence"]["link"] for x in net})
check(links == [link], f"they name {link} ({links})")
done()
PY
finish
