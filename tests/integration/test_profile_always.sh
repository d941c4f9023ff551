#!/usr/bin/env bash
# record --profile always (the always-on profile, docs/performance.md): an
# incast into a shallow tbf queue (hosts 2 and 3 send to host 1, whose switch
# port is shaped to 50 Mbit/s with a 16 kB limit), recorded on every lab
# interface.  The recorder holds the bins as tcx programs (egress and
# ingress), the drop, retransmit and congestion-state programs, and no qdisc,
# RTT or socket-owner program; the capture says so (header
# profile, probe list); the bins are conserved against every interface's
# counters, but for the shaped port's transmit side, whose bins count what
# was offered to the qdisc: its surplus is what tbf dropped; drops (with
# their reason) and retransmits are recorded; the report says queue sojourn
# was not recorded instead of "none".
source "$(dirname "$0")/lib.sh"
need_root
need_cmd bpftool
need_cmd python3
lab_start 3 "h1=50mbit:limit=16kb:dir=down"
SW=$(lab_sw "$LAB")
J=$TMPD/report.json

# the names of the BPF programs process $1 holds (its fds' prog_id), one per line
prog_names() {
	local fd id
	for fd in /proc/"$1"/fdinfo/*; do
		id=$(awk '/^prog_id:/ {print $2}' "$fd" 2>/dev/null)
		[[ -n $id ]] && bpftool prog show id "$id" 2>/dev/null | sed -n 's/.* name \([^ ]*\) .*/\1/p'
	done | sort -u
}

# shellcheck disable=SC2046
start_record "$TMPD/always.ftr" --profile always --json $(lab_iface_args)
prog_names "$REC_PID" >"$TMPD/progs"
lab_exec "$LAB" 1 "$LAB_BIN/incast" sink --port 5001 --expect-bytes 16m --duration 60 >"$TMPD/sink.out" 2>&1 &
SINK=$!
sleep 0.3
senders=()
for h in 2 3; do
	lab_exec "$LAB" "$h" "$LAB_BIN/incast" send --to "$(lab_addr 1):5001" --bytes 4m --conns 2 \
		>"$TMPD/send$h.out" 2>&1 &
	senders+=($!)
done
wait "$SINK" || bad "incast sink: $(cat "$TMPD/sink.out")"
for s in "${senders[@]}"; do
	wait "$s" || bad "incast sender: $(cat "$TMPD"/send*.out)"
done
sleep 0.3
stop_record INT
check "recorder exited 0 ($(tail -n 1 "$TMPD/record.err"))" test "$REC_RC" = 0
tcd=$(ip netns exec "$SW" tc -s qdisc show dev p1 | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1)
check "the incast overflowed the queue (tc dropped $tcd)" test "${tcd:-0}" -gt 0

progs=$(tr '\n' ' ' <"$TMPD/progs")
echo "# the recorder's programs: $progs"
for p in iface_tx_tcx iface_rx_tcx; do
	check "the recorder holds $p" grep -qx "$p" "$TMPD/progs"
done
check "the recorder holds a drop and a retransmit program" \
	test "$(grep -cE '^(drop|retrans)_' "$TMPD/progs")" -ge 2
check "no qdisc sojourn, RTT or socket-owner program ($progs)" \
	test "$(grep -cE '^(qdisc_|tcp_sample|sock_send|sock_recv)' "$TMPD/progs")" = 0
check "the congestion-state changes: they run per loss, and the verdict needs them" \
	test "$(grep -cE '^cong_state' "$TMPD/progs")" = 1

"$FT" info --json "$TMPD/always.ftr" >"$TMPD/info.json" || bad "info --json"
check "info says the profile: always" test "$(jget "$TMPD/info.json" "j['profile']")" = always
"$FT" info "$TMPD/always.ftr" >"$TMPD/info.txt" || bad "info"
check "info's text says the profile" grep -q '^profile: *always$' "$TMPD/info.txt"
"$FT" report --json "$TMPD/always.ftr" >"$J" || bad "report --json"
"$FT" report "$TMPD/always.ftr" >"$TMPD/report.txt" || bad "report"
python3 - "$J" <<'PY' || bad "the capture's probe list"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["capture"]["profile"] == "always", j["capture"]
p = {x["name"]: x for x in j["probes"]}
assert p["iface_tx"]["attached"] and p["iface_tx"]["hook"] == "tcx/egress", p["iface_tx"]
assert p["iface_rx"]["attached"] and p["iface_rx"]["hook"] == "tcx/ingress", p["iface_rx"]
assert p["drop"]["attached"] and p["retransmit"]["attached"] and p["cong_state"]["attached"], p
for n in ("qdisc_enqueue", "qdisc_dequeue", "tcp_sample"):
    assert not p[n]["attached"] and "always profile" in p[n]["why"], p[n]
