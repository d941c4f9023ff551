#!/usr/bin/env bash
# fabtrace merge on what it may be given: older captures without clock pairs
# (tools/synthcap --only-host), a truncated and a corrupt one (merged as far
# as readable, with a warning), and bad input -- not a capture, no -o, a file
# twice, different bin widths, a symlink or directory as output -- each a
# one-line error, a non-zero exit and no file (nor temporary) left behind.
# No root, no lab.
source "$(dirname "$0")/lib.sh"
need_cmd python3
SYNTH=$ROOT/$BUILD/tools/synthcap
cd "$TMPD" || exit 1

expect_err() { # DESC PATTERN CMD...
	local d=$1 pat=$2 rc=0
	shift 2
	"$@" >out.txt 2>err.txt || rc=$?
	if ((rc == 0 || rc >= 128)); then
		bad "$d: exit $rc"; return
	fi
	if [[ $(wc -l <err.txt) -ne 1 ]] || ! grep -qE "$pat" err.txt; then
		bad "$d: stderr not one line matching /$pat/: $(head -c 300 err.txt)"; return
	fi
	ok "$d ($(cat err.txt))"
}
no_left() { # DESC: no job.ftr and no temporary next to it
	if compgen -G 'job.ftr' >/dev/null || compgen -G '.job.ftr.merge-*' >/dev/null; then
		bad "$1: left a file behind: $(ls -a)"
	else
		ok "$1: nothing left behind"
	fi
}

for h in 1 2 3; do
	"$SYNTH" -q -o "n$h.ftr" --hosts 3 -d 2s --only-host "$h" || bad "synthcap host $h"
done
"$SYNTH" -q -o wide.ftr --hosts 3 -d 2s --only-host 3 --bin-us 200 || bad "synthcap --bin-us 200"

# older captures (no host identity, no clock pairs): merged on the header's anchor
"$FT" merge --json -o job.ftr n1.ftr n2.ftr n3.ftr >merge.json 2>merge.err
check "merge of captures without clock pairs exits 0" test $? = 0
check "it says they have no clock pairs" grep -q "no clock pairs" merge.json
"$FT" info --json job.ftr >info.json || bad "info on the merged capture"
check "info: merged, 3 hosts" test "$(jget info.json '(j["merged"], len(j["hosts"]))')" = "(True, 3)"
"$FT" report --json job.ftr >report.json || bad "report on the merged capture"
check "report: 3 hosts, the ranks of all of them" \
	test "$(jget report.json '(len(j["hosts"]["items"]), len(j["ranks"]))')" = "(3, 3)"
"$SYNTH" -q -o all.ftr --hosts 3 -d 2s || bad "synthcap (all hosts)"
"$FT" report --json all.ftr >all.json || bad "report on the unsplit capture"
same='[(x["rank"], x["times_last"], x["late_ns"]) for x in j["stragglers"]], j["collectives"]["verdicts"]'
check "report: the same stragglers and verdicts as the capture of all hosts at once" \
	test "$(jget report.json "$same")" = "$(jget all.json "$same")"
ctr='len(j["rdma_ports"]), len(j["counter_groups"]), len(j["counter_spikes"]["spikes"])'
check "report: the same RDMA ports, counter groups and spikes ($(jget report.json "$ctr"); synthcap --only-host wrote every host's)" \
	test "$(jget report.json "$ctr")" = "$(jget all.json "$ctr")"
"$FT" export -w counters -o ctr.csv job.ftr || bad "export -w counters of the merged capture"
check "export: every counter row names its interface, one per port ($(python3 -c 'import csv,sys; print(sorted({(r["group"], r["interface"]) for r in csv.DictReader(open(sys.argv[1]))}))' ctr.csv))" \
	python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ports = {(r["group"], r["interface"]) for r in rows if r["group"].startswith("mlx5")}
sys.exit(not (rows and all(r["interface"] for r in rows) and len(ports) == 3 and len({i for _, i in ports}) == 3))' ctr.csv
rm -f job.ftr

# the merged capture's stop reason is its hosts' (it was always "duration")
check "merge: the hosts' stop reason, duration" test "$(jget info.json 'j["stop_reason"]')" = duration
for h in 1 2; do
	"$SYNTH" -q -o "sig$h.ftr" --hosts 3 -d 2s --only-host "$h" --stop-reason 1 || bad "synthcap --stop-reason 1"
