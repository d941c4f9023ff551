#!/usr/bin/env bash
# What a damaged capture, a careless command line or a hostile name must not
# do: crash `report --windows`, hang a reader on a FIFO, turn a huge -d into
# a moment, lose an early Ctrl-C, pass a command that never ran as success,
# drive the terminal with a host name's escape codes, misname a full disk,
# or let merge, report's timelines or export overwrite their own input.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
REL=$ROOT/tests/integration/reliability.py
cd "$TMPD" || exit 1

expect_err() { # DESC PATTERN CMD...: non-zero (not a signal), one stderr line matching PATTERN
	local d=$1 pat=$2 rc=0
	shift 2
	timeout 20 "$@" >out.txt 2>err.txt || rc=$?
	if ((rc == 0 || rc >= 124)); then
		bad "$d: exit $rc $(head -c 300 err.txt)"; return
	fi
	if [[ $(wc -l <err.txt) -ne 1 ]] || ! grep -qE "$pat" err.txt; then
		bad "$d: stderr not one line matching /$pat/: $(head -c 300 err.txt)"; return
	fi
	ok "$d ($(cat err.txt))"
}
state() { "$FT" info --json "$1" 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["state"], j["stop_reason"])'; }
lo_traffic() { ping -q -c 30 -i 0.01 127.0.0.1 >/dev/null 2>&1; }

# (it traces before the checks begin: at load 5 it took over 0.6 s to start)
start_record cap.ftr -i lo -d 3s
rp=$REC_PID
lo_traffic
# while it records: readers say so, and a second recorder may not replace it
"$FT" info cap.ftr >/dev/null 2>live.err
check "info while recording: 'still being recorded' ($(head -c 200 live.err))" grep -q "still being recorded" live.err
expect_err "a second record onto a capture being recorded" "another fabtrace is recording into it" \
	"$FT" record -q -i lo -d 1s -o cap.ftr
wait "$rp" || bad "record of lo"
check "a capture to work on ($(state cap.ftr))" test "$(state cap.ftr)" = "complete duration"

# report --windows: a window longer than any capture is one window; a capture
# whose END says it ran 11 days is refused, not split into a million windows
rc=0
timeout 20 "$FT" report --windows 18446744073s cap.ftr >win.txt 2>win.err || rc=$?
check "report --windows 18446744073s: exit 0, one window ($rc: $(head -c 160 win.txt))" \
	test "$rc" = 0 -a "$(grep -c 'in 1 window' win.txt)" = 1
python3 "$REL" setend cap.ftr endbig.ftr 1000000000000000 || bad "setend"
check "the damaged capture reads as complete" test "$(state endbig.ftr)" = "complete duration"
# a counter sample that does not hold its values: info and report agree that
# the capture is damaged there (info said complete, and report refused it)
python3 "$REL" badsample cap.ftr badctr.ftr || bad "badsample"
rc=0
"$FT" info --json badctr.ftr >badctr.json 2>badctr.err || rc=$?
check "info of a damaged counter sample: exit 1, corrupt, where ($rc: $(head -c 200 badctr.err))" \
	test "$rc" = 1 -a "$(jget badctr.json 'j["state"]')" = corrupt -a \
	"$(grep -c 'ctr_sample record at payload offset [0-9]* is 32 bytes, expected 56' badctr.err)" = 1
expect_err "report of a damaged counter sample" "ctr_sample record at payload offset [0-9]+ is 32 bytes, expected 56" \
	"$FT" report badctr.ftr
expect_err "report --windows 1s on an 11-day END" "at most 100000: give a longer window" \
	"$FT" report --windows 1s endbig.ftr
# a capture cut to its header: one empty window, as plain report reads it (it
# said "--from is at or after the end" without a --from)
head -c "$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print(d.index(b"FTBK") if b"FTBK" in d else 489)' cap.ftr)" cap.ftr >hdr.ftr
rc=0
timeout 20 "$FT" report --windows 1s hdr.ftr >win.txt 2>win.err || rc=$?
check "report --windows 1s of a header alone: exit 0, one window ($rc: $(head -c 160 win.err))" \
	test "$rc" = 0 -a "$(grep -c 'in 1 window' win.txt)" = 1