assert j["queues_recorded"] is False and j["queues"] == [], (j["queues_recorded"], j["queues"])
PY
ok "the capture names the profile; its probe list has the bins at tcx, cong_state, and no qdisc or RTT probe"
check "report: queue sojourn not recorded (not 'none')" \
	grep -q "^  not recorded: the always profile (--profile always) leaves out the qdisc probes; queue sojourn and depth are unknown, not 0$" "$TMPD/report.txt"
check "report never says no queueing was seen" test "$(grep -c "no queueing seen" "$TMPD/report.txt")" = 0

drops=$(jget "$J" "sum(d['count'] for d in j['drops']['items'] if d['reason']=='QDISC_DROP' and d['interface']=='p1@$SW')")
skip_drop=$(skipped "$J" drop)
check "drops with their reason: QDISC_DROP on p1 ($drops) = tc -s ($tcd), $skip_drop skipped by the kernel" \
	test "$drops" -gt 0 -a "$drops" -le "$tcd" -a $((tcd - drops)) -le "$skip_drop"
segs=$(jget "$J" "j['retransmits']['segments']")
check "retransmits recorded ($segs segments)" test "$segs" -gt 0
python3 - "$J" "p1@$SW" "$tcd" <<'PY' || bad "conservation"
import json, sys
j = json.load(open(sys.argv[1]))
shaped, tcd = sys.argv[2], int(sys.argv[3])
busy = 0
for c in j["conservation"]:
    assert c["status"] != "untraced", c
    busy += c["counter_bytes"] > 1000000
    if c["interface"] == shaped and c["dir"] == "tx":
        # offered to tbf = sent + dropped (+ what it still held at the stop read)
        # (a frame of the bins at the reads each side: edge_bytes / 64 bounds them)
        assert 0 < c["diff_pkts"] <= tcd + 2 + (c.get("edge_bytes") or 0) // 64, (c, tcd)
        print("# %s tx: %d packets offered beyond what left, tbf dropped %d" % (shaped, c["diff_pkts"], tcd))
        continue
    # tcx programs are never skipped: exact but for frames in flight at the reads
    assert c["status"] == "ok", c
assert busy >= 4, "expected busy lab interfaces, got %d" % busy
print("# %d interface directions checked, %d busy" % (len(j["conservation"]), busy))
PY
ok "bins conserved on every lab interface; the shaped port's surplus is what its qdisc dropped"
# what left through the qdisc: its own counters, a `qdisc` counter group per
# traced interface with a root qdisc; at the stop read, the drops tc counts
python3 - "$J" "p1@$SW" "$tcd" <<'PY' || bad "the qdisc's own counters"
import json, sys
j = json.load(open(sys.argv[1]))
shaped, tcd = sys.argv[2], int(sys.argv[3])
g = [x for x in j["counter_groups"] if x["kind"] == "qdisc" and x["interface"] == shaped]
assert len(g) == 1 and g[0]["group"].startswith("tbf ") and g[0]["group"].endswith(" on " + shaped), \
    [(x["group"], x["kind"], x["interface"]) for x in j["counter_groups"]]
c = {x["counter"]: x for x in g[0]["counters"]}
assert sorted(c) == ["qdisc_drops", "qdisc_overlimits", "qdisc_requeues", "qdisc_sent_bytes", "qdisc_sent_packets"], c
assert c["qdisc_drops"]["last_raw"] == tcd and c["qdisc_drops"]["total"] > 0, (c["qdisc_drops"], tcd)
assert c["qdisc_sent_packets"]["total"] > 1000 and c["qdisc_sent_bytes"]["unit"] == "bytes", c
# the always profile's counter period, 100 ms (the full profile's is 10 ms)
assert all(x["period_ns"] == 100000000 for x in j["counter_groups"]), \
    [(x["group"], x["period_ns"]) for x in j["counter_groups"]]
print("# %s: the qdisc sent %d packets and dropped %d (tc -s: %d) while recording" %
      (g[0]["group"], c["qdisc_sent_packets"]["total"], c["qdisc_drops"]["total"], tcd))
PY
ok "the shaped port's qdisc counters: what it sent and dropped, as tc -s counts them"
finish
