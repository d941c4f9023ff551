#!/usr/bin/env bash
# Load (issue 6): 32 traced ranks at once.  A 32-host lab, one real MPI rank
# per host namespace (tools/allreduce over MPICH/UCX-tcp, every iteration a
# marker step with "compute" and "optimizer" phases, cycling all-reduce,
# broadcast, all-gather and barrier), recorded with the phase probes
# following `record -- lab.sh mpi`.  Asserts: the job verified its results;
# no event was lost (record's summary, info's and report's lost counters, per
# source); all 32 ranks are in the report with world size 32; on every rank
# every collective op has exactly the calls and bytes the workload made; the
# report has exactly the collectives the workload made, each matched across
# all 32 ranks; every step and named phase is there for all 32 ranks; and the
# raw capture holds one phase record per traced call and marker.  Then 32
# marker-heavy processes (one per namespace, 192000 phase events in a few
# seconds): no loss, every call of every process in the capture.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
source "$(dirname "$0")/reliability.sh"
N=32
ITERS=${FT_LOAD_ITERS:-48}
OPS=allreduce,bcast,allgather,barrier
ALLREDUCE=$ROOT/$BUILD/tools/allreduce
[[ -x $ALLREDUCE ]] || { echo "FAIL: $ALLREDUCE not built (run make)"; exit 1; }
lab_start "$N"
args=()
for ((i = 1; i <= N; i++)); do args+=(-i "$(lab_ns "$LAB" "$i")/eth0"); done

echo "# recording $N ranks x $ITERS iterations [${SECONDS}s]"
rc=0
"$FT" record --json -o "$TMPD/load.ftr" "${args[@]}" -- bash -c \
	'out=$1; shift; exec "$0" mpi -p "$@" >"$out" 2>"$out.err"' "$ROOT/tools/lab.sh" "$TMPD/wl.json" "$LAB" \
	--bytes 16k --iters "$ITERS" --warmup 2 --json --timeout 170 --bin "$ALLREDUCE" -- --ops "$OPS" --steps \
	>"$TMPD/rec.json" 2>"$TMPD/rec.err" || rc=$?
echo "# recorded [${SECONDS}s]"
tail -n 3 "$TMPD/rec.err" | sed 's/^/# /'
check "record -- lab.sh mpi ($N ranks) exits 0 (got $rc)" test "$rc" = 0
san=$(rel_asan "$TMPD/rec.err")
check "no sanitizer report${san:+ ($san)}" test -z "$san"
check "the job's exit stopped the recording" test "$(jget "$TMPD/rec.json" 'j["stop_reason"]')" = "command exited"
res=$(rel_mpi_job "$(jget "$TMPD/rec.json" 'j["command_exit_status"]')" "$TMPD/wl.json" "$TMPD/wl.json.err")
check "the job finished cleanly with verified results ($res)" test "$res" = ok
grep '^{' "$TMPD/wl.json" | tail -n 1 >"$TMPD/wl.last"
check "the workload ran $N ranks and verified every result" \
	test "$(jget "$TMPD/wl.last" 'j["ranks"], j["verify"]')" = "($N, 'ok')"
check "record: 0 lost events ($(jget "$TMPD/rec.json" 'j["lost_events"]'))" test "$(jget "$TMPD/rec.json" 'j["lost_events"]')" = 0
"$FT" info --json "$TMPD/load.ftr" >"$TMPD/info.json" || bad "info --json"
check "info: complete, 0 lost (by source: $(jget "$TMPD/info.json" 'j["lost"]["by_source"]'))" \
	test "$(jget "$TMPD/info.json" 'j["state"], j["lost"]["total"], j["lost"]["by_source"]["phase"]')" = "('complete', 0, 0)"
"$FT" report --json --top 0 "$TMPD/load.ftr" >"$TMPD/report.json" || bad "report --json"

python3 - "$TMPD/report.json" "$TMPD/wl.last" "$TMPD/info.json" "$N" <<'PY' || bad "phase checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
w = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
info = json.load(open(sys.argv[3]))
n = int(sys.argv[4])
from checks import check, done