# -q with --windows reads every window and prints nothing, as -q alone (it printed the whole report)
rc=0
"$FT" report -q --windows 1s cap.ftr >win.txt 2>win.err || rc=$?
check "report -q --windows: exit 0, nothing printed ($rc, $(wc -c <win.txt) bytes)" test "$rc" = 0 -a ! -s win.txt

# a FIFO nobody writes to yet: the reader says it waits, and reads what comes
mkfifo fifo.ftr
timeout 20 "$FT" info --json fifo.ftr >fifo.json 2>fifo.err & ip=$!
sleep 1.5
check "info on a FIFO with no writer says it waits ($(cat fifo.err))" grep -q "FIFO with no writer yet: waiting" fifo.err
cat cap.ftr >fifo.ftr
rc=0
wait "$ip" || rc=$?
check "  and reads the capture written to it then ($rc)" test "$rc:$(jget fifo.json 'j["state"]')" = 0:complete
check "a pipe with a capture in it still reads" test "$("$FT" info --json <(cat cap.ftr) | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" = complete

expect_err "merge of a pipe: said so" "is a pipe; merge reads each capture three times" \
	"$FT" merge -q -o p.ftr <(cat cap.ftr)
expect_err "report --windows of a pipe: said so" "is a pipe; --windows reads the capture once per window" \
	"$FT" report --windows 1s <(cat cap.ftr)
expect_err "report --to 0: an empty window" "is not before --to" "$FT" report --to 0 cap.ftr

# -- COMMAND that cannot be run: exit 127, said so, --json tells it apart from one that failed
rc=0
"$FT" record -q -i lo -o nocmd.ftr --json -- ./no-such-command >nocmd.json 2>nocmd.err || rc=$?
check "record -- a missing command: exit 127 ($rc)" test "$rc" = 127
check "  its error names the command" grep -q "cannot run './no-such-command'" nocmd.err
check "  --json: command_ran false, stdout one JSON document" \
	test "$(jget nocmd.json 'j["command_ran"], j["stop_reason"]')" = "(False, 'command exited')"
rc=0
"$FT" record -q -i lo -o false.ftr --json -- false >false.json 2>/dev/null || rc=$?
check "record -- false: exit 0, the command's status in --json" \
	test "$rc:$(jget false.json 'j["command_ran"], j["command_exit_status"]')" = "0:(True, 1)"

# a -d of centuries records until stopped instead of wrapping to a moment
# (start + 18446744073 s wraps once the host is up 0.7 s)
"$FT" record -q -i lo -d 18446744073s -o long.ftr & rp=$!
sleep 2
check "-d 18446744073s: still recording after 2 s" kill -0 "$rp"
kill -INT "$rp"
rc=0
wait "$rp" || rc=$?
check "  Ctrl-C then: exit 0, complete ($rc, $(state long.ftr))" test "$rc" = 0 -a "$(state long.ftr)" = "complete signal"

# a Ctrl-C while the probes load stops the recording as soon as it runs,
# with a complete capture, and COMMAND never starts.  As a script's
# background job (SIGINT ignored), sent once record blocks the stop signals
# (SigBlk has SIGINT): the probes take a few hundred ms to load after that.
early_int() { # OUT ARGS...: record in the background of a script, SIGINT while it loads
	local out=$1 bp
	shift
	rm -f "$out" early.pid
	bash -c '"$1" record -q -i lo -o "$2" "${@:3}" & p=$!; echo $p >early.pid
		for _ in $(seq 500); do
			b=$(awk "/^SigBlk/ {print \$2}" /proc/$p/status 2>/dev/null)
			[[ -n $b ]] && (( 0x$b & 2 )) && break
			sleep 0.01
		done
		kill -INT $p; wait $p' _ "$FT" "$out" "$@" &
	bp=$!
	for _ in $(seq 100); do kill -0 "$bp" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$bp" 2>/dev/null; then
		bad "SIGINT while the probes load: record still runs 10 s later"
		kill -TERM "$(cat early.pid)" 2>/dev/null
	fi
	wait "$bp"
}
early_int early.ftr
check "SIGINT while the probes load: stops, complete ($(state early.ftr))" test "$(state early.ftr)" = "complete signal"
early_int early2.ftr -- touch started.flag
check "  with -- COMMAND: stops, complete ($(state early2.ftr))" test "$(state early2.ftr)" = "complete signal"
check "  and COMMAND never started" test ! -e started.flag

