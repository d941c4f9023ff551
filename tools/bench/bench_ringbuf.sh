#!/usr/bin/env bash
# Benchmark 3: the event pipeline.  How many ring-buffer events per second
# does the recorder drain without loss, and what does it lose above that?
#
# One lab host with an iptables rule that drops UDP to port 9 on OUTPUT.
# tools/bench/udpgen sends datagrams at a target rate (one process, two
# above 60k/s, each at half the rate; "max" = two unpaced senders); every
# datagram is one kfree_skb drop, i.e. one fabtrace drop event.  fabtrace
# records that namespace only (--netns, default probes) with the default
# 16 MB ring buffer and with a 64 kB one (which runs dry after ~1000
# events, so the recorder's wake-up latency shows).  Offered = the rule's
# packet counter over the send; recorded = drop records with reason
# NETFILTER_DROP in the capture (fabtrace report --json); lost = the
# capture's lost events.  offered - recorded - lost should be 0.
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_init ringbuf
bench_need iptables

T=$(pick "${BENCH_RB_SECONDS:-3}" 1)
REPS=$(reps 3 1)
if ((BENCH_QUICK)); then
	RATES=(20000 100000 max)
	RINGS=(16M 64k)
else
	RATES=(5000 20000 50000 100000 max)
	RINGS=(16M 64k)
fi
[[ -n ${BENCH_RB_RATES:-} ]] && read -ra RATES <<<"$BENCH_RB_RATES"
[[ -x $BB/udpgen ]] || die "$BB/udpgen is not built; run 'make BUILD=${BUILD#"$ROOT"/} bench-bins'"

bench_meta --busy "seconds=$T" "reps=$REPS" "quick=$BENCH_QUICK"
bench_lab 1
W=$BENCH_TMP
NS=$(lab_ns "$LAB" 1)
# the destination needs a route: any address on the lab subnet will do
ip netns exec "$NS" iptables -w -A OUTPUT -p udp --dport 9 -j DROP || die "iptables rule in $NS failed"
RULE=1
drop_rule() {
	((RULE)) && ip netns exec "$NS" iptables -w -D OUTPUT -p udp --dport 9 -j DROP 2>/dev/null
	RULE=0
}
counter() {
	ip netns exec "$NS" iptables -w -L OUTPUT -v -x -n | awk '$3 == "DROP" && /dpt:9/ {print $1; exit}'
}
say "lab $LAB, ${T}s per step, rates ${RATES[*]}, rings ${RINGS[*]}, $REPS repetitions"

# one_step RING RATE REP
one_step() {
	local ring=$1 rate=$2 rep=$3 n=1 per c0 c1 t0 t1 k0 k1 pids=() p
	rm -f "$W"/cap.ftr "$W"/gen.*
	bench_spawn "$W/rec.out" "$W/rec.err" "$FT" record --netns "$NS" --ringbuf "$ring" -o "$W/cap.ftr"
	RPID=$SPAWNED
	wait_grep "$W/rec.err" 'recording to' "$RPID" 30 || die "fabtrace did not start: $(cat "$W/rec.err")"
	wait_grep "$W/rec.err" 'phases:' "$RPID" 30 || true
	sleep 0.3
	if [[ $rate == max ]]; then
		n=2 per=0
	else
		((rate > 60000)) && n=2
		per=$((rate / n))
	fi
	c0=$(counter)
	k0=$(cpu_ticks "$RPID")
	t0=$(now_s)
	for ((i = 0; i < n; i++)); do
		bench_spawn "$W/gen.$i" "$W/gen.err.$i" ip netns exec "$NS" "$BB/udpgen" --dst "$(lab_addr 2)" \
			--port 9 --rate "$per" --duration "$T" --size 16
		pids+=("$SPAWNED")
	done
	for p in "${pids[@]}"; do bench_wait "$p"; done
	t1=$(now_s)
	c1=$(counter)
	sleep 0.5 # the recorder drains what is left
	k1=$(cpu_ticks "$RPID")
	bench_stop "$RPID" INT
	"$FT" report --json "$W/cap.ftr" >"$W/report.json" 2>/dev/null
	python3 "$PY" rbrow --ring "$ring" --rate "$rate" --rep "$rep" --c0 "$c0" --c1 "$c1" \
		--t0 "$t0" --t1 "$t1" --ticks0 "$k0" --ticks1 "$k1" --clk "$CLK_TCK" \
		--report "$W/report.json" --gen "$W"/gen.[0-9] >>"$BENCH_OUT" || die "no result for $ring/$rate"
	tail -n1 "$BENCH_OUT" | python3 "$PY" brief >&2
	rm -f "$W/cap.ftr" "$W/report.json"
}

for ((r = 1; r <= REPS; r++)); do
	for ring in "${RINGS[@]}"; do
		for rate in "${RATES[@]}"; do
			one_step "$ring" "$rate" "$r"
		done
	done
done
drop_rule
bench_meta "end=1"
