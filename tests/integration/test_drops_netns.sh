#!/usr/bin/env bash
# TCP's own drops in a per-host recording (record --netns).  iperf3 sends
# from host 2 to host 1 while host 2's firewall drops host 1's ACKs for
# 0.6 s: host 2's timers fire and resend what host 1 already holds, and
# host 1's TCP drops those segments as duplicates (TCP_OLD_DATA,
# TCP_OLD_SEQUENCE; the kernel counts them in TcpExtDelayedACKLost).  Such a
# drop has no device and no skb->sk: only the tracepoint's receiving socket
# (kernels since 6.12) places it in host 1's namespace.  Without it a
# per-host capture lacks the duplicates, and a merged report calls the
# resends' stall the network's (docs/verdicts.md, spurious retransmits).
# Host 1's own recorder must hold as many duplicate drops as the
# whole-machine recorder beside it places on host 1 (>= 1, <= the kernel's
# count); host 2's recorder none of them, and of its own TCP's drops (in
# some runs PAWS drops of host 1's segments) as many as the whole-machine
# recorder places on host 2.  A fourth recorder traces host 2's interface
# only (-i, no --netns): of the drops that name no device it may hold host
# 2's alone (it held every namespace's, host 1's duplicates among them).
source "$(dirname "$0")/lib.sh"
need_root
need_cmd iperf3
need_cmd iptables
need_cmd nstat
source "$(dirname "$0")/multihost.sh"
lab_start 2
H1=$(lab_ns "$LAB" 1)
H2=$(lab_ns "$LAB" 2)
mh_launch "$TMPD/h1.ftr" h1 --netns "$H1"
mh_launch "$TMPD/h2.ftr" h2 --netns "$H2"
mh_launch "$TMPD/all.ftr" all
mh_launch "$TMPD/i2.ftr" i2 -i "$H2/eth0"
mh_wait h1 h2 all i2
lost_acks() { lab_exec "$LAB" 1 nstat -asz TcpExtDelayedACKLost | awk '/DelayedACKLost/ {print $2}'; }
d0=$(lost_acks)
lab_exec "$LAB" 1 iperf3 -s -1 -p 5201 >"$TMPD/server.out" 2>&1 &
SRV=$!
sleep 0.5
lab_exec "$LAB" 2 iperf3 -c "$(lab_addr 1)" -p 5201 -t 3 -b 200M >"$TMPD/client.out" 2>&1 &
CLI=$!
sleep 1
# the ACKs of the test's flow only (source port 5201), for 0.6 s: past
# host 2's minimum RTO (200 ms), so that it resends
lab_exec "$LAB" 2 iptables -I INPUT -p tcp --sport 5201 -j DROP
sleep 0.6
lab_exec "$LAB" 2 iptables -D INPUT -p tcp --sport 5201 -j DROP
rc=0
wait "$CLI" || rc=$?
check "iperf3 client exits 0 ($(tail -n 1 "$TMPD/client.out"))" test "$rc" = 0
wait "$SRV" 2>/dev/null
dups=$(($(lost_acks) - d0))
sleep 0.5
mh_stop_all
for h in h1 h2 all i2; do
	"$FT" report --json "$TMPD/$h.ftr" >"$TMPD/$h.json" || bad "report $h"
done
python3 - "$TMPD" "$H1" "$H2" "$dups" <<'PY' || bad "duplicate drops (see above)"
import json, sys
from checks import check, done
d, h1, h2, kernel = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
DUP = {"TCP_OLD_DATA", "TCP_OLD_SEQUENCE", "TCP_RFC7323_PAWS"}

def dups(name):
    """The TCP drops of NAME's capture, a count per interface they are placed on."""
    j = json.load(open(f"{d}/{name}.json"))
    items = [x for x in j["drops"]["items"] if x["reason"] in DUP]
    print(f"     {name}: {[(x['reason'], x['interface'], x['count']) for x in items]}")
    by = {}
    for x in items:
        by[x["interface"]] = by.get(x["interface"], 0) + x["count"]
    return by

check(kernel >= 1, f"host 1's TCP received duplicates while host 2 was deaf to its ACKs "
      f"(TcpExtDelayedACKLost +{kernel})")
at_h1, at_h2 = f"(no device)@{h1}", f"(no device)@{h2}"
r1, r2, machine = dups("h1"), dups("h2"), dups("all")
mine = sum(r1.values())
check(1 <= mine <= kernel, f"host 1's recorder holds its TCP's duplicate drops: {mine} (>= 1, <= the kernel's {kernel})")
check(mine == machine.get(at_h1, 0), f"as many as the whole-machine recorder places on host 1 "
      f"({machine.get(at_h1, 0)}, as {at_h1})")
check(set(r2) <= {at_h2}, f"host 2's recorder none of them ({r2})")
check(r2.get(at_h2, 0) == machine.get(at_h2, 0), f"host 2's recorder its own TCP's drops, as many as the "
      f"whole-machine recorder places on host 2 ({r2.get(at_h2, 0)}; {machine.get(at_h2, 0)})")
ri = dups("i2")
check(set(ri) <= {at_h2} and ri.get(at_h2, 0) == r2.get(at_h2, 0),
      f"-i host 2's eth0: host 2's TCP drops ({ri.get(at_h2, 0)}, as its --netns recorder), none of host 1's ({ri})")
elsewhere = [x for x in json.load(open(f"{d}/i2.json"))["drops"]["items"]
             if x["interface"].startswith("(no device)@") and x["interface"] != at_h2]
check(not elsewhere, f"-i host 2's eth0: no drop without a device from another namespace ({elsewhere[:3]})")
done()
PY
finish
