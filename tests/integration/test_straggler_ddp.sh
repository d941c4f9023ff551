#!/usr/bin/env bash
# Issue 35's straggler acceptance with PyTorch DDP over Gloo (Debian's
# python3-torch 1.13, /usr/bin/python3, tools/ddp_gloo.py): 4 ranks on 4 lab
# hosts, rank 2 sleeping 150 ms before each backward.  Recorded from the
# start (record -- ddp_gloo.py) and, at once, by `record -d 6s` with no
# command and no -p attached at a random point of the training loop; then
# from the start again beside a busy loop on one CPU.  In each recording
# >= 90 % of the workload's gradient all-reduces (as many as DDP says it made;
# attached: those between the first and the last it holds whole) must be
# rank-bound, naming the rank that entered each last, rank 2 the one named
# most, none network; each one matched with all 4 ranks by
# Gloo's own collective number (the options' tag, equal on every rank, though
# each process's context pointer differs), the ranks from the launcher's RANK
# (attached: from each process's environment).  Checks: ddp_gloo_check.py.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd taskset
if ! /usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip "needs Debian's python3-torch ('make deps' installs it)"
fi
lab_start 4
CHECK=$(dirname "$0")/ddp_gloo_check.py

# run NAME STEPS [busy]: the job recorded from the start into $TMPD/NAME-*;
# with busy beside a busy loop, else also attached mid-run
run() {
	local n=$1 p=$TMPD/$1- i rc
	[[ ${3:-} == busy ]] && busy_start
	# shellcheck disable=SC2046
	"$FT" record -q -o "${p}start.ftr" $(lab_iface_args) -- \
		"$ROOT/tools/ddp_gloo.py" --lab "$LAB" --steps "$2" --delay 2:150 --json --ready "${p}ready" \
		--timeout 240 >"${p}wl.json" 2>"${p}start.err" &
	REC_PID=$!
	if [[ ${3:-} != busy ]]; then
		for ((i = 0; i < 1200; i++)); do
			[[ -e ${p}ready ]] && break
			kill -0 "$REC_PID" 2>/dev/null || break
			sleep 0.1
		done
		check "$n: the job reached its training loop" test -e "${p}ready"
		sleep "0.$((RANDOM % 10))"
		rc=0
		# at the drain thread's priority from the start (see test_straggler_mpich)
		# shellcheck disable=SC2046
		nice -n -10 "$FT" record -q -d 6s -o "${p}attach.ftr" $(lab_iface_args) >/dev/null 2>"${p}attach.err" || rc=$?
		check "$n: attached recording exits 0 ($(tail -n 1 "${p}attach.err"))" test "$rc" = 0
		"$FT" report --json --top 1000 "${p}attach.ftr" >"${p}attach.json" || bad "$n: report attach"
	fi
	rc=0
	wait "$REC_PID" || rc=$?
	REC_PID=
	busy_stop
	check "$n: record -- ddp_gloo.py exits 0 ($(tail -n 1 "${p}start.err"))" test "$rc" = 0
	check "$n: every rank ends with the same weights" grep -q '"weights_equal": true' "${p}wl.json"
	"$FT" report --json --top 1000 "${p}start.ftr" >"${p}start.json" || bad "$n: report"
}

run quiet 24
"$FT" report "$TMPD/quiet-start.ftr" >"$TMPD/report.txt" || bad "report"
check "the text report's COMM column says the library numbered them" grep -q ' tag/4 ' "$TMPD/report.txt"
run busy 12 busy

python3 "$CHECK" "quiet, from the start" "$TMPD/quiet-start.json" "$TMPD/quiet-wl.json" straggler 2 ||
	bad "quiet, from the start (see above)"
LAB=$LAB python3 "$CHECK" "quiet, attached mid-run" "$TMPD/quiet-attach.json" "$TMPD/quiet-wl.json" straggler 2 \
	--attached || bad "quiet, attached (see above)"
python3 "$CHECK" "busy, from the start" "$TMPD/busy-start.json" "$TMPD/busy-wl.json" straggler 2 ||
	bad "busy, from the start (see above)"
finish