check(j["lost"]["total_lost"] == 0 and all(c["lost"] == 0 for c in j["lost"]["per_cpu"]),
      f"report: 0 lost events ({j['lost']['by_source']})")
# every rank made the same calls (tools/allreduce.c); setup and teardown
# calls move one int (Allreduce) or one double (Gather)
fnop = {"MPI_Allreduce": "allreduce", "MPI_Bcast": "bcast", "MPI_Allgather": "allgather",
        "MPI_Barrier": "barrier", "MPI_Gather": "gather"}
extra_bytes = {"MPI_Allreduce": 4, "MPI_Gather": 8}
calls, nbytes = {}, {}
for fn, op in fnop.items():
    c, cw = w["calls"].get(fn, 0), w["workload_calls"].get(fn, 0)
    calls[op] = calls.get(op, 0) + c
    nbytes[op] = nbytes.get(op, 0) + cw * w["bytes_per_call"].get(fn, 0) + (c - cw) * extra_bytes.get(fn, 0)
ranks = j["ranks"]
check(sorted(r["rank"] for r in ranks if r["rank"] is not None) == list(range(n)) and len(ranks) == n,
      f"{n} ranks 0..{n - 1} in the report ({len(ranks)} rank entries)")
check(all(r["world_size"] == n for r in ranks), f"world size {n} on every rank")
check(len({r["host"] for r in ranks}) == n, f"{n} hosts (one rank per lab namespace)")
wrong = []
for r in ranks:
    got = {o["op"]: (o["calls"], o["bytes"], o["open"]) for o in r["ops"]}
    for op in calls:
        if got.get(op, (0, 0, 0)) != (calls[op], nbytes[op], 0):
            wrong.append((r["rank"], op, got.get(op), (calls[op], nbytes[op], 0)))
check(not wrong, f"every rank: calls/bytes per op exactly as made {dict((k, calls[k]) for k in calls)} "
      f"(wrong: {wrong[:4]})")
items = j["collectives"]["items"]
ncoll = sum(calls.values())
check(j["collectives"]["instances"] == ncoll == len(items),
      f"{j['collectives']['instances']} collectives in the report, the workload made {ncoll}")
bad = [(c["op"], c["seq"], c["members"]) for c in items if c["members"] != n or c["partial"] or c["open"]]
check(not bad, f"each matched across all {n} ranks, none partial or open (not: {bad[:4]})")
byop = {}
for c in items:
    byop[c["op"]] = byop.get(c["op"], 0) + 1
check(byop == {k: v for k, v in calls.items() if v}, f"collectives per op {byop}")
steps = j["steps"]["items"]
nsteps = w["iters"] + w["warmup"]
check(j["steps"]["total"] == nsteps and all(s["ranks"] == n and not s["open"] for s in steps)
      and j["steps"]["unmatched_ends"] == 0,
      f"{j['steps']['total']} steps (made {nsteps}), each on all {n} ranks, none open or unmatched")
named = {p["name"]: p for p in j["named_phases"]}
for name in ("compute", "optimizer"):
    p = named.get(name, {})
    check(p.get("count") == nsteps * n and p.get("ranks") == n and not p.get("open"),
          f"named phase {name}: {p.get('count')} spans on {p.get('ranks')} ranks (made {nsteps * n})")
# raw records: one phase record per traced collective call and marker call,
# one comm_info record per MPI_Comm_rank/MPI_Comm_size call
mpi = sum(v for k, v in w["calls"].items() if k in fnop)
markers = nsteps * 6   # step begin/end, compute begin/end, optimizer begin/end
want = n * (mpi + markers)
got = info["records"]["by_type"].get("phase", 0)
check(got == want, f"{got} phase records in the capture: {n} ranks x ({mpi} MPI calls + {markers} markers) = {want}")
ci = w["calls"].get("MPI_Comm_rank", 0) + w["calls"].get("MPI_Comm_size", 0)
# (besides those, one per followed process whose launcher set PMI_RANK: env_ranks)
env = info["env_ranks"]
got = info["records"]["by_type"].get("comm_info", 0) - env
check(got == n * ci and env >= n, f"{got} comm_info records: {n} ranks x {ci} MPI_Comm_rank/size calls "
      f"(and {env} ranks from the launcher's environment)")