# a host name with escape codes: printed as '?' in the text report, escaped in JSON
"$ROOT/$BUILD/tools/capshift" --host $'ev\e]0;pwned\ail\e[31m' -o esc.ftr cap.ftr >/dev/null || bad "capshift --host"
"$FT" report esc.ftr >esc.txt 2>&1
check "report: no control character but newline and tab in the text ($(grep -m1 -a 'ev' esc.txt | head -c 120))" \
	test "$(LC_ALL=C tr -d '\n\t' <esc.txt | LC_ALL=C grep -c '[[:cntrl:]]')" = 0
check "  the name is there, its escapes as '?'" grep -qF 'ev?]0;pwned?il?[31m' esc.txt
"$FT" report --json esc.ftr >esc.json
check "report --json keeps the name, escaped" test "$(jget esc.json 'j["capture"]["host"]')" = $'ev\e]0;pwned\ail\e[31m'

# a full disk is named as such; export leaves no directory of its own behind
mkdir -p tiny && mount -t tmpfs -o size=64k tmpfs tiny && trap 'umount "$TMPD/tiny" 2>/dev/null; cleanup' EXIT
dd if=/dev/zero of=tiny/fill bs=1k count=56 2>/dev/null
expect_err "export -w all on a full disk" "No space left on device; nothing was written" \
	"$FT" export -w all -o tiny/out "$ROOT/tests/fixtures/demo/demo.ftr"
check "  and its directory is gone" test ! -e tiny/out
expect_err "report --svg on a full disk" "No space left on device; nothing was written" \
	"$FT" report --svg tiny/t.svg "$ROOT/tests/fixtures/demo/demo.ftr"
check "  and no file" test "$(ls tiny)" = fill
# record --json whose disk fills once it records: one JSON document, the error a key of it (it
# printed {"error": ...} and then the summary: two documents, which json.load refuses)
rc=0
"$FT" record -q --json --no-phases -i lo -o tiny/x.ftr -- sh -c 'ping -q -c 400 -i 0.01 127.0.0.1 >/dev/null' \
	>rj.out 2>rj.err || rc=$?
check "record --json filling the disk: exit 1 ($rc), one document with stop_reason error and the error" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["stop_reason"] == "error" and "No space left on device" in d["error"] else 1)' rj.out
check "  exit 1 ($rc)" test "$rc" = 1
check "  and the error on stderr too" grep -q "No space left on device" rj.err
rm -f tiny/x.ftr

# a headline line cut to its 240 bytes ends in "...", not mid-word ("(tbf")
"$FT" report -b "$ROOT/tests/fixtures/demo/demo.ftr" >brief.txt 2>&1 || bad "report -b of the demo capture"
check "report -b: the demo has a line cut to its buffer, and every such line ends in '...' ($(awk 'length($0) >= 239' brief.txt | cut -c 200-))" \
	test -n "$(awk 'length($0) >= 239' brief.txt)" -a -z "$(awk 'length($0) >= 239 && $0 !~ /\.\.\.$/' brief.txt)"

# export -w all names its -o when that cannot be the directory, not a table under it
ln -s "$TMPD/nowhere" dangling && touch plain
expect_err "export -w all onto a dangling symlink" "^fabtrace: export: -o dangling: is a symbolic link to nothing" \
	"$FT" export -w all -o dangling "$ROOT/tests/fixtures/demo/demo.ftr"
