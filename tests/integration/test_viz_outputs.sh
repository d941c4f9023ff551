#!/usr/bin/env bash
# Timelines (fabtrace report --svg/--perfetto/--speedscope/--folded) on
# synthetic captures (tools/synthcap; no lab, no root needed): the goldens
# (tests/fixtures/viz/, tests/viz/goldens.sh), the structure of every format
# (tests/viz/check_outputs.py), determinism, folded totals against the
# report's own numbers, and bad values: one error line, non-zero exit, no file.
source "$(dirname "$0")/lib.sh"
need_cmd python3
SYN=$ROOT/$BUILD/tools/synthcap
CHK=(python3 "$ROOT/tests/viz/check_outputs.py")
[[ -x $SYN ]] || { echo "FAIL: $SYN is not built (run make)"; exit 1; }
cd "$TMPD"

check "the checkers reject broken documents" quiet "${CHK[@]}" selftest
check "goldens match tests/fixtures/viz" env BUILD="$BUILD" bash "$ROOT/tests/viz/goldens.sh" check viz

# 2 hosts x 2 ranks, 4 allreduces: #2 congested on h2's link, #3 with rank 3 late by 30 ms
SYNARGS=(--duration 400ms --hosts 2 --ranks-per-host 2 --congest 2:2 --straggler 3:3 --seed 7)
"$SYN" -q -o a.ftr "${SYNARGS[@]}" || { bad "synthcap"; finish; }
"$SYN" -q -o b.ftr "${SYNARGS[@]}"
check "synthcap writes the same capture twice" cmp -s a.ftr b.ftr
check "info reads the synthetic capture" quiet "$FT" info a.ftr
"$FT" report --json a.ftr >report.json || bad "report --json on the synthetic capture"
check "verdicts: one network (the congested link), one rank (the straggler)" \
	test "$(jget report.json "j['collectives']['verdicts']['network'], j['collectives']['verdicts']['rank']")" = "(1, 1)"
check "the network verdict names h2's link" \
	test "$(jget report.json "[i['evidence']['link'] for i in j['slowest']['items'] if i['verdict']=='network']")" = "['eth0@h2']"

# every format at once, twice: identical bytes
"$FT" report -q --svg t.svg --perfetto t.json --speedscope t.ss.json --folded t.folded a.ftr 2>err.txt ||
	bad "report with four outputs: $(cat err.txt)"
mkdir -p again
"$FT" report -q --svg again/t.svg --perfetto again/t.json --speedscope again/t.ss.json --folded again/t.folded a.ftr
for f in t.svg t.json t.ss.json t.folded; do
	check "$f is deterministic" cmp -s "$f" "again/$f"
	check "$f is written 0600" test "$(stat -c %a "$f")" = 600
done
check "no temporary files left" test -z "$(find . -name '.t.*')"

pf=$("${CHK[@]}" perfetto t.json) || bad "perfetto structure: $pf"
check "perfetto: one complete event per call (16), one flow per collective (4)" \
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); j=json.load(open("t.json"))
n=sum(1 for e in j["traceEvents"] if e["ph"] in "Xb" and e.get("cat")=="collective" and e.get("pid")!=3)
sys.exit(0 if n==16 and d["flows"]==4 else 1)' "$pf"
check "perfetto: the collectives carry their verdicts" \
	python3 -c 'import json,sys; j=json.load(open("t.json"))
names=[e["name"] for e in j["traceEvents"] if e["ph"]=="b" and e.get("cat")=="collective"]
sys.exit(0 if names==["allreduce #1 ok","allreduce #2 network","allreduce #3 rank","allreduce #4 ok"] else 1)'
check "perfetto: counters for the interfaces, queue and RDMA counters" \
	python3 -c 'import json,sys; j=json.load(open("t.json"))
c={e["name"] for e in j["traceEvents"] if e["ph"]=="C"}
sys.exit(0 if {"eth0@h1 tx","eth0@h2 rx","eth0@h2 tbf 1: backlog","mlx5_1/1 np_cnp_sent"} <= c else 1)'
check "perfetto: retransmits, drops with reason and CE marks as instants, the lost gap as a slice" \
	python3 -c 'import json,sys; j=json.load(open("t.json"))
n={e["name"] for e in j["traceEvents"] if e["ph"] in "ib"}
sys.exit(0 if {"retransmit fast","drop QDISC_DROP","events lost (net, cpu 1)"} <= n and any(x.startswith("CE x") for x in n) else 1)'

