#!/usr/bin/env bash
# fabtrace's NCCL profiler plugin under the stand-in for NCCL
# (tools/nccl_profiler_driver: no GPU here, so no NCCL).  The driver loads the
# plugin that `record` names in NCCL_PROFILER_PLUGIN and calls its table as
# NCCL does (Coll on the application thread, stopped at enqueue; KernelCh,
# ProxyOp and ProxyStep children later on a proxy thread), while 3 ranks in
# lab hosts run a real ring all-reduce over TCP.
#  1. Host 2's link throttled (tbf 100 Mbit/s), ABI v6 (GPU timer), an
#     all-reduce and an all-gather per iteration: every call recorded by the
#     plugin with real durations (not ENQUEUE_ONLY), matched across all 3
#     ranks by (commHash, func, seq) (both functions count seq from 1), the
#     all-reduces network-bound naming host 2's link.
#  2. Unshaped, ABI v3 (proxy progress, no GPU timer), rank 1 150 ms late:
#     rank-bound naming rank 1.
#  3. ABI v5 (what NCCL 2.28 takes), `record -p` attached to the running
#     ranks: the plugin told each rank at NCCL's init, before the recorder
#     was there, and nothing else names the ranks (no RANK in the
#     environment, no libnccl): the ranks come from the calls' own events.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
DRV=$ROOT/$BUILD/tools/nccl_profiler_driver
PLUGIN=$ROOT/$BUILD/libnccl-profiler-fabtrace.so
[[ -x $DRV && -f $PLUGIN ]] || { echo "FAIL: $DRV or $PLUGIN not built"; exit 1; }
LAB_TAG=${LAB_TAG:-ftN}
lab_start 3 "h2=100mbit:limit=30kb"
H2=$(lab_ns "$LAB" 2)
ITERS=8

# run_ranks OUTPREFIX ARGS...: the 3 ranks, rank r in host r+1, under record
run_ranks() {
	local out=$1
	shift
	: >"$TMPD/$out.json"
	# shellcheck disable=SC2046,SC2016
	"$FT" record -q -o "$TMPD/$out.ftr" $(lab_iface_args) -- bash -c '
		drv=$1; lab=$2; shift 2
		for r in 0 1 2; do
			ip netns exec "${lab}h$((r + 1))" "$drv" --rank $r --nranks 3 \
				--addrs 198.18.0.1,198.18.0.2,198.18.0.3 "$@" &
		done
		wait' _ "$DRV" "$LAB" "$@" >"$TMPD/$out.json" 2>"$TMPD/$out.err"
	_rc=$?
	check "record -- 3 driver ranks ($out) exits 0 ($(tail -n1 "$TMPD/$out.err"))" test "$_rc" = 0
	"$FT" report --json "$TMPD/$out.ftr" >"$TMPD/$out.report.json" || bad "report --json ($out)"
	"$FT" report "$TMPD/$out.ftr" >"$TMPD/$out.report.txt" || bad "report ($out)"
}

run_ranks net --abi 6 --bytes 1m --iters $ITERS --channels 2 --compute 20000 --comm-id net \
	--ops allreduce,allgather
python3 - "$TMPD/net.report.json" "$TMPD/net.json" "eth0@$H2" "$ITERS" <<'PY' || bad "network run checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
w = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]
link, iters = sys.argv[3], int(sys.argv[4])
from checks import check, done
check(len(w) == 3 and all(x["abi"] == 6 for x in w), f"3 ranks ran with the plugin's v6 table ({[x.get('abi') for x in w]})")
p = j["phases"]["nccl_plugin"]
check(p["calls"] == 3 * iters * 2 and p["gpu_timed"] == 3 * iters * 2,
      f"{p['calls']} plugin calls, {p['gpu_timed']} GPU-timed (want {3 * iters * 2})")
check(p["proxy_ops"] == 3 * iters * 2 * 2 * 2,
      f"{p['proxy_ops']} proxy ops (3 ranks x {iters} x 2 ops x 2 channels x send+recv)")
check(not j["phases"]["enqueue_only"], "no ENQUEUE_ONLY caveat")
ar = [c for c in j["collectives"]["items"] if c["op"] == "allreduce"]
check(len(ar) == iters, f"{len(ar)} all-reduce instances, want {iters}")
check(all(c["members"] == 3 and c["comm_kind"] == "handle" for c in ar),
      "each matched across the 3 ranks by the comm hash: " + str([(c["seq"], c["members"]) for c in ar]))
