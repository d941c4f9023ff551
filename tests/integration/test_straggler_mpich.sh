#!/usr/bin/env bash
# Issue 35's straggler acceptance with real MPICH: 4 lab hosts on a clean
# bridge, rank 2 sleeping 150 ms before each of 64 all-reduces of 2 MiB.  The
# job is recorded three ways: one recorder per host (--netns), their
# captures given other clocks by tools/capshift and merged; the whole lab
# from the start (record -- lab.sh mpi); and `record -d 12s` with no command
# and no -p, attached at a random point of the loop.  Quiet, one run is
# recorded per host and from the start at once.  Beside a busy loop on one
# CPU, the job runs twice: once recorded from the start and attached, once
# per host.  (Each recorder's programs run for every packet of the lab, in
# the kernel: with five recorders, four busy-polling ranks and a busy loop
# on these 2 vCPUs, the job's transfers stall for seconds, by its own clock,
# with spurious retransmits -- a test of the machine, not of the verdicts;
# with one or two recorders they do not.  The attached recording, whose
# window holds only a part of the job, runs beside one other.)  In each
# capture >= 90 % of the workload's all-reduces that its own clock shows
# held by the straggler (budget_check.py judged(); the attached one: from
# the first it holds whole to the last) must be rank-bound naming rank 2,
# those it shows stalled after all had arrived unknown, none network;
# counted over the workload's own collectives, found by its own clock
# (allreduce --times-file), which the capture's entries and exits must also
# agree with (the other recorders did not disturb it).  Also: calls and
# bytes per rank, ranks from MPI_Comm_rank (from the start) and from the
# launcher's environment (attached), the merge's recovered clocks (printed;
# test_multihost_* assert them), and the budget
# (tests/integration/budget_check.py).
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
need_cmd taskset
source "$(dirname "$0")/multihost.sh"
lab_start 4
CHECK=$(dirname "$0")/budget_check.py
# clock errors below the delay: the verdicts are the subject here, the clock
# recovery is test_multihost_straggler's (errors above the delay, its control)
# shellcheck disable=SC2034 # read by mh_shift (multihost.sh)
MH_SHIFT=([1]="--mono-shift 0 --maxerror 30000"
	[2]="--mono-shift 86400s --clock-error 9ms --maxerror 30000"
	[3]="--mono-shift 300s --clock-error -14ms --drift 50000 --maxerror 30000"
	[4]="--mono-shift 9000s --clock-error 4ms --maxerror 30000")

# run NAME [busy] [WAYS]: the job recorded WAYS (default "hosts start
# attach"), into $TMPD/NAME-*; with busy, beside a busy loop on one CPU
run() {
	local n=$1 p=$TMPD/$1- ways=${3:-hosts start attach} i rc job
	[[ $ways == *hosts* ]] && mh_record_hosts 4 "$n-"
	[[ ${2:-} == busy ]] && busy_start
	job=("$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 2m --iters 64 --warmup 0 --delay 2:150000 --json
		--timeout 150 -- --times-file "${p}t" --ready-file "${p}ready")
	if [[ $ways == *start* ]]; then
		# shellcheck disable=SC2046
		"$FT" record -q -o "${p}start.ftr" $(lab_iface_args) -- "${job[@]}" >"${p}wl.json" 2>"${p}start.err" &
	else
		"${job[@]}" >"${p}wl.json" 2>"${p}start.err" &
	fi
	REC_PID=$!
	for ((i = 0; i < 600; i++)); do
		[[ -e ${p}ready ]] && break
		kill -0 "$REC_PID" 2>/dev/null || break
		sleep 0.1
	done
	check "$n: the job reached its loop" test -e "${p}ready"
	if [[ $ways == *attach* ]]; then
		sleep "0.$((RANDOM % 10))"
		rc=0
		# at the drain thread's priority from the start: on these 2 vCPUs, saturated
		# by the ranks' busy polling, five recorders and the busy loop (when it ran
		# beside the per-host recorders), its setup at nice 0 took 10-18 s, past
		# the job's end.  12 s of the ~16 s loop (64
		# collectives of ~250 ms): transfers stalled by a descheduled host
		# (seconds, on the workload's own clock, on a machine busier than this
		# test makes it) may fall inside it and still leave the straggler's
		# collectives >= 2/3 of those it holds
		# shellcheck disable=SC2046
		nice -n -10 "$FT" record -q -d 12s -o "${p}attach.ftr" $(lab_iface_args) >/dev/null 2>"${p}attach.err" || rc=$?
		check "$n: attached recording exits 0 ($(tail -n 1 "${p}attach.err"))" test "$rc" = 0
	fi
	rc=0
	wait "$REC_PID" || rc=$?
	REC_PID=
	check "$n: ${ways/ /, } -- lab.sh mpi exits 0 ($(tail -n 1 "${p}start.err"))" test "$rc" = 0
	check "$n: the workload verified its results" grep -q '"verify":"ok"' "${p}wl.json"
	busy_stop
	if [[ $ways == *hosts* ]]; then
		mh_stop_all
		mh_shift 4 "$n-"
		"$FT" merge --json -o "${p}job.ftr" "${p}h1.ftr" "${p}h2.ftr" "${p}h3.ftr" "${p}h4.ftr" \
			>"${p}merge.json" 2>"${p}merge.err" || bad "$n: merge ($(tail -n 1 "${p}merge.err"))"
	fi
	for i in start job attach; do
		[[ -e $p$i.ftr ]] || continue
		"$FT" report --json --top 1000 "$p$i.ftr" >"$p$i.json" || bad "$n: report $i"
	done
}

