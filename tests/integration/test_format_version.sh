#!/usr/bin/env bash
# Captures for an older fabtrace: `record --format-version 1` and `merge
# --format-version 1` write format version 1 (zlib blocks), which the real
# fabtrace of the last commit before format version 2 (built here from this
# clone's history) reads, record for record, as today's fabtrace does; that
# older fabtrace refuses today's default (version 2) as newer.  The blocks'
# codecs and the version are read by the tests' own reader (reliability.py).
# A bad --format-version is a one-line error, a non-zero exit and no file.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd git
need_cmd python3
REL=$ROOT/tests/integration/reliability.py
SYNTH=$ROOT/$BUILD/tools/synthcap
cd "$TMPD" || exit 1

# the older fabtrace: the parent of the commit that brought format version 2
git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "needs the clone's git history"
v2=$(git -C "$ROOT" log -1 --format=%H -S'#define FT_FORMAT_VERSION 2' -- bpf/fabtrace.h)
[[ -n $v2 ]] || skip "no commit brings format version 2 in this history (shallow clone?)"
mkdir old
git -C "$ROOT" archive "$v2^" | tar -x -C old || bad "git archive $v2^"
# a plain build whatever this run is (make test SANITIZE=1 passes it on in MAKEFLAGS)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u SANITIZE -u CFLAGS \
	make -s -C old -j2 SANITIZE= BUILD=build build/fabtrace >old-build.log 2>&1
check "the fabtrace before format version 2 (${v2:0:8}^) builds ($(tail -n 2 old-build.log))" \
	test -x old/build/fabtrace
OLD=$TMPD/old/build/fabtrace
check "it writes format version 1" grep -q 'define FT_FORMAT_VERSION 1' old/bpf/fabtrace.h

capcheck() { # FILE EXPR: EXPR over the independent reader's summary j
	python3 "$REL" capcheck "$1" >"$1.cc.json"
	jget "$1.cc.json" "$2"
}
records() { # FABTRACE FILE: the record count `info --json` gives
	"$1" info --json "$2" 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["state"], j["records"]["total"], sorted(j["records"]["by_type"].items()))'
}

# record: traffic on lo while recording it, in version 1 and by default
ping_lo() { ping -q -c 40 -i 0.01 127.0.0.1 >/dev/null 2>&1; }
"$FT" record --format-version 1 -i lo -d 2s -o rec1.ftr 2>rec1.err & r1=$!
"$FT" record -i lo -d 2s -o rec2.ftr 2>rec2.err & r2=$!
# the pings once both trace (loading the probes takes seconds on a busy machine)
for ((i = 0; i < 300; i++)); do
	[[ $(grep -l "recording to" rec1.err rec2.err 2>/dev/null | wc -l) == 2 ]] && break
	sleep 0.1
done
ping_lo
wait "$r1"; check "record --format-version 1 exits 0" test $? = 0
wait "$r2"; check "record (default) exits 0" test $? = 0
got=$(capcheck rec1.ftr '(j["version"], j["codecs"], j["end"], j["by_type"].get("1", 0) > 0)')
check "rec1.ftr: version 1, zlib blocks only, complete, bins of lo ($got)" test "$got" = "(1, [0], True, True)"
check "rec2.ftr: version 2, zstd blocks only" \
	test "$(capcheck rec2.ftr '(j["version"], j["codecs"], j["end"])')" = "(2, [1], True)"
new=$(records "$FT" rec1.ftr)
old=$(records "$OLD" rec1.ftr)
check "the older fabtrace reads rec1.ftr record for record as today's ($old)" \
	test -n "$old" -a "$old" = "$new"
check "and the independent reader counts the same records" \
	test "$(jget rec1.ftr.cc.json 'j["records"]')" = "$(cut -d' ' -f2 <<<"$new")"
lo_bins='[(x["name"], x[d]["bins"], x[d]["total_bytes"], x[d]["total_pkts"]) for x in j["interfaces"] if x["traced"] for d in ("tx", "rx")]'
rc=0
"$OLD" report --json rec1.ftr >old-report.json 2>old-report.err || rc=$?
check "the older fabtrace's report of rec1.ftr ($rc: $(head -c 200 old-report.err))" test "$rc" = 0
"$FT" report --json rec1.ftr >new-report.json
got=$(jget new-report.json "$lo_bins")
check "today's report bins lo's pings ($got)" test "$(jget new-report.json 'sum(x["tx"]["total_pkts"] for x in j["interfaces"] if x["traced"])')" -ge 80 2>/dev/null
check "the older fabtrace bins them alike ($(jget old-report.json "$lo_bins"))" \
	test -n "$got" -a "$(jget old-report.json "$lo_bins")" = "$got"
"$OLD" info rec2.ftr >/dev/null 2>old-info.err
check "the older fabtrace refuses version 2 as newer ($(cat old-info.err))" \
	grep -q "version 2 is newer than this fabtrace supports (1)" old-info.err

# merge: the captures of a job, for the older fabtrace; without the option
# the output is version 2 even from version 1 input
for h in 1 2 3; do
	"$SYNTH" -q -o "n$h.ftr" --hosts 3 -d 2s --only-host "$h" || bad "synthcap host $h"
done
"$FT" merge -q --format-version 1 -o m1.ftr n1.ftr n2.ftr n3.ftr
check "merge --format-version 1 exits 0" test $? = 0
"$FT" merge -q -o m2.ftr n1.ftr n2.ftr n3.ftr || bad "merge"
check "m1.ftr: version 1, zlib blocks only, complete" \
	test "$(capcheck m1.ftr '(j["version"], j["codecs"], j["end"])')" = "(1, [0], True)"
check "m2.ftr: version 2" test "$(capcheck m2.ftr 'j["version"]')" = 2
new=$(records "$FT" m1.ftr)
check "the older fabtrace reads m1.ftr record for record as today's ($(records "$OLD" m1.ftr | head -c 60))" \
	test "$(records "$OLD" m1.ftr)" = "$new" -a "$new" = "$(records "$FT" m2.ftr)"
same='sorted((x["rank"], x["times_last"], x["late_ns"]) for x in j["stragglers"]), len(j["ranks"])'
"$OLD" report --json m1.ftr >old-m1.json 2>/dev/null || bad "the older fabtrace's report of m1.ftr"
"$FT" report --json m2.ftr >new-m2.json || bad "report of m2.ftr"
check "the older fabtrace finds the job's stragglers in m1.ftr as today's does in m2.ftr ($(jget new-m2.json "$same"))" \
	test "$(jget old-m1.json "$same")" = "$(jget new-m2.json "$same")"
"$FT" merge -q -o back.ftr m1.ftr || bad "merge of a version 1 capture"
check "merge of version 1 input writes version 2 unless asked" \
	test "$(capcheck back.ftr '(j["version"], j["codecs"])')" = "(2, [1])"

# bad values
for v in 0 3 1.5 x ""; do
	for cmd in "record -d 1s -i lo" "merge n1.ftr"; do
		rc=0
		# shellcheck disable=SC2086
		"$FT" ${cmd%% *} --format-version "$v" -o bad.ftr ${cmd#* } >bad.out 2>bad.err || rc=$?
		check "${cmd%% *} --format-version '$v': one-line error, exit $rc, no file ($(head -c 120 bad.err))" \
			test "$rc" -ne 0 -a "$rc" -lt 128 -a "$(wc -l <bad.err)" = 1 -a ! -e bad.ftr
	done
done
finish
