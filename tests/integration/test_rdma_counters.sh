#!/usr/bin/env bash
# RDMA counters end to end, against a sysfs fixture (this VM has no RDMA
# device): a fixture tree modelled on mlx5 (a RoCE port whose netdev lives in
# lab host 2, an InfiniBand port, a port without hw_counters) is advanced by
# tools/rdma_fixture while fabtrace records real MPI all-reduces in the lab.
# The driver raises a CNP + ECN storm for 400 ms, wraps a 32-bit counter and
# resets another.
# The report must show the storm at the right time with the exact deltas;
# the all-reduces that ran inside it carry it as evidence and as a budget
# item bounded by their transfer (a fixture's storm costs the real job no
# time, so their verdicts are whatever their time says: a network verdict
# names the RoCE port's netdev, a rank or unknown one a rank that entered
# late on the workload's own clock); the others carry none of it.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
FIX=$ROOT/$BUILD/tools/rdma_fixture
[[ -x $FIX ]] || { echo "FAIL: $FIX is not built (run make)"; exit 1; }
lab_start 3
H2=$(lab_ns "$LAB" 2)
ROCE=${LAB}r2                       # unique name: the RoCE port's netdev, in host 2
# (no dummy driver on every kernel: a veth pair inside host 2 stands for the port's netdev)
ip -n "$H2" link add "$ROCE" type veth peer name "${LAB}q2" && ip -n "$H2" link set "$ROCE" up ||
	{ echo "FAIL: cannot add $ROCE in $H2"; exit 1; }
SYS=$TMPD/sys
"$FIX" create "$SYS" --netdev "$ROCE" || { echo "FAIL: rdma_fixture create"; exit 1; }

# record the lab's MPI job with the fixture as /sys.  The driver starts when
# the timed iterations start (allreduce --ready-file: MPI start-up and the
# first, connecting iterations take seconds on a loaded machine), and the
# 400 ms storm 300 ms later, inside the 80 iterations.  The
# recorded command also waits for the driver to finish, so the capture spans
# the driver's whole run (its deltas are then the exact expected growth).
# shellcheck disable=SC2016,SC2046
start_record "$TMPD/r.ftr" --sysfs-root "$SYS" $(lab_iface_args) -- bash -c '
	"$1" mpi -p "$2" --bytes 64k --iters 80 --warmup 2 --json --timeout 120 -- --compute 15000 \
		--ready-file "$3/wl.ready" --times-file "$3/times" >"$3/wl.json"
	rc=$?
	until [[ -e $3/fix.done ]]; do sleep 0.05; done
	exit $rc' lab "$ROOT/tools/lab.sh" "$LAB" "$TMPD"
for ((i = 0; i < 1200; i++)); do
	[[ -e $TMPD/wl.ready ]] || ! kill -0 "$REC_PID" 2>/dev/null && break
	sleep 0.05
done
[[ -e $TMPD/wl.ready ]] || bad "the MPI job did not start within 60 s"
"$FIX" run "$SYS" --duration 2.5 --storm-at 300 --storm-len 400 --cnp-rate 50000 --ecn-rate 20000 \
	--wrap --reset-at 1800 >"$TMPD/fix.json" || bad "rdma_fixture run"
touch "$TMPD/fix.done"
REC_RC=0
wait "$REC_PID" || REC_RC=$?
REC_PID=
check "record exits 0 when the MPI job ends" test "$REC_RC" = 0
grep -q "RDMA: 3 ports" "$TMPD/record.err" && ok "recorder names the 3 fixture ports" ||
	bad "recorder RDMA status line: $(grep RDMA "$TMPD/record.err")"
"$FT" report --json "$TMPD/r.ftr" >"$TMPD/r.json" || bad "report --json"
"$FT" report "$TMPD/r.ftr" >"$TMPD/r.txt" || bad "report (text)"
grep -q "Counter spikes" "$TMPD/r.txt" && grep -q "np_cnp_sent" "$TMPD/r.txt" &&
	ok "text report has the spikes section with np_cnp_sent" || bad "text report lacks the CNP spike"

"$FT" export --what counters --format jsonl -o "$TMPD/ctr.jsonl" "$TMPD/r.ftr" || bad "export --what counters"
python3 - "$TMPD/r.json" "$TMPD/fix.json" "$ROCE@$H2" "$TMPD/ctr.jsonl" "$TMPD/times" <<'PY' || bad "counter checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
fx = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
netdev = sys.argv[3]
from checks import check, done

ports = {f"{p['device']}/{p['port']}": p for p in j["rdma_ports"]}
check(sorted(ports) == ["mlx5_0/1", "mlx5_1/1", "mlx5_2/1"], f"ports {sorted(ports)}")
r = ports.get("mlx5_0/1", {})
check(r.get("link_layer") == "RoCE" and r.get("interface") == netdev,
      f"mlx5_0/1 is RoCE on {r.get('interface')} (want {netdev})")
