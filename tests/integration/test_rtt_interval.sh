#!/usr/bin/env bash
# RTT/cwnd samples keep --rtt-interval per socket: host 1 sends TCP to host 2
# for 2 s (host 2's link tbf 50 Mbit/s, so ACKs come all the time), recorded
# with --rtt-interval 20ms.  The sending socket, which receives the ACKs, is
# sampled at most once per 20 ms (<= 2 s / 20 ms + 1 samples) and not much
# less often (>= 60 of the 100 intervals).
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
lab_start 2 "h2=50mbit:limit=60kb"
SECS=2 IVL_MS=20
J=$TMPD/report.json

lab_exec "$LAB" 2 python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 6100)); s.listen(1); s.settimeout(20)
c, _ = s.accept()
while c.recv(1 << 16):
    pass
' >"$TMPD/sink.out" 2>&1 &
SINK=$!
sleep 0.3
# shellcheck disable=SC2046
start_record "$TMPD/rtt.ftr" --rtt-interval ${IVL_MS}ms $(lab_iface_args)
lab_exec "$LAB" 1 python3 -c '
import socket, sys, time
c = socket.create_connection((sys.argv[1], 6100), timeout=10)
buf = b"x" * 65536
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    c.sendall(buf)
c.close()
' "$(lab_addr 2)" $SECS || bad "sender"
wait "$SINK" || bad "sink: $(cat "$TMPD/sink.out")"
stop_record INT
"$FT" report --json "$TMPD/rtt.ftr" >"$J" || bad "report --json"

python3 - "$J" "$(lab_addr 1)" "$(lab_addr 2)" $SECS $IVL_MS <<'PY' || bad "sample checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
src, dst, secs, ivl = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]) / 1000
from checks import check, done
flows = [t for t in j["tcp_samples"] if t["flow"]["saddr"] == src and t["flow"]["daddr"] == dst
         and t["flow"]["dport"] == 6100]
check(len(flows) == 1, f"one sampled sending flow {src} -> {dst}:6100 ({len(flows)})")
n = flows[0]["samples"] if flows else 0
most = int(secs / ivl) + 1
check(n <= most, f"{n} samples in {secs:g} s: at most one per {ivl * 1000:g} ms ({most})")
check(n >= 0.6 * secs / ivl, f"{n} samples: not much fewer than one per interval (>= {0.6 * secs / ivl:g})")
check(flows and flows[0]["srtt_max_us"] > 0, "the samples carry an RTT")
done()
PY
finish