check(sorted(c["seq"] for c in ar) == list(range(1, iters + 1)), "seq = NCCL's seqNumber + 1")
# the all-gathers count their own seqNumber: same numbers, other instances
ag = [c for c in j["collectives"]["items"] if c["op"] == "allgather"]
check(len(ag) == iters and all(c["members"] == 3 for c in ag)
      and sorted(c["seq"] for c in ag) == list(range(1, iters + 1)),
      f"{len(ag)} all-gathers, each with the 3 ranks, seq 1..{iters} of their own")
check(all(not c["enqueue_only"] for c in ar), "none enqueue-only")
# 1 MiB ring all-reduce over a 100 Mbit/s hop: >= 4/3 MiB through it, >= 100 ms
check(all(c["duration_ns"] >= 50_000_000 for c in ar),
      "real durations (>= 50 ms through the 100 Mbit/s link): " + str([c["duration_ns"] // 1000000 for c in ar]))
net = [c for c in ar if c["verdict"] == "network"]
check(len(net) >= iters - 1, f"{len(net)} of {len(ar)} network-bound")
slow = [s for s in j["slowest"]["items"] if s["op"] == "allreduce"]
check(len(slow) >= 3 and all(s["verdict"] == "network" and s["evidence"]["link"] == link for s in slow[:3]),
      "slowest name " + link + ": " + str([(s["verdict"], s["evidence"]["link"]) for s in slow[:3]]))
done()
PY
check "text report: the plugin line, no enqueue note" \
	bash -c "grep -q 'NCCL profiler plugin: ' '$TMPD/net.report.txt' && ! grep -q 'mark enqueue, not completion' '$TMPD/net.report.txt'"

lab_unshape "$LAB" all >/dev/null
run_ranks strag --abi 3 --bytes 64k --iters $ITERS --channels 1 --compute 10000 \
	--delay-rank 1 --delay 150000 --comm-id strag --port 29401
python3 - "$TMPD/strag.report.json" "$ITERS" <<'PY' || bad "straggler run checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
iters = int(sys.argv[2])
from checks import check, done
p = j["phases"]["nccl_plugin"]
check(p["calls"] == 3 * iters and p["proxy_timed"] == 3 * iters,
      f"v3: {p['calls']} plugin calls, {p['proxy_timed']} timed by proxy progress")
ar = [c for c in j["collectives"]["items"] if c["op"] == "allreduce"]
check(len(ar) == iters and all(c["members"] == 3 for c in ar), f"{len(ar)} all-reduces, all 3 ranks")
rb = [c for c in ar if c["verdict"] == "rank" and c["straggler_rank"] == 1]
check(len(rb) >= iters - 1, f"{len(rb)} of {len(ar)} rank-bound on rank 1: " +
      str([(c["verdict"], c["straggler_rank"]) for c in ar]))
check(not any(c["verdict"] == "network" for c in ar), "none network-bound")
done()
PY

pids=()
for r in 0 1 2; do
	ip netns exec "$(lab_ns "$LAB" $((r + 1)))" env -u RANK NCCL_PROFILER_PLUGIN="$PLUGIN" "$DRV" \
		--rank $r --nranks 3 --addrs 198.18.0.1,198.18.0.2,198.18.0.3 --abi 5 --bytes 64k \
		--iters 60 --channels 1 --compute 40000 --comm-id late --port 29402 \
		>"$TMPD/late.$r.json" 2>"$TMPD/late.$r.err" &
	pids+=($!)
done
sleep 0.8
"$FT" record -q -o "$TMPD/late.ftr" -d 1s -p "$(IFS=,; echo "${pids[*]}")" 2>"$TMPD/late.rec.err"
_rc=$?
check "record -p on the running ranks exits 0 ($(tail -n1 "$TMPD/late.rec.err"))" test "$_rc" = 0
for p in "${pids[@]}"; do wait "$p" || bad "driver rank (pid $p) failed: $(cat "$TMPD"/late.*.err)"; done
"$FT" report --json "$TMPD/late.ftr" >"$TMPD/late.report.json" || bad "report --json (late)"
python3 - "$TMPD/late.report.json" <<'PY' || bad "attach run checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
from checks import check, done
p = j["phases"]["nccl_plugin"]
check(p["calls"] >= 3 * 10, f"attached: {p['calls']} plugin calls in 1 s (want >= 30)")
ar = [c for c in j["collectives"]["items"] if c["op"] == "allreduce" and c["members"] == 3]
check(len(ar) >= 10, f"{len(ar)} all-reduces with all 3 ranks")
# the per-rank members are listed for the slowest instances
ar = [c for c in j["slowest"]["items"] if c["op"] == "allreduce" and c["members"] == 3]
ranks = [sorted(r["rank"] for r in c["ranks"]) for c in ar]
check(ar and all(r == [0, 1, 2] for r in ranks),
      "each names ranks 0, 1, 2 (told by the calls, not by init): " + str(ranks[:3]))
done()
PY
finish
