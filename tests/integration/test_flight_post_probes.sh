#!/usr/bin/env bash
# record --post-probes (issue 33, docs/flight-recorder.md): the always
# profile's flight recorder attaches the probes it leaves out (qdisc sojourn
# and depth, RTT samples, the phase probes' socket owners) for each
# snapshot's post-window only.  Real iperf3
# traffic from host 1 through an htb root on its eth0 (so its packets pass the
# qdisc's enqueue and dequeue) to host 2:
#  - bad input: --post-probes without the flight recorder, naming what the
#    profile attaches already, naming what --no-probes leaves out, naming
#    nothing known: exit 2, one line;
#  - before a trigger the recorder holds no qdisc, RTT or socket-owner link
#    (their programs are loaded, not attached); within two seconds of `fabtrace
#    trigger` it holds them; once the post-window is over they are gone
#    again; a second trigger attaches them again;
#  - the snapshot records the span (FT_REC_PROBE_SPAN): it starts within a
#    second and a half after the trigger and lasts the post-window (by the
#    recorder's own clock: 3 s, give or take a tick); every qdisc bin lies
#    inside it, and it holds qdisc bins, RTT samples and iperf3's socket
#    owner (system-wide phase probes follow every process); the report says
#    the queues were recorded in post-windows only, not "not recorded";
#  - every segment with qdisc bins or RTT samples knows its span, also one
#    that begins inside it (its `on` repeated); a segment between the
#    windows has no qdisc bin and no RTT sample, and one before the first
#    trigger no socket owner (later ones repeat the owner seen);
#  - an interface that went away before the trigger (host 3's, deleted) does
#    not keep them from attaching to the rest;
#  - the coverage check counts their hits in the windows (known, at least
#    their runs: the stop's coverage records in the last segment);
#  - nothing is left attached after the stop.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd bpftool
need_cmd python3
need_cmd iperf3
CTL=ftP$$
lab_start 3 "h1=1gbit:dir=up:qdisc=htb"
H1=$(lab_ns "$LAB" 1) H3=$(lab_ns "$LAB" 3)
SRV='' CLI=''
end_test() {
	lab_kill "$CLI"
	lab_kill "$SRV"
	[[ -n ${REC_PID:-} ]] && kill -INT "$REC_PID" 2>/dev/null && wait "$REC_PID" 2>/dev/null
	cleanup
}
trap end_test EXIT
links_before=$(bpf_link_ids)

# ---- bad input
bad_run() { # GREP DESCRIPTION ARGS...
	local pat=$1 what=$2 rc=0
	shift 2
	"$FT" record "$@" >"$TMPD/bad.out" 2>"$TMPD/bad.err" || rc=$?
	check "$what: exit 2, one line ($rc: $(head -c 200 "$TMPD/bad.err"))" \
		test "$rc" = 2 -a "$(wc -l <"$TMPD/bad.err")" = 1 -a -n "$(grep -E -e "$pat" "$TMPD/bad.err")"
}
bad_run "needs the flight recorder" "--post-probes without --switch-output" \
	--profile always --post-probes qdisc -i "$H1/eth0" -o "$TMPD/x.ftr"
bad_run "the full profile attaches qdisc_enqueue all along" "--post-probes with the full profile" \
	--post-probes qdisc -i "$H1/eth0" --switch-output 1s -o "$TMPD"
bad_run "the always profile attaches drop all along" "--post-probes naming a probe the profile has" \
	--profile always --post-probes drops -i "$H1/eth0" --switch-output 1s -o "$TMPD"
bad_run "attaches the socket owners all along" "--post-probes owners with the full profile" \
	--post-probes owners -i "$H1/eth0" --switch-output 1s -o "$TMPD"
bad_run "owners needs the phase probes" "--post-probes owners with --no-phases" \
	--profile always --post-probes owners --no-phases -i "$H1/eth0" --switch-output 1s -o "$TMPD"
bad_run "both name qdisc_enqueue" "--post-probes and --no-probes naming the same" \
	--profile always --post-probes qdisc --no-probes qdisc -i "$H1/eth0" --switch-output 1s -o "$TMPD"
bad_run "--post-probes 'sojourn'" "--post-probes naming nothing known" \
	--profile always --post-probes sojourn -i "$H1/eth0" --switch-output 1s -o "$TMPD"