done
"$FT" merge -q -o job.ftr sig1.ftr sig2.ftr || bad "merge of two signal-stopped captures"
"$FT" info --json job.ftr >info.json || bad "info on it"
check "merge: both hosts stopped by a signal, so is the merged capture" \
	test "$(jget info.json 'j["stop_reason"]')" = signal
rm -f job.ftr
"$FT" merge -q -o job.ftr sig1.ftr sig2.ftr n3.ftr || bad "merge of signal- and duration-stopped captures"
"$FT" report --json job.ftr >report.json || bad "report on it"
check "merge: hosts stopped for different reasons: stop reason mixed" \
	test "$(jget report.json 'j["capture"]["stop_reason"]')" = mixed
rm -f job.ftr

# a skew within the clocks' uncertainty is no straggler: synthcap's straggler
# is 30 ms late; the clock pairs capshift adds claim 1 us, 40 ms, or nothing
CAPSHIFT=$ROOT/$BUILD/tools/capshift
for sync in "--maxerror 1" "--maxerror 40000" "--unsynced"; do
	for h in 1 2 3; do
		# shellcheck disable=SC2086
		"$CAPSHIFT" $sync -o "s$h.ftr" "n$h.ftr" >/dev/null || bad "capshift $sync"
	done
	"$FT" merge --anchors-only -o sync.ftr s1.ftr s2.ftr s3.ftr 2>sync.err || bad "merge $sync"
	if [[ $sync == --unsynced ]]; then
		# the reference's clock is the timeline; --anchors-only matches no traffic
		check "unsynchronised, --anchors-only: the other two warned of, by their anchors ($(head -c 300 sync.err))" \
			test "$(grep -c 'unsynchronised, and --anchors-only places it by' sync.err)" = 2 \
			-a "$(grep -c 'from the traffic' sync.err)" = 0
	fi
	"$FT" report --json sync.ftr >sync.json || bad "report --json $sync"
	"$FT" report sync.ftr >sync.txt || bad "report $sync"
	got=$(jget sync.json '(j["hosts"]["rank_bound"], j["hosts"]["rank_bound_within_clock_uncertainty"])')
	case $sync in
	*" 1") check "clocks within 2 us: no rank verdict doubted ($got)" test "$got" = "(2, 0)"
		check "  and no warning in the text" test "$(grep -c 'within the clocks' sync.txt)" = 0 ;;
	*40000) check "clocks within 80 ms: both rank verdicts (30 ms) doubted ($got)" test "$got" = "(2, 2)"
		check "  the text warns, naming the bound" grep -q "2 of 2 rank-bound .*up to 80.0 ms" sync.txt ;;
	*) check "unsynchronised clocks: both rank verdicts doubted ($got)" test "$got" = "(2, 2)" ;;
	esac
	rm -f sync.ftr
done

# the realtime anchors place a clock to the nanosecond: the offsets of
# ~1.8e18 ns are taken apart exactly (as doubles they lost ~100 ns)
"$CAPSHIFT" --maxerror 20000 -o a1.ftr n1.ftr >/dev/null || bad "capshift a1"
"$CAPSHIFT" --maxerror 20000 --clock-error 7us -o a3.ftr n3.ftr >/dev/null || bad "capshift a3"
"$FT" merge -q --json --anchors-only -o a.ftr a1.ftr a3.ftr >a.json || bad "merge --anchors-only"
check "a REALTIME 7 us off is placed 7000 ns off, to the nanosecond ($(jget a.json '[h["offset_ns"] for h in j["hosts"]]'))" \
	test "$(jget a.json '[abs(h["offset_ns"]) for h in j["hosts"]]')" = "[0, 7000]"
rm -f a.ftr

# two machines whose pids and namespace inodes collide (every real host's
# initial namespace has the same inode): the second's are moved, its
# namespace named after its host
"$ROOT/$BUILD/tools/capshift" --host other -o twin.ftr n1.ftr >/dev/null || bad "capshift twin"
"$FT" merge --json -o job.ftr n1.ftr twin.ftr >merge.json || bad "merge of colliding captures"
check "the second host's pids are moved (pid base 4194304)" \
	test "$(jget merge.json '[h["pid_base"] for h in j["hosts"]]')" = "[0, 4194304]"
