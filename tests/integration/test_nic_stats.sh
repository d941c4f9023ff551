#!/usr/bin/env bash
# NIC statistics sampled for real through ETHTOOL_GSTATS on the lab's veth
# interfaces.  veth counts its NAPI receive path per queue
# (rx_queue_0_xdp_packets/_bytes), which every packet takes once GRO is on at
# the receiver and TSO off at the sender (the lab's default), so those
# counters must grow with the traffic, by exactly what the interface
# counters say, and only while the traffic runs.  Also: the default filter
# (pause/PFC, buffer, discard and ECN names) picks only veth's drop
# counters; --no-nic-stats samples none; with no RDMA device and no
# override, recording works and says RDMA sampling is off.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
need_cmd ethtool
lab_start 2
H1=$(lab_ns "$LAB" 1)
H2=$(lab_ns "$LAB" 2)
ip netns exec "$H2" ethtool -K eth0 gro on >/dev/null 2>&1 || skip "cannot turn GRO on for veth"
unset FABTRACE_SYSFS_ROOT

# send BYTES from host 1 to host 2 over TCP, printing the mono ns of start and end
send() {
	ip netns exec "$H2" python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.18.0.2", 5201)); s.listen(); c, _ = s.accept()
while c.recv(1 << 16): pass' &
	local srv=$!
	sleep 0.3
	ip netns exec "$H1" python3 -c '
import socket, sys, time
s = socket.create_connection(("198.18.0.2", 5201))
t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
s.sendall(b"x" * int(sys.argv[1])); s.shutdown(socket.SHUT_WR); s.recv(1)
print(t0, time.clock_gettime_ns(time.CLOCK_MONOTONIC))' "$1"
	wait "$srv"
}

start_record "$TMPD/n.ftr" -i "$H2/eth0" -i "$H1/eth0" --nic-stats 'rx_queue_*' --counter-period 5ms
sleep 0.3
send 20000000 >"$TMPD/times" || bad "traffic"
sleep 0.3
stop_record
check "record exits 0" test "$REC_RC" = 0
grep -q "RDMA: no devices" "$TMPD/record.err" && grep -q "RDMA sampling off" "$TMPD/record.err" &&
	ok "no RDMA device: one line says RDMA sampling is off" || bad "RDMA status: $(grep RDMA "$TMPD/record.err")"
"$FT" report --json "$TMPD/n.ftr" >"$TMPD/n.json" || bad "report --json"

"$FT" export --what counters --format jsonl -o "$TMPD/ctr.jsonl" "$TMPD/n.ftr" || bad "export --what counters"
python3 - "$TMPD/n.json" "$TMPD/times" "eth0@$H2" "eth0@$H1" "$TMPD/ctr.jsonl" <<'PY' || bad "ethtool counter checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
t0, t1 = map(int, open(sys.argv[2]).read().split())
rx_if, tx_if = sys.argv[3], sys.argv[4]
from checks import check, done

check(j["rdma_ports"] == [], "no RDMA ports")
groups = {g["group"]: g for g in j["counter_groups"] if g["kind"] == "ethtool"}
check(rx_if in groups and tx_if in groups, f"ethtool groups for both interfaces ({sorted(groups)})")
g = groups.get(rx_if, {"counters": [], "samples": 0, "period_ns": 0})
check(g["period_ns"] == 5_000_000 and g["samples"] >= 100, f"{g['samples']} samples every {g['period_ns']} ns")
c = {x["counter"]: x for x in g["counters"]}
check(all(n.startswith("rx_queue_") for n in c) and "rx_queue_0_xdp_bytes" in c,
      f"filter 'rx_queue_*' kept {sorted(c)}")
cons = [x for x in j["conservation"] if x["interface"] == rx_if and x["dir"] == "rx"]
rxb = cons[0]["counter_bytes"] if cons else -1
rxp = cons[0]["counter_pkts"] if cons else -1
got_b = c.get("rx_queue_0_xdp_bytes", {}).get("total", -1)
got_p = c.get("rx_queue_0_xdp_packets", {}).get("total", -1)
check(got_b > 20_000_000 and abs(got_b - rxb) <= max(2000, rxb // 1000),
      f"rx_queue_0_xdp_bytes grew {got_b}, the interface received {rxb}")
check(got_p > 10000 and abs(got_p - rxp) <= 20, f"rx_queue_0_xdp_packets grew {got_p}, the interface {rxp}")
peak = c.get("rx_queue_0_xdp_bytes", {}).get("peak_rel_ns")
start = j["capture"]["start_mono_ns"]
# the interval of the peak rate must overlap the transfer; an interval, not a
# fixed slack around it: a sampler read that runs late on a loaded machine
# ends the interval late, honestly
iv = [(p["start_rel_ns"], p["start_rel_ns"] + p["interval_ns"]) for p in map(json.loads, open(sys.argv[5]))
      if p["group"] == rx_if and p["counter"] == "rx_queue_0_xdp_bytes"]
pk = next((x for x in iv if x[1] == peak), None)
check(pk is not None and pk[0] < t1 - start + 1_000_000 and pk[1] > t0 - start - 1_000_000,
      f"its peak interval overlaps the transfer ({pk and (pk[0] - (t0 - start)) / 1e6:.1f} .. "
      f"{pk and (pk[1] - (t0 - start)) / 1e6:.1f} ms from its start, which lasted {(t1 - t0) / 1e6:.1f} ms)")
check(sum(x[1] - x[0] for x in iv) > 0 and sum(p["delta"] for p in map(json.loads, open(sys.argv[5]))
      if p["group"] == rx_if and p["counter"] == "rx_queue_0_xdp_bytes") == got_b,
      "export --what counters: its intervals sum to the report's total")
done()
PY

# default filter: only the drop counters of veth; --no-nic-stats: none
start_record "$TMPD/d.ftr" -i "$H2/eth0" -d 1s
stop_record TERM
"$FT" report --json "$TMPD/d.ftr" >"$TMPD/d.json" || bad "report --json (default filter)"
names=$(jget "$TMPD/d.json" "sorted(c['counter'] for g in j['counter_groups'] for c in g['counters'])")
[[ $names == "['rx_queue_0_drops', 'rx_queue_0_xdp_drops']" ]] &&
	ok "default filter keeps veth's drop counters only" || bad "default filter kept $names"
start_record "$TMPD/o.ftr" -i "$H2/eth0" --no-nic-stats -d 1s
stop_record TERM
"$FT" report --json "$TMPD/o.ftr" >"$TMPD/o.json" || bad "report --json (--no-nic-stats)"
check "--no-nic-stats samples nothing" test "$(jget "$TMPD/o.json" "len(j['counter_groups'])")" = 0

# bad options: one line, exit 1, no file
for args in "--counter-period 5" "--counter-period 1h" "--rdma-lifespan 0" "--sampler-budget 200" \
	"--sysfs-root /nonexistent" "--rdma-devices mlx5_9 --sysfs-root $TMPD"; do
	# shellcheck disable=SC2086
	"$FT" record -o "$TMPD/bad.ftr" $args -d 1s >"$TMPD/bad.out" 2>&1
	rc=$?
	if [[ $rc -ne 0 && $(wc -l <"$TMPD/bad.out") -eq 1 && ! -e $TMPD/bad.ftr ]]; then
		ok "record $args: $(cat "$TMPD/bad.out")"
	else
		bad "record $args: exit $rc, $(wc -l <"$TMPD/bad.out") lines, file $([[ -e $TMPD/bad.ftr ]] && echo left)"
	fi
	rm -f "$TMPD/bad.ftr"
done
finish