check "  and nothing made through it" test ! -e nowhere
expect_err "export -w all onto a file" "^fabtrace: export: -o plain: exists and is not a directory" \
	"$FT" export -w all -o plain "$ROOT/tests/fixtures/demo/demo.ftr"
expect_err "export of several tables to a file name" "looks like a file, but several tables go into a directory" \
	"$FT" export -w bins,qdisc -o t.csv "$ROOT/tests/fixtures/demo/demo.ftr"
check "  and no directory t.csv" test ! -e t.csv

# merge never writes over one of its inputs, nor takes one recording twice
cp cap.ftr a.ftr
cp cap.ftr copy.ftr
sum=$(md5sum <a.ftr)
expect_err "merge -o onto an input" "is one of the captures to merge" "$FT" merge -q -o a.ftr cap.ftr a.ftr
check "  the input is untouched" test "$(md5sum <a.ftr)" = "$sum"
# nor do report's timelines and export (they replaced the capture, exit 0)
expect_err "report --svg onto its capture" "report: --svg a.ftr is the capture being read" "$FT" report -q --svg a.ftr a.ftr
expect_err "report --html onto its capture by another path" "report: --html ./a.ftr is the capture being read" \
	"$FT" report -q --html ./a.ftr a.ftr
expect_err "export -o onto its capture" "a.ftr is the capture being read" "$FT" export -w events -o a.ftr a.ftr
check "  the capture is untouched" test "$(md5sum <a.ftr)" = "$sum"
# ... nor over another capture named where the output belongs (an input's
# name typed for the output's: 'merge -o n1.ftr n2.ftr n3.ftr' replaced n1, exit 0)
cp cap.ftr other.ftr
expect_err "merge -o onto a capture that is no merge" "merge: -o other.ftr is a fabtrace capture \(not a merged one\)" \
	"$FT" merge -q -o other.ftr cap.ftr
expect_err "report --svg onto another capture" "report: --svg other.ftr is a fabtrace capture" \
	"$FT" report -q --svg other.ftr a.ftr
expect_err "export -o onto another capture" "export: other.ftr is a fabtrace capture" "$FT" export -w events -o other.ftr a.ftr
expect_err "compare --html onto another capture" "compare: --html other.ftr is a fabtrace capture" \
	"$FT" compare --html other.ftr a.ftr -- cap.ftr
check "  that capture is untouched" test "$(md5sum <other.ftr)" = "$sum"
rc=0
"$FT" merge -q -o merged.ftr cap.ftr && "$FT" merge -q -o merged.ftr cap.ftr || rc=$?
check "merge -o onto an earlier merge's output: replaced, exit 0 (its inputs make it again; got $rc)" test "$rc" = 0
expect_err "export -w all -o - (stdout): one table only" "stdout\) takes one table" "$FT" export -w all -o - a.ftr
check "  and no directory named -" test ! -e ./-
expect_err "merge: one file by two paths" "given twice" "$FT" merge -q -o m.ftr a.ftr ./a.ftr
expect_err "merge: a copy of one recording" "copies of one recording" "$FT" merge -q -o m.ftr a.ftr copy.ftr
expect_err "compare: a copy of one recording on the other side" "compare: a.ftr and copy.ftr are copies of one recording" \
	"$FT" compare a.ftr -- copy.ftr
check "  no merged file" test ! -e m.ftr
"$ROOT/$BUILD/tools/capshift" --host other -o b.ftr a.ftr >/dev/null || bad "capshift --host other"
dd if=/dev/zero of=tiny/fill2 bs=1k count=64 2>/dev/null # the disk's last blocks
expect_err "merge onto a full disk: ENOSPC, named by -o, once" "merge: (writing )?tiny/m.ftr: .*No space left on device" \
	"$FT" merge -q -o tiny/m.ftr a.ftr b.ftr