run quiet "" "hosts start"
run busy busy "start attach"
run busy-hosts busy hosts

# check NAME PREFIX: the captures of the run into PREFIX (those it made)
check_run() {
	local n=$1 p=$2
	echo "-- $n"
	[[ -e ${p}start.json ]] && { python3 "$CHECK" straggler "$n, from the start" "${p}start.json" "${p}t" 2 ||
		bad "$n, from the start (see above)"; }
	[[ -e ${p}job.json ]] && { python3 "$CHECK" straggler "$n, per-host captures merged" "${p}job.json" "${p}t" 2 ||
		bad "$n, merged (see above)"; }
	[[ -e ${p}attach.json ]] && { python3 "$CHECK" straggler "$n, attached mid-run" "${p}attach.json" "${p}t" 2 \
		--attached --lab "$LAB" || bad "$n, attached (see above)"; }
	LAB=$LAB python3 - "$p" <<'PY' || bad "$n: run checks (see above)"
import json, os, sys
from budget_check import load, read_times, iterations, transfer_times, check, done
p, lab = sys.argv[1], os.environ["LAB"]
w = json.loads(open(p + "wl.json").read().strip().splitlines()[-1])
transfer_times("the job", iterations(read_times(p + "t")))
if os.path.exists(p + "merge.json"):
    # printed, not asserted: the verdicts need the entries and exits against the
    # workload's clock (clock_agreement, in the straggler checks); the clock
    # recovery is test_multihost_*'s, and a fit that lands off here is a known
    # issue (docs/known-issues.md, "Multi-host merge")
    for h, t in zip(json.load(open(p + "merge.json"))["hosts"], map(json.loads, open(p + "truth.jsonl"))):
        print(f"     {h['label']}: clock error found {h['clock_error_ns'] / 1e6:+.3f} ms, made "
              f"{t['clock_error_ns'] / 1e6:+.3f} ms (relative to the first host), method {h['method']}")
# calls and bytes per rank, as the workload counted them (its setup and
# teardown: a 4-byte all-reduce, an 8-byte gather, two barriers)
want = {"allreduce": (w["calls"]["MPI_Allreduce"], w["workload_calls"]["MPI_Allreduce"] * w["bytes"] + 4),
        "barrier": (w["calls"]["MPI_Barrier"], 0), "gather": (w["calls"]["MPI_Gather"], 8)}
for name, path, env in (("from the start", "start.json", False), ("merged", "job.json", False),
                        ("attached", "attach.json", True)):
    if not os.path.exists(p + path):
        continue
    j = load(p + path)
    mine = [r for r in j["ranks"] if r["rank"] is not None and (r["host"] or "").startswith(lab)]
    check(sorted(r["rank"] for r in mine) == [0, 1, 2, 3],
          f"{name}: ranks 0..3, one per host ({sorted((r['rank'], r['host']) for r in mine)})"
          + (" from the launcher's environment" if env else ""))
    lost = j["lost"]["by_source"]
    check(lost["phase"] == 0, f"{name}: no phase event lost beside the other recorders ({lost})")
    if env:
        continue
    for r in mine:
        got = {o["op"]: (o["calls"], o["bytes"]) for o in r["ops"]}
        check(got == want, f"{name}: rank {r['rank']}'s calls and bytes {got}, the workload's {want}")
done()
PY
}

check_run quiet "$TMPD/quiet-"
check_run busy "$TMPD/busy-"
check_run busy "$TMPD/busy-hosts-"
finish
