#!/usr/bin/env bash
# merge with unequal windows (issue 33): hosts 1 and 2 recorded during an MPI
# all-reduce between them; host 3's recorder started only after theirs had
# stopped, so its capture overlaps neither.  Each capture gets a clock of its
# own (tools/capshift).  Before, a capture overlapping the others by less
# than 200 bins made merge place every host by its realtime anchors; now the
# pair that overlaps is still aligned by its traffic (host 2's clock error
# recovered within 1 ms) and only host 3 is placed by its anchor, with a
# warning that says why.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
source "$(dirname "$0")/multihost.sh"
lab_start 3
# shellcheck disable=SC2034 # read by mh_shift (multihost.sh)
MH_SHIFT=([1]="--mono-shift 0 --maxerror 50000"
	[2]="--mono-shift 86400s --clock-error 12ms --maxerror 50000"
	[3]="--mono-shift 300s --clock-error -30ms --maxerror 50000")
mh_start "$TMPD/host1-%p.ftr" h1 --netns "$(lab_ns "$LAB" 1)"
mh_start "$TMPD/host2-%p.ftr" h2 --netns "$(lab_ns "$LAB" 2)"
"$ROOT/tools/lab.sh" mpi -p "$LAB" --ranks 2 --bytes 512k --iters 10 --warmup 1 --json --timeout 120 \
	-- --compute 20000 >"$TMPD/wl.json" 2>"$TMPD/wl.err"
rc=$?
check "lab.sh mpi (2 ranks) exits 0 ($(tail -n1 "$TMPD/wl.err"))" test $rc = 0
sleep 0.3
mh_stop_all
# host 3, late: some traffic of its own, then stop.  It starts 1 s after the
# others stopped: more than its clock error (30 ms) and the windows' pad (the
# clocks' uncertainty, 100 ms) together.  Started at once, 10 ms after host 2's
# end, its -30 ms error put it inside host 2's last window ("no traffic matched")
sleep 1
mh_start "$TMPD/host3-%p.ftr" h3 --netns "$(lab_ns "$LAB" 3)" --no-phases
lab_exec "$LAB" 3 ping -q -c 20 -i 0.05 "$(lab_addr 1)" >/dev/null 2>&1
mh_stop_all
mh_shift 3
"$FT" merge --json -o "$TMPD/job.ftr" "$TMPD"/h{1,2,3}.ftr >"$TMPD/merge.json" 2>"$TMPD/merge.err"
rc=$?
check "merge exits 0 ($(tail -n1 "$TMPD/merge.err"))" test $rc = 0
"$FT" report --json "$TMPD/job.ftr" >/dev/null 2>"$TMPD/report.err" || bad "report of the merged capture"
python3 - "$TMPD" <<'PY' || bad "the late capture's merge (see above)"
import json, sys
from checks import check, done
d = sys.argv[1]
truth = [json.loads(l) for l in open(f"{d}/truth.jsonl")]
m = json.load(open(f"{d}/merge.json"))
h = {x["index"]: x for x in m["hosts"]}
for i in (1, 2):
    want, got = truth[i]["clock_error_ns"] - truth[0]["clock_error_ns"], h[i]["clock_error_ns"]
    print(f"     {h[i]['label']}: clock error {want / 1e6:+.3f} ms made, {got / 1e6:+.3f} ms found, {h[i]['method']}")
check(m["windows"] >= 1, f"traffic windows planned where hosts 1 and 2 overlap ({m['windows']})")
check(h[1]["method"] == "traffic", f"host 2 placed from the traffic ({h[1]['method']})")
want = truth[1]["clock_error_ns"] - truth[0]["clock_error_ns"]
check(abs(h[1]["clock_error_ns"] - want) <= 1_000_000, "host 2: its clock error recovered within 1 ms")
check(h[2]["method"] == "realtime", f"host 3 placed by its realtime anchor ({h[2]['method']})")
check(any("node3" in w and "overlaps no host" in w for w in m["warnings"]),
      f"merge says why host 3 is placed by its anchor ({m['warnings']})")
check(not any("no two captures overlap" in w for w in m["warnings"]), "and not that nothing overlaps")
done()
PY
finish
