#!/usr/bin/env bash
# PyTorch DDP over Gloo (Debian's python3-torch), 4 ranks on 4 lab hosts, host
# 2's link throttled by tbf to 100 Mbit/s.  Every gradient all-reduce is
# equally slow, so none is slower than its median: >= 95 % of them (as many
# as DDP says it made) must still be judged network-bound (persistent
# congestion), naming host 2's link, matched across the 4 ranks, with a time
# budget that sums and names it.  Checks: tests/integration/ddp_gloo_check.py.
source "$(dirname "$0")/lib.sh"
need_root
if ! /usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip "needs Debian's python3-torch ('make deps' installs it)"
fi
lab_start 4 "h2=100mbit:limit=30kb"
J=$TMPD/report.json

# shellcheck disable=SC2046
"$FT" record -q -o "$TMPD/d.ftr" $(lab_iface_args) -- \
	"$ROOT/tools/ddp_gloo.py" --lab "$LAB" --steps 12 --json >"$TMPD/wl.json" 2>"$TMPD/rec.err"
_rc=$?
check "record -- ddp_gloo.py exits 0 ($(tail -n1 "$TMPD/rec.err"))" test "$_rc" = 0
check "every rank ends with the same weights" grep -q '"weights_equal": true' "$TMPD/wl.json"
"$FT" report --json --top 1000 "$TMPD/d.ftr" >"$J" || bad "report --json"
python3 "$ROOT/tests/integration/ddp_gloo_check.py" "DDP, host 2 throttled" "$J" "$TMPD/wl.json" network \
	"eth0@$(lab_ns "$LAB" 2)" || bad "DDP network checks (see above)"
finish
