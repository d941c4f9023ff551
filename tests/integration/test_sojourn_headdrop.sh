#!/usr/bin/env bash
# Queue sojourn on a qdisc that drops from the head: the skb the probes
# follow from enqueue to dequeue is dropped before it leaves, and its memory
# comes back at once as the next datagram at the same address.  That one
# must not be measured from the dropped skb's enqueue time.  The qdisc
# answers such an enqueue NET_XMIT_CN, which the enqueue tracepoint does not
# report, so the drop probe forgets a followed skb that is dropped.
#
# h1's eth0: tbf at 20 Mbit/s over a pfifo_head_drop of 10 packets, flooded
# with 1400-byte UDP datagrams about ten times faster than it drains.  The
# sender runs on one CPU, so a dropped skb's memory is the next datagram's
# (the slab hands back its last free object).
#
# The bound comes from the workload's own clock: in a full queue every
# arrival removes one packet (a head drop, or the dequeue that made room),
# so a packet that leaves waited at most about LIMIT arrivals: LIMIT times
# the sender's mean gap.  The mean must stay within 1.6 times that
# (measured: 0.8-1.1); measuring a follower from a dropped skb's enqueue
# chains such waits (measured: 2.2-2.4 times, and ten times the samples).
# The queue's drain time (max backlog at 20 Mbit/s) bounds the mean as
# well.  A rare outlier remains where the kernel skips the drop probe
# (docs/known-issues.md), so the maximum is not checked.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
ECN=$ROOT/$BUILD/tools/ecn_send
[[ -x $ECN ]] || { echo "FAIL: $ECN not built (run make)"; exit 1; }
LIMIT=10
lab_start 2
H1=$(lab_ns "$LAB" 1) H2=$(lab_ns "$LAB" 2)
tc -n "$H1" qdisc replace dev eth0 root handle 1: tbf rate 20mbit burst 10kb latency 50ms &&
	tc -n "$H1" qdisc add dev eth0 parent 1:1 handle 10: pfifo_head_drop limit $LIMIT ||
	skip "tbf with a pfifo_head_drop child is not available here"

ip netns exec "$H2" "$ECN" --sink --port 5399 --count 100000000 --timeout 20 >/dev/null 2>&1 &
SINK=$!
start_record "$TMPD/soj.ftr" --no-phases -i "$H1/eth0"
COUNT=40000
t0=$(date +%s%N)
ip netns exec "$H1" taskset -c "$(last_cpu)" "$ECN" --to "$(lab_addr 2):5399" --count $COUNT --size 1400 --tos 0 \
	--interval-us 50 >/dev/null 2>&1 || bad "ecn_send"
gap_ns=$((($(date +%s%N) - t0) / COUNT))
stop_record INT
kill "$SINK" 2>/dev/null
wait "$SINK" 2>/dev/null
check "record exits 0 (got $REC_RC)" test "$REC_RC" = 0
"$FT" report --json "$TMPD/soj.ftr" >"$TMPD/report.json" || bad "report"
q=$(jget "$TMPD/report.json" '[(q["max_backlog_bytes"], q["sojourn_samples"], round(q["sojourn_mean_ns"] or 0), q["sojourn_max_ns"], q["drops_counter_pkts"]) for q in j["queues"] if q["kind"] == "tbf"]')
echo "# tbf (max backlog bytes, sojourn samples, mean ns, max ns, drops): $q"
echo "# the sender's mean gap between datagrams: $gap_ns ns"
check "the head-drop queue dropped and was measured ($q)" \
	python3 -c "import sys; q = $q; sys.exit(not (len(q) == 1 and q[0][4] > 1000 and q[0][1] >= 10))"
check "mean sojourn within 1.5x the queue's drain time (max backlog at 20 Mbit/s): $q" \
	python3 -c "import sys; b, n, mean, mx, d = ${q}[0]; sys.exit(not (mean <= 1.5 * b * 8 / 20e6 * 1e9))"
check "mean sojourn within 1.6 times $LIMIT of the sender's gaps ($gap_ns ns): $q" \
	python3 -c "import sys; b, n, mean, mx, d = ${q}[0]; sys.exit(not (mean <= 1.6 * $LIMIT * $gap_ns))"
finish
