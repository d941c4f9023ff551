#!/usr/bin/env bash
# Phases inferred from traffic alone.  Real MPI all-reduces (1 MiB, 2 ranks)
# with 50 ms of compute between them on a clean fabric.  (1) Recorded with
# the phase probes, then reported with the probe records ignored
# (--phases inferred): every traced all-reduce must be covered by an inferred
# phase, one each, whose start and end are within 5 ms (50 bins of 100 us)
# of its window [first entry, last exit].  (2) Recorded
# with --no-phases: there are no traced calls, and the inferred phases,
# labelled as inferred, number the all-reduces the workload made.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec
need_cmd python3
lab_start 2
ARGS=(--bytes 1m --iters 10 --warmup 1 --json --timeout 120 -- --compute 50000)

# shellcheck disable=SC2046
"$FT" record -q -o "$TMPD/p.ftr" $(lab_iface_args) -- \
	"$ROOT/tools/lab.sh" mpi -p "$LAB" "${ARGS[@]}" >"$TMPD/wl.json" 2>"$TMPD/rec.err"
check "record with phase probes exits 0 ($(tail -n1 "$TMPD/rec.err"))" test $? = 0
"$FT" report --json --phases inferred "$TMPD/p.ftr" >"$TMPD/inf.json" || bad "report --phases inferred"
# shellcheck disable=SC2046
"$FT" record -q --no-phases -o "$TMPD/n.ftr" $(lab_iface_args) -- \
	"$ROOT/tools/lab.sh" mpi -p "$LAB" "${ARGS[@]}" >"$TMPD/wl2.json" 2>"$TMPD/rec2.err"
check "record --no-phases exits 0 ($(tail -n1 "$TMPD/rec2.err"))" test $? = 0
"$FT" report --json "$TMPD/n.ftr" >"$TMPD/nophase.json" || bad "report (no phases)"

python3 - "$TMPD/inf.json" "$TMPD/nophase.json" "$TMPD/wl.json" <<'PY' || bad "inferred phase checks (see above)"
import json, sys
inf, nop = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
w = json.loads(open(sys.argv[3]).read().strip().splitlines()[-1])
fail = 0
def check(cond, what):
    global fail
    print(("ok   " if cond else "FAIL ") + what)
    fail += not cond
TOL = 5_000_000   # 50 bins; a rank descheduled on this busy 2-core VM exits up to a timeslice after its last packet
n = w["iters"] + w["warmup"]
ip = inf["inferred_phases"]
cmp = ip["comparison"]
print("comparison:", json.dumps(cmp))
check(all(i["label"] == "inferred" for i in ip["items"]), "every inferred phase labelled 'inferred'")
m = [i for i in ip["items"] if i["matched_collectives"]]
check(cmp["real_covered"] >= n, f"{cmp['real_covered']} traced collectives covered by inferred phases (>= the {n} all-reduces)")
one = [i for i in m if i["matched_collectives"] == 1]
check(len(one) >= n - 1, f"{len(one)} inferred phases match exactly one all-reduce (the last one may merge with the teardown calls)")
errs = [(i["start_error_ns"], i["end_error_ns"]) for i in one]
check(all(abs(a) <= TOL and abs(b) <= TOL for a, b in errs), f"their start and end within 5 ms: {errs}")
check(cmp["max_abs_start_error_ns"] <= TOL, f"max start error {cmp['max_abs_start_error_ns']} ns <= 5 ms")
check(nop["phases"]["records"] == 0 and not nop["ranks"], "--no-phases: no phase records, no ranks")
k = len(nop["inferred_phases"]["items"])
check(n <= k <= n + 2, f"--no-phases: {k} inferred phases for {n} all-reduces (+ at most 2 for setup traffic)")
sys.exit(1 if fail else 0)
PY
finish
