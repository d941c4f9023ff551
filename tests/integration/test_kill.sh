#!/usr/bin/env bash
# kill -9 of the recorder at random moments leaves no fabtrace BPF program or
# link behind and a capture readable up to its last complete block; SIGINT and
# SIGTERM yield a complete capture.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd bpftool
need_cmd python3
lab_start 2
H1=$(lab_ns "$LAB" 1) H2=$(lab_ns "$LAB" 2)

# Programs of ours still loaded, as "id name" lines (tp_btf/raw_tp variants).
our_progs() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
names = {"iface_tx_btf","iface_tx_raw","iface_rx_btf","iface_rx_raw","qdisc_enq_btf",
         "qdisc_enq_raw","qdisc_deq_btf","qdisc_deq_raw","drop_btf","drop_raw",
         "retrans_err_btf","retrans_btf","retrans_raw","cong_state_btf","cong_state_raw",
         "tcp_sample_btf","tcp_sample_raw"}
owner = int(sys.argv[1])
for p in json.load(sys.stdin):
    # bpftool truncates names to 15 characters
    if any(n.startswith(p.get("name", "")) and p.get("name") for n in names):
        pids = [x["pid"] for x in p.get("pids", [])]
        if owner in pids or not pids:
            print(p["id"], p.get("name"))
' "$1"
}
our_links() { # links whose program is one of ours
	local ids
	ids=$(our_progs "$1" | awk '{print $1}' | tr '\n' ' ')
	[[ -z $ids ]] && return 0
	bpftool -j link show 2>/dev/null | python3 -c '
import json, sys
ids = set(int(x) for x in sys.argv[1].split())
for l in json.load(sys.stdin):
    if l.get("prog_id") in ids: print(l["id"], l.get("type"))
' "$ids"
}

# Background traffic so the recorder is busy when it dies.
lab_exec "$LAB" 1 ping -q -i 0.002 -s 1200 "$(lab_addr 2)" >/dev/null 2>&1 &
PING=$!
trap 'kill $PING 2>/dev/null; cleanup' EXIT

for round in 1 2 3 4; do
	out=$TMPD/kill$round.ftr
	start_record "$out" -i "$H1/eth0" -i "$H2/eth0"
	pid=$REC_PID
	sleep "$(python3 -c 'import random; print(round(random.uniform(0.2, 2.5), 2))')"
	check "round $round: recorder traces ($(our_progs "$pid" | wc -l) programs)" test -n "$(our_progs "$pid")"
	stop_record KILL
	sleep 0.3
	left=$(our_progs "$pid")
	check "round $round: no program of the killed recorder left" test -z "$left"
	check "round $round: no link left" test -z "$(our_links "$pid")"
	"$FT" info --json "$out" >"$TMPD/info.json" 2>/dev/null
	check "round $round: info reads the killed capture" test "$(jget "$TMPD/info.json" 'j["state"]')" = truncated
	check "round $round: report works on it" quiet "$FT" report "$out"
done

for sig in INT TERM; do
	out=$TMPD/sig$sig.ftr
	start_record "$out" -i "$H1/eth0" -i "$H2/eth0"
	pid=$REC_PID
	sleep 1.5
	stop_record "$sig"
	check "SIG$sig: recorder exits 0 (got $REC_RC)" test "$REC_RC" = 0
	"$FT" info --json "$out" >"$TMPD/info.json"
	check "SIG$sig: capture complete" test "$(jget "$TMPD/info.json" 'j["state"]')" = complete
	check "SIG$sig: stop reason is the signal" test "$(jget "$TMPD/info.json" 'j["stop_reason"]')" = signal
	check "SIG$sig: bins recorded" test "$(jget "$TMPD/info.json" 'j["records"]["by_type"].get("iface_bin", 0)')" -gt 0
	check "SIG$sig: no program left" test -z "$(our_progs "$pid")"
done
finish
