#!/usr/bin/env bash
# fabtrace compare (issue 34) on the lab recipe of tools/compare_demo.sh, with
# the kernel's own tbf and congestion control modules: 2 hosts, host 2 behind
# a 100 Mbit/s tbf, sending to host 1 in rounds; every run recorded.
#  (a) a shallow (30 KiB) against a deep (2 MiB) tbf limit, 4 runs against 8:
#      the deep side's sojourn is longer and its drops fewer, both significant
#      (the sojourn's p99; its max only by the medians: one run's max is one
#      packet, which a late tbf watchdog on a busy VM can hold 20 ms in a
#      30 KiB queue, and one such run among 4 rightly leaves it unproven);
#      the configuration diff names exactly the tbf limit knob;
#  (b) cubic against bbr: the diff names the hosts' tcp_congestion_control
#      and the sockets' cc (no direction asserted).  A namespace may only
#      choose what the init namespace allows: where the kernel has cubic but
#      tcp_allowed_congestion_control leaves it out, the test allows it for
#      its run and restores the list at exit;
#  (c) A/A: 8 deep runs (the same configuration), split 4 against 4 every
#      way there is (35 splits): at most 5 % of the metrics significant on
#      average.  One split alone is a coin toss when metrics move together
#      (one run whose queue ran deeper separates all of a queue's metrics at
#      once: 8 of 51 in one full run here); over every split, a correct test
#      flags each metric in at most 1 split of 35 (4 against 4 reach p < 0.05
#      only when one side lies wholly beyond the other), and a miscalibrated
#      one in more; --aa on the 4 runs recorded in between;
#  (d) jobs of different shapes (synthetic captures) are refused, or warned
#      about with --force; bad input gets one line and its exit status (a
#      capture given twice, a second --); captures without configuration
#      records leave the diff unknown; tied runs (1 against 6) get the exact
#      test, never a p below what their number allows.
# The JSON is validated against docs/compare.schema.json with the jsonschema
# package where one is installed, the page's SVG with an XML parser.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
LAB_TAG=ftC
ALLOWED=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
if grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control && ! grep -qw cubic <<<"$ALLOWED"; then
	trap 'sysctl -qw net.ipv4.tcp_allowed_congestion_control="$ALLOWED"; cleanup' EXIT
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$ALLOWED cubic" || bad "allowing cubic for the lab"
fi
export CDEMO_HOSTS=2 CDEMO_JOB=send LAB_BIN=$ROOT/$BUILD/tools
# shellcheck source=../../tools/compare_demo.sh
source "$ROOT/tools/compare_demo.sh"
[[ -x $LAB_BIN/incast ]] || skip "needs $LAB_BIN/incast (make)"
lab_start 2 "h2=$CDEMO_RATE:limit=$CDEMO_DEEP"
D=$TMPD

# (a) and (c): rounds of deep, shallow, deep (the A/A's two sides alternate in time)
for i in 1 2 3 4; do
	cdemo_limit "$LAB" "$CDEMO_DEEP" && cdemo_run "$LAB" "$D/deepA-$i.ftr" "$FT" || bad "deep run A$i"
	cdemo_limit "$LAB" "$CDEMO_SHALLOW" && cdemo_run "$LAB" "$D/shallow-$i.ftr" "$FT" || bad "shallow run $i"
	cdemo_limit "$LAB" "$CDEMO_DEEP" && cdemo_run "$LAB" "$D/deepB-$i.ftr" "$FT" || bad "deep run B$i"
done
# (b): one run under bbr, deep limit, against the lab's loss-based default, cubic
BASE_CC=$(lab_exec "$LAB" 1 sysctl -n net.ipv4.tcp_congestion_control)
if grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control; then
	check "the lab's hosts run cubic (got $BASE_CC)" test "$BASE_CC" = cubic
fi
cdemo_cc "$LAB" bbr && cdemo_run "$LAB" "$D/bbr.ftr" "$FT" || bad "bbr run"
cdemo_cc "$LAB" "$BASE_CC" || bad "back to $BASE_CC"
((failures)) && finish

"$FT" compare --json "$D"/shallow-*.ftr -- "$D"/deepA-*.ftr "$D"/deepB-*.ftr >"$D/limit.json" 2>"$D/limit.err" ||
	bad "compare shallow -- deep ($(cat "$D/limit.err"))"