# the BPF programs the recorder PID has attached (its link fds), one name per
# line: one read of its fdinfo and one bpftool call (the benchmarks' helper),
# fast enough to poll on a busy machine (a bpftool call per link took over a
# second there)
attached() { python3 "$ROOT/tools/bench/benchlib.py" linked "$1"; }
# the deeper programs among PROGS (one listing, so that the count and the message agree)
deep() { grep -cE '^(qdisc_enq|qdisc_deq|tcp_sample|sock_send|sock_recv)' <<<"$1"; }
# N SECONDS: poll the recorder's listing (into $progs) until it holds N of
# the deeper programs, for at most SECONDS
wait_deep() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		progs=$(attached "$REC_PID")
		[[ $(deep "$progs") == "$1" ]] && return 0
		sleep 0.1
	done
	return 1
}
# DIR N: wait until N snapshots are saved (at most 20 s)
wait_snaps() {
	local i
	for ((i = 0; i < 200; i++)); do
		(($(find "$1" -maxdepth 1 -name 'snap-*.ftr' | wc -l) >= $2)) && return 0
		sleep 0.1
	done
	return 1
}

lab_exec "$LAB" 2 iperf3 -s -p 5201 >/dev/null 2>&1 &
SRV=$!
sleep 0.3
lab_exec "$LAB" 1 iperf3 -c "$(lab_addr 2)" -p 5201 -t 60 -b 200M >"$TMPD/iperf.out" 2>&1 &
CLI=$!
D=$TMPD/ring
mkdir "$D"
"$FT" record --profile always --post-probes qdisc,rtt,owners -i "$H1/eth0" -i "$H3/eth0" --switch-output 1s --keep 60s \
	--snapshot-pre 2s --snapshot-post 3s --control "$CTL" -o "$D" >"$TMPD/rec.out" 2>"$TMPD/rec.err" &
REC_PID=$!
wait_recording "$TMPD/rec.err" "$REC_PID" 30 || { cat "$TMPD/rec.err"; bad "the recorder did not start"; finish; }
sleep 3
# an interface goes away before the first trigger (a pod ended): the deeper
# probes attach to the interfaces that are left
ip -n "$H3" link del eth0 || bad "deleting $H3's eth0"
progs=$(attached "$REC_PID")
check "before a trigger: the bins attached, no qdisc, RTT or socket-owner link ($(echo $progs))" \
	test "$(deep "$progs")" = 0 -a -n "$(grep -x iface_tx_tcx <<<"$progs")"

trig() { # N: the N-th trigger; its answer in $TMPD/trig$N.json
	"$FT" trigger --control "$CTL" --reason "post probes $1" --json >"$TMPD/trig$1.json" 2>"$TMPD/trig$1.err" ||
		bad "trigger $1: $(cat "$TMPD/trig$1.err")"
}
trig 1
wait_deep 5 2
check "within two seconds of the trigger: qdisc enqueue, dequeue, RTT and socket owners attached ($(echo $progs))" \
	test "$(deep "$progs")" = 5
wait_snaps "$D" 1 || bad "snapshot 1 not saved"
wait_deep 0 2
check "after the post-window: detached again ($(echo $progs))" test "$(deep "$progs")" = 0
sleep 2 # a segment or two between the windows
trig 2
wait_deep 5 2
check "a second trigger attaches them again ($(echo $progs))" test "$(deep "$progs")" = 5
wait_snaps "$D" 2 || bad "snapshot 2 not saved"
sleep 1.5
stop_record INT
check "the recorder exits 0 ($REC_RC: $(tail -n 2 "$TMPD/rec.err" | head -c 300))" test "$REC_RC" = 0
lab_kill "$CLI"
wait "$CLI" 2>/dev/null
CLI=''
check "nothing left attached after the stop" test "$(bpf_orphan_links $links_before)" = 0
check "no --post-probes failure though an interface went away ($(grep -- '--post-probes' "$TMPD/rec.err" | head -c 200))" \
	test "$(grep -c -- '--post-probes' "$TMPD/rec.err")" = 0
# the coverage check counts the deferred probes' hits in their windows (the
# stop's coverage records close the last segment): known, with every run
LAST=$(find "$D" -maxdepth 1 -name 'seg-*.ftr' | sort | tail -n 1)
"$FT" info --json "$LAST" >"$TMPD/last.info" || bad "info of the last segment"
check "the post-window's probes are in the coverage check, counted (the last segment's)" \
	python3 - "$TMPD/last.info" <<'PY'
import json, sys
cov = {c["probe"]: c for c in json.load(open(sys.argv[1]))["lost"]["coverage"]}
for name in ("qdisc_enqueue", "qdisc_dequeue", "tcp_sample"):
    c = cov[name]
    assert c["known"] and c["runs"] > 100 and c["hits"] >= c["runs"], c
    # a tcx program is never skipped: its hits are its runs
    assert name != "tcp_sample" or c["hits"] == c["runs"], c
PY