ss=$("${CHK[@]}" speedscope t.ss.json) || bad "speedscope structure: $ss"
check "speedscope: one profile per rank" test "$(jget t.ss.json "len(j['profiles'])")" = 4
check "speedscope: sub-phases name their cause" \
	python3 -c 'import json,sys; j=json.load(open("t.ss.json")); n={f["name"] for f in j["shared"]["frames"]}
sys.exit(0 if {"transfer (pause eth0@h2)","wait (rank-late)","transfer (clean)","allreduce 1.05 MB"} <= n else 1)'

# folded: where the time went; totals are the report's own
time_total=$(jget report.json "sum(r['collective_time_ns'] for r in j['ranks'])")
check "folded (time): 4 frames, weights sum to the ranks' collective time" \
	quiet "${CHK[@]}" folded t.folded --frames 4 --total "$time_total"
for r in 0 1 2 3; do
	w=$(jget report.json "[x['wait_ns'] for x in j['ranks'] if x['rank']==$r][0]")
	got=$(awk -v r="rank $r " 'index($0, r) == 1 && $0 ~ /;wait;/ { s += $NF } END { print s + 0 }' t.folded)
	check "folded: rank $r waited $w ns in all" test "$got" = "$w"
done
check "folded: the congested transfer is blamed on h2's queue" grep -q ';transfer;queue eth0@h2 ' t.folded
check "folded: the others waited for the late rank" grep -q '^rank 0 (h1);allreduce 1.05 MB;wait;rank-late ' t.folded
"$FT" report -q --weight bytes --folded tb.folded a.ftr
bytes_total=$(jget report.json "sum(o['bytes'] for r in j['ranks'] for o in r['ops'])")
check "folded (bytes): weights sum to the calls' bytes" quiet "${CHK[@]}" folded tb.folded --frames 4 --total "$bytes_total"
"$FT" report --folded - a.ftr >stdout.folded 2>err.txt
check "folded to stdout (-): the stacks only, no summary" cmp -s stdout.folded t.folded

sv=$("${CHK[@]}" svg t.svg) || bad "svg structure: $sv"
check "svg (default window): 4 rank rows, the slowest collective (rank-bound) with its late band" \
	python3 -c 'import json,sys; d=json.loads(sys.argv[1])
sys.exit(0 if d["ranks"]==4 and d["verdicts"]=={"rank":1} and d["late"]==1 else 1)' "$sv"
"$FT" report -q --from 0 --to 0.4 --svg all.svg a.ftr
sv=$("${CHK[@]}" svg all.svg) || bad "svg structure (whole capture): $sv"
check "svg (whole capture): 4 collectives (network 1, rank 1, ok 2), counter tracks, the lost gap" \
	python3 -c 'import json,sys; d=json.loads(sys.argv[1])
sys.exit(0 if d["collectives"]==4 and d["verdicts"]=={"network":1,"ok":2,"rank":1} and d["counter_tracks"]>0 and d["lost_gaps"]==1 else 1)' "$sv"
"$FT" report -q --from 130ms --to +0.16s --svg w.svg a.ftr
check "svg --from 130ms --to +0.16s: only the congested collective" \
	test "$(python3 "$ROOT/tests/viz/check_outputs.py" svg w.svg | python3 -c 'import json,sys; print(json.load(sys.stdin)["verdicts"])')" = "{'network': 1}"
# report --from/--to: only the window's records (memory follows the window), same verdicts
"$FT" report --json --from 130ms --to 0.16s a.ftr >win.json || bad "report --json --from 130ms --to 0.16s"
check "window report: the window's span, times still relative to the capture start" \
	test "$(jget win.json "j['capture']['window']['from_rel_ns'], j['capture']['window']['to_rel_ns'], j['capture']['window']['duration_ns'], j['capture']['duration_ns'], j['capture']['start_rel_ns'], j['slowest']['items'][0]['start_rel_ns'] // 1000000")" = "(130000000, 160000000, 30000000, 400000000, 0, 130)"
check "window report: only the congested collective, network-bound on h2's link as in the whole report" \
	test "$(jget win.json "[(i['seq'], i['verdict'], i['evidence']['link']) for i in j['slowest']['items']]")" = "[(2, 'network', 'eth0@h2')]"
