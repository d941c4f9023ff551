#!/usr/bin/env bash
# A compute straggler on a clean fabric, traced through real MPI (MPICH) with
# every collective kind: rank 1 sleeps 200 ms before each collective.  The
# report must (1) count, per rank, exactly the MPI calls the workload made,
# with their byte counts, (2) put every collective under the marker step
# that contains it, (3) end non-blocking all-reduces at their MPI_Wait, and
# (4) name rank 1 as the straggler of the slow collectives, with the network
# clean.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
lab_start 3
J=$TMPD/report.json
OPS=allreduce,allgather,reduce_scatter,bcast,reduce,alltoall,barrier,iallreduce,sendrecv

# shellcheck disable=SC2046
"$FT" record -q -o "$TMPD/s.ftr" $(lab_iface_args) -- \
	"$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 32k --iters 16 --warmup 2 --delay 1:200000 --json \
	--timeout 120 -- --ops "$OPS" --steps >"$TMPD/wl.json" 2>"$TMPD/rec.err"
_rc=$?
check "record -- lab.sh mpi exits 0 ($(tail -n1 "$TMPD/rec.err"))" test "$_rc" = 0
grep -q '"verify":"ok"' "$TMPD/wl.json" || bad "workload verified its results: $(head -c 300 "$TMPD/wl.json")"
"$FT" report --json "$TMPD/s.ftr" >"$J" || bad "report --json"
"$FT" report --json --top 1000 "$TMPD/s.ftr" >"$TMPD/all.json" || bad "report --json --top 1000"

python3 - "$J" "$TMPD/wl.json" "$TMPD/all.json" <<'PY' || bad "phase checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
w = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
from checks import check, done

# 1. calls and bytes per rank, against what the workload performed
fnop = {"MPI_Allreduce": "allreduce", "MPI_Iallreduce": "allreduce", "MPI_Allgather": "allgather",
        "MPI_Reduce_scatter_block": "reduce_scatter", "MPI_Bcast": "bcast", "MPI_Reduce": "reduce",
        "MPI_Alltoall": "alltoall", "MPI_Barrier": "barrier", "MPI_Gather": "gather",
        "MPI_Send": "send", "MPI_Recv": "recv"}
extra_bytes = {"MPI_Allreduce": 4, "MPI_Gather": 8}   # setup/teardown calls: one int, one double
calls, nbytes = {}, {}
for fn, op in fnop.items():
    n = w["calls"].get(fn, 0)
    nw = w["workload_calls"].get(fn, 0)
    calls[op] = calls.get(op, 0) + n
    nbytes[op] = nbytes.get(op, 0) + nw * w["bytes_per_call"].get(fn, 0) + (n - nw) * extra_bytes.get(fn, 0)
ranks = sorted(r["rank"] for r in j["ranks"] if r["rank"] is not None)
check(ranks == [0, 1, 2], f"three ranks 0..2 from MPI_Comm_rank ({ranks})")
for r in j["ranks"]:
    got = {o["op"]: (o["calls"], o["bytes"]) for o in r["ops"]}
    for op in calls:
        c, b = got.get(op, (0, 0))
        check(c == calls[op] and b == nbytes[op],
              f"rank {r['rank']} {op}: {c} calls / {b} B captured, workload made {calls[op]} / {nbytes[op]} B")

# 2. steps: every iteration is a step, parent of the collective the workload ran in it
ops = w["ops"]
steps = {s["step"]: s for s in j["steps"]["items"]}
check(len(steps) == w["iters"] + w["warmup"], f"{len(steps)} steps, workload ran {w['iters'] + w['warmup']}")
wrong = []
for k, s in steps.items():
    want = {"iallreduce": "allreduce", "sendrecv": None}.get(ops[k % len(ops)], ops[k % len(ops)])
    got = [c["op"] for c in s["collectives"]]
    if (want is None and got) or (want is not None and got != [want]):
        wrong.append((k, want, got))
check(not wrong, f"each step holds exactly its iteration's collective (wrong: {wrong[:3]})")

# 3. non-blocking all-reduce: ends at MPI_Wait, so it lasts at least the straggler's delay
#    (rank 0 returns from MPI_Iallreduce at once but waits ~200 ms in MPI_Wait for rank 1)
a = json.load(open(sys.argv[3]))
nb = [r for s in a["slowest"]["items"] for r in s["ranks"] if r["nonblocking"] and r["rank"] == 0]
check(len(nb) == w["workload_calls"].get("MPI_Iallreduce", 0),
      f"{len(nb)} non-blocking all-reduces on rank 0, workload made {w['workload_calls'].get('MPI_Iallreduce')}")
check(all(r["completed"] and r["duration_ns"] >= 160_000_000 for r in nb),
      "each ends at its MPI_Wait, after rank 1's delay " + str([r["duration_ns"] for r in nb]))

# 4. verdicts: rank 1 is the straggler; the network is clean
slow = j["slowest"]["items"]
check(len(slow) > 0, f"slowest collectives listed ({len(slow)})")
check(all(s["verdict"] == "rank" and s["straggler_rank"] == 1 for s in slow),
      "every slowest collective: rank-bound, straggler rank 1 " + str([(s["op"], s["verdict"], s["straggler_rank"]) for s in slow][:5]))
check(all(s["evidence"]["retransmits"] == s["evidence"]["tail_loss_probes"] and s["evidence"]["congestion_drops"] == 0 for s in slow),
      "no loss retransmits (tail-loss probes at most) or congestion drops in their windows")
coll = [c for c in j["collectives"]["items"] if c["op"] != "barrier" or c["seq"] > 1]
rb = sum(c["verdict"] == "rank" and c["straggler_rank"] == 1 for c in coll)
check(rb >= 0.9 * w["iters"], f"{rb} of {len(coll)} collectives rank-bound on rank 1 (>= 90% of the {w['iters']} iterations)")
st = j["stragglers"]
check(bool(st) and st[0]["rank"] == 1, f"rank 1 tops the straggler list ({st[:2]})")
done()
PY
"$FT" report "$TMPD/s.ftr" >"$TMPD/report.txt" || bad "text report"
check "text report names rank 1 as straggler with a clean network" \
	grep -qE "rank-bound: rank 1 .*network clean" "$TMPD/report.txt"
finish