check "  nothing left on it" test "$(ls -A tiny | tr '\n' ' ')" = "fill fill2 "
# standard output on a full disk is a failure too (info, features, --help exited 0)
expect_err "info > a full disk: exit 1, ENOSPC" "writing the standard output: No space left on device" \
	sh -c '"$1" info "$2" >tiny/info.txt' sh "$FT" a.ftr
expect_err "info --json > /dev/full: exit 1, said on stderr" "^fabtrace: writing the standard output: " \
	sh -c '"$1" info --json "$2" >/dev/full' sh "$FT" a.ftr
rm -f tiny/info.txt
expect_err "merge into a missing directory: named by -o" "merge: nodir/m.ftr: cannot create" \
	"$FT" merge -q -o nodir/m.ftr a.ftr
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[600] ^= 0xff; open(sys.argv[2], "wb").write(d)' a.ftr bad.ftr
"$FT" merge -q -o dm.ftr bad.ftr b.ftr 2>dm.err
check "merge -q of a damaged capture still warns ($(cat dm.err))" grep -q "damaged input bad.ftr: .*merging what is readable" dm.err
"$FT" report --json dm.ftr >dm.json 2>/dev/null
check "  the merged capture says which host's capture was damaged" \
	test "$(jget dm.json '[(h["source"], h["damaged"]) for h in j["hosts"]["items"]]')" = "[('bad.ftr', True), ('b.ftr', False)]"
check "  in report's and info's text too" \
	test "$("$FT" report dm.ftr | grep -c 'damaged capture')" = 1 -a "$("$FT" info dm.ftr | grep -c 'damaged capture')" = 1
# conservation is claimed of what was checked only (it said "conservation OK"
# of the other host alone): here the damaged host's interfaces are unreadable
check "  its Data line claims conservation as far as readable only" \
	test "$("$FT" report dm.ftr | grep -c '^Data: .*conservation OK as far as readable$')" = 1
# a host cut before its last block (its stop counters): its interfaces are
# named and left unchecked
head -c "$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(d.rindex(b"FTBK"))' a.ftr)" a.ftr >cut.ftr
"$FT" merge -q -o dc.ftr cut.ftr b.ftr 2>/dev/null
"$FT" report --json dc.ftr >dc.json 2>/dev/null
check "  a host cut before its stop counters: the Data line says how many directions were NOT CHECKED" \
	test "$("$FT" report dc.ftr | grep -c '^Data: .*conservation OK where checked, 2 interface directions NOT CHECKED')" = 1 -a \
	"$(jget dc.json 'j["headline"]["conservation_unchecked"]')" = 2
# a header whose start is 2^63 ns: merged on saturated clocks (no overflow; the
# sanitizer build would stop at one), nothing temporary left behind
python3 - a.ftr h63.ftr <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", d, 16, 1 << 63)
struct.pack_into("<I", d, 484, 0)
struct.pack_into("<I", d, 484, zlib.crc32(bytes(d[:488])))
open(sys.argv[2], "wb").write(d)
PY
rc=0
timeout 60 "$FT" merge -q -o m63.ftr b.ftr h63.ftr 2>m63.err || rc=$?
check "merge of a capture that starts at 2^63 ns: no crash, no overflow ($rc: $(head -c 200 m63.err))" \
	test "$rc" -lt 124 -a "$(grep -c 'runtime error' m63.err)" = 0
check "  nothing temporary left" test -z "$(compgen -G '.m63.ftr.merge-*')"
for b in 0 1; do # bin_ns, its CRC mended
	python3 - a.ftr "bin$b.ftr" "$b" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", d, 40, int(sys.argv[3]))  # bin_ns
struct.pack_into("<I", d, 484, 0)
struct.pack_into("<I", d, 484, zlib.crc32(bytes(d[:488])))
open(sys.argv[2], "wb").write(d)
PY
done
expect_err "merge of a header with 1 ns bins: refused, not gigabytes of windows" "1 ns bins, outside the 1 us to 1 s" \
	"$FT" merge -q -o b1.ftr bin1.ftr