check "window report: the step begun before the window (at +110 ms) is still paired with its end" \
	test "$(jget win.json "[(s['step'], s['start_rel_ns'] // 1000000, s['open']) for s in j['steps']['items']]")" = "[(1, 110, False)]"
check "window report: counter spikes across the window's edges (samples every 100 ms) are kept" \
	test "$(jget win.json "len(j['counter_spikes']['spikes']) > 0")" = "True"
check "window report: conservation not checked, and the headline says so" \
	test "$(jget win.json "sorted(set(c['status'] for c in j['conservation'])), 'not checked in a window' in j['headline']['lines'][-1]")" = "(['unknown'], True)"
"$FT" report --json --from 0.2 a.ftr >late.json || bad "report --json --from 0.2"
check "window report after the loss: lost events before the window are not counted in it" \
	test "$(jget report.json "j['lost']['total_lost'] > 0"),$(jget win.json "j['lost']['total_lost'] == $(jget report.json "j['lost']['total_lost']")"),$(jget late.json "j['lost']['total_lost']")" = "True,True,0"
# report --windows: one window at a time, the same answer as the whole capture's report
"$FT" report --brief a.ftr >whole.txt
"$FT" report --brief --windows 100ms a.ftr >win.txt || bad "report --brief --windows 100ms"
check "--windows 100ms: the same verdict counts, budget, blame and worst collectives as the whole report" \
	diff <(sed -n '2,/^Data:/p' whole.txt | grep -v '^Data:') <(sed -n '2,/^Data:/p' win.txt | grep -v '^Data:')
# every collective network-bound: the worst three come from the windows' own slowest, never twice
"$SYN" -q -o n.ftr --duration 800ms --hosts 2 --ranks-per-host 2 --congest 2:1-8 --straggler none --seed 5
"$FT" report --brief n.ftr >nwhole.txt
"$FT" report --brief --windows 200ms n.ftr >nwin.txt || bad "report --brief --windows 200ms (all network-bound)"
check "--windows 200ms, all 8 network-bound: the same answer and three worst collectives as the whole report" \
	diff <(sed -n '2,/^Data:/p' nwhole.txt | grep -v '^Data:') <(sed -n '2,/^Data:/p' nwin.txt | grep -v '^Data:')
"$FT" report --json --windows 100ms a.ftr >wins.json || bad "report --json --windows 100ms"
check "--windows --json: 4 windows, each collective counted once, in the window it began in" \
	test "$(jget wins.json "j['schema'], len(j['windows']), [w['collectives'] for w in j['windows']], j['collectives']['verdicts']['network'], j['collectives']['verdicts']['rank'], j['lost_total']")" = "('fabtrace-report-windows/1', 4, [1, 1, 1, 1], 1, 1, $(jget report.json "j['lost']['total_lost']"))"
check "--windows --json: the job's stragglers as the whole report counts them (times last, how late)" \
	test "$(jget wins.json "[(s['times_last'], s['late_ns']) for s in j['stragglers']]")" = "$(jget report.json "[(s['times_last'], s['late_ns']) for s in j['stragglers']]")"
check "--windows 100ms: no collective longer than its margin (50 ms), none said cut" \
	test "$(jget wins.json "j['collectives']['cut']")" = 0
# windows shorter than twice a collective: said on stderr, with the window that holds it
"$FT" report --json --windows 20ms a.ftr >cut.json 2>cut.err || bad "report --json --windows 20ms"
longest=$(jget report.json "max(i['duration_ns'] for i in j['collectives']['items'])")
check "--windows 20ms: the collectives past their 10 ms margin counted, the longest the whole report's ($(jget cut.json "j['collectives']['cut'], j['collectives']['cut_longest_ns']"), $longest)" \
	test "$(jget cut.json "j['collectives']['cut'] >= 1 and j['collectives']['cut_longest_ns'] == $longest")" = True
want=$(python3 -c "import sys; print(-(-2 * $longest // 1000000))")
check "... and said once on stderr, naming --windows ${want}ms ($(cat cut.err))" \
	test "$(wc -l <cut.err)" = 1 -a -n "$(grep -F "margin of 10.0 ms (the longest lasted" cut.err | grep -F "give --windows ${want}ms or more")"
"$FT" report --brief --windows "${want}ms" a.ftr >cutok.txt 2>cutok.err || bad "report --windows ${want}ms"
check "... whose windows hold every collective: no warning, the whole report's answer" \
	test ! -s cutok.err -a -z "$(diff <(sed -n '2,/^Data:/p' whole.txt | grep -v '^Data:') <(sed -n '2,/^Data:/p' cutok.txt | grep -v '^Data:'))"
cp a.ftr big.ftr && truncate -s 600M big.ftr # sparse: past the END record nothing is read
check "a capture over 512 MiB: the whole report says --windows keeps memory to a window" \
	bash -c '"$0" report --brief big.ftr 2>&1 >/dev/null | grep -q -- "--windows 60s or --from/--to keep memory"' "$FT"
rm -f big.ftr
"$FT" report --json --windows 100ms --jobs 1 a.ftr >wins1.json
"$FT" report --json --windows 100ms --jobs 3 a.ftr >wins3.json
check "--windows --jobs 1 and --jobs 3 (three windows read at once, on threads): the same document" \
	cmp -s wins1.json wins3.json
"$FT" report --json --windows 100ms --from 0.2 a.ftr >wins2.json || bad "report --json --windows 100ms --from 0.2"
check "--windows --from 0.2: only the windows from there (the straggler's collective, not the congested one)" \
	test "$(jget wins2.json "[w['from_rel_ns'] for w in j['windows']], j['collectives']['verdicts']['rank'], j['collectives']['verdicts']['network']")" = "([200000000, 300000000], 1, 0)"
check "summary still printed next to a file output (without -q)" \
	bash -c '"$0" report --svg s2.svg a.ftr 2>/dev/null | grep -q "^Slowest collectives"' "$FT"

# bad values: one error line, non-zero exit, no file (and an existing file untouched)
expect_err() { # DESC RC PATTERN CMD...
	local d=$1 want=$2 pat=$3 rc=0
	shift 3
	"$@" >out.txt 2>err.txt || rc=$?
	if ((rc != want)); then
		bad "$d: exit $rc, expected $want ($(head -c 200 err.txt))"
	elif [[ $(wc -l <err.txt) -ne 1 ]] || ! grep -qE -e "$pat" err.txt; then
		bad "$d: stderr not one line matching /$pat/: $(head -c 300 err.txt)"
	else
		ok "$d ($(cat err.txt))"
	fi
}
echo keep >old.svg
expect_err "unwritable path" 1 "cannot create" "$FT" report -q --svg /nonexistent/dir/x.svg a.ftr
expect_err "--from after --to" 2 "not before --to" "$FT" report -q --from 2 --to 1 --svg old.svg a.ftr
expect_err "--from after the capture" 2 "after the end of the capture" "$FT" report -q --from 5s --svg old.svg a.ftr
expect_err "bad --weight" 2 "--weight 'frames'" "$FT" report -q --weight frames --folded old.svg a.ftr
expect_err "bad --from" 2 "--from '1x'" "$FT" report -q --from 1x --svg old.svg a.ftr
expect_err "--from after the capture, no timeline" 2 "after the end of the capture" "$FT" report --from 5s a.ftr
expect_err "--windows with a timeline" 2 "one window with --from/--to" "$FT" report --windows 1s --svg old.svg a.ftr
expect_err "--jobs without --windows" 2 "applies to --windows" "$FT" report --jobs 2 a.ftr
expect_err "bad --windows" 2 "--windows '0'" "$FT" report --windows 0 a.ftr
expect_err "--windows --from after the capture" 2 "after the end of the capture" "$FT" report --windows 1s --from 5 a.ftr
expect_err "--weight without an output" 2 "applies to the timeline outputs" "$FT" report --weight bytes a.ftr
expect_err "two outputs on stdout" 2 "more than one output" "$FT" report --svg - --folded - a.ftr
ln -s old.svg link.svg
expect_err "symlink as output" 1 "symbolic link" "$FT" report -q --svg link.svg a.ftr
expect_err "a directory as output" 1 "not a regular file|directory" "$FT" report -q --svg again a.ftr
expect_err "unreadable capture" 1 "No such file" "$FT" report -q --svg new.svg /nonexistent.ftr
check "failed runs left the existing file alone" grep -qx keep old.svg
check "failed runs left no new file" test ! -e new.svg -a ! -e /nonexistent/dir/x.svg
check "failed runs left no temporary file" test -z "$(find . -name '.*.svg.*')"
# an output that fails after another was prepared: neither is written
expect_err "second output unwritable: none written" 1 "cannot create" \
	"$FT" report -q --svg first.svg --perfetto /nonexistent/p.json a.ftr
check "... the first one was not written either" test ! -e first.svg
finish
