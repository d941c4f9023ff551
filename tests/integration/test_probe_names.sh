#!/usr/bin/env bash
# One name per network probe (probes/probe_names.c) on real output: what
# `features --json` calls each probe, the keys of `top --json`'s "skipped",
# and the probes `info --json` and `report --json` list for the capture the
# same top session recorded, all in probe id order; and what `info` and
# `report` call the probes of a synthetic capture (tools/synthcap), whose own
# copy of the names said qdisc_enq and retrans, as `info` did for captures
# without probe records.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
"$FT" features --json >"$TMPD/features.json" || bad "features --json exit status"
rc=0
"$FT" top --json -n 1 -r 500ms -i lo --no-phases --record "$TMPD/top.ftr" >"$TMPD/top.json" 2>"$TMPD/top.err" || rc=$?
check "top --json --record exits 0 ($(tail -n1 "$TMPD/top.err"))" test "$rc" = 0
"$FT" info --json "$TMPD/top.ftr" >"$TMPD/info.json" || bad "info --json exit status"
"$FT" report --json "$TMPD/top.ftr" >"$TMPD/report.json" || bad "report --json exit status"
"$ROOT/$BUILD/tools/synthcap" -q -o "$TMPD/syn.ftr" -d 2s || bad "synthcap exit status"
"$FT" info --json "$TMPD/syn.ftr" >"$TMPD/syn_info.json" || bad "info --json (synthetic) exit status"
"$FT" report --json "$TMPD/syn.ftr" >"$TMPD/syn_report.json" || bad "report --json (synthetic) exit status"
python3 - "$TMPD" <<'EOF'
import json, sys
from checks import check, done
d = sys.argv[1]
load = lambda n: json.load(open(f"{d}/{n}.json"))
features = [p["name"] for p in load("features")["probes"]]
# top: one JSON line per snapshot; the keys of "skipped" in id order
top = list(json.loads(open(f"{d}/top.json").readline())["skipped"])
names = lambda n: [p["name"] for p in sorted(load(n)["probes"], key=lambda p: p["id"])]
info, report = names("info"), names("report")
check(len(features) == 8, f"features names 8 probes: {features}")
check(top == features, f"top --json names them as features does: {top} vs {features}")
check(info == features, f"info --json names them as features does: {info} vs {features}")
check(report == features, f"report --json names them as features does: {report} vs {features}")
for n in ("syn_info", "syn_report"):
    check(names(n) == features, f"{n}: the synthetic capture's probes as features names them: {names(n)}")
check("qdisc_enqueue" in features and "retransmit" in features, f"netprobe's spelling: {features}")
# the coverage lists of info and report name the same probes the same way
icov = sorted(c["probe"] for c in load("info")["lost"]["coverage"])
rcov = sorted(c["probe"] for c in load("report")["lost"]["coverage"])
check(icov == rcov and set(icov) <= set(features), f"coverage: info {icov}, report {rcov}")
done()
EOF
[[ $? -eq 0 ]] || bad "the probe names differ between outputs"
finish
