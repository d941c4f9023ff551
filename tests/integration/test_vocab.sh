#!/usr/bin/env bash
# One word for each thing (issue 32), on real output: every collective of
# the demo's capture has the same verdict and the same evidence bits, by the
# same names, in the JSON report, the HTML page (its instance columns read
# through the page's own tables: the verdict names, the evidence bits' table
# and the congestion mask it gets as data) and the Perfetto trace; the text
# report's per-collective lines use the same verdict words.  A copy of a
# table that disagreed (a bit named twice, a congestion bit missing from the
# page's mask, a verdict out of order) fails here.
source "$(dirname "$0")/lib.sh"
need_cmd python3
CAP=$ROOT/tests/fixtures/demo/demo.ftr
"$FT" report --json "$CAP" >"$TMPD/r.json" || bad "report --json exit status"
"$FT" report -q --html "$TMPD/p.html" --perfetto "$TMPD/pf.json" "$CAP" || bad "report --html --perfetto exit status"
"$FT" report "$CAP" >"$TMPD/r.txt" || bad "report exit status"
python3 - "$TMPD" <<'EOF'
import json, re, sys
from checks import check, done
d = sys.argv[1]
rep = json.load(open(f"{d}/r.json"))
items = sorted(rep["collectives"]["items"], key=lambda c: c["id"])
check(len(items) >= 10, f"the demo has collectives to compare ({len(items)})")

# the page: its data element, its binary columns, its own tables
from html_data import load
page, column = load(f"{d}/p.html")
why_table = page["why"]
names = [w["name"] for w in why_table]
check(len(set(names)) == len(names) and len({w["bit"] for w in why_table}) == len(why_table),
      f"the page's evidence table names each bit once ({names})")
mask = 0
for w in why_table:
    mask |= w["bit"] if w["congestion"] else 0
check(mask == page["why_congestion"], f"the page's congestion mask is its table's (0x{mask:x}, 0x{page['why_congestion']:x})")
check(len(page["verdicts"]) == len(page["verdict_colors"]) == len(page["verdict_glyphs"]),
      "one colour and one glyph per verdict")
pwhy = column(page["insts"]["why"])
pverdict = column(page["insts"]["verdict"])
decode = lambda bits: [w["name"] for w in why_table if bits & w["bit"]]
check(len(pwhy) == len(items), f"the page has every collective ({len(pwhy)} of {len(items)})")
bad_why = [(c["id"], c["why"], decode(pwhy[c["id"]])) for c in items if c["why"] != decode(pwhy[c["id"]])]
check(not bad_why, f"the page's evidence bits are the report's, by name ({bad_why[:3]})")
bad_v = [(c["id"], c["verdict"], page["verdicts"][pverdict[c["id"]]]) for c in items
         if c["verdict"] != page["verdicts"][pverdict[c["id"]]]]
check(not bad_v, f"the page's verdicts are the report's ({bad_v[:3]})")
used = {n for c in items for n in c["why"]}
check(used <= set(names), f"the report names no bit the page's table lacks ({sorted(used - set(names))})")
check(set(rep["collectives"]["verdicts"]) <= set(page["verdicts"]),
      f"the report's verdict counts use the page's verdict names ({sorted(rep['collectives']['verdicts'])})")

# Perfetto: one async slice per collective, its verdict and evidence in args
pf = json.load(open(f"{d}/pf.json"))
ev = [e["args"] for e in pf["traceEvents"] if e.get("cat") == "collective" and e.get("ph") == "b"]
key = lambda op, seq, span: (op, seq, span)
rk = {key(c["op"], c["seq"], c["duration_ns"]): c for c in items}
pk = {key(a["op"], a["seq"], a["span_ns"]): a for a in ev}
check(len(pk) == len(ev) and set(pk) == set(rk), f"Perfetto has the report's collectives ({len(pk)} of {len(rk)})")
bad_pf = [(k, rk[k]["verdict"], rk[k]["why"], pk[k]["verdict"], pk[k]["why"]) for k in set(pk) & set(rk)
          if (rk[k]["verdict"], rk[k]["why"]) != (pk[k]["verdict"], pk[k]["why"])]
check(not bad_pf, f"Perfetto's verdicts and evidence bits are the report's ({bad_pf[:3]})")

# the text: its verdict counts line uses the same words as the JSON's
txt = open(f"{d}/r.txt").read()
m = re.search(r"verdicts: ([a-z]+ \d+(?:, [a-z]+ \d+)*)", txt)
check(m is not None, "the text report counts the verdicts")
if m:
    words = {w.split()[0]: int(w.split()[1]) for w in m.group(1).split(", ")}
    check(all(rep["collectives"]["verdicts"].get(w, 0) == n for w, n in words.items()),
          f"the text's verdict counts are the JSON's ({words}, {rep['collectives']['verdicts']})")
done()
EOF
[[ $? -eq 0 ]] || bad "vocabulary checks (see above)"
finish
