#!/usr/bin/env bash
# An hour-long synthetic capture (4 hosts, 100 us bins, 36000 allreduces,
# ~9 M records) renders as SVG and Perfetto within bounded sizes, and both
# stay structurally valid: the level of detail works.  Prints what it
# measured (docs/timelines.md quotes it).  No lab, no root needed.
source "$(dirname "$0")/lib.sh"
need_cmd python3
SYN=$ROOT/$BUILD/tools/synthcap
CHK=(python3 "$ROOT/tests/viz/check_outputs.py")
[[ -x $SYN ]] || { echo "FAIL: $SYN is not built (run make)"; exit 1; }
cd "$TMPD"

# limits: generous against the measured sizes, tight against losing the LOD
SVG_MAX=$((3 * 1024 * 1024))          # whole hour as SVG (measured ~1.7 MB)
SVG_FOCUS_MAX=$((256 * 1024))         # default window (measured ~21 kB)
PERFETTO_MAX=$((160 * 1024 * 1024))   # whole hour as Perfetto JSON (measured ~115 MB)

t0=$(date +%s.%N)
"$SYN" -q -o hour.ftr --duration 3600 --hosts 4 --bin-us 100 || { bad "synthcap"; finish; }
t1=$(date +%s.%N)
echo "synthcap: $(stat -c %s hour.ftr) bytes in $(echo "$t1 - $t0" | bc) s"

measure() { # LABEL CMD...: run, print wall time and peak RSS
	local label=$1 t rc=0
	shift
	t=$( { /usr/bin/time -f '%e s, %M kB peak RSS' "$@" >/dev/null 2>time.err; } 2>&1) || rc=$?
	echo "$label: $(tail -n 1 time.err)"
	return $rc
}
measure "report -q --svg (default window) --perfetto --folded" \
	"$FT" report -q --svg focus.svg --perfetto hour.json --folded hour.folded hour.ftr || bad "render the hour"
measure "report -q --from 0 --to 3600 --svg" "$FT" report -q --from 0 --to 3600 --svg all.svg hour.ftr ||
	bad "render the whole hour as SVG"
for f in focus.svg all.svg hour.json hour.folded; do
	echo "size $f: $(stat -c %s "$f") bytes"
done
check "SVG of the default window <= $SVG_FOCUS_MAX bytes" test "$(stat -c %s focus.svg)" -le $SVG_FOCUS_MAX
check "SVG of the whole hour <= $SVG_MAX bytes" test "$(stat -c %s all.svg)" -le $SVG_MAX
check "Perfetto JSON of the whole hour <= $PERFETTO_MAX bytes" test "$(stat -c %s hour.json)" -le $PERFETTO_MAX

sv=$("${CHK[@]}" svg all.svg) || bad "svg structure: $sv"
echo "svg (whole hour): $sv"
check "whole-hour SVG: 4 rank rows, sub-pixel intervals merged" \
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["ranks"]==4 and d["dense"]>0 else 1)' "$sv"
check "default-window SVG: the slowest collective" \
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["collectives"]>=1 else 1)' \
	"$("${CHK[@]}" svg focus.svg)"
pf=$("${CHK[@]}" perfetto hour.json) || bad "perfetto structure: ${pf:0:2000}"
echo "perfetto (whole hour): $pf"
check "whole-hour Perfetto: every collective linked by a flow" \
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["flows"]==36000 else 1)' "$pf"
check "whole-hour Perfetto: counter tracks reduced to <= 20000 values each" \
	python3 -c 'import json,sys,collections; j=json.load(open("hour.json"))
c=collections.Counter((e["pid"],e["name"]) for e in j["traceEvents"] if e["ph"]=="C")
sys.exit(0 if c and max(c.values())<=20001 else 1)'
check "folded stacks of the hour: 4 frames" quiet "${CHK[@]}" folded hour.folded --frames 4
finish
