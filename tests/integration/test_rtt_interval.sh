#!/usr/bin/env bash
# RTT/cwnd samples keep --rtt-interval per socket, and come when it is over.
# Host 1 sends TCP to host 2 as fast as the path goes, recorded with
# --rtt-interval 20ms, in three rounds of two phases on one socket:
#  - bulk for 0.5 s (ACKs all the time): the sending socket, which receives
#    the ACKs, is sampled at most once per 20 ms and not much less often;
#  - then 10 pings 40 ms apart, each answered at once: every answer comes
#    more than 20 ms after the last sample, so every one is sampled.
#    tcp_probe lets most segments pass without a clock read, planning how
#    many from the rate it saw (bpf/tcp.bpf.c); a plan made in the bulk
#    phase must not swallow the answers.  (How much of a plan is left when
#    the bulk ends is down to chance; a plan bounded by the segment count
#    alone swallowed most answers of a round in 4 of 5 runs, so three
#    rounds.)
# The gaps between samples are read from the capture's own records (the
# tests' reader, reliability.py), so no sample may come early.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
lab_start 2
BULK_S=0.5 PINGS=10 PING_MS=40 IVL_MS=20 ROUNDS=3

lab_exec "$LAB" 2 python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 6100)); s.listen(1); s.settimeout(20)
c, _ = s.accept()
while True:
    d = c.recv(1 << 16)
    if not d:
        break
    if d.endswith(b"?"):
        c.sendall(b"!")
' >"$TMPD/sink.out" 2>&1 &
SINK=$!
sleep 0.3
# shellcheck disable=SC2046
start_record "$TMPD/rtt.ftr" --rtt-interval ${IVL_MS}ms $(lab_iface_args)
lab_exec "$LAB" 1 python3 -c '
import socket, sys, time
c = socket.create_connection((sys.argv[1], 6100), timeout=10)
buf = b"x" * 65536
for _ in range(int(sys.argv[5])):
    end = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < end:
        c.sendall(buf)
    t0 = time.monotonic_ns()
    for _ in range(int(sys.argv[3])):
        time.sleep(int(sys.argv[4]) / 1000)
        c.sendall(b"ping?")
        if c.recv(1) != b"!":
            sys.exit("no answer")
    print(t0, time.monotonic_ns())
c.close()
' "$(lab_addr 2)" $BULK_S $PINGS $PING_MS $ROUNDS >"$TMPD/sender.out" || bad "sender"
wait "$SINK" || bad "sink: $(cat "$TMPD/sink.out")"
stop_record INT
"$FT" report --json "$TMPD/rtt.ftr" >"$TMPD/report.json" || bad "report --json"

python3 - "$TMPD" "$(lab_addr 1)" "$(lab_addr 2)" $BULK_S $PINGS $IVL_MS <<'PY' || bad "sample checks (see above)"
import ipaddress, json, struct, sys
from checks import check, done
from reliability import walk

d, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
bulk, pings, ivl = float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]) * 1_000_000
slow = [tuple(map(int, l.split())) for l in open(f"{d}/sender.out")]
j = json.load(open(f"{d}/report.json"))
flows = [t for t in j["tcp_samples"] if t["flow"]["saddr"] == src and t["flow"]["daddr"] == dst
         and t["flow"]["dport"] == 6100]
check(len(flows) == 1, f"one sampled sending flow {src} -> {dst}:6100 ({len(flows)})")
check(flows and flows[0]["srtt_max_us"] > 0, "the samples carry an RTT")

# struct ft_tcp_sample: hdr (8), ts_ns (8), ft_flow: saddr[16] daddr[16] sport dport ...
res, recs = walk(f"{d}/rtt.ftr")
ts = sorted(struct.unpack_from("<Q", r, 8)[0] for t, r in recs if t == 6
            and r[16:20] == ipaddress.ip_address(src).packed and r[32:36] == ipaddress.ip_address(dst).packed
            and struct.unpack_from("<H", r, 50)[0] == 6100)
gaps = [b - a for a, b in zip(ts, ts[1:])]
check(res["end"] and len(ts) == (flows[0]["samples"] if flows else -1),
      f"the capture's own records hold the report's {len(ts)} samples of the flow")
check(gaps and min(gaps) >= ivl, f"no two samples closer than {ivl / 1e6:g} ms (closest {min(gaps or [0]) / 1e6:.3f} ms)")
starts = [0] + [b for _, b in slow]
for k, (s0, s1) in enumerate(slow):
    nb = sum(1 for t in ts if starts[k] <= t < s0)
    check(nb >= 0.6 * bulk * 1e9 / ivl, f"round {k + 1}, bulk: {nb} samples in {bulk:g} s, not much fewer than "
          f"one per interval (>= {0.6 * bulk * 1e9 / ivl:g})")
    ns = sum(1 for t in ts if s0 <= t <= s1)
    check(ns >= pings - 1, f"round {k + 1}, pings: {ns} samples for {pings} answers {int((s1 - s0) / pings / 1e6)} ms "
          f"apart (>= {pings - 1}): a plan made in the bulk phase did not hold them back")
done()
PY
finish
