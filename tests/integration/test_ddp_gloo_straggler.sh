#!/usr/bin/env bash
# PyTorch DDP over Gloo (Debian's python3-torch, /usr/bin/python3), 4 ranks on
# 4 lab hosts, rank 2 sleeping 120 ms before each backward.  Every gradient
# all-reduce must be matched across the 4 ranks by Gloo's own collective
# number (the options' tag, equal on every rank, though each process's
# context pointer differs and fits in 32 bits in a non-PIE python3), and
# the verdicts must name rank 2.  Checks: tests/integration/ddp_gloo_check.py.
source "$(dirname "$0")/lib.sh"
need_root
[[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null ||
	skip "needs Debian's python3-torch ('make deps' installs it)"
lab_start 4
J=$TMPD/report.json

# shellcheck disable=SC2046
"$FT" record -q -o "$TMPD/d.ftr" $(lab_iface_args) -- \
	"$ROOT/tools/ddp_gloo.py" --lab "$LAB" --steps 12 --delay 2:120 --json >"$TMPD/wl.json" 2>"$TMPD/rec.err"
_rc=$?
check "record -- ddp_gloo.py exits 0 ($(tail -n1 "$TMPD/rec.err"))" test "$_rc" = 0
check "every rank ends with the same weights" grep -q '"weights_equal": true' "$TMPD/wl.json"
"$FT" report --json "$TMPD/d.ftr" >"$J" || bad "report --json"
python3 "$ROOT/tests/integration/ddp_gloo_check.py" "$J" 4 straggler 2 || bad "DDP straggler checks (see above)"
"$FT" report "$TMPD/d.ftr" >"$TMPD/report.txt" || bad "report"
check "the text report's COMM column says the library numbered them" grep -q ' tag/4 ' "$TMPD/report.txt"
finish