check(ports.get("mlx5_1/1", {}).get("link_layer") == "InfiniBand", "mlx5_1/1 is InfiniBand")
check(not ports.get("mlx5_2/1", {}).get("hw_counters", True), "mlx5_2/1 has no hw_counters")

def counter(group, kind, name):
    for g in j["counter_groups"]:
        if g["group"] == group and g["kind"] == kind:
            for c in g["counters"]:
                if c["counter"] == name:
                    return c
    return None

period = j["counter_groups"][0]["period_ns"]
for name, d in sorted(fx["deltas"].items()):
    kind = "counters" if name.startswith("port_") else "hw_counters"
    c = counter("mlx5_0/1", kind, name)
    scale = 4 if name in ("port_xmit_data", "port_rcv_data") else 1
    # the recording spans the driver's whole run, so growth = the driver's delta
    check(c is not None and c["total"] == d * scale,
          f"{name}: total {c and c['total']} = driver delta {d} x{scale}")
c = counter("mlx5_0/1", "counters", "port_xmit_wait")
check(c is not None and c["wraps"] >= 1, f"port_xmit_wait wrapped at 2^32 ({c and c['wraps']} wraps, not a reset)")
check(c is not None and c["resets"] == 0, "and no reset was seen")
c = counter("mlx5_0/1", "hw_counters", "out_of_sequence")
check(c is not None and c["resets"] == 1 and c["wraps"] == 0,
      f"out_of_sequence reset to 0 once: {c and c['resets']} resets, {c and c['wraps']} wraps")
na = [c for g in j["counter_groups"] if g["group"] == "mlx5_1/1" for c in g["counters"] if c["first_raw"] is None]
check(len(na) >= 1, f"N/A counters of the IB port recorded as unavailable ({len(na)})")

# The spike's first and last intervals must hold the driver's first and last
# storm writes.  Causal bounds, not a fixed slack: on a loaded machine the
# driver's tick or the sampler's read can run late, and the spike then honestly
# ends at the late read.  The sampler reads a group in [ts, ts + read_ns].
allpts = [json.loads(l) for l in open(sys.argv[4])]
sums = {}
for p in allpts:
    k = (p["group"], p["kind"], p["counter"])
    sums[k] = sums.get(k, 0) + p["delta"]
sums = {k: v for k, v in sums.items() if v}       # N/A intervals are rows of growth 0
want = {(g["group"], g["kind"], c["counter"]): c["total"] for g in j["counter_groups"] for c in g["counters"] if c["total"]}
check(sums == want and len(want) >= 9,
      f"export --what counters: each counter's intervals sum to the report's total ({len(want)} counters; "
      f"differ: {sorted((k, sums.get(k), want.get(k)) for k in set(sums) | set(want) if sums.get(k) != want.get(k))})")
check(any(p["note"] == "wrap" for p in allpts if p["counter"] == "port_xmit_wait") and
      any(p["note"] == "reset" for p in allpts if p["counter"] == "out_of_sequence"), "export marks the wrap and the reset")
pts = [p for p in allpts if p["group"] == "mlx5_0/1" and p["counter"] == "np_cnp_sent"]
read_max = next(g["read_ns_max"] for g in j["counter_groups"] if g["group"] == "mlx5_0/1" and g["kind"] == "hw_counters")
slack = read_max + 1_000_000
spikes = [s for s in j["counter_spikes"]["spikes"] if s["group"] == "mlx5_0/1" and s["counter"] == "np_cnp_sent"]
check(len(spikes) == 1, f"one np_cnp_sent spike ({len(spikes)})")
check(sum(p["delta"] for p in pts) == fx["deltas"]["np_cnp_sent"],
      f"export --what counters: np_cnp_sent intervals sum to the driver's delta ({sum(p['delta'] for p in pts)})")
if spikes:
    s = spikes[0]
    rel0 = s["start_ns"] - s["start_rel_ns"]        # capture start on CLOCK_MONOTONIC
    iv = [(rel0 + p["start_rel_ns"], rel0 + p["start_rel_ns"] + p["interval_ns"]) for p in pts]
    first = next((x for x in iv if x[0] == s["start_ns"]), None)
    last = next((x for x in iv if x[1] == s["end_ns"]), None)
    w0, w1 = fx["storm_first_write_ns"], fx["storm_last_write_ns"]
    def holds(x, w):
        return x is not None and x[0] <= w[1] + slack and x[1] + slack >= w[0]
    check(holds(first, w0) and holds(last, w1),
          f"spike {(s['start_ns'] - w0[0]) / 1e6:+.1f} ms .. {(s['end_ns'] - w1[0]) / 1e6:+.1f} ms from the storm's "
          f"first and last writes; its first interval {first and (first[1] - first[0]) / 1e6} ms, "
          f"last {last and (last[1] - last[0]) / 1e6} ms hold them")
    late = (w1[0] - fx["storm_end_ns"]) / 1e6
    print(f"     (the driver wrote the storm's end {late:.1f} ms after its nominal end)")
    check(s["growth"] == fx["deltas"]["np_cnp_sent"], f"spike growth {s['growth']} = storm CNPs {fx['deltas']['np_cnp_sent']}")
    check(s["peak_per_s"] >= 25000, f"peak {s['peak_per_s']:.0f}/s (driver: 50000/s)")
