#!/usr/bin/env bash
# Queue sojourn on a qdisc that drops from the head: the skb the probes
# follow from enqueue to dequeue is dropped before it leaves, and its memory
# comes back at once as the next datagram at the same address.  That one
# must not be measured from the dropped skb's enqueue time (it read hundreds
# of milliseconds on a queue that drains in 6 ms; the mean 19-21 ms).  The
# qdisc answers such an enqueue NET_XMIT_CN, which the enqueue tracepoint
# does not report, so the drop probe forgets a followed skb that is dropped.
#
# h1's eth0: tbf at 20 Mbit/s over a pfifo_head_drop of 10 packets, flooded
# with 1400-byte UDP datagrams.  The queue holds at most ~15 kB, 6 ms at
# 20 Mbit/s; the mean sojourn must stay within 1.5 times that (measured:
# 1.6-3.8 ms; with the false matches 18.6-21.4 ms).  A rare outlier remains
# where the kernel skips the drop probe (docs/known-issues.md), so the
# maximum is not checked.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
ECN=$ROOT/$BUILD/tools/ecn_send
[[ -x $ECN ]] || { echo "FAIL: $ECN not built (run make)"; exit 1; }
lab_start 2
H1=$(lab_ns "$LAB" 1) H2=$(lab_ns "$LAB" 2)
tc -n "$H1" qdisc replace dev eth0 root handle 1: tbf rate 20mbit burst 10kb latency 50ms &&
	tc -n "$H1" qdisc add dev eth0 parent 1:1 handle 10: pfifo_head_drop limit 10 ||
	skip "tbf with a pfifo_head_drop child is not available here"

ip netns exec "$H2" "$ECN" --sink --port 5399 --count 100000000 --timeout 20 >/dev/null 2>&1 &
SINK=$!
start_record "$TMPD/soj.ftr" --no-phases -i "$H1/eth0"
ip netns exec "$H1" "$ECN" --to "$(lab_addr 2):5399" --count 40000 --size 1400 --tos 0 --interval-us 50 \
	>/dev/null 2>&1 || bad "ecn_send"
stop_record INT
kill "$SINK" 2>/dev/null
wait "$SINK" 2>/dev/null
check "record exits 0 (got $REC_RC)" test "$REC_RC" = 0
"$FT" report --json "$TMPD/soj.ftr" >"$TMPD/report.json" || bad "report"
q=$(jget "$TMPD/report.json" '[(q["max_backlog_bytes"], q["sojourn_samples"], round(q["sojourn_mean_ns"] or 0), q["sojourn_max_ns"], q["drops_counter_pkts"]) for q in j["queues"] if q["kind"] == "tbf"]')
echo "# tbf (max backlog bytes, sojourn samples, mean ns, max ns, drops): $q"
check "the head-drop queue dropped and was measured ($q)" \
	python3 -c "import sys; q = $q; sys.exit(not (len(q) == 1 and q[0][4] > 1000 and q[0][1] >= 20))"
check "mean sojourn within 1.5x the queue's drain time (max backlog at 20 Mbit/s): $q" \
	python3 -c "import sys; b, n, mean, mx, d = ${q}[0]; sys.exit(not (mean <= 1.5 * b * 8 / 20e6 * 1e9))"
finish
