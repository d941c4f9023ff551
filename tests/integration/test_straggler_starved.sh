#!/usr/bin/env bash
# A rank that is runnable but gets no CPU inside its collectives (docs/verdicts.md,
# "No CPU"), with real MPICH: 3 lab hosts on a clean bridge, rank 1 starved for
# 300 ms inside every third of 12 all-reduces of 2 MiB (tools/allreduce
# --starve: a nice -20 spinner on its CPU, it at nice 19 meanwhile, both pinned; it
# entered on time, so no entry lateness names it).  Recorded from the start,
# and once per host (--netns, system-wide phase probes) with the captures
# given other clocks by tools/capshift and merged (pids and namespaces
# renumbered).  In each, the workload's starved collectives, found by its own
# clock (allreduce --times-file, 4th column), must be >= 90 % rank-bound
# naming rank 1, held without a CPU (why no_cpu, budget.held_rank, at least
# half the 300 ms stalled), none network, and almost none of the others held
# (tests/integration/budget_check.py starved).  Before the recorder sampled
# the ranks' run-queue wait, these collectives came out unknown.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
source "$(dirname "$0")/multihost.sh"
lab_start 3
CHECK=$(dirname "$0")/budget_check.py
# shellcheck disable=SC2034 # read by mh_shift (multihost.sh)
MH_SHIFT=([1]="--mono-shift 0 --maxerror 30000"
	[2]="--mono-shift 86400s --clock-error 4ms --maxerror 30000"
	[3]="--mono-shift 300s --clock-error -3ms --maxerror 30000")
STARVE_MS=300

job() { # PREFIX: the job, its times into PREFIXt.RANK
	"$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 2m --iters 12 --warmup 1 --starve "1:$STARVE_MS" \
		--starve-every 3 --json --timeout 120 -- --times-file "${1}t"
}

# from the start: the recorder follows the job's processes
p=$TMPD/start-
rc=0
# shellcheck disable=SC2046
"$FT" record -q -o "${p}s.ftr" $(lab_iface_args) -- "$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 2m --iters 12 \
	--warmup 1 --starve "1:$STARVE_MS" --starve-every 3 --json --timeout 120 -- --times-file "${p}t" \
	>"${p}wl.json" 2>"${p}err" || rc=$?
check "from the start: record -- lab.sh mpi --starve exits 0 ($(tail -n 1 "${p}err"))" test "$rc" = 0
check "from the start: the workload verified its results" grep -q '"verify":"ok"' "${p}wl.json"
"$FT" report --json --top 1000 "${p}s.ftr" >"${p}s.json" || bad "report (from the start)"
python3 "$CHECK" starved "from the start" "${p}s.json" "${p}t" 1 "$STARVE_MS" || bad "from the start (see above)"
"$FT" report "${p}s.ftr" >"${p}s.txt" 2>&1 || bad "text report (from the start)"
check "the text names the held rank and why" grep -q "waiting for rank 1 (pid [0-9]*, .*h2), [0-9.]* ms while it was runnable without a CPU" "${p}s.txt"
check "the capture holds the run-queue samples" sh -c "'$FT' info '${p}s.ftr' | grep -q 'sched_wait'"

# one recorder per host, merged
p=$TMPD/hosts-
mh_record_hosts 3 hosts-
rc=0
job "$p" >"${p}wl.json" 2>"${p}err" || rc=$?
check "per host: lab.sh mpi --starve exits 0 ($(tail -n 1 "${p}err"))" test "$rc" = 0
mh_stop_all
mh_shift 3 hosts-
"$FT" merge -q -o "${p}job.ftr" "${p}h1.ftr" "${p}h2.ftr" "${p}h3.ftr" 2>"${p}merge.err" ||
	bad "merge ($(tail -n 1 "${p}merge.err"))"
"$FT" report --json --top 1000 "${p}job.ftr" >"${p}job.json" || bad "report (merged)"
python3 "$CHECK" starved "per-host captures merged" "${p}job.json" "${p}t" 1 "$STARVE_MS" ||
	bad "per-host captures merged (see above)"
finish
