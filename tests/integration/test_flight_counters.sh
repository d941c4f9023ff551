#!/usr/bin/env bash
# The flight recorder's counter rules (issue 33, docs/flight-recorder.md
# "Rules"): `--trigger 'link.cnp > 10000/s on H2/ROCE'` against the RDMA
# sysfs fixture (this VM has no RDMA device; tools/rdma_fixture advances a
# tree modelled on mlx5, its RoCE port's netdev a veth in lab host 2).  A
# 400 ms storm of 50000 CNPs/s and 20000 ECN marks/s, 1 s into the driver's
# run, must make exactly one snapshot, its trigger the rule, on the port's
# netdev, between the storm's first write and a sample after its last on the
# driver's own clock; `link.pause > 1/s` (no pause counter grows) must not
# fire.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
FIX=$ROOT/$BUILD/tools/rdma_fixture
[[ -x $FIX ]] || { echo "FAIL: $FIX is not built (run make)"; exit 1; }
lab_start 2
H2=$(lab_ns "$LAB" 2)
ROCE=${LAB}r2
ip -n "$H2" link add "$ROCE" type veth peer name "${LAB}q2" && ip -n "$H2" link set "$ROCE" up ||
	{ echo "FAIL: cannot add $ROCE in $H2"; exit 1; }
SYS=$TMPD/sys
"$FIX" create "$SYS" --netdev "$ROCE" >/dev/null || { echo "FAIL: rdma_fixture create"; exit 1; }

D=$TMPD/ring
mkdir "$D"
RULE="link.cnp > 10000/s on $H2/$ROCE"
"$FT" record --sysfs-root "$SYS" -i "$H2/eth0" --no-phases --switch-output 1s --keep 30s --keep-size 0 \
	--snapshot-pre 3s --snapshot-post 1s --trigger "$RULE" --trigger 'link.pause > 1/s' --control "ftC$$" \
	-o "$D" --json >"$TMPD/rec.json" 2>"$TMPD/rec.err" &
REC_PID=$!
wait_recording "$TMPD/rec.err" "$REC_PID" || bad "the flight recorder did not start: $(tail -n 2 "$TMPD/rec.err")"
sleep 2
"$FIX" run "$SYS" --duration 2 --storm-at 1000 --storm-len 400 --cnp-rate 50000 --ecn-rate 20000 \
	>"$TMPD/fix.json" || bad "rdma_fixture run"
sleep 3 # past the post-window
stop_record INT
check "the recorder exits 0 ($REC_RC: $(tail -n 2 "$TMPD/rec.err"))" test "$REC_RC" = 0
nsnap=$(find "$D" -maxdepth 1 -name 'snap-*.ftr' | wc -l)
check "exactly one snapshot ($nsnap)" test "$nsnap" = 1
check "the recorder's summary: 1 trigger, 1 snapshot: link.pause never fired" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["flight"]
print("  ", {k: f[k] for k in ("triggers", "held_back", "snapshots_saved") if k in f})
sys.exit(0 if f["triggers"] == 1 and f["snapshots_saved"] == 1 else 1)' "$TMPD/rec.json"
S=$(find "$D" -maxdepth 1 -name 'snap-*.ftr' | head -1)
if [[ -n $S ]]; then
	"$FT" info --json "$S" >"$TMPD/info.json" 2>"$TMPD/info.err" || bad "info on the snapshot: $(cat "$TMPD/info.err")"
	check "its trigger is the rule on $ROCE@$H2, over 10000/s, from the storm's first write to a sample after its last ($(jget "$TMPD/info.json" 'j["triggers"]' 2>&1 | head -c 400))" python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); rule, fx, where = sys.argv[2], json.load(open(sys.argv[3])), sys.argv[4]
t = j["triggers"][0]
# on the driver'"'"'s own clock: not before the storm'"'"'s first write, and no later
# than a sample (100 ms apart) after its last, plus a late tick
w0, w1 = fx["storm_first_write_ns"], fx["storm_last_write_ns"]
m = t["mono_ns"]
print("   trigger %+.1f ms from the storm%ss first write, %+.1f ms from its last" % ((m - w0[0]) / 1e6, chr(39), (m - w1[1]) / 1e6))
sys.exit(0 if t["kind"] == "rule" and t["rule"] == rule and t["unit"] == "1/s" and t["value"] > 10000
         and where in json.dumps(t) and w0[0] <= m <= w1[1] + 100e6 + 500e6 else 1)' \
		"$TMPD/info.json" "$RULE" "$TMPD/fix.json" "$ROCE@$H2"
fi
finish
