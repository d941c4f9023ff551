#!/usr/bin/env bash
# The HTML timeline of a one-hour capture stays small and opens quickly:
# tools/synthcap writes a deterministic hour of 4 hosts at 100 us bins
# (36000 all-reduces in marker steps, ring traffic in bins, a congested link
# every 10th collective, a straggler rank every 10th, counter samples, a
# lost-event gap).  `fabtrace report --html` must write it under 20 MB (the
# level of detail is prepared in C: min/max pyramids, exact bins kept around
# the slowest collectives), and the page must open in headless Chromium
# within 10 s with every rank and collective, zoom, and show the verdict of a
# straggler collective in the middle of the hour when clicked.  A second
# browser run forces the page's own inflater (#inflate=js) on the short
# capture.  No root needed.
source "$(dirname "$0")/lib.sh"
need_cmd python3
need_cmd chromium
SYN=$ROOT/$BUILD/tools/synthcap
[[ -x $SYN ]] || { echo "FAIL: $SYN is not built (run make)"; exit 1; }
LIMIT=20000000

"$SYN" -o "$TMPD/hour.ftr" --duration 3600 --hosts 4 --bin-us 100 >"$TMPD/synth.out" 2>&1 ||
	{ cat "$TMPD/synth.out"; echo "FAIL: synthcap"; exit 1; }
cat "$TMPD/synth.out"
read -r NCOLL NRANKS < <(sed -n 's/.* \([0-9]*\) collectives on \([0-9]*\) ranks.*/\1 \2/p' "$TMPD/synth.out")
check "synthcap: an hour with ${NCOLL:-?} collectives on ${NRANKS:-?} ranks" test "${NCOLL:-0}" -eq 36000 -a "${NRANKS:-0}" -eq 4

start=$(date +%s%N)
"$FT" report -q --html "$TMPD/hour.html" "$TMPD/hour.ftr" || bad "report --html of the hour"
ms=$((($(date +%s%N) - start) / 1000000))
size=$(stat -c %s "$TMPD/hour.html" 2>/dev/null || echo 0)
check "one hour, 4 hosts, 100 us bins: $size bytes (< $LIMIT) in $ms ms" test "$size" -gt 1000000 -a "$size" -lt "$LIMIT"
python3 - "$TMPD/hour.html" <<'PY' || bad "level of detail of the hour (see above)"
import json, re, sys
from checks import check, done
s = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script type="application/json" id="ft-data">(.*?)</script>', s, re.S).group(1))
lod = d["meta"]["lod"]
tp = [t for t in d["tracks"] if t["type"] == "tp"]
check(lod["kmin"] > 0 and len(lod["windows"]) > 0 and len(tp) == 8 and all(t.get("detail") for t in tp),
      f"pyramids from {d['meta']['bin'] << lod['kmin']} ns cells (kmin {lod['kmin']}), "
      f"exact bins in {len(lod['windows'])} detail windows, {len(tp)} throughput tracks, "
      f"{d['bin_raw']} bytes of columns before zlib, {d['insts']['n']} collectives")
done()
PY

# a straggler collective (rank 3 late in seq 5, 15, ...) in the middle of the hour
python3 "$ROOT/tests/integration/html_check.py" --html "$TMPD/hour.html" --shot "$TMPD/hour.png" \
	--ranks "$NRANKS" --collectives "$NCOLL" --click-op allreduce --click-seq 18005 --click-verdict rank \
	--search "rank 3 straggler=3000" --max-load-s 10 ||
	bad "the hour's page in headless chromium (see above)"

# the page's own inflater (browsers without DecompressionStream), on a short capture
"$SYN" -o "$TMPD/short.ftr" --duration 2s --hosts 3 -q || bad "synthcap (short)"
"$FT" report -q --html "$TMPD/short.html" "$TMPD/short.ftr" || bad "report --html (short)"
python3 "$ROOT/tests/integration/html_check.py" --html "$TMPD/short.html" --fragment "inflate=js" \
	--ranks 3 --collectives 20 --click-op allreduce --click-seq 5 --click-verdict rank ||
	bad "the short page with the JS inflater (see above)"

mkdir -p "$ROOT/$BUILD/artifacts"
[[ -s $TMPD/hour.png ]] && cp "$TMPD/hour.png" "$ROOT/$BUILD/artifacts/html-timeline-hour.png" &&
	echo "screenshot: $ROOT/$BUILD/artifacts/html-timeline-hour.png"
finish
