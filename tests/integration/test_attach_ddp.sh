#!/usr/bin/env bash
# A PyTorch job already running (issue 15): DDP over Gloo, 4 ranks on lab
# hosts, rank 2 sleeping 120 ms before each backward.  `fabtrace record -d`
# starts at random points of the training loop, with no command and no -p
# (every process), three times.  Each recording must know the ranks (from the
# launcher's RANK in each process's environment), match the gradient
# all-reduces across all four ranks by Gloo's own collective number although
# each rank's first observed call differs, and name rank 2, as a recording
# from the start does (test_ddp_gloo_straggler).
source "$(dirname "$0")/lib.sh"
need_root
[[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null ||
	skip "needs Debian's python3-torch ('make deps' installs it)"
lab_start 4
trap bg_cleanup EXIT

"$ROOT/tools/ddp_gloo.py" --lab "$LAB" --steps 100 --delay 2:120 --json --ready "$TMPD/ready" \
	--timeout 180 >"$TMPD/wl.json" 2>"$TMPD/wl.err" &
BG=$!
for ((i = 0; i < 240; i++)); do
	[[ -e $TMPD/ready ]] && break
	kill -0 "$BG" 2>/dev/null || break
	sleep 0.25
done
check "the job reached its training loop" test -e "$TMPD/ready"
# random points of the training loop: 0-500 ms on top of the previous recording
attach_three 5 1000

for i in 1 2 3; do
	echo "-- attach $i"
	LAB=$LAB ATTACHED=1 python3 "$ROOT/tests/integration/ddp_gloo_check.py" "$TMPD/a$i.json" 4 straggler 2 ||
		bad "attach $i: DDP straggler checks (see above)"
done
finish