S1=$(find "$D" -maxdepth 1 -name 'snap-*.ftr' | sort | head -n 1)
"$FT" report --json "$S1" >"$TMPD/s1.json" || bad "report --json of snapshot 1"
"$FT" report "$S1" >"$TMPD/s1.txt" || bad "report of snapshot 1"
"$FT" export -f jsonl -w qdisc -o "$TMPD/s1.qdisc" "$S1" || bad "export qdisc of snapshot 1"
"$FT" info --json "$S1" >"$TMPD/s1.info" || bad "info of snapshot 1"
if python3 - "$TMPD/s1.json" "$TMPD/s1.qdisc" "$TMPD/s1.info" <<'PY'; then
import json, sys
j = json.load(open(sys.argv[1]))
q = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
info = json.load(open(sys.argv[3]))
sp = j["post_probe_spans"]
assert len(sp) == 1, sp
sp = sp[0]
assert sorted(sp["probes"]) == ["qdisc_dequeue", "qdisc_enqueue", "tcp_sample"] and sp["owners"], sp
assert sp["snapshot"] == 1, sp
trig_s = j["trigger"]["rel_ns"] / 1e9
# attached at the recorder's next tick (once a second), detached at the first
# tick after the post-window (3 s): 2 to 4 s, and a late tick on a busy machine
assert trig_s <= sp["from_s"] <= trig_s + 1.5, (trig_s, sp)
assert 1.9 <= sp["to_s"] - sp["from_s"] <= 4.6, sp
bin_s = j["capture"]["bin_ns"] / 1e9
assert q, "no qdisc bins in the post-window"
first, last = min(r["start_rel_ns"] for r in q) / 1e9, max(r["start_rel_ns"] for r in q) / 1e9
assert sp["from_s"] - bin_s <= first and last <= sp["to_s"] + bin_s, (first, last, sp)
assert sum(r["enq_pkts"] for r in q) > 100, sum(r["enq_pkts"] for r in q)
assert info["records"]["by_type"].get("tcp_sample", 0) > 0, info["records"]["by_type"]
assert info["records"]["by_type"].get("sock_owner", 0) > 0, info["records"]["by_type"]
assert j["queues_recorded"] is True
p = {x["name"]: x for x in j["probes"]}
assert not p["qdisc_enqueue"]["attached"] and "post-windows only" in p["qdisc_enqueue"]["why"], p["qdisc_enqueue"]
print("# trigger at %.3f s; span %.3f-%.3f s; %d qdisc bins from %.4f to %.4f s; %d RTT samples" %
      (trig_s, sp["from_s"], sp["to_s"], len(q), first, last, info["records"]["by_type"]["tcp_sample"]))
PY
	ok "snapshot 1: one span, opened within a tick of the trigger and as long as the post-window; every qdisc bin inside it"
else
	bad "snapshot 1's span"
fi
check "the report says the queues were recorded in post-windows only" \
	grep -q "^  recorded in post-windows only (--post-probes): [0-9.]*-[0-9.]* s; outside them unknown, not 0$" "$TMPD/s1.txt"
check "the report does not call the queues not recorded" test "$(grep -c "qdisc probes" "$TMPD/s1.txt")" = 0

# segments: one that begins inside a span repeats its `on`; those between the windows hold no deep record
if python3 - "$FT" "$D" <<'PY'; then
import glob, json, subprocess, sys
ft, d = sys.argv[1], sys.argv[2]
deep_segs = between = before = 0
spans_seen = False
segs = sorted(glob.glob(d + "/seg-*.ftr"))
for s in segs:
    info = json.loads(subprocess.run([ft, "info", "--json", s], capture_output=True, text=True, check=True).stdout)
    rep = json.loads(subprocess.run([ft, "report", "--json", s], capture_output=True, text=True, check=True).stdout)
    bt = info["records"]["by_type"]
    sp = rep["post_probe_spans"]
    spans_seen |= bool(sp)
    if not spans_seen:
        # no socket owner before the first post-window: the hooks were not attached
        assert not bt.get("sock_owner", 0), (s, bt)
        before += 1
    if bt.get("qdisc_bin", 0) + bt.get("tcp_sample", 0):
        # its deep records lie in a span it knows of, though only the first
        # segment of a post-window holds the `on` the recorder wrote then
        assert sp, (s, bt)
        deep_segs += 1
    elif not sp:
        between += 1
# two post-windows of 3 s in segments of 1 s: at least two segments each
assert deep_segs >= 4, "%d segments hold deep records" % deep_segs
assert between >= 2, "no segment between the windows without deep records"
assert before >= 2, "no segment before the first trigger"
print("# %d segments: %d hold qdisc bins or RTT samples, each knowing its span; %d hold neither and know no span; "
      "%d before the first trigger hold no socket owner" % (len(segs), deep_segs, between, before))
PY
	ok "segments: each holding qdisc bins or RTT samples knows its span (repeated at its start); those outside hold none"
else
	bad "the segments"
fi
finish