ecn = [s for s in j["counter_spikes"]["spikes"] if s["counter"] == "np_ecn_marked_roce_packets"]
check(len(ecn) == 1 and ecn[0]["growth"] == fx["deltas"]["np_ecn_marked_roce_packets"], "one ECN-mark spike, exact growth")

# the all-reduces that overlap the storm carry it: the evidence bit and a
# `cnp` item of their budget on the RoCE port's netdev, its estimate no more
# than their transfer (the spike's overlap with it); those well clear of it
# carry neither.  Their verdicts weigh time (docs/verdicts.md), and the
# fixture's storm slows nothing real: a network verdict must name the
# netdev, and a rank or unknown one a rank that entered late on the
# workload's own clock (a rank preempted between its clock read and the
# call, on a loaded machine, enters late though its clock read was on time:
# the straggler's entry must lie inside that rank's call and the first entry
# inside the iteration, so that a verdict built from the wrong iteration or
# the wrong rank fails).
coll = [c for c in j["collectives"]["items"] if c["op"] == "allreduce"]
if spikes:
    a, b = spikes[0]["start_rel_ns"], spikes[0]["end_rel_ns"]
    inside = [c for c in coll if c["start_rel_ns"] < b and c["end_rel_ns"] > a]
    # clear of every congestion spike (the wrap step of port_xmit_wait can be one)
    cong = [(x["start_rel_ns"], x["end_rel_ns"]) for x in j["counter_spikes"]["spikes"] if x["class"] == "congestion"]
    clear = [c for c in coll if all(c["end_rel_ns"] < x - 2 * period or c["start_rel_ns"] > y + 2 * period
                                    for x, y in cong)]
    check(len(inside) >= 3, f"{len(inside)} all-reduces overlap the storm")

    def cnp(c):
        return [i for i in c["budget"]["items"] if i["kind"] == "cnp"]
    # the budget's item covers the spike's overlap with the transfer (all
    # arrived to the end); the evidence bit, the whole collective
    def in_transfer(c):
        return c["last_entry_rel_ns"] < b and c["end_rel_ns"] > a
    good = [c for c in inside if "counter_congestion" in c["why"] and bool(cnp(c)) == in_transfer(c)
            and all(i["link"] == netdev and i["estimate_ns"] <= c["budget"]["transfer_ns"] + 1000 for i in cnp(c))]
    check(len(good) == len(inside) and any(cnp(c) for c in inside),
          f"{len(good)} of them carry the storm: counter_congestion, and a cnp item on {netdev} within their "
          f"transfer where the storm overlapped it (wrong: {[(c['seq'], c['why'], cnp(c)) for c in inside if c not in good][:3]})")
    print(f"     verdicts inside the storm: {[(c['seq'], c['verdict']) for c in inside]}")
    wrongnet = [c["seq"] for c in inside if c["verdict"] == "network" and c["budget"]["link"] != netdev]
    check(not wrongnet, f"a network verdict inside it names {netdev} (wrongly: {wrongnet})")
    own = {}
    for r in range(3):
        for line in open(f"{sys.argv[5]}.{r}"):
            seq, t0, t1 = map(int, line.split())
            own.setdefault(seq, {})[r] = (t0, t1)
    iters = [v for v in own.values() if len(v) == 3]
    EPS = 50_000   # clock reads around the call vs the probe inside it
    for c in inside:
        if not (c["verdict"] == "rank" or c["verdict"] == "unknown" and c["budget"]["waiting_ns"] >= 1_000_000):
            continue
        first, last = rel0 + c["start_rel_ns"], rel0 + c["last_entry_rel_ns"]
        it = min(iters, key=lambda v: abs(min(t0 for t0, _ in v.values()) - first))
        st = it.get(c["straggler_rank"])
        check(st is not None and st[0] - EPS <= last <= st[1] + EPS and
              min(t0 for t0, _ in it.values()) - EPS <= first <= max(t1 for _, t1 in it.values()) + EPS,
              f"all-reduce {c['seq']} {c['verdict']}, rank {c['straggler_rank']} {c['skew_ns'] / 1e6:.2f} ms late: "
              f"its entry {(last - st[0]) / 1e3 if st else float('nan'):.0f} us after its own clock read "
              f"before the call, inside the call on the workload's clock")
    bad = [c["seq"] for c in clear if "counter_congestion" in c["why"] or cnp(c)]
    check(len(clear) >= 10 and not bad, f"none of the {len(clear)} clear of it carries it (wrongly: {bad})")
done()
PY
finish
