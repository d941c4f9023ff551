#!/usr/bin/env bash
# Retransmits that sent nothing are not retransmits.  Since 6.13 the kernel
# runs tcp_retransmit_skb for a failed attempt too (err -EBUSY: the
# original still in the host's queue, which bbr on veth meets when packets
# are reordered between the CPUs' backlogs), and counting those records
# turned 16,172 retransmitted segments into 54,292.  iperf3 -C bbr from h2
# to h1 (two flows, 2 s), up to four times until the kernel has failed an
# attempt: every time, the report's retransmitted segments must equal the
# sender's TcpRetransSegs (nstat) and iperf3's own count, and its unsent
# attempts may be no more than the kernel's counts of retransmits refused
# for a busy host queue or failed (TcpExtTCPSpuriousRtxHostQueues, which
# also counts tail-loss probes held back before the tracepoint, and
# TcpExtTCPRetransFail).
source "$(dirname "$0")/lib.sh"
need_root
need_cmd iperf3
need_cmd nstat
need_cmd python3
lab_start 2
ctr() { lab_exec "$LAB" 2 nstat -asz "$1" | awk -v k="$1" '$1 == k {print $2}'; }
unsent_seen=0
for try in 1 2 3 4; do
	lab_exec "$LAB" 1 iperf3 -s -1 -p 5201 >"$TMPD/server.out" 2>&1 &
	BG=$!
	sleep 0.3
	s0=$(ctr TcpRetransSegs) h0=$(ctr TcpExtTCPSpuriousRtxHostQueues) f0=$(ctr TcpExtTCPRetransFail)
	# shellcheck disable=SC2046
	start_record "$TMPD/r$try.ftr" $(lab_iface_args)
	lab_exec "$LAB" 2 iperf3 -c "$(lab_addr 1)" -p 5201 -t 2 -P 2 -C bbr -J >"$TMPD/ip$try.json" ||
		bad "iperf3: $(head -c 300 "$TMPD/ip$try.json")"
	sleep 0.3
	stop_record INT
	check "recorder exited 0 (run $try)" test "$REC_RC" = 0
	s1=$(ctr TcpRetransSegs) h1=$(ctr TcpExtTCPSpuriousRtxHostQueues) f1=$(ctr TcpExtTCPRetransFail)
	wait "$BG"
	BG=
	"$FT" report --json "$TMPD/r$try.ftr" >"$TMPD/r$try.json" || bad "report --json (run $try)"
	J=$TMPD/r$try.json
	segs=$(jget "$J" "j['retransmits']['segments']")
	unsent=$(jget "$J" "j['retransmits']['unsent_attempts']")
	skip=$(skipped "$J" retransmit)
	ip3=$(jget "$TMPD/ip$try.json" "j['end']['sum_sent']['retransmits']")
	echo "# run $try: report $segs segments, $unsent unsent; nstat $((s1 - s0)), iperf3 $ip3;" \
		"busy host queue $((h1 - h0)), failed $((f1 - f0)); $skip skipped"
	# exact, but for runs the kernel provably skipped (docs/known-issues.md)
	check "run $try: retransmitted segments ($segs) = TcpRetransSegs ($((s1 - s0))), $skip skipped" \
		test "$segs" -le $((s1 - s0)) -a $((s1 - s0 - segs)) -le "$skip"
	check "run $try: = iperf3's retransmits ($ip3)" test "$segs" -le "$ip3" -a $((ip3 - segs)) -le "$skip"
	check "run $try: unsent attempts ($unsent) <= the kernel's refused and failed ($((h1 - h0 + f1 - f0)))" \
		test "$unsent" -le $((h1 - h0 + f1 - f0))
	if ((unsent > 0)); then
		unsent_seen=$unsent
		"$FT" report "$TMPD/r$try.ftr" >"$TMPD/r$try.txt" || bad "text report (run $try)"
		check "run $try: the text report says what it left out" \
			grep -q "not counted: $unsent attempts\? that sent nothing" "$TMPD/r$try.txt"
		break
	fi
done
((unsent_seen > 0)) || echo "# no failed attempt in 4 runs (or a kernel before 6.13): the unsent count was not exercised"
finish
