#!/usr/bin/env bash
# Bad input gets one clear error line and a non-zero exit, never a crash or a
# half-written file: bad flags, unknown interface/netns, non-root, symlink
# output, corrupted/truncated/newer captures, JSON errors that stay JSON.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
cd "$TMPD"

# expect_err DESC PATTERN CMD...: non-zero exit, exactly one stderr line matching PATTERN
expect_err() {
	local d=$1 pat=$2 rc=0
	shift 2
	"$@" >out.txt 2>err.txt || rc=$?
	if ((rc == 0)); then
		bad "$d: exit 0"; return
	fi
	if ((rc >= 128)); then
		bad "$d: died with signal $((rc - 128))"; return
	fi
	if [[ $(wc -l <err.txt) -ne 1 ]] || ! grep -qE "$pat" err.txt; then
		bad "$d: stderr not one line matching /$pat/: $(head -c 300 err.txt)"; return
	fi
	ok "$d ($(cat err.txt))"
}
no_file() { if [[ -e $1 || -L $1 && $1 != link.ftr ]]; then bad "$2: left $1 behind"; else ok "$2: no file"; fi; }

expect_err "unknown interface" "interface 'nosuch0' not found" "$FT" record -i nosuch0 -d 1s -o a.ftr
no_file a.ftr "unknown interface"
expect_err "unknown netns" "namespace 'nosuchns' not found" "$FT" record -i nosuchns/eth0 -d 1s -o a.ftr
# a bad value: "CMD: OPT 'VALUE': not WHAT; give HINT", the same wording in every command
expect_err "bad interface spec" "record: --iface 'a/b/c': not an interface; give " "$FT" record -i 'a/b/c' -d 1s -o a.ftr
expect_err "bad duration" "record: --duration '10x': not a duration; give e.g. 10s" "$FT" record -d 10x -o a.ftr
expect_err "negative duration" "record: --duration '-5s': not a duration" "$FT" record -d -5s -o a.ftr
expect_err "zero duration" "record: --duration '0': not a duration" "$FT" record -d 0 -o a.ftr
expect_err "bin without unit" "record: --bin '5': not a bin width" "$FT" record --bin 5 -d 1s -o a.ftr
expect_err "bin too small" "record: --bin '100ns': not a bin width" "$FT" record --bin 100ns -d 1s -o a.ftr
expect_err "ringbuf not a power of two" "record: --ringbuf '3M': not a power of two" "$FT" record --ringbuf 3M -d 1s -o a.ftr
expect_err "unknown option" "unknown option '--frobnicate'" "$FT" record --frobnicate
expect_err "nice out of range" "record: --nice '20': not a nice value" "$FT" record --nice 20 -d 1s -o a.ftr
expect_err "nice not a number" "record: --nice '-5x': not a nice value" "$FT" record --nice -5x -d 1s -o a.ftr
expect_err "budget not a percentage (the parser report uses)" "record: --sampler-budget '5%%': not a percentage" \
	"$FT" record --sampler-budget 5%% -d 1s -o a.ftr
expect_err "a count that is not one (report)" "report: --top '-1': not a count; give e.g. 10" "$FT" report --top -1 a.ftr
expect_err "a count out of range (report)" "report: --jobs '0': not a count of windows; give 1 to" \
	"$FT" report --windows 60s --jobs 0 a.ftr
expect_err "a factor below its minimum (report)" "report: --slow '0.5': not a factor" "$FT" report --slow 0.5 a.ftr
expect_err "the same wording for top" "top: --count 'x': not a count of snapshots" "$FT" top --once -n x
# inside a bundle getopt's optind names the whole word; the error names the letter
expect_err "unknown option in a bundle (record)" "unknown option '-x'" "$FT" record -qx
expect_err "missing value in a bundle (record)" "missing value for '-i'" "$FT" record -qi
expect_err "missing value (record, long)" "missing value for '--iface'" "$FT" record --iface
expect_err "unknown option in a bundle (top)" "unknown option '-x'" "$FT" top -xn 3
expect_err "unknown option in a bundle (info)" "unknown option '-x'" "$FT" info -xj a.ftr
expect_err "unknown option in a bundle (report)" "unknown option '-x'" "$FT" report -qx a.ftr
expect_err "a value for a flag (report)" "option '--json' takes no value" "$FT" report --json=1 a.ftr
expect_err "a value for a flag (record)" "option '--quiet' takes no value" "$FT" record --quiet=yes
expect_err "an unknown option with a value" "unknown option '--frob'" "$FT" merge --frob=1 -o m.ftr a.ftr
# a bundle's bad letter after a --NAME=VALUE: the letter, not the option before it
expect_err "a bad letter after --from=1s" "unknown option '-x'" "$FT" report --from=1s -xq a.ftr
expect_err "unknown command" "unknown command 'frob'" "$FT" frob
no_file a.ftr "bad flags"

