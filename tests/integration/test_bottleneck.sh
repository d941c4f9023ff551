#!/usr/bin/env bash
# A slow link under a real MPI all-reduce: host 2's link is shaped by tbf to
# 100 Mbit/s with a 30 kB queue.  The report must show that link running at the
# shaped rate, microbursts on it, a backlog on its qdisc, qdisc drops that
# match `tc -s`, and nothing on the idle host 5, which runs no rank.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
RATE=100000000
lab_start 5 "h2=100mbit:limit=30kb"
H2=$(lab_ns "$LAB" 2) SW=$(lab_sw "$LAB")
J=$TMPD/report.json

# shellcheck disable=SC2046
start_record "$TMPD/mpi.ftr" $(lab_iface_args)
lab_mpi "$LAB" --ranks 4 --bytes 1m --iters 8 --timeout 120 >"$TMPD/mpi.out" 2>&1 ||
	bad "MPI allreduce ran ($(tail -n 2 "$TMPD/mpi.out"))"
sleep 0.5
stop_record INT
check "recorder exited 0" test "$REC_RC" = 0
"$FT" report --json "$TMPD/mpi.ftr" >"$J" || bad "report --json"

iface() { # LABEL DIR KEY
	jget "$J" "[i['$2']['$3'] for i in j['interfaces'] if i['interface']=='$1'][0]"
}
qdisc() { # LABEL KEY
	jget "$J" "[q['$2'] for q in j['queues'] if q['interface']=='$1'][0]"
}
between() { python3 -c "import sys; v,lo,hi=map(float,sys.argv[1:]); sys.exit(0 if lo<=v<=hi else 1)" "$@"; }

cap=$(iface "eth0@$H2" tx capacity_bps)
check "shaped capacity taken from the tbf rate ($cap)" between "$cap" $RATE $RATE
sus=$(iface "eth0@$H2" tx sustained_peak_bps)
check "h2 uplink sustains ~100 Mbit/s at 100 ms ($sus)" between "$sus" $((RATE * 6 / 10)) $((RATE * 125 / 100))
sus=$(iface "p2@$SW" tx sustained_peak_bps)
check "h2 downlink sustains ~100 Mbit/s at 100 ms ($sus)" between "$sus" $((RATE * 6 / 10)) $((RATE * 125 / 100))
peak=$(iface "eth0@$H2" tx peak_bps)
check "bin peak above the shaped rate: the bucket bursts ($peak)" between "$peak" $RATE 1e12
# microbursts are bins at >= 50 % of the LINE rate (issue 17: against the
# shaper every packet of a shaped link would be one): bursts exactly when the
# shaped link's fullest bin reached half its line rate
b=$(iface "eth0@$H2" tx bursts)
plu=$(iface "eth0@$H2" tx peak_line_util)
line=$(iface "eth0@$H2" tx line_bps)
check "line rate of the shaped link apart from its shaper ($line > $RATE)" between "$line" $((RATE + 1)) 1e15
if between "$plu" 0.5 1e9; then
	check "microbursts on the bottleneck at ${plu} of the line rate ($b)" test "$b" -gt 0
else
	check "no microbursts below half the line rate (peak ${plu}, bursts $b)" test "$b" -eq 0
fi
cap=$(iface "eth0@$(lab_ns "$LAB" 3)" tx capacity_bps)
check "an unshaped veth has its link speed as capacity ($cap)" between "$cap" 1e10 1e10

for d in rx tx; do
	b=$(iface "eth0@$(lab_ns "$LAB" 5)" $d bursts)
	by=$(iface "eth0@$(lab_ns "$LAB" 5)" $d total_bytes)
	check "idle host 5 $d: no bursts ($b), almost no bytes ($by)" test "$b" = 0 -a "$by" -lt 2000
done

for q in "eth0@$H2" "p2@$SW"; do
	kind=$(qdisc "$q" kind) bl=$(qdisc "$q" max_backlog_bytes)
	check "$q: tbf queue seen ($kind), backlog $bl B within the 30 kB limit" \
		test "$kind" = tbf -a "$bl" -gt 0 -a "$bl" -le 32000
	soj=$(qdisc "$q" sojourn_max_ns)
	check "$q: sojourn time measured ($soj ns)" test "$soj" -gt 0
done
# qdisc drops: the capture against tc's own counter (both qdiscs are new, so tc's total is this run's)
for spec in "$H2 eth0 eth0@$H2" "$SW p2 p2@$SW"; do
	read -r ns dev label <<<"$spec"
	tcd=$(ip netns exec "$ns" tc -s qdisc show dev "$dev" | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1)
	recs=$(qdisc "$label" drop_records)
	sk=$(skipped "$J" drop)
	check "$label: qdisc drops in the capture ($recs) = tc -s ($tcd), $sk skipped by the kernel" \
		test "$recs" -le "$tcd" -a $((tcd - recs)) -le "$sk"
done
lost=$(jget "$J" "j['lost']['total_lost']")
check "no lost events ($lost)" test "$lost" = 0
# Conservation: exact but for probe runs the kernel skipped (under tbf on this
# VM, docs/known-issues.md): every shortfall is flagged and counted.
python3 - "$J" <<'PY' || bad "conservation: a shortfall not flagged or not explained by counted skips"
import json, sys
j = json.load(open(sys.argv[1]))
# the packets skipped runs kept out of the bins: one per run of the bin probes;
# with the transmit bins at tcx egress (-i), qdisc_dequeue counts what leaves a
# qdisc, up to 9 skbs a run (a bulk dequeue; docs/design-notes.md)
tx_hook = [p["hook"] for p in j["probes"] if p["name"] == "iface_tx"][0]
per_run = {"iface_tx": 1, "iface_rx": 1, "qdisc_dequeue": 9 if tx_hook.startswith("tcx/") else 0}
skipped = sum((c["skipped"] or 0) * per_run.get(c["probe"], 0) for c in j["lost"]["coverage"])
for c in j["conservation"]:
    if c["status"] not in ("ok", "mismatch", "ok_skipped"):
        continue
    if abs(c["diff_bytes"]) > c["tolerance_bytes"]:
        assert c["status"] in ("mismatch", "ok_skipped"), c
        assert -c["diff_pkts"] <= skipped + 2, (c, skipped)
    if c["status"] == "ok_skipped":
        # explained: within the skipped runs, so no MISMATCH warning for it
        assert 0 < c["skipped_pkts"] == -c["diff_pkts"] <= skipped, (c, skipped)
    if c["status"] == "mismatch":
        assert j["warnings"], "mismatch without a warning"
print("transmit bins at", tx_hook, "; packets skipped runs may have kept out:", skipped)
PY
ok "conservation: every shortfall flagged and explained by counted kernel skips"
finish
