#!/usr/bin/env bash
# The flight recorder's long tier (issue 33 item 4, docs/flight-recorder.md
# "Retention tiers"): a real MPICH all-reduce job (a late rank 1) recorded
# in 2 s segments kept 3 s, beside a busy loop on one core.  While it runs,
# the closed segments are copied aside; after it, the early segments are
# gone (--keep) and their summaries stay.  Every summary line equals what
# `report` says of the same collective in its segment (op, comm, seq:
# verdict and evidence); no collective is summarized twice; the all-reduces summarized
# inside the workload's own loop (its --times-file, its clock) are its
# iterations, each once; `history --json` counts the same verdicts; a
# corrupt line is skipped and counted, an empty directory, day files without
# a summary and a missing directory are one error line and exit 1; buckets
# under a minute get labels to the second.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
lab_start 2
DIR=$TMPD/ring COPY=$TMPD/copies
mkdir -p "$DIR" "$COPY"
busy_start
# shellcheck disable=SC2046
"$FT" record -q --json --switch-output 2s --keep 3s --snapshot-pre 1s --snapshot-post 1s --control "ftT$$" \
	-o "$DIR" $(lab_iface_args) -- \
	"$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 256k --iters 60 --warmup 0 --delay 1:100000 --json \
	--timeout 100 -- --times-file "$TMPD/t" >"$TMPD/rec.json" 2>"$TMPD/rec.err" &
REC_PID=$!
while kill -0 "$REC_PID" 2>/dev/null; do # the segments, while they exist
	cp -n "$DIR"/seg-*.ftr "$COPY"/ 2>/dev/null
	sleep 0.2
done
rc=0
wait "$REC_PID" || rc=$?
REC_PID=
cp -n "$DIR"/seg-*.ftr "$COPY"/ 2>/dev/null
busy_stop
check "record -- lab.sh mpi exits 0 ($rc: $(tail -n 2 "$TMPD/rec.err"))" test "$rc" = 0
check "some segments were deleted by --keep" python3 -c '
import sys
from checks import json_docs
o = json_docs(open(sys.argv[1]).read())[-1] # the workload printed its JSON first
sys.exit(0 if o["flight"]["segments_deleted"] >= 1 and o["summaries"]["segments"] >= 2 else 1)' "$TMPD/rec.json"
for f in "$COPY"/seg-*.ftr; do
	"$FT" report --json --top 100000 "$f" >"${f%.ftr}.json" 2>/dev/null || bad "report $(basename "$f")"
done
"$FT" history --json --top 0 "$DIR" >"$TMPD/hist.json" 2>"$TMPD/hist.err" || bad "history ($(cat "$TMPD/hist.err"))"
python3 - "$DIR" "$COPY" "$TMPD/t" "$TMPD/hist.json" <<'PY' || bad "the summaries against report and the workload (see above)"
import collections, glob, json, os, sys, time
d, copy, times, hist = sys.argv[1:5]
lines = [json.loads(l) for f in sorted(glob.glob(d + "/summaries/*.jsonl")) for l in open(f)]
ok = True
def check(what, cond):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok &= bool(cond)
segs = sorted({l["seg"] for l in lines})
gone = [s for s in segs if not os.path.exists(os.path.join(d, s))]
check(f"{len(lines)} summary lines from {len(segs)} segments, {len(gone)} of them deleted since", lines and gone)
keys = collections.Counter((l["op"], l["comm"], l["seq"]) for l in lines)
check("no collective summarized twice", all(n == 1 for n in keys.values()))
rep = {}
for s in segs:
    p = os.path.join(copy, s[:-4] + ".json")
    if os.path.exists(p):
        for c in json.load(open(p))["collectives"]["items"]:
            rep[(s, c["op"], c["comm"], c["seq"])] = (c["verdict"], c["why"])
matched = [((l["verdict"], l["why"]), rep.get((l["seg"], l["op"], l["comm"], l["seq"]))) for l in lines]
known = [m for m in matched if m[1] is not None]
check(f"{len(known)} of {len(lines)} lines found in report of their segment's copy", len(known) >= 0.9 * len(lines))
check("every one has report's verdict and evidence (why)", all(a == b for a, b in known))
check("some lines have evidence", any(l["why"] for l in lines))
# the workload's own loop, by its clock: entries of every rank, CLOCK_MONOTONIC
ent = collections.defaultdict(list)
for f in glob.glob(times + ".*"):
    for row in open(f):
        seq, e, x = row.split()[:3]
        ent[int(seq)].append(int(e))
off = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
lo = min(min(v) for v in ent.values()) + off - 2000000
hi = max(min(v) for v in ent.values()) + off + 2000000
inloop = [l for l in lines if l["op"] == "allreduce" and lo <= l["wall_ns"] <= hi]
check(f"allreduces summarized in the workload's loop: {len(inloop)}, its iterations: {len(ent)}", len(inloop) == len(ent))
h = json.load(open(hist))
want = collections.Counter(l["verdict"] for l in lines)
check(f"history's verdict counts {h['verdicts']} equal the lines' {dict(want)}",
      all(h["verdicts"][v] == want.get(v, 0) for v in ("ok", "network", "rank", "unknown")) and h["collectives"] == len(lines))
# as the straggler tests count: >= 90 % (on a loaded machine another rank is now and then
# really the late one, by the workload's own clock)
r1 = sum(1 for l in lines if l["verdict"] == "rank" and l["waiting_rank"] == 1)
check(f"rank verdicts ({want['rank']}) name rank 1 ({r1})", want["rank"] > 0 and r1 * 10 >= want["rank"] * 9)
sys.exit(0 if ok else 1)
PY
# bad input
f=$(ls "$DIR"/summaries/*.jsonl | head -n 1)
printf '{"wall_ns": 12, "op": tru\nnot json at all\n' >>"$f"
"$FT" history --json "$DIR" >"$TMPD/hist2.json" 2>"$TMPD/hist2.err"
check "history skips and counts 2 corrupt lines ($(cat "$TMPD/hist2.err"))" \
	python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["skipped_lines"] == 2 else 1)' "$TMPD/hist2.json"
mkdir "$TMPD/empty"
rc=0
"$FT" history "$TMPD/empty" >/dev/null 2>"$TMPD/e.err" || rc=$?
check "history of an empty directory: exit 1, one line ($(cat "$TMPD/e.err"))" test "$rc" = 1 -a "$(wc -l <"$TMPD/e.err")" = 1
rc=0
"$FT" history --bucket 0 "$DIR" >/dev/null 2>"$TMPD/e.err" || rc=$?
check "history --bucket 0: exit 2, one line" test "$rc" = 2 -a "$(wc -l <"$TMPD/e.err")" = 1
rc=0
"$FT" history --from 2026-02-30 "$DIR" >/dev/null 2>"$TMPD/e.err" || rc=$?
check "history --from 2026-02-30 (no such day): exit 2, one line" test "$rc" = 2 -a "$(wc -l <"$TMPD/e.err")" = 1
mkdir -p "$TMPD/junk/summaries"
echo "not a summary" >"$TMPD/junk/summaries/2026-01-01.jsonl"
rc=0
"$FT" history "$TMPD/junk" >/dev/null 2>"$TMPD/e.err" || rc=$?
check "history of day files without one summary: exit 1, one line ($(cat "$TMPD/e.err"))" \
	test "$rc" = 1 -a "$(wc -l <"$TMPD/e.err")" = 1
rc=0
"$FT" history "$TMPD/nonexistent" >/dev/null 2>"$TMPD/e.err" || rc=$?
check "history of a missing directory: exit 1, one line ($(cat "$TMPD/e.err"))" \
	test "$rc" = 1 -a "$(wc -l <"$TMPD/e.err")" = 1
check "... that says it is missing" grep -q "No such file or directory" "$TMPD/e.err"
# buckets under a minute are labelled to the second: no two rows alike
"$FT" history --bucket 1s --top 0 "$DIR" >"$TMPD/h1s.txt" 2>/dev/null || bad "history --bucket 1s"
check "history --bucket 1s: every bucket's label differs" python3 -c '
import re, sys
rows = [l.split()[0] for l in open(sys.argv[1]) if re.match(r"  \d{4}-\d\d-\d\dT", l)]
sys.exit(0 if len(rows) >= 2 and len(set(rows)) == len(rows) else 1)' "$TMPD/h1s.txt"
finish