# Not root: a real unprivileged user, and a clear list of what is missing.
chmod 755 "$TMPD"
expect_err "non-root record" "missing privileges: CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FT" record -d 1s -o "$TMPD/np.ftr"
no_file np.ftr "non-root"
expect_err "non-root features" "missing privileges" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FT" features

# Symlink as output: refused, the target untouched.
echo keep >target.txt
ln -s target.txt link.ftr
expect_err "symlink output" "symlink|symbolic link" "$FT" record -i lo -d 1s -o link.ftr
check "symlink target untouched" grep -qx keep target.txt

# A small valid capture to damage.
"$FT" record -i lo -d 300ms -o good.ftr -q 2>rec.err || { bad "record lo: $(cat rec.err)"; finish; }
# --nice: the thread draining the rings runs at it, the traced command keeps its own
# (field 19 of /proc/PID/task/TID/stat; the command is record's child)
# shellcheck disable=SC2016  # $PPID is the command's, expanded by its sh
"$FT" record -i lo --nice 7 -o nice.ftr -q -- sh -c \
	'cut -d" " -f19 /proc/self/stat; cat /proc/$PPID/task/*/stat | cut -d" " -f19 | sort -u | tr "\n" " "' \
	>nice.txt 2>nice.err || bad "record --nice 7: $(cat nice.err)"
check "record --nice 7: the command keeps nice $(nice) ($(head -n 1 nice.txt))" test "$(head -n 1 nice.txt)" = "$(nice)"
check "record --nice 7: a recorder thread runs at 7 ($(tail -n 1 nice.txt))" grep -qw 7 <(tail -n 1 nice.txt)
check "capture is 0600" test "$(stat -c %a good.ftr)" = 600
SUDO_UID=65534 SUDO_GID=65534 "$FT" record -i lo -d 100ms -o owned.ftr -q 2>/dev/null
check "capture owned by SUDO_UID" test "$(stat -c %u:%g owned.ftr)" = 65534:65534
# a malformed SUDO_GID leaves the group alone (it was read as 0, group root,
# before): files made in a setgid directory of group 65534 keep that group
mkdir sgid && chgrp 65534 sgid && chmod 2777 sgid
SUDO_UID=65534 SUDO_GID=nogroup "$FT" record -i lo -d 100ms -o sgid/owned.ftr -q 2>/dev/null
check "capture with a malformed SUDO_GID: the user's, the group left as it is" \
	test "$(stat -c %u:%g sgid/owned.ftr)" = 65534:65534
SUDO_UID=65534 SUDO_GID=12x "$FT" report sgid/owned.ftr --svg sgid/owned.svg >/dev/null 2>&1
check "report --svg with a malformed SUDO_GID: the user's, the group left as it is" \
	test "$(stat -c %u:%g sgid/owned.svg)" = 65534:65534
check "info on a good capture" "$FT" info good.ftr
check "report on a good capture" "$FT" report good.ftr

