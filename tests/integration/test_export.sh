#!/usr/bin/env bash
# fabtrace export (issue 17): the raw series round-trip against the capture.
# A synthetic capture (tools/synthcap: bins, a congested tbf with drops and
# retransmits, MPI calls) is exported as CSV and as JSON lines; Python's csv
# and json modules read them, and the sums and counts must equal what
# `report --json` says of the same capture.  Bad input gets one line and a
# non-zero exit, and nothing half-written.
source "$(dirname "$0")/lib.sh"
need_cmd python3
SYN=$ROOT/$BUILD/tools/synthcap
[[ -x $SYN ]] || { echo "FAIL: $SYN is not built"; exit 1; }
cap=$TMPD/s.ftr
"$SYN" -q -o "$cap" --duration 600ms --hosts 3 --ranks-per-host 2 --congest 2:2-4 --seed 11
check "synthcap writes a capture" test -s "$cap"
"$FT" report --json "$cap" >"$TMPD/r.json" || bad "report --json"
"$FT" export --what all -o "$TMPD/csv" "$cap" 2>"$TMPD/e1" || bad "export csv ($(cat "$TMPD/e1"))"
"$FT" export --what all --format jsonl -o "$TMPD/jsonl" "$cap" 2>"$TMPD/e2" || bad "export jsonl ($(cat "$TMPD/e2"))"
"$FT" export "$cap" >"$TMPD/stdout.csv" || bad "export to stdout"
check "the default is the bins table on stdout" cmp -s "$TMPD/stdout.csv" "$TMPD/csv/bins.csv"
check "files are 0600" test "$(stat -c %a "$TMPD/csv/bins.csv")" = 600

python3 - "$TMPD/r.json" "$TMPD/csv" "$TMPD/jsonl" <<'PY' || bad "round trip (see above)"
import csv, json, sys
from collections import defaultdict
from datetime import datetime, timezone
r = json.load(open(sys.argv[1]))
from checks import check, done

def load_csv(name):
    with open(f"{sys.argv[2]}/{name}.csv", newline="") as f:
        return list(csv.DictReader(f))
def load_jsonl(name):
    return [json.loads(l) for l in open(f"{sys.argv[3]}/{name}.jsonl")]

start = r["capture"]["start_wall_ns"]
for name in ("bins", "qdisc", "events"):
    c, j = load_csv(name), load_jsonl(name)
    check(len(c) == len(j) and len(c) > 0, f"{name}: {len(c)} CSV rows, {len(j)} JSON lines")
    same = all(str(a[k]) == ("" if b[k] is None else str(b[k])) for a, b in zip(c, j) for k in a)
    check(same, f"{name}: the CSV and the JSON lines hold the same values")
    pre = "ts" if name == "events" else "start"
    offs = {int(x[f"{pre}_wall_ns"]) - int(x[f"{pre}_rel_ns"]) for x in j}
    check(offs == {start}, f"{name}: wall = relative + the capture's start ({len(offs)} offsets)")
    iso = all(abs(datetime.strptime(x[f"{pre}_wall"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
                  .timestamp() * 1e9 - x[f"{pre}_wall_ns"]) < 2000 for x in j[:2000])
    check(iso, f"{name}: the RFC 3339 column says the same time")

bins = load_jsonl("bins")
tot = defaultdict(lambda: [0, 0])
for b in bins:
    t = tot[(b["interface"], b["dir"])]
    t[0] += b["bytes"]; t[1] += b["pkts"]
    assert b["bin_ns"] == r["capture"]["bin_ns"]
want = {(i["interface"], d): [i[d]["total_bytes"], i[d]["total_pkts"]] for i in r["interfaces"] for d in ("rx", "tx")
        if i[d]["total_pkts"]}
check(dict(tot) == want, f"bins: bytes and packets per interface and direction = the report's ({len(want)} series)")
nbins = sum(i[d]["bins"] for i in r["interfaces"] for d in ("rx", "tx"))
check(len(bins) == nbins, f"bins: {len(bins)} rows = the report's {nbins} merged bins")
q = load_jsonl("qdisc")
for qq in r["queues"]:
    rows = [x for x in q if x["interface"] == qq["interface"]]
    check(len(rows) == qq["bins"] and max(x["max_backlog_bytes"] for x in rows) == qq["max_backlog_bytes"],
          f"qdisc on {qq['interface']}: {len(rows)} bins, max backlog {qq['max_backlog_bytes']} B")
ev = load_jsonl("events")
kinds = defaultdict(int)
for e in ev:
    kinds[e["kind"]] += 1
check(kinds["drop"] == r["drops"]["total"] > 0, f"events: {kinds['drop']} drops = the report's {r['drops']['total']}")
check(kinds["retransmit"] == r["retransmits"]["total"] > 0,
      f"events: {kinds['retransmit']} retransmits = the report's {r['retransmits']['total']}")
calls = sum(rk["calls"] for rk in r["ranks"])
check(kinds["call"] == calls > 0, f"events: {kinds['call']} calls = the ranks' {calls}")
check(all(e["rank"] is not None and e["duration_ns"] >= 0 for e in ev if e["kind"] == "call"), "calls carry rank and duration")
done()
PY

# pandas, where it is installed, reads the CSV as it is
if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
	/usr/bin/python3 -c "import pandas,sys; d=pandas.read_csv(sys.argv[1]); assert d.bytes.sum() > 0" \
		"$TMPD/csv/bins.csv" && ok "pandas reads bins.csv" || bad "pandas reads bins.csv"
fi

# bad input: one line, non-zero, nothing written
rc=0; "$FT" export --what nope "$cap" >"$TMPD/o" 2>"$TMPD/e" || rc=$?
check "unknown --what: exit 2, one line ($(cat "$TMPD/e"))" test "$rc" = 2 -a "$(wc -l <"$TMPD/e")" = 1
rc=0; "$FT" export --what all "$cap" >"$TMPD/o" 2>"$TMPD/e" || rc=$?
check "several tables without -o DIR: exit 2 ($(cat "$TMPD/e"))" test "$rc" = 2
head -c 3000 "$cap" >"$TMPD/cut.ftr"
rc=0; "$FT" export -o "$TMPD/cut.csv" "$TMPD/cut.ftr" 2>"$TMPD/e" || rc=$?
check "a cut capture: exported as far as readable or refused, never a crash (exit $rc)" test "$rc" -le 1
printf 'not a capture' >"$TMPD/junk.ftr"
rc=0; "$FT" export -o "$TMPD/junk.csv" "$TMPD/junk.ftr" 2>"$TMPD/e" || rc=$?
check "not a capture: exit 1, one line, no output file ($(cat "$TMPD/e"))" \
	test "$rc" = 1 -a "$(wc -l <"$TMPD/e")" = 1 -a ! -e "$TMPD/junk.csv"
rc=0; "$FT" export -o /proc/nope/x.csv "$cap" 2>"$TMPD/e" || rc=$?
check "an unwritable output: exit 1 ($(cat "$TMPD/e"))" test "$rc" = 1
finish
