#!/usr/bin/env bash
# Phase probes on the other collective libraries.
#  - Gloo (Debian's libgloo, as PyTorch's CPU backend uses it): real
#    all-reduces across 2 lab hosts over TCP; the C++ entry points are found
#    by their demangled names; every call is captured on each rank.
#  - NCCL: there is no GPU here, so the stand-in build/tests/lib/libnccl.so.2
#    (NCCL's real signatures) is traced instead; rank and size come from
#    ncclCommInitRank, collectives are matched across the 2 ranks, and every
#    view says that NCCL calls mark enqueue, not completion.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
SIM=$ROOT/$BUILD/tools/nccl_sim

# ---- NCCL stand-in: two local ranks
[[ -x $SIM ]] || { echo "FAIL: $SIM not built (run make)"; exit 1; }
"$FT" record -q -o "$TMPD/nccl.ftr" -- sh -c \
	"'$SIM' --rank 1 --nranks 2 --id-file '$TMPD/id' --iters 6 --ops allreduce,allgather,reduce_scatter,broadcast \
	 --json >'$TMPD/n1.json' & '$SIM' --rank 0 --nranks 2 --id-file '$TMPD/id' --iters 6 \
	 --ops allreduce,allgather,reduce_scatter,broadcast --json >'$TMPD/n0.json'; wait" 2>"$TMPD/rec.err"
_rc=$?
check "record -- nccl_sim x2 exits 0 ($(tail -n1 "$TMPD/rec.err"))" test "$_rc" = 0
"$FT" report --json "$TMPD/nccl.ftr" >"$TMPD/nccl.json" || bad "report --json (nccl)"
"$FT" report "$TMPD/nccl.ftr" >"$TMPD/nccl.txt" || bad "report (nccl)"
check "text report says NCCL marks enqueue, not completion" grep -q "NCCL calls mark enqueue, not completion" "$TMPD/nccl.txt"
python3 - "$TMPD/nccl.json" "$TMPD/n0.json" "$TMPD/n1.json" <<'PY' || bad "NCCL checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
w = [json.loads(open(f).read().strip().splitlines()[-1]) for f in sys.argv[2:]]
from checks import check, done
check(j["phases"]["enqueue_only"] is True and any("enqueue" in x for x in j["warnings"]),
      "JSON: enqueue_only set and warned")
ranks = sorted((r["rank"], r["pid"]) for r in j["ranks"])
check([r for r, _ in ranks] == [0, 1], f"ranks 0 and 1 from ncclCommInitRank ({ranks})")
fn = {"ncclAllReduce": "allreduce", "ncclAllGather": "allgather", "ncclReduceScatter": "reduce_scatter",
      "ncclBroadcast": "bcast"}
for r in j["ranks"]:
    wl = w[r["rank"]]
    got = {o["op"]: (o["calls"], o["bytes"]) for o in r["ops"]}
    for f, op in fn.items():
        want = (wl["calls"].get(f, 0), wl["calls"].get(f, 0) * wl["bytes_per_call"].get(f, 0))
        check(got.get(op, (0, 0)) == want, f"rank {r['rank']} {f}: captured {got.get(op)}, made {want}")
items = j["collectives"]["items"]
n = sum(w[0]["calls"].get(f, 0) for f in fn)
check(len(items) == n and all(c["members"] == 2 and c["enqueue_only"] for c in items),
      f"{len(items)} collectives matched across both ranks (pointer comms), all flagged enqueue-only (made {n})")
done()
PY

# ---- Gloo: real all-reduces across two lab hosts
if [[ -x $ROOT/$BUILD/tools/gloo_allreduce ]]; then
	lab_start 2
	# shellcheck disable=SC2046
	"$FT" record -q -o "$TMPD/gloo.ftr" $(lab_iface_args) -- \
		"$ROOT/tools/lab.sh" gloo -p "$LAB" --bytes 256k --iters 8 --json --timeout 60 \
		>"$TMPD/gloo.out" 2>"$TMPD/grec.err"
	_rc=$?
	check "record -- lab.sh gloo exits 0 ($(tail -n1 "$TMPD/grec.err"))" test "$_rc" = 0
	"$FT" report --json "$TMPD/gloo.ftr" >"$TMPD/gloo.json" || bad "report --json (gloo)"
	python3 - "$TMPD/gloo.json" "$TMPD/gloo.out" <<'PY' || bad "Gloo checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
outs = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]
from checks import check, done
check(len(outs) == 2 and all(o["verify"] == "ok" for o in outs), "both Gloo ranks verified their sums")
slots = [s for s in j["phases"]["slots"] if s["lib_kind"] == "gloo"]
check(any(s["symbol"].startswith("gloo::allreduce(") for s in slots),
      "a slot on gloo::allreduce(...) found by its demangled name: " + str([s["symbol"] for s in slots][:4]))
byr = {r["rank"]: r for r in j["ranks"]}
check(sorted(byr) == [0, 1], f"ranks 0 and 1 read from the gloo::Context ({sorted(byr)})")
for o in outs:
    want = (o["calls"]["gloo::allreduce"], o["calls"]["gloo::allreduce"] * o["bytes_per_call"]["gloo::allreduce"])
    got = [(x["calls"], x["bytes"]) for x in byr.get(o["rank"], {"ops": []})["ops"] if x["op"] == "allreduce"]
    check(got == [want], f"rank {o['rank']}: gloo::allreduce calls/bytes made {want}, captured {got}")
    bar = [x["calls"] for x in byr.get(o["rank"], {"ops": []})["ops"] if x["op"] == "barrier"]
    check(bar == [o["calls"]["gloo::barrier"]], f"rank {o['rank']}: gloo::barrier {bar}")
inst = [c for c in j["collectives"]["items"] if c["op"] == "allreduce"]
check(len(inst) == outs[0]["calls"]["gloo::allreduce"] and all(c["members"] == 2 for c in inst),
      f"{len(inst)} Gloo all-reduces matched across the two ranks")
done()
PY
else
	echo "skip Gloo part: build/tools/gloo_allreduce not built (libgloo-dev missing)"
fi
finish