hdr=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print(struct.unpack_from("<I",d,12)[0])' good.ftr)
python3 - good.ftr "$hdr" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read()); h = int(sys.argv[2])
c = bytearray(d); c[h + 24 + 5] ^= 0xff; open("corrupt.ftr", "wb").write(c)      # payload byte
v = bytearray(d); v[8] = 99; open("newer.ftr", "wb").write(v)                     # version 99
open("cut-header.ftr", "wb").write(d[:h // 2])
open("notcapture.ftr", "wb").write(b"hello, not a capture\n" * 40)
PY
expect_err "corrupt capture: info" "offset $hdr" "$FT" info corrupt.ftr
expect_err "corrupt capture: report" "offset $hdr" "$FT" report corrupt.ftr
expect_err "newer format version" "newer" "$FT" report newer.ftr
expect_err "header cut short" "." "$FT" report cut-header.ftr
expect_err "not a capture" "not a fabtrace capture" "$FT" info notcapture.ftr
expect_err "missing capture" "No such file" "$FT" report /nonexistent.ftr

# A small disk: DIR, a 64 KiB tmpfs with FILL KiB of it taken (unmounted at the exit)
MOUNTS=()
small_disk() { # DIR FILL
	mkdir -p "$1" && mount -t tmpfs -o size=64k tmpfs "$1" || return 1
	MOUNTS+=("$TMPD/$1")
	trap 'umount "${MOUNTS[@]}" 2>/dev/null; cleanup' EXIT
	if (($2 > 0)); then dd if=/dev/zero of="$1/fill" bs=1k count="$2" 2>/dev/null; fi
	return 0
}
# record ARGS... beside a ping flood (which lasts until the recording has ended,
# however slowly the recorder starts); its exit status in RC, its stderr in ERR
flooded_record() { # ERR ARGS...
	local ping
	ping -f -w 60 127.0.0.1 >/dev/null 2>&1 &
	ping=$!
	RC=0
	"$FT" record "${@:2}" 2>"$1" || RC=$?
	kill "$ping" 2>/dev/null
	wait "$ping" 2>/dev/null
}

# A full disk: one clear error, non-zero exit, the capture valid up to its last block.
small_disk tiny 0 || bad "a tmpfs for the full disk"
flooded_record full.err --bin 10us -d 10s -q -o tiny/full.ftr
rc=$RC
check "disk full: exit 1 ($rc)" test "$rc" = 1
check "disk full: says so ($(head -c 200 full.err))" grep -q "No space left on device" full.err
"$FT" info --json tiny/full.ftr >full.json 2>/dev/null
check "disk full: capture readable up to its last block" \
	test "$(python3 -c 'import json; j=json.load(open("full.json")); print(j["state"], j["blocks"] > 0)')" = "truncated True"
check "disk full: report works on it" quiet "$FT" report tiny/full.ftr
# a disk with room for the header only: no bare header is left behind, and the error says so
small_disk tiny3 60 || bad "a tmpfs with room for a header"
flooded_record bare.err --bin 10us -d 3s -q -o tiny3/bare.ftr
rc=$RC
check "disk full at once: exit 1 ($rc), one line ($(head -c 300 bare.err))" test "$rc" = 1 -a "$(wc -l <bare.err)" = 1
check "  says the file is removed" grep -q "bare.ftr: No space left on device before any record was written; the file is removed" bare.err
check "  and it is" test ! -e tiny3/bare.ftr
# the flight recorder on a full disk: every segment it leaves reads, none is a
# bare header, and its error names a segment, not a .part file
small_disk tiny2 40 || bad "a tmpfs for the flight recorder"
mkdir tiny2/fr
flooded_record fr.err -q -i lo --bin 10us -d 15s --switch-output 1s --control "fbi$$" -o tiny2/fr
rc=$RC
check "flight recorder, disk full: exit 1 ($rc), one line ($(head -c 300 fr.err))" test "$rc" = 1 -a "$(wc -l <fr.err)" = 1
check "  naming a segment, not its .part" grep -q "tiny2/fr/seg-[0-9]*-[0-9TZ]*\.ftr: " fr.err
check "  no .part left" test -z "$(compgen -G 'tiny2/fr/*.part')"
for f in tiny2/fr/seg-*.ftr; do
	[[ -e $f ]] || continue
	blocks=$("$FT" info --json "$f" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["blocks"])')
	check "  $(basename "$f"): readable, not a bare header ($blocks blocks)" test "${blocks:-0}" -gt 0
done

# In --json mode the error is JSON on stdout.
"$FT" report --json /nonexistent.ftr >err.json 2>/dev/null
check "JSON error stays JSON" python3 -c 'import json,sys; j=json.load(open("err.json")); assert "error" in j'
# also when the bad option comes before --json (info, merge, record printed text)
for cmd in "info --frob --json x.ftr" "merge --frob --json -o m.ftr a.ftr" "record -d 10x --json -o a.ftr" \
	"features --frob --json" "report --frob --json x.ftr" "top --frob --json"; do
	rc=0
	# shellcheck disable=SC2086 # the words of cmd are the arguments
	"$FT" $cmd >err.json 2>err.txt || rc=$?
	check "$cmd: exit 2, the error as JSON on stdout ($(head -c 120 err.json))" \
		test "$rc" = 2 -a "$(python3 -c 'import json; print("error" in json.load(open("err.json")))' 2>/dev/null)" = True
done
# empty values are usage errors (exit 2, one line), not failures to create ''
expect_err "record -o ''" "record: -o needs a file name" "$FT" record -o '' -d 1s
expect_err "record -i ''" "record: -i needs an interface" "$FT" record -i '' -d 1s -o a.ftr
expect_err "record --nic-stats ''" "record: --nic-stats needs a list" "$FT" record --nic-stats '' -d 1s -o a.ftr
expect_err "export -o ''" "export: -o needs a file or directory name" "$FT" export -o '' x.ftr
expect_err "top --record ''" "top: --record needs a file name" "$FT" top --once --record ''
expect_err "top --format-version without --record" "top: --format-version is the format of --record's capture; add --record FILE" \
	"$FT" top --once --format-version 1
rc=0
"$FT" record -o '' -d 1s >/dev/null 2>&1 || rc=$?
check "record -o '': exit 2 (got $rc)" test "$rc" = 2
rc=0
"$FT" export -o '' x.ftr >/dev/null 2>&1 || rc=$?
check "export -o '': exit 2 (got $rc)" test "$rc" = 2
expect_err "record -- without a command" "record: -- but no command after it" "$FT" record -q -i lo -d 1s -o nocmd.ftr --
no_file nocmd.ftr "record -- without a command"
rc=0
"$FT" record -q -i lo -d 1s -o nocmd.ftr -- >/dev/null 2>&1 || rc=$?
check "record -- without a command: exit 2 (got $rc)" test "$rc" = 2
# a failed write to stdout: the command's own line, not a second one about stdout
SC=$ROOT/$BUILD/tools/synthcap
"$SC" -q -o ok.ftr || bad "synthcap"
expect_err "report > /dev/full: one line" "report: writing the report: No space left on device" sh -c '"$1" report "$2" >/dev/full' sh "$FT" ok.ftr
expect_err "report --json > /dev/full: the error on stderr (stdout is what failed)" "report: writing the report: No space left on device" \
	sh -c '"$1" report --json "$2" >/dev/full' sh "$FT" ok.ftr
expect_err "report --windows --json > /dev/full: the same" "report: writing the report: No space left on device" \
	sh -c '"$1" report --windows 1s --json "$2" >/dev/full' sh "$FT" ok.ftr
# the output's directory is checked before the inputs are read: no clock warning before the error
"$SC" -q -o ok2.ftr --seed 2 || bad "synthcap 2"
expect_err "merge into a missing directory, without -q: one line, with what to do" \
	"merge: nodir/m.ftr: cannot create: No such file or directory; create the directory first" \
	"$FT" merge -o nodir/m.ftr ok.ftr ok2.ftr
expect_err "record into /proc (a directory that makes no files): not told to mkdir it" \
	"record: /proc/r.ftr: cannot create: No such file or directory; its directory takes no new files" \
	"$FT" record -d 1s -o /proc/r.ftr
rc=0
"$FT" merge -o ok.ftr ok.ftr >/dev/null 2>&1 || rc=$?
check "merge -o INPUT INPUT: a usage error, exit 2 (got $rc)" test "$rc" = 2
expect_err "trigger --timeout without --wait" "trigger: --timeout is how long --wait waits" "$FT" trigger --timeout 1s
expect_err "trigger --netns of no namespace" "trigger: network namespace 'nosuchns' not found; list them with 'ip netns list'" \
	"$FT" trigger --netns nosuchns
# help COMMAND is the command's help
"$FT" help record >help.txt 2>&1 || bad "fabtrace help record"
check "fabtrace help record: record's own help" grep -q "^Usage: fabtrace record" help.txt
# usage errors exit 2, as every command's help says
usage_err() { # DESC PATTERN CMD...
	local d=$1 rc=0
	"${@:3}" >/dev/null 2>uerr.txt || rc=$?
	check "$d: exit 2 ($rc), one line ($(head -c 200 uerr.txt))" \
		test "$rc" = 2 -a "$(wc -l <uerr.txt)" = 1 -a -n "$(grep -E -e "$2" uerr.txt)"
}
usage_err "fabtrace help of no command" "no command 'bogus' to help with" "$FT" help bogus
usage_err "record -i NETNS/ (no interface)" "--iface 'h2/': not an interface" "$FT" record -i h2/ -d 1s -o a.ftr
usage_err "record -i /IFACE (no namespace)" "--iface '/eth0': not an interface" "$FT" record -i /eth0 -d 1s -o a.ftr
usage_err "record --netns twice (the first was dropped)" "--netns given twice \\(a, b\\)" \
	"$FT" record --netns a --netns b -d 1s -o a.ftr
usage_err "fabtrace --version with an argument" "--version takes no argument" "$FT" --version extra
usage_err "trigger --control with a /" "--control 'a/b': not a socket name" "$FT" trigger --control a/b
usage_err "record --no-probes of every family" "leaves out every network probe" \
	"$FT" record -d 1s -o np.ftr --no-probes bins,qdisc,drops,tcp,rtt
usage_err "--keep-summaries without the flight recorder" "are the flight recorder's" \
	"$FT" record -d 1s -o ks.ftr --keep-summaries 1d
usage_err "an ambiguous abbreviation is named so, with what it may mean" \
	"report: option '--t' is ambiguous: --threshold, --top, --tolerance, --to;" "$FT" report --t 80 ok.ftr
usage_err "record -o with an unknown %-escape" "record: output pattern 'pat-%x.ftr': unknown '%x'" \
	"$FT" record -d 1s -o 'pat-%x.ftr'
usage_err "--keep without the flight recorder (it does not turn it on)" \
	"^fabtrace: record: --keep bounds the flight recorder's segments: add --switch-output TIME" \
	"$FT" record -d 1s -o kp.ftr --keep 1m
check "  and none of them wrote a capture" test ! -e np.ftr -a ! -e ks.ftr -a ! -e kp.ftr
"$FT" info ok.ftr --json >info-after.json 2>&1 || bad "info with --json after the capture"
check "info CAPTURE --json: JSON, as the other commands take options after their files" \
	python3 -c 'import json,sys; json.load(open("info-after.json"))'

# a flight recorder's directory whose recorder saw no collective: said so, not "record writes them"
mkdir -p nocoll/summaries
expect_err "history of a recorder that saw no collective" \
	"history: nocoll: no collective in nocoll/summaries: the recorder writes a line per collective" \
	"$FT" history nocoll
# ... and a directory that is no recorder's: not told to record a job (it said 'no collective' too)
mkdir -p plaindir
expect_err "history of a directory that is no flight recorder's" \
	"history: plaindir: no summaries \(plaindir/\*.jsonl\): not a flight recorder's directory .*--no-summaries" \
	"$FT" history plaindir

# a rule on an interface that is not there: said at the start (without -i it could appear
# later: a warning; with -i, one the list lacks is an error: test_flight_rules)
"$FT" record -q --no-phases -d 1s --switch-output 1s --control "fbi$$" --trigger 'link.drops > 100/s on nosuch0' \
	-o rulewarn 2>rulewarn.err || bad "record with a rule on a missing interface ($(tail -n 1 rulewarn.err))"
check "a rule on a missing interface is warned about ($(head -c 300 rulewarn.err))" grep -q \
	"^fabtrace: warning: record: --trigger 'link.drops > 100/s on nosuch0': no interface 'nosuch0' here now" \
	rulewarn.err

"$FT" --help merge >help.txt 2>&1 || bad "fabtrace --help merge"
check "fabtrace --help merge: merge's own help" grep -q "^Usage: fabtrace merge" help.txt
finish