# every reader refuses 0 ns bins; merge let them through into a capture report refused
expect_err "merge of a header with 0 ns bins: refused" "0 ns bins, outside the 1 us to 1 s" \
	"$FT" merge -q -o b0.ftr bin0.ftr
check "  no merged file" test ! -e b0.ftr
expect_err "merge -o ''" "no output" "$FT" merge -q -o '' a.ftr
expect_err "merge --window of an hour" "up to 60s" "$FT" merge -q --window 1h -o m.ftr a.ftr b.ftr
expect_err "record --netns ''" "netns needs a name" "$FT" record --netns '' -d 1s -o n.ftr
expect_err "features with an argument" "unexpected argument 'extra'" "$FT" features extra

# traffic before the recording starts: no record is older than the capture
# (it started once every probe was in place, and bins and events of the
# phase probes' setup came out before it)
ping -q -c 600 -i 0.005 127.0.0.1 >/dev/null 2>&1 & pp=$!
"$FT" record -q -i lo -d 1s -o early.ftr || bad "record with traffic from before"
kill "$pp" 2>/dev/null; wait "$pp" 2>/dev/null
"$FT" export -w bins -o early.csv early.ftr || bad "export of early.ftr"
check "no bin before the capture's start ($(awk -F, 'NR > 1 && $3 < 0' early.csv | head -c 200))" \
	test "$(awk -F, 'NR > 1 && $3 < 0' early.csv | wc -l)" = 0 -a "$(wc -l <early.csv)" -gt 10

# a merge of a capture still being recorded: said so by merge, and by the
# report of the merged capture, whose end is its last record (not 0 ns)
start_record unf.ftr -i lo -d 3s
up=$REC_PID
ping -q -f -c 20000 127.0.0.1 >/dev/null 2>&1; sleep 1.2
"$FT" merge -o unfm.ftr unf.ftr >/dev/null 2>unfm.err || bad "merge of a capture being recorded"
wait "$up" || bad "the recording merged while running"
check "merge warns of the unfinished input ($(head -c 200 unfm.err))" grep -q "still being recorded" unfm.err
"$FT" report unfm.ftr >unfm.txt 2>&1 || bad "report of that merge"
check "the report's Data line says a host's capture was unfinished ($(grep '^Data' unfm.txt))" \
	grep -q "^Data: merged capture of 1 host, 1 of them from a damaged or unfinished capture" unfm.txt
check "  and its duration is not 0 ns ($(head -n 1 unfm.txt))" test "$(head -n 1 unfm.txt | grep -c ': 0 ns on')" = 0

# two recordings of one boot are one kernel: merge places the second on the
# first's clock exactly, without a word about traffic or anchors; capshift
# (another machine) gives another boot, placed as any other host
"$FT" record -q -i lo -d 1s -o k1.ftr & k1=$!
"$FT" record -q -i lo -d 1s -o k0.ftr & k0=$!
sleep 0.3; lo_traffic; wait "$k1" "$k0" || bad "two recordings of lo"
# at the same time, of the same namespace: every packet twice if merged
expect_err "merge of one machine's captures of one namespace at one time" \
	"k1.ftr and k0.ftr were recorded on one machine at the same time, both tracing interface" \
	"$FT" merge -q -o k.ftr k1.ftr k0.ftr
check "  and no output" test ! -e k.ftr
"$FT" record -q -i lo -d 1s -o k2.ftr & k2=$!
sleep 0.3; lo_traffic; wait "$k2" || bad "a later recording of lo"
"$FT" merge --json -o k.ftr k1.ftr k2.ftr >k.json 2>k.err || bad "merge of one boot's captures"
check "one boot: the second host is the first's kernel, +- 0 ns ($(jget k.json '[(h["method"], h["uncertainty_ns"]) for h in j["hosts"]]'))" \
	test "$(jget k.json '[(h["method"], h["uncertainty_ns"], h["offset_ns"]) for h in j["hosts"]][1]')" = "('same_kernel', 0, 0)"
