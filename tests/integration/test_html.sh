#!/usr/bin/env bash
# The HTML timeline (fabtrace report --html) of a real lab capture, opened in
# a real headless Chromium (tests/integration/html_check.py drives it over
# the DevTools protocol): MPI all-reduces, all-gathers, broadcasts and
# non-blocking all-reduces with marker steps, over a link shaped to
# 100 Mbit/s with a 30 kB queue, rank 1 sleeping 30 ms before each
# collective.  The page must load without console errors, draw its canvas,
# show as many ranks and collectives as `report --json`, zoom on a wheel
# event and a drag, open the clicked collective's details with the verdict
# the report gives, and find collectives by rank, op and seq.  It must be
# one self-contained file.  The screenshot is kept in $BUILD/artifacts/ (and
# with FT_KEEP=DIR in DIR).
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
need_cmd chromium
lab_start 3 "h2=100mbit:limit=30kb"
J=$TMPD/report.json
PAGE=$TMPD/timeline.html
SHOT=$TMPD/timeline.png

# shellcheck disable=SC2046
"$FT" record -q -o "$TMPD/h.ftr" $(lab_iface_args) -- \
	"$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 256k --iters 12 --warmup 1 --delay 1:30000 --json --timeout 120 \
	-- --ops allreduce,allgather,bcast,iallreduce --steps >"$TMPD/wl.json" 2>"$TMPD/rec.err"
_rc=$?
check "record -- lab.sh mpi exits 0 ($(tail -n1 "$TMPD/rec.err"))" test "$_rc" = 0
"$FT" report --json --top 0 "$TMPD/h.ftr" >"$J" || bad "report --json"
start=$(date +%s%N)
"$FT" report -q --html "$PAGE" "$TMPD/h.ftr" || bad "report --html"
ms=$((($(date +%s%N) - start) / 1000000))
size=$(stat -c %s "$PAGE" 2>/dev/null || echo 0)
check "report --html wrote $PAGE ($size bytes in $ms ms)" test "$size" -gt 10000
check "a short capture's page stays small (< 2 MB)" test "$size" -lt 2000000

# one self-contained file: no external scripts, styles, images or fetches; valid data
python3 - "$PAGE" <<'PY' || bad "self-contained page with valid data (see above)"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
from checks import check, done
check(not re.search(r'<(script|img|link|iframe)[^>]*\b(src|href)\s*=', s, re.I), "no src/href references")
check(not re.search(r'https?://', s), "no http(s) URL anywhere")
check(not re.search(r'@import|url\(', s), "no CSS imports or url()")
m = re.search(r'<script type="application/json" id="ft-data">(.*?)</script>', s, re.S)
check(m is not None, "data element present")
d = json.loads(m.group(1))
check(d["format"] == "fabtrace-html-1", f"data format {d['format']}")
check(d["meta"]["lod"]["kmin"] == 0, "a short capture keeps every exact bin (lod kmin 0)")
# the details' peak is a share of the line rate, as the text's "(P% of the line rate)"; against
# the 100 Mbit/s shaper it read thousands of per cent
from html_data import load
column = load(sys.argv[1])[1]
util = [(v - 1) / 10000 if v else None for v in column(d["insts"]["util"])]
pairs = [(float(x.group(1)), util[e["i"]]) for e in d["evidence"]["items"]
         for x in [re.search(r"\(([0-9.]+)% of the line rate\)", e["text"])] if x]
check(pairs and all(u is not None and abs(100 * u - p) < 0.2 for p, u in pairs),
      f"the details' peak, % of the line rate, is the text's ({len(pairs)} compared, e.g. {pairs[:2]})")
links = [u for e in d["evidence"]["items"] for l in e["links"] for u in l["util"] if u is not None]
check(links and max(links) < 3, f"the links' peaks are shares of the line rate (max {max(links or [0]):.2f})")
done()
PY

# the numbers and the collective to click, from the JSON report
read -r NRANKS NCOLL OP SEQ VERDICT < <(python3 - "$J" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
items = j["slowest"]["items"]
pick = next((i for i in items if i["verdict"] != "ok"), items[0])
print(len(j["ranks"]), j["collectives"]["instances"], pick["op"], pick["seq"], pick["verdict"])
PY
)
check "the report has ranks and collectives ($NRANKS ranks, $NCOLL collectives; click $OP #$SEQ, $VERDICT)" \
	test "${NRANKS:-0}" -eq 3 -a "${NCOLL:-0}" -ge 10

python3 "$ROOT/tests/integration/html_check.py" --html "$PAGE" --shot "$SHOT" \
	--ranks "$NRANKS" --collectives "$NCOLL" \
	--click-op "$OP" --click-seq "$SEQ" --click-verdict "$VERDICT" \
	--search "rank 1=1" --search "$OP=1" --search "seq $SEQ=1" --max-load-s 10 ||
	bad "the page in headless chromium (see above)"

mkdir -p "$ROOT/$BUILD/artifacts"
if [[ -s $SHOT ]]; then
	cp "$SHOT" "$ROOT/$BUILD/artifacts/html-timeline.png"
	cp "$PAGE" "$ROOT/$BUILD/artifacts/html-timeline.html"
	chmod 0644 "$ROOT/$BUILD/artifacts/html-timeline.html"
	echo "screenshot: $ROOT/$BUILD/artifacts/html-timeline.png"
fi
finish
