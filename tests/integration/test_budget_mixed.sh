#!/usr/bin/env bash
# Issue 35's mixed case, with real MPICH: 4 lab hosts, rank 2 sleeping 50 ms
# before each of 12 all-reduces of 512 KiB, run twice: on a clean bridge, then
# with host 3's link throttled by tbf to 40 Mbit/s.  The throttled run's time
# budget must show both shares, each within +-30 % of the truth, per
# collective (>= 90 % of them) and for the job: waiting for rank 2 against
# its own lateness on the workload's clock (allreduce --times-file), the
# network's share against the excess transfer over the unthrottled run (and
# the lateness carried from a throttled predecessor), its items on host 3's
# link.  Every budget sums to its collective's time within 1 %.  Checks:
# budget_check.py mixed.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
lab_start 4

# run NAME: the job recorded from the start into $TMPD/NAME.*
run() {
	local rc=0
	# shellcheck disable=SC2046
	"$FT" record -q -o "$TMPD/$1.ftr" $(lab_iface_args) -- \
		"$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 512k --iters 12 --warmup 0 --delay 2:50000 --json \
		--timeout 120 -- --times-file "$TMPD/$1.t" >"$TMPD/$1.wl.json" 2>"$TMPD/$1.err" || rc=$?
	check "$1: record -- lab.sh mpi exits 0 ($(tail -n 1 "$TMPD/$1.err"))" test "$rc" = 0
	check "$1: the workload verified its results" grep -q '"verify":"ok"' "$TMPD/$1.wl.json"
	"$FT" report --json "$TMPD/$1.ftr" >"$TMPD/$1.json" || bad "$1: report"
}

run clean
lab_shape "$LAB" "h3=40mbit" || bad "shape host 3"
run throttled
python3 "$(dirname "$0")/budget_check.py" mixed "$TMPD/clean.json" "$TMPD/clean.t" "$TMPD/throttled.json" \
	"$TMPD/throttled.t" 2 "eth0@$(lab_ns "$LAB" 3)" "p3@$(lab_sw "$LAB")" || bad "mixed budget checks (see above)"
finish