check "  and no warning about traffic or anchors ($(head -c 200 k.err))" test "$(grep -c 'traffic\|anchor' k.err)" = 0
"$FT" report --json k.ftr >kr.json || bad "report of the merged capture"
check "  the report says so" test "$(jget kr.json '[h["same_kernel"] for h in j["hosts"]["items"]]')" = "[False, True]"
"$ROOT/$BUILD/tools/capshift" --host elsewhere -o k3.ftr k2.ftr >/dev/null || bad "capshift"
"$FT" merge --json -o k.ftr k1.ftr k3.ftr >k.json 2>/dev/null || bad "merge with another machine's capture"
check "capshift's capture is another boot ($(jget k.json 'j["hosts"][1]["method"]'))" \
	test "$(jget k.json 'j["hosts"][1]["method"]')" != same_kernel

# usage errors exit 2 from every command, so that a script can tell them
# from a failed run (1); none creates its output
for cmd in record top report info export merge features; do
	rc=0
	"$FT" $cmd --no-such-option -o u.out cap.ftr >/dev/null 2>u.err || rc=$?
	check "$cmd: an unknown option exits 2, one line naming it ($rc: $(head -c 160 u.err))" \
		test "$rc" = 2 -a "$(wc -l <u.err)" = 1 -a "$(grep -c -- --no-such-option u.err)" = 1 -a ! -e u.out
done
rc=0
"$FT" record --bin 3ms7 -d 1s -o u.ftr >/dev/null 2>u.err || rc=$?
check "record: a bad value exits 2, no file ($rc: $(head -c 160 u.err))" test "$rc" = 2 -a ! -e u.ftr
rc=0
"$FT" record -q -d 1s -o /nonexistent-dir/u.ftr >/dev/null 2>u.err || rc=$?
check "record: an output it cannot create exits 1, not 2 ($rc: $(head -c 160 u.err))" test "$rc" = 1

# a stop signal during merge or report's timelines removes their temporaries
# (each is signalled once its temporary exists: the check cannot pass early)
stop_when() { # PATTERN PID SIGNAL: signal PID once a file matching PATTERN exists; 0 if it did
	local i
	for ((i = 0; i < 400; i++)); do
		compgen -G "$1" >/dev/null && { kill "-$3" "$2"; return 0; }
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}
"$ROOT/$BUILD/tools/synthcap" -q -o big1.ftr --hosts 2 --ranks-per-host 4 -d 1200s --only-host 1 &&
	"$ROOT/$BUILD/tools/synthcap" -q -o big2.ftr --hosts 2 --ranks-per-host 4 -d 1200s --only-host 2 ||
	bad "synthcap (big captures)"
"$FT" merge -q -o bigm.ftr big1.ftr big2.ftr & mp=$!
seen=0; stop_when '.bigm.ftr.merge-*' "$mp" TERM && seen=1
rc=0; wait "$mp" || rc=$?
check "merge ended by SIGTERM with its temporary there: killed by it ($rc), nothing left behind ($(compgen -G '.bigm.ftr*' | tr '\n' ' '))" \
	test "$seen" = 1 -a "$rc" = 143 -a -z "$(compgen -G '.bigm.ftr*')" -a ! -e bigm.ftr
"$FT" merge -q -o bigm.ftr big1.ftr big2.ftr || bad "merge (big captures)"
"$FT" report -q --svg t.svg --perfetto t.json bigm.ftr & tp=$!
seen=0; stop_when '.t.json.*' "$tp" TERM && seen=1
rc=0; wait "$tp" || rc=$?
check "report's timelines ended by SIGTERM: killed by it ($rc), no temporary left ($(compgen -G '.t.*' | tr '\n' ' '))" \
	test "$seen" = 1 -a "$rc" = 143 -a -z "$(compgen -G '.t.*')" -a ! -e t.svg -a ! -e t.json
rm -f big1.ftr big2.ftr bigm.ftr
finish