"$FT" compare --json "$D"/shallow-*.ftr -- "$D"/deepA-*.ftr "$D"/deepB-*.ftr >"$D/limit2.json" 2>/dev/null
check "the same captures give the same JSON (fixed seed)" cmp -s "$D/limit.json" "$D/limit2.json"
"$FT" compare "$D"/shallow-*.ftr -- "$D"/deepA-*.ftr "$D"/deepB-*.ftr >"$D/limit.txt" 2>&1 || bad "compare (text)"
# side A's four runs: the union of the sockets they saw (a scan once a second may miss one run's)
"$FT" compare --json "$D"/deepA-*.ftr -- "$D/bbr.ftr" >"$D/cc.json" 2>"$D/cc.err" || bad "compare cubic -- bbr ($(cat "$D/cc.err"))"
"$FT" compare --aa --json "$D"/deepA-*.ftr -- "$D"/deepB-*.ftr >"$D/aa.json" 2>"$D/aa.err" || bad "compare A/A ($(cat "$D/aa.err"))"
"$FT" compare --html "$D/limit.html" "$D"/shallow-*.ftr -- "$D"/deepA-*.ftr >/dev/null 2>"$D/html.err" || bad "compare --html"
"$FT" compare --json "$D"/shallow-*.ftr -- "$D"/deepA-*.ftr >"$D/html.json" 2>/dev/null

BASE_CC=$BASE_CC LAB=$LAB D=$D FT=$FT python3 - <<'PY'
import itertools, json, os, subprocess
from checks import check, done

lab, d, base = os.environ["LAB"], os.environ["D"], os.environ["BASE_CC"]
j = json.load(open(f"{d}/limit.json"))
m = {(x["group"], x["name"]): x for x in j["metrics"]}

def sig(group, name, sign):
    x = m.get((group, name))
    ok = x is not None and x["significant"] and (x["delta"] > 0) == (sign > 0) and x["delta"] != 0
    check(ok, f"{group} {name}: {'higher' if sign > 0 else 'lower'} on the deep side, significant "
               f"({x and {k: x[k] for k in ('a', 'b', 'delta', 'ci_low', 'ci_high', 'p', 'significant')}})")

def higher_median(group, name):
    x = m.get((group, name))
    ok = x is not None and x["delta"] > 0
    check(ok, f"{group} {name}: higher on the deep side by the medians "
               f"({x and {k: x[k] for k in ('a', 'b', 'delta', 'p', 'significant')}})")

q = f"tbf 1: on eth0@{lab}h2"
sig(q, "sojourn_p99", +1)
higher_median(q, "sojourn_max")
sig(f"eth0@{lab}h2", "drops_per_gb", -1)
sig("all links", "drops_per_gb", -1)
check(all(len(x["a"]) == 4 and len(x["b"]) == 8 for k, x in m.items() if k[0] == q),
      "the queue's metrics have one value per run (4 and 8)")
knobs = j["config_diff"]["knobs"]
check(len(knobs) == 1 and knobs[0]["class"] == "qdisc tbf 1:" and knobs[0]["key"] == "limit_bytes"
      and (knobs[0]["a"], knobs[0]["b"]) == ("30720", "2097152") and not knobs[0]["derived"],
      f"the diff names exactly the tbf limit, 30720 -> 2097152 ({knobs})")
objs = {s["object"] for s in j["config_diff"]["settings"]}
check(objs == {f"qdisc tbf 1: on eth0@{lab}h2", f"qdisc tbf 1: on p2@{lab}sw"},
      f"on both ends of host 2's wire, nothing else ({sorted(objs)})")
check(not any("knobs" in w for w in j["warnings"]), f"no several-knobs warning ({j['warnings']})")
txt = open(f"{d}/limit.txt").read()
first = "\n".join(txt.splitlines()[:25])
check("limit_bytes" in first and "Verdict:" in first and "Better in B" in first and "Worse in B" in first,
      "the text's first screen has the knob, the verdict, better and worse")

c = json.load(open(f"{d}/cc.json"))
kn = {(k["class"], k["key"]): k for k in c["config_diff"]["knobs"]}
dflt = kn.get(("sysctl", "net.ipv4.tcp_congestion_control"))
check(dflt is not None and (dflt["a"], dflt["b"]) == (base, "bbr") and f"{lab}h1" in dflt["objects"]
      and f"{lab}h2" in dflt["objects"], f"{base} -> bbr: the hosts' default is named ({dflt})")
flows = kn.get(("sockets", "cc"))
check(flows is not None and base in flows["a"] and "bbr" in flows["b"] and flows["derived"],
      f"the sockets' cc is named, as following the default ({flows})")
