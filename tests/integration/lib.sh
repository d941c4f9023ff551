# Shared by the integration tests (sourced).  Each test builds its own lab
# with a prefix unique to the run, and the EXIT trap tears down everything it
# started (lab, recorder) even when an assertion fails.  Exit 77 = skipped.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
FT=$ROOT/$BUILD/fabtrace
# the inline Python checks import check() and done() from tests/integration/checks.py
export PYTHONPATH=$ROOT/tests/integration${PYTHONPATH:+:$PYTHONPATH}
# shellcheck source=../../tools/lab.sh
source "$ROOT/tools/lab.sh"

failures=0
REC_PID=
LAB=
BUSY_PID=
TMPD=$(mktemp -d /tmp/fabtrace-it.XXXXXX)

skip() { echo "skip: $*"; exit 77; }
need_root() { [[ $(id -u) -eq 0 ]] || skip "needs root (CI runs it as root)"; }
need_cmd() { command -v "$1" >/dev/null || skip "needs $1 ('make deps' installs it)"; }
[[ -x $FT ]] || { echo "FAIL: $FT is not built (run make)"; exit 1; }

ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }
# check DESCRIPTION COMMAND...: pass when COMMAND succeeds
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}

cleanup() {
	busy_stop
	if [[ -n $REC_PID ]] && kill -0 "$REC_PID" 2>/dev/null; then
		kill -INT "$REC_PID" 2>/dev/null
		sleep 1
		kill -9 "$REC_PID" 2>/dev/null
		wait "$REC_PID" 2>/dev/null
	fi
	[[ -n $LAB ]] && lab_down "$LAB" >/dev/null 2>&1
	# FT_KEEP=DIR keeps the test's files (captures, reports) for a post-mortem;
	# FT_KEEP_FAILED=DIR keeps them in DIR/TEST only when a check failed
	# (tests/run.sh sets it, so that a failure a rerun does not repeat can still be read)
	local keep=${FT_KEEP:-}
	if [[ -z $keep && -n ${FT_KEEP_FAILED:-} ]] && ((failures)); then
		keep=$FT_KEEP_FAILED/$(basename "$0" .sh)
	fi
	if [[ -n $keep ]]; then
		mkdir -p "$keep" && cp -a "$TMPD/." "$keep/" && echo "kept files in $keep"
	fi
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# lab_start N [SHAPE...]: a fresh lab with a unique prefix in $LAB
# (LAB_TAG, e.g. ftD, replaces lab_prefix's ftL so a suite's labs are told apart)
lab_start() {
	LAB=$(lab_prefix)
	LAB=${LAB_TAG:-ftL}${LAB#ftL}
	lab_up "$LAB" "$@" || { echo "FAIL: lab up"; exit 1; }
}

# wait_recording ERR PID [SECONDS]: wait (10 s by default) until the recorder
# PID, whose stderr is ERR, says it records; 1 when it exits or says nothing by then
wait_recording() {
	local err=$1 pid=$2 i
	for ((i = 0; i < ${3:-10} * 10; i++)); do
		grep -q "recording to" "$err" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# start_record OUT [ARGS...]: fabtrace record in the background, return once it
# traces; its stdout (the --json summary) goes to $TMPD/record.out
start_record() {
	local out=$1
	shift
	# empty it here: the background child truncates it only once it runs, and
	# the previous recording's "recording to" would end the wait too early
	: >"$TMPD/record.err"
	"$FT" record -o "$out" "$@" >"$TMPD/record.out" 2>"$TMPD/record.err" &
	REC_PID=$!
	wait_recording "$TMPD/record.err" "$REC_PID" && return 0
	echo "FAIL: recorder did not start:"
	cat "$TMPD/record.err"
	exit 1
}

# stop_record [SIGNAL]: stop it and wait; its exit status in REC_RC
stop_record() {
	kill -"${1:-INT}" "$REC_PID" 2>/dev/null
	REC_RC=0
	wait "$REC_PID" || REC_RC=$?
	REC_PID=
}

# jget FILE EXPR: evaluate a Python expression over the JSON document `j`
jget() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# the lab interfaces as -i arguments: every host eth0 and every switch port
lab_iface_args() {
	local n i
	n=$(lab_hosts "$LAB")
	for ((i = 1; i <= n; i++)); do
		printf -- '-i %s/eth0 -i %s/p%s ' "$(lab_ns "$LAB" "$i")" "$(lab_sw "$LAB")" "$i"
	done
}

# A job in the background (BG=$!), killed on exit if it still runs.
BG=
bg_cleanup() {
	[[ -n $BG ]] && kill "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
	cleanup
}

# last_cpu: the highest-numbered CPU, where a test pins what must stay on one
last_cpu() { echo $(($(nproc) - 1)); }

# busy_start: a busy loop on one CPU beside the job (a neighbour taking a
# core, as on a shared host), pinned to the last CPU; cleanup ends it.
busy_start() {
	taskset -c "$(last_cpu)" bash -c 'while :; do :; done' &
	BUSY_PID=$!
}
busy_stop() {
	[[ -n $BUSY_PID ]] || return 0
	kill "$BUSY_PID" 2>/dev/null
	wait "$BUSY_PID" 2>/dev/null
	BUSY_PID=
}

finish() {
	if ((failures)); then
		echo "$failures check(s) failed"
		exit 1
	fi
	exit 0
}

# bpf_link_ids: the ids of the BPF links there are now
bpf_link_ids() {
	bpftool -j link list 2>/dev/null | python3 -c 'import json, sys; print(" ".join(str(l["id"]) for l in json.load(sys.stdin)))'
}

# bpf_orphan_links BEFORE_IDS...: how many links not in BEFORE_IDS no process
# holds: left behind.  Links another tracer on this machine holds meanwhile
# (its fds' fdinfo names them) are not ours and do not count.
bpf_orphan_links() {
	python3 - "$@" <<'PY'
import glob, json, re, subprocess, sys
before = set(sys.argv[1:])
links = json.loads(subprocess.run(["bpftool", "-j", "link", "list"], capture_output=True, text=True).stdout or "[]")
held = set()
for p in glob.glob("/proc/[0-9]*/fdinfo/*"):
    try:
        m = re.search(r"^link_id:\s*(\d+)", open(p).read(), re.M)
    except OSError:
        continue
    if m:
        held.add(m.group(1))
print(sum(1 for l in links if str(l["id"]) not in before and str(l["id"]) not in held))
PY
}

# quiet CMD...: run CMD with its output discarded (for check)
quiet() { "$@" >/dev/null 2>&1; }

# skipped JSON PROBE: probe runs the kernel skipped for that hook (coverage), 0 if unknown
skipped() {
	jget "$1" "sum(c['skipped'] or 0 for c in j['lost']['coverage'] if c['probe']=='$2')"
}