done()
PY

# ---- 2. 32 marker-heavy processes, one per lab namespace, at once: each makes
#    2000 traced calls, each inside a marker step (3 phase records per call),
#    sleeping 200 us per call (ranks waiting on the network, not spinning)
LIB=$ROOT/$BUILD/tests/lib/libftphase_test.so
WL=$ROOT/$BUILD/tools/phase_workload
CALLS=2000
echo "# 2. $N marker-heavy processes [${SECONDS}s]"
ns_list=()
for ((i = 1; i <= N; i++)); do ns_list+=("$(lab_ns "$LAB" "$i")"); done
rc=0
"$FT" record --json -o "$TMPD/mk.ftr" "${args[@]}" --phase "$LIB:fttest_work=work" -- bash -c \
	'wl=$0 d=$1 calls=$2; shift 2; i=0; for ns in "$@"; do i=$((i + 1));
	 ip netns exec "$ns" "$wl" --calls "$calls" --usec 200 --steps --json >"$d/mk.$i.json" & done; wait' \
	"$WL" "$TMPD" "$CALLS" "${ns_list[@]}" >"$TMPD/mk.sum" 2>"$TMPD/mk.err" || rc=$?
echo "# recorded [${SECONDS}s]"
check "record -- $N workloads exits 0 (got $rc)" test "$rc" = 0
san=$(rel_asan "$TMPD/mk.err")
check "no sanitizer report${san:+ ($san)}" test -z "$san"
check "they all ran and exited 0" test "$(jget "$TMPD/mk.sum" 'j["stop_reason"], j["command_exit_status"]')" = "('command exited', 0)"
check "record: 0 lost events ($(jget "$TMPD/mk.sum" 'j["lost_events"]'), $(jget "$TMPD/mk.sum" 'j["phase_events"]') phase events)" \
	test "$(jget "$TMPD/mk.sum" 'j["lost_events"]')" = 0
"$FT" info --json "$TMPD/mk.ftr" >"$TMPD/info.json" || bad "info --json"
"$FT" report --json "$TMPD/mk.ftr" >"$TMPD/report.json" || bad "report --json"
python3 - "$TMPD/report.json" "$TMPD/info.json" "$N" "$CALLS" "$TMPD" <<'PY' || bad "marker checks (see above)"
import json, sys
j, info = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n, calls, d = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
from checks import check, done
pids = [json.loads(open(f"{d}/mk.{i}.json").read())["pid"] for i in range(1, n + 1)]
check(info["state"] == "complete" and info["lost"]["total"] == 0 and j["lost"]["total_lost"] == 0,
      f"complete capture, 0 lost (info {info['lost']['by_source']})")
byp = {r["pid"]: {o["op"]: (o["calls"], o["open"]) for o in r["ops"]} for r in j["ranks"]}
wrong = [(p, byp.get(p, {}).get("custom")) for p in pids if byp.get(p, {}).get("custom") != (calls, 0)]
check(len(set(pids)) == n and not wrong, f"each of the {n} processes: exactly {calls} calls, none open (wrong: {wrong[:4]})")
got = info["records"]["by_type"].get("phase", 0)
check(got == n * calls * 3, f"{got} phase records: {n} x {calls} x (call + step begin + step end) = {n * calls * 3}")
check(j["steps"]["total"] == calls and j["steps"]["unmatched_ends"] == 0 and not any(s["open"] for s in j["steps"]["items"]),
      f"{j['steps']['total']} step numbers, none unmatched or open")
done()
PY
echo "# done [${SECONDS}s]"
finish