check(c["config_diff"]["knobs_counted"] == 1 and not any(k[0].startswith("qdisc") for k in kn),
      f"one knob counted, no qdisc among them ({sorted(kn)})")

a = json.load(open(f"{d}/aa.json"))
check(a["config_diff"]["knobs"] == [], f"A/A: no knob differs ({a['config_diff']['knobs']})")
deep = [f"{d}/deep{s}-{i}.ftr" for s in "AB" for i in range(1, 5)]
sig = tested = 0
for rest in itertools.combinations(deep[1:], 3):
    side_a = [deep[0], *rest]
    out = subprocess.run([os.environ["FT"], "compare", "--json", *side_a, "--", *(x for x in deep if x not in side_a)],
                         capture_output=True, text=True)
    if out.returncode:
        check(False, f"A/A split {side_a}: compare failed ({out.stderr.strip()})")
        break
    ms = [x for x in json.loads(out.stdout)["metrics"] if x["p"] is not None]
    tested += len(ms)
    sig += sum(x["significant"] for x in ms)
check(tested >= 35 * 20 and sig <= 0.05 * tested,
      f"A/A over every 4-against-4 split of the 8 deep runs: {sig} of {tested} metric tests significant "
      f"({100 * sig / max(tested, 1):.1f} %, at most 5 %)")
check(a["summary"]["aa_tested"] is not None and a["summary"]["aa_tested"] >= 20,
      f"--aa: the halves of side A compared ({a['summary']['aa_tested']} metrics)")
check(any(w.startswith("--aa: halves of 2 and 2 runs cannot differ significantly (the least p is 0.33")
          for w in a["warnings"]),
      f"--aa on 4 runs warns that its floor says nothing ({a['warnings']})")
done()
PY
[[ $? == 0 ]] || bad "the comparisons' checks"

# the JSON against its schema, with a real validator where one is installed
PYJS=
for py in python3 /usr/bin/python3; do
	command -v "$py" >/dev/null && "$py" -c 'import jsonschema' 2>/dev/null && { PYJS=$py; break; }
done
if [[ -n $PYJS ]]; then
	for f in limit cc aa; do
		check "$f.json is valid against docs/compare.schema.json" "$PYJS" -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(s)
jsonschema.validate(json.load(open(sys.argv[2])), s, cls=jsonschema.Draft202012Validator)' \
			"$ROOT/docs/compare.schema.json" "$D/$f.json"
	done
else
	echo "note: no jsonschema package; the schema check is left out"
fi

# the page: self-contained, its SVG well-formed XML, its data the --json document
D=$D python3 - <<'PY'
import json, os, re
import xml.etree.ElementTree as ET
from checks import check, done

d = os.environ["D"]
page = open(f"{d}/limit.html").read()
svgs = re.findall(r"<svg .*?</svg>", page, re.S)
bad = []
for s in svgs:
    try:
        ET.fromstring(s)
    except ET.ParseError as e:
        bad.append(str(e))
check(len(svgs) >= 4 and not bad, f"{len(svgs)} SVG charts (CDF and time series per distribution), well-formed ({bad[:2]})")
check("CDF of sojourn" in page and "CDF of" in page, "a CDF of the queue's sojourn")
check(not re.search(r"<script[^>]+src=|<link[^>]+href=|https?://(?!www\.w3\.org)", page), "no external script, style or URL")
m = re.search(r'<script type="application/json" id="compare-data">(.*?)</script>', page, re.S)
check(m is not None and json.loads(m.group(1)) == json.load(open(f"{d}/html.json")),
      "the page's data is the comparison's --json")
done()
PY
[[ $? == 0 ]] || bad "the page's checks"

# (d) job shapes, from synthetic captures: 1 MiB against 2 MiB all-reduces
SC=$ROOT/$BUILD/tools/synthcap
"$SC" -q -o "$D/s1.ftr" --size 1M && "$SC" -q -o "$D/s1b.ftr" --size 1M --seed 2 &&
	"$SC" -q -o "$D/s2.ftr" --size 2M || bad "synthcap"
rc=0
"$FT" compare "$D/s1.ftr" -- "$D/s2.ftr" >"$D/shape.out" 2>"$D/shape.err" || rc=$?
check "different shapes refused: exit 1 ($rc), one line ($(cat "$D/shape.err"))" \
	test "$rc" = 1 -a "$(wc -l <"$D/shape.err")" = 1 -a ! -s "$D/shape.out"