"$FT" report --json job.ftr >report.json || bad "report on the colliding merge"
check "report: two processes on two hosts, not one" \
	test "$(jget report.json 'sorted((r["pid"], r["host"]) for r in j["ranks"])')" = \
	"[(4000, 'h1'), (4198304, 'other:h1')]"
rm -f job.ftr

# truncated / corrupt: what is readable, with a warning
size=$(stat -c %s n2.ftr)
head -c $((size * 2 / 3)) n2.ftr >trunc.ftr
"$FT" merge -o job.ftr n1.ftr trunc.ftr n3.ftr 2>merge.err
check "a truncated capture is merged as far as readable (exit 0)" test $? = 0
check "with a warning naming it" grep -q "trunc.ftr:.*merging what is readable" merge.err
rm -f job.ftr
cp n2.ftr corrupt.ftr
printf '\xff\xff\xff\xff' | dd of=corrupt.ftr bs=1 seek=$((size / 2)) conv=notrunc status=none
"$FT" merge -o job.ftr n1.ftr corrupt.ftr n3.ftr 2>merge.err
check "a corrupt capture is merged up to the bad block (exit 0)" test $? = 0
check "with a warning naming the block" grep -q "corrupt.ftr:.*block at offset" merge.err
rm -f job.ftr

printf 'hello, not a capture\n' >junk.ftr
expect_err "not a capture" "merge: junk.ftr.*not a fabtrace capture" "$FT" merge -o job.ftr n1.ftr junk.ftr
no_left "not a capture"
expect_err "no -o" "merge: no output" "$FT" merge n1.ftr n2.ftr
expect_err "no captures" "merge: no captures" "$FT" merge -o job.ftr
expect_err "a file twice" "given twice" "$FT" merge -o job.ftr n1.ftr n1.ftr
no_left "a file twice"
expect_err "different bin widths" "same --bin" "$FT" merge -o job.ftr n1.ftr wide.ftr
no_left "different bin widths"
expect_err "missing file" "nosuch.ftr" "$FT" merge -o job.ftr n1.ftr nosuch.ftr
no_left "missing file"
ln -s /tmp/elsewhere.ftr link.ftr
expect_err "symlink output" "symbolic link" "$FT" merge -o link.ftr n1.ftr n2.ftr
check "the symlink is untouched and its target not created" test -L link.ftr -a ! -e /tmp/elsewhere.ftr
mkdir dir.ftr
expect_err "directory output" "not a regular file" "$FT" merge -o dir.ftr n1.ftr n2.ftr
touch notdir
expect_err "output under a regular file" "merge: notdir/m.ftr: cannot create: Not a directory" \
	"$FT" merge -o notdir/m.ftr n1.ftr n2.ftr
expect_err "unknown option" "unknown option '--bogus'" "$FT" merge --bogus -o job.ftr n1.ftr
expect_err "bad --window" "merge: --window 'soon': not a duration up to 60s" "$FT" merge --window soon -o job.ftr n1.ftr
"$FT" merge --json -o job.ftr n1.ftr junk.ftr >out.txt 2>err.txt
check "--json: the error is JSON on stdout" python3 -c 'import json,sys; json.load(open("out.txt"))["error"]'
check "merge --help has examples" grep -q "fabtrace merge -o job.ftr" <("$FT" merge --help)
# two recordings of one kernel (one after the other: no traffic in common) share its
# clock: no warning that the clocks were placed by the realtime anchors only
if [[ $(id -u) == 0 ]]; then
	"$FT" record -q -i lo -d 1s -o k1.ftr && "$FT" record -q -i lo -d 1s -o k2.ftr || bad "record k1, k2"
	"$FT" merge -o k.ftr k1.ftr k2.ftr >/dev/null 2>k.err || bad "merge k1 k2"
	check "one kernel's captures: no 'overlap' warning ($(head -c 200 k.err))" test -z "$(grep -i overlap k.err)"
	check "  and the second is placed by the same clock" grep -q "same kernel as an earlier host" k.err
fi
finish