check "the refusal says how they differ" grep -q "differ in shape.*allreduce" "$D/shape.err"
"$FT" compare --force --json "$D/s1.ftr" -- "$D/s2.ftr" >"$D/force.json" 2>/dev/null || bad "--force"
check "--force compares, with the warning" quiet jget "$D/force.json" \
	"any('differ in shape' in w for w in j['warnings']) or exit(1)"
"$FT" compare --json "$D/s1.ftr" -- "$D/s1b.ftr" >"$D/same.json" 2>/dev/null || bad "same shape, other seed"
check "the same shape compares (pause and CNP time of the synthetic counters among the metrics)" quiet jget "$D/same.json" \
	"(j['summary']['shape_differs'] is False and any(x['name'] == 'cnp_time' for x in j['metrics'])) or exit(1)"

# bad input: one line, exit 2 for usage, 1 for a capture that cannot be read
head -c 3000 "$D/deepA-1.ftr" >"$D/cut.ftr"
cp "$D/deepA-1.ftr" "$D/corrupt.ftr"
size=$(stat -c %s "$D/corrupt.ftr")
printf 'garbage-garbage-garbage-garbage' | dd of="$D/corrupt.ftr" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
echo "not a capture" >"$D/text.ftr"
expect() { # STATUS DESCRIPTION ARGS...
	local want=$1 what=$2 rc=0
	shift 2
	"$FT" compare "$@" >"$D/bad.out" 2>"$D/bad.err" || rc=$?
	check "$what: exit $want ($rc), one line: $(head -c 200 "$D/bad.err")" \
		test "$rc" = "$want" -a "$(wc -l <"$D/bad.err")" = 1 -a ! -s "$D/bad.out"
}
expect 2 "no --" "$D/s1.ftr" "$D/s2.ftr"
expect 2 "an empty side B" "$D/s1.ftr" --
expect 2 "an empty side A" -- "$D/s1.ftr"
expect 1 "a text file" "$D/text.ftr" -- "$D/s1.ftr"
expect 1 "a corrupt capture" "$D/s1.ftr" -- "$D/corrupt.ftr"
expect 1 "a missing file" "$D/s1.ftr" -- "$D/nonexistent.ftr"
expect 2 "a bad --alpha" --alpha 2 "$D/s1.ftr" -- "$D/s1b.ftr"
expect 2 "more than one --" "$D/s1.ftr" -- "$D/s1b.ftr" -- "$D/s2.ftr"
expect 2 "a capture given twice on one side" "$D/s1.ftr" "$D/s1.ftr" -- "$D/s1b.ftr"
ln -s "$D/s1.ftr" "$D/s1-link.ftr"
expect 2 "one capture on both sides, once through a link" "$D/s1.ftr" -- "$D/s1-link.ftr"
# synthetic captures carry no configuration: the diff is unknown, not "the same"
check "a side without configuration records: the diff is unknown (config_diff.known false)" quiet jget \
	"$D/same.json" "(j['config_diff']['known'] is False and not j['config_diff']['knobs']) or exit(1)"
"$FT" compare "$D/s1.ftr" -- "$D/s1b.ftr" >"$D/same.txt" 2>/dev/null || bad "same shape, text"
check "... and the text says unknown" grep -q "^  unknown (sides A and B have no configuration records)" "$D/same.txt"
# tied runs: one run without congestion (every pause and CNP time 0) against
# six with it (each the same 100 ms): the exact test's least p for 1 against
# 6 is 1/7, so nothing can be significant; the normal approximation, which
# ties once sent compare to, said p = 0.041 for five metrics
for i in 1 2 3 4 5 6; do "$SC" -q -o "$D/t$i.ftr" --seed "$i" || bad "synthcap t$i"; done
"$SC" -q -o "$D/t0.ftr" --seed 1 --congest none || bad "synthcap t0"
"$FT" compare --json "$D/t0.ftr" -- "$D"/t[1-6].ftr >"$D/tied.json" 2>/dev/null || bad "1 run against 6"
check "1 run against 6, tied: no p below 1/7, nothing significant" quiet jget "$D/tied.json" \
	"(min(m.get('p') for m in j['metrics'] if m.get('p') is not None) > 0.1428 and j['summary']['significant'] == 0) or exit(1)"
"$FT" compare --json "$D/deepA-2.ftr" -- "$D/cut.ftr" >"$D/cut.json" 2>/dev/null || bad "a capture cut short"
check "a capture cut short is compared, with a warning" quiet jget "$D/cut.json" \
	"any('truncated' in w for w in j['warnings']) or exit(1)"
finish
