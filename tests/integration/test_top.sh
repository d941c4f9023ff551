#!/usr/bin/env bash
# fabtrace top, driven in a terminal (a private tmux server) in the lab.
# Host 2's link is shaped by tbf to 100 Mbit/s with a 30 kB queue and MPI
# all-reduces run on hosts 1-3; host 4 stays idle.  The screen must show
# host 2's interface near the shaped rate with a bin peak above it, bursts
# and a queue, the ranks with their all-reduces, and nothing on host 4.  A
# resize changes the layout; keys sort, filter and show the help; q, Ctrl-C
# and a crash (SIGSEGV) all leave the terminal as it was (main screen back,
# icanon and echo on).  Then `top --once --json` and `top --json -n 3
# --record` run during a steady TCP stream into host 2 and every snapshot's
# bytes are checked against eth0's kernel counters over the same period.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd tmux
need_cmd mpiexec.mpich
need_cmd python3
LAB_TAG=ftD

# bad usage: one line, non-zero, before any probe is loaded
bad_use() { # DESC EXIT PATTERN ARGS...: 2 for usage, 1 for what the setting lacks
	local d=$1 want=$2 pat=$3 rc=0
	shift 3
	"$FT" top "$@" </dev/null >"$TMPD/bu.out" 2>"$TMPD/bu.err" || rc=$?
	check "$d ($(cat "$TMPD/bu.err" "$TMPD/bu.out"))" \
		test "$rc" -eq "$want" -a "$(cat "$TMPD/bu.err" "$TMPD/bu.out" | wc -l)" = 1 -a "$(grep -cE -- "$pat" "$TMPD/bu.err" "$TMPD/bu.out" | awk -F: '{s+=$2} END {print s}')" = 1
}
bad_use "no terminal: says what to use" 1 'needs a terminal; use --once or --json'
bad_use "-n without --json/--once" 2 '-n counts --json or --once' -n 3
bad_use "a command is not top's job" 2 "unexpected argument 'sleep'" --once sleep 1
bad_use "bad refresh" 2 "top: --refresh '10ms': not an interval from 100ms to 1h" --once -r 10ms
bad_use "--headless prints nothing" 2 'drop --json' --headless --json
bad_use "--headless alone does nothing" 2 'add --listen ADDR:PORT' --headless
bad_use "a bad --listen port, said before the terminal" 2 "bad --listen port" --listen 127.0.0.1:99999
bad_use "JSON errors stay JSON" 2 '^\{"error":"top: --sort .nope.: not a sort key' --json --sort nope
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$FT" top --once >/dev/null 2>"$TMPD/np.err" || rc=$?
check "not root: missing privileges named ($(cat "$TMPD/np.err"))" \
	test "$rc" = 1 -a "$(grep -c 'missing privileges: CAP_BPF' "$TMPD/np.err")" = 1

lab_start 4 "h2=100mbit:limit=30kb"
H2=$(lab_ns "$LAB" 2) H4=$(lab_ns "$LAB" 4) SW=$(lab_sw "$LAB")
TS=$TMPD/tmux.sock        # the private tmux server (its socket goes with TMPD)
P=top
BG=()                     # background jobs to stop

pane_shell() { tmux -S "$TS" display-message -p -t "$P" '#{pane_pid}' 2>/dev/null; }
# fabtrace processes started in the pane: the pane shell's children
pane_children() { local s; s=$(pane_shell) && [[ -n $s ]] && pgrep -P "$s"; }
top_cleanup() {
	local pids p i
	pids=$(pane_children 2>/dev/null)
	for p in $pids; do kill -TERM "$p" 2>/dev/null; done
	for ((i = 0; i < 30; i++)); do
		local alive=0
		for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
		((alive)) || break
		sleep 0.1
	done
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	tmux -S "$TS" kill-server 2>/dev/null
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null; done
	cleanup
}
trap top_cleanup EXIT

cap() { tmux -S "$TS" capture-pane -p -t "$P"; }
keys() { tmux -S "$TS" send-keys -t "$P" "$@"; }
# wait_pane REGEX SECONDS: until the visible pane matches
wait_pane() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		cap | grep -qE -- "$1" && return 0
		sleep 0.2
	done
	return 1
}
# stty_sane TAG: the terminal in the pane has icanon and echo on again
stty_sane() {
	local f=$TMPD/stty.$1
	keys "stty -a > $f; echo STTY-DONE-$1" Enter
	wait_pane "^STTY-DONE-$1\$" 10 || { bad "$1: stty in the pane did not run"; return; }
	check "$1: terminal back in canonical mode with echo ($(grep -oE -- '-?icanon|-?echo ' "$f" | tr '\n' ' '))" \
		grep -qE '(^| )icanon( |$)' "$f"
	check "$1: echo on" grep -qE '(^| )echo( |$)' "$f"
}

# The parser of a captured screen: the interface table, the processes, the layout.
cat >"$TMPD/screen.py" <<'PY'
import json, re, sys
TITLES = ["INTERFACE", "RX b/s", "TX b/s", "PEAKBIN", "UTIL%", "BURST/s", "BACKLOG", "SOJOURN",
          "DROP/s", "RETX/s", "CE/s", "PAUSE/s", "CNP/s", "PEAKMAX", "BKLGMAX", "HISTORY"]
def num(v):
    if v in ("-", None):
        return None
    m = re.fullmatch(r"([0-9.]+)([kMGTP]?)", v)
    if not m:
        return v
    return float(m.group(1)) * 1000 ** " kMGTP".index(m.group(2) or " ")
lines = open(sys.argv[1]).read().split("\n")
while lines and lines[-1] == "":
    lines.pop()
out = {"nlines": len(lines), "maxlen": max((len(l) for l in lines), default=0), "rows": {},
       "procs": [], "title": lines[0] if lines else "", "summary": lines[1] if len(lines) > 1 else "",
       "footer": lines[-1] if lines else "", "slowest": None, "header": []}
hi = next((i for i, l in enumerate(lines) if l.startswith("INTERFACE")), None)
if hi is not None:
    cols = [t for t in TITLES if t in lines[hi]]
    out["header"] = cols
    for l in lines[hi + 1:]:
        if not l.strip() or l.startswith(("drops/s:", "...", "(")):
            break
        tok = l.split()
        vals = {c: (num(tok[k]) if c != "INTERFACE" else tok[k])
                for k, c in enumerate(c for c in cols if c != "HISTORY") if k < len(tok)}
        out["rows"][tok[0]] = vals
pi = next((i for i, l in enumerate(lines) if l.startswith("PID") and "RANK" in l), None)
if pi is not None:
    for l in lines[pi + 1:]:
        if l.startswith("slowest rank:"):
            out["slowest"] = l
            break
        tok = l.split()
        if len(tok) >= 5:
            out["procs"].append({"pid": tok[0], "rank": tok[1], "netns": tok[2], "comm": tok[3], "op": tok[4]})
print(json.dumps(out))
PY
# screen FILE EXPR: evaluate EXPR over the parsed screen `s`
screen() { python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$(python3 "$TMPD/screen.py" "$1")" "$2"; }
between() { python3 -c "import sys; v,lo,hi=map(float,sys.argv[1:]); sys.exit(0 if lo<=v<=hi else 1)" "$@"; }

# ---- the live view -------------------------------------------------------
tmux -S "$TS" -f /dev/null new-session -d -s "$P" -x 200 -y 50 \
	env -i PATH="$PATH" HOME="$TMPD" TERM=xterm-256color LANG=C.UTF-8 PS1='ftD$ ' bash --norc --noprofile ||
	{ bad "tmux session"; finish; }
tmux -S "$TS" set-option -g window-size manual >/dev/null 2>&1
keys "ulimit -c 0; echo BEFORE-TOP; $FT top --filter $LAB; echo TOP-EXIT=\$?" Enter
wait_pane '^INTERFACE ' 90 || { bad "top did not draw its screen: $(cap | head -20)"; finish; }
ok "top draws its screen"

lab_mpi "$LAB" --ranks 3 --bytes 1m --iters 100 --timeout 150 >"$TMPD/mpi.out" 2>&1 &
BG+=($!)
# the busiest frame within 40 s: host 2 moving data through its queue, the ranks at work
best=$TMPD/busy.txt maxtx=0
for ((i = 0; i < 40; i++)); do
	sleep 1
	cap >"$TMPD/frame.txt"
	tx=$(screen "$TMPD/frame.txt" "(s['rows'].get('eth0@$H2') or {}).get('TX b/s') or 0")
	if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "$tx" "$maxtx"; then
		maxtx=$tx
		cp "$TMPD/frame.txt" "$best"
	fi
	((i >= 8)) && [[ -s $best ]] && screen "$best" "len(s['procs'])" | grep -q '^[3-9]' && break
done
[[ -s $best ]] || { bad "no frame with traffic on eth0@$H2: $(cat "$TMPD/frame.txt")"; finish; }
echo "--- busiest frame"; cat "$best"; echo "---"
row() { screen "$best" "s['rows']['$1']['$2']"; }
check "eth0@$H2 busy, within the shaped 100 Mbit/s ($(row "eth0@$H2" 'TX b/s') b/s)" \
	between "$(row "eth0@$H2" 'TX b/s')" 20e6 105e6
u=$(python3 -c 'import sys; print(float(sys.argv[1]) / 1e6)' "$(row "eth0@$H2" 'TX b/s')")
check "its utilisation is against the tbf rate ($(row "eth0@$H2" UTIL%) % for $u Mbit/s)" \
	between "$(row "eth0@$H2" UTIL%)" "$(python3 -c "print($u - 1.5)")" "$(python3 -c "print($u + 1.5)")"
check "its bin peak is above the shaped rate ($(row "eth0@$H2" PEAKBIN) b/s)" \
	between "$(row "eth0@$H2" PEAKBIN)" 100e6 1e12
check "bursts on eth0@$H2 ($(row "eth0@$H2" BURST/s)/s)" between "$(row "eth0@$H2" BURST/s)" 1 1e9
check "its tbf queue: backlog $(row "eth0@$H2" BACKLOG) B within the 30 kB limit" \
	between "$(row "eth0@$H2" BACKLOG)" 1 32000
check "the downlink p2@$SW queues too ($(row "p2@$SW" BACKLOG) B)" between "$(row "p2@$SW" BACKLOG)" 1 32000
check "sojourn shown ($(row "eth0@$H2" SOJOURN))" test "$(row "eth0@$H2" SOJOURN)" != None
for c in 'RX b/s' 'TX b/s'; do
	check "idle host 4: $c $(row "eth0@$H4" "$c")" between "$(row "eth0@$H4" "$c")" 0 20000
done
check "idle host 4: no bursts" test "$(row "eth0@$H4" BURST/s)" = 0.0
check "idle host 4: no queue" test "$(row "eth0@$H4" BACKLOG)" = None
check "lost events shown ($(screen "$best" "s['summary']"))" grep -q 'lost 0 (+0)' <(screen "$best" "s['summary']")
check "the 3 ranks with their all-reduces" test "$(screen "$best" \
	"sorted(p['rank'] for p in s['procs'] if p['op'] == 'allreduce' and p['comm'] == 'allreduce')")" = "['0', '1', '2']"
check "the slowest rank line" test "$(screen "$best" "s['slowest'] is not None")" = True
check "wide screen: every column and the sparkline ($(screen "$best" "len(s['header'])") columns)" \
	test "$(screen "$best" "'HISTORY' in s['header'] and 'PAUSE/s' in s['header']")" = True
check "nothing wider than the screen ($(screen "$best" "s['maxlen']"))" between "$(screen "$best" "s['maxlen']")" 100 200

# resize: fewer columns and rows, the least important columns go first
tmux -S "$TS" resize-window -t "$P" -x 80 -y 24
sleep 1.5
cap >"$TMPD/small.txt"
echo "--- 80x24"; cat "$TMPD/small.txt"; echo "---"
check "80x24: no line over 80 columns ($(screen "$TMPD/small.txt" "s['maxlen']"))" \
	between "$(screen "$TMPD/small.txt" "s['maxlen']")" 40 80
check "80x24: 24 rows, the key line last" test "$(screen "$TMPD/small.txt" "s['nlines'] == 24 and 'q quit' in s['footer']")" = True
check "80x24: the rate columns kept, the sparkline and counter columns dropped" test "$(screen "$TMPD/small.txt" \
	"'TX b/s' in s['header'] and 'BURST/s' in s['header'] and 'HISTORY' not in s['header'] and 'PAUSE/s' not in s['header']")" = True
check "80x24: host 2 still listed" test "$(screen "$TMPD/small.txt" "'eth0@$H2' in s['rows']")" = True
tmux -S "$TS" resize-window -t "$P" -x 200 -y 50
sleep 1.5
cap >"$TMPD/big.txt"
check "200x50 again: the sparkline is back" test "$(screen "$TMPD/big.txt" "'HISTORY' in s['header']")" = True

# keys: sort, filter, help
keys s
wait_pane 'sort peak' 5
check "s: sorted by peak" test "$(cap | head -1 | grep -c 'sort peak')" = 1
# keys that arrive in one read each count (a paste, key repeat): peak -> bursts -> backlog
keys -l ss
wait_pane 'sort backlog' 5
check "ss in one write: two steps, sorted by backlog ($(cap | head -1 | grep -o 'sort [a-z]*'))" \
	test "$(cap | head -1 | grep -c 'sort backlog')" = 1
keys -l SS
wait_pane 'sort peak' 5
keys /
wait_pane '^filter: ' 5
keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace "$H4" Enter
sleep 1
cap >"$TMPD/filtered.txt"
check "/: only host 4's interfaces ($(screen "$TMPD/filtered.txt" "sorted(s['rows'])"))" test "$(screen "$TMPD/filtered.txt" \
	"len(s['rows']) > 0 and all('$H4' in r for r in s['rows'])")" = True
keys h
wait_pane 'fabtrace top - keys' 5
check "h: the help" test "$(cap | grep -c 'fabtrace top - keys')" = 1
keys x
sleep 0.5

# q: exit 0, main screen and terminal modes back
keys q
wait_pane '^TOP-EXIT=' 30 || bad "q: top did not exit"
cap >"$TMPD/after.txt"
check "q: exit status 0 ($(grep '^TOP-EXIT=' "$TMPD/after.txt"))" grep -q '^TOP-EXIT=0$' "$TMPD/after.txt"
check "q: the main screen is back (the shell's earlier output, no table)" \
	test "$(grep -c '^BEFORE-TOP$' "$TMPD/after.txt")" = 1 -a "$(grep -c '^INTERFACE ' "$TMPD/after.txt")" = 0
stty_sane q

# Ctrl-C: a clean stop too
keys "clear; $FT top --no-phases --filter $LAB; echo TOP2-EXIT=\$?" Enter
if wait_pane '^INTERFACE ' 60; then
	keys C-c
	wait_pane '^TOP2-EXIT=' 30 || bad "Ctrl-C: top did not exit"
	check "Ctrl-C: exit status 0" grep -q '^TOP2-EXIT=0$' <(cap)
	check "Ctrl-C: the main screen is back" test "$(cap | grep -c '^INTERFACE ')" = 0
	stty_sane ctrl-c
else
	bad "Ctrl-C run: no screen"
fi

# a crash: the handler restores the terminal, then the signal kills it as usual
keys "clear; $FT top --no-phases --filter $LAB; echo TOP3-EXIT=\$?" Enter
if wait_pane '^INTERFACE ' 60; then
	pid=$(pane_children)
	kill -SEGV "$pid"
	wait_pane '^TOP3-EXIT=' 30 || bad "SIGSEGV: top did not die"
	check "SIGSEGV: died of it (status 139)" grep -q '^TOP3-EXIT=139$' <(cap)
	check "SIGSEGV: the main screen is back" test "$(cap | grep -c '^INTERFACE ')" = 0
	stty_sane segv
else
	bad "crash run: no screen"
fi
tmux -S "$TS" kill-server 2>/dev/null
for p in "${BG[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
BG=()

# ---- snapshots against the kernel's counters -------------------------------
# A steady stream h1 -> h2 (tbf 100 Mbit/s), eth0@h2's counters sampled every
# 20 ms (CLOCK_MONOTONIC, as the snapshots' ts_ns) from inside its namespace,
# each at the middle of its two reads.
lab_exec "$LAB" 2 "$LAB_BIN/incast" sink --port 5001 --duration 40 >/dev/null 2>&1 &
BG+=($!)
sleep 0.3
lab_exec "$LAB" 1 "$LAB_BIN/incast" send --to "$(lab_addr 2):5001" --bytes 400m --conns 1 >/dev/null 2>&1 &
BG+=($!)
ip netns exec "$H2" python3 - "$TMPD/ctr.txt" 35 <<'PY' &
import sys, time
out = open(sys.argv[1], "w")
end = time.monotonic() + float(sys.argv[2])
base = "/sys/class/net/eth0/statistics/"
while time.monotonic() < end:
    t0 = time.monotonic_ns()
    rx = int(open(base + "rx_bytes").read())
    tx = int(open(base + "tx_bytes").read())
    t1 = time.monotonic_ns()
    # a sample whose reads were preempted (a loaded 2-core VM, ASan) has no
    # one time: 10 ms off is 1 % of a 1 s period at 100 Mbit/s; keep only tight ones
    if t1 - t0 < 1_000_000:
        out.write(f"{(t0 + t1) // 2} {rx} {tx}\n")
        out.flush()
    time.sleep(0.02)
PY
BG+=($!)
sleep 2
"$FT" top --once --json -i "$H2/eth0" --no-phases >"$TMPD/once.json" 2>"$TMPD/once.err"
_rc=$?
check "top --once --json exits 0 ($(tail -n1 "$TMPD/once.err"))" test "$_rc" = 0
"$FT" top --json -n 3 -i "$H2/eth0" --no-phases --record "$TMPD/top.ftr" >"$TMPD/stream.json" 2>"$TMPD/stream.err"
_rc=$?
check "top --json -n 3 --record exits 0 ($(tail -n1 "$TMPD/stream.err"))" test "$_rc" = 0
# -d a whole number of periods: every period, the last one too (its refresh came with the stop)
n=$("$FT" top --json -n 0 -r 1s -d 3s -i "$H2/eth0" --no-phases 2>/dev/null | wc -l)
check "top --json -r 1s -d 3s: 3 snapshots ($n)" test "$n" = 3
# a reader that has had enough (| head -1) ends it quietly, as it does other tools: not an error
"$FT" top --json -n 0 -r 200ms -i "$H2/eth0" --no-phases 2>"$TMPD/head.err" | head -n 1 >"$TMPD/head.json"
_rc=${PIPESTATUS[0]}
check "top --json | head -1: exits 0, no error ($_rc: $(grep -i 'error\|standard output' "$TMPD/head.err" | head -c 200))" \
	test "$_rc" = 0 -a -z "$(grep -i 'error\|standard output' "$TMPD/head.err")"
check "  and the line it printed is a snapshot" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMPD/head.json"
sleep 0.5
python3 - "$TMPD/ctr.txt" "$TMPD/once.json" "$TMPD/stream.json" "eth0@$H2" <<'PY' || bad "snapshots against the interface counters (see above)"
import bisect, json, sys
from checks import check, done
pts = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 3]
ts = [p[0] for p in pts]
def at(t, k):  # the counter at time t, linear between samples
    i = bisect.bisect_left(ts, t)
    if i == 0 or i >= len(pts):
        raise SystemExit(f"FAIL no counter samples around {t}")
    (t0, *a), (t1, *b) = pts[i - 1], pts[i]
    return a[k] + (b[k] - a[k]) * (t - t0) / (t1 - t0)
snaps = [json.loads(l) for l in open(sys.argv[2])] + [json.loads(l) for l in open(sys.argv[3])]
print(f"{len(snaps)} snapshots")
check(len(snaps) == 4, "1 + 3 snapshots")
for n, s in enumerate(snaps):
    f = [i for i in s["interfaces"] if i["label"] == sys.argv[4]]
    if not check(len(f) == 1, f"snapshot {n}: {sys.argv[4]} there"):
        continue
    f = f[0]
    end, start = s["ts_ns"], s["ts_ns"] - s["period_ns"]
    for k, d in enumerate(("rx", "tx")):
        want = at(end, k) - at(start, k)
        got = f[d]["bytes"]
        tol = 0.01 * want + 20000
        # runs the kernel skipped (this VM's kernel does, docs/known-issues.md) are
        # missing bytes, counted and shown by top: a shortfall of up to a frame each
        sk = (s["skipped"]["iface_" + d] or {"period": 0})["period"]
        check(-tol - sk * 1514 <= got - want <= tol and (d == "tx" or want > 5e6),
              f"snapshot {n} {d}: {got} B in {s['period_ns'] / 1e9:.3f} s, "
              f"counters {want:.0f} B (tolerance {tol:.0f}, {sk} runs skipped by the kernel)")
    rate = f["rx"]["bytes"] * 8e9 / s["period_ns"]
    check(abs(f["rx"]["rate_bps"] - rate) <= 1 + 1e-6 * rate and 60e6 <= rate <= 105e6,
          f"snapshot {n}: rx rate {f['rx']['rate_bps']:.0f} b/s, near the shaped 100 Mbit/s")
    check(f["rx"]["peak_bps"] >= f["rx"]["rate_bps"] and f["tx"]["capacity_bps"] == 1e8 and s["lost"]["total"] == 0,
          f"snapshot {n}: peak {f['rx']['peak_bps']:.0f} >= rate, capacity, no loss")
periods = [s["period"] for s in snaps[1:]]
check(periods == sorted(periods) and len(set(periods)) == 3, f"the stream's periods count up: {periods}")
done()
PY
check "--record wrote a valid capture" "$FT" info "$TMPD/top.ftr"
"$FT" report --json "$TMPD/top.ftr" >"$TMPD/rep.json" 2>/dev/null || bad "report on top's capture"
rb=$(jget "$TMPD/rep.json" "[i['rx']['total_bytes'] for i in j['interfaces'] if i['interface']=='eth0@$H2'][0]")
sb=$(python3 -c 'import json,sys; print(sum([i for i in json.loads(l)["interfaces"] if i["label"]==sys.argv[2]][0]["rx"]["bytes"] for l in open(sys.argv[1])))' "$TMPD/stream.json" "eth0@$H2")
check "the capture has at least what the snapshots showed ($rb >= $sb bytes)" test "$rb" -ge "$sb"
for p in "${BG[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
BG=()

# SIGUSR1 (meant for a flight recorder) does not end top --record without its capture's end
"$FT" top --json --no-phases -i "$H2/eth0" --record "$TMPD/usr1.ftr" -d 3s >/dev/null 2>"$TMPD/usr1.err" &
pid=$!
for ((i = 0; i < 200; i++)); do [[ -s $TMPD/usr1.ftr ]] && break; sleep 0.05; done
sleep 0.5
kill -USR1 "$pid"
_rc=0
wait "$pid" || _rc=$?
check "top --record goes on after SIGUSR1, exits 0 ($_rc), and says why" \
	test "$_rc" = 0 -a -n "$(grep 'SIGUSR1 ignored' "$TMPD/usr1.err")"
check "  its capture is complete" test "$("$FT" info --json "$TMPD/usr1.ftr" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" = complete

# top started beside a running MPICH job: its ranks' probes attach at
# different moments, so their collective numbers differ by one, and matched
# as counted the slowest rank came out as whichever counted later.  Rank 1
# enters every all-reduce 30 ms late; top must name it.
lab_mpi "$LAB" --ranks 3 --bytes 64k --iters 400 --delay 1:30000 --timeout 150 >"$TMPD/mpi2.out" 2>&1 &
mpi=$!
BG+=("$mpi")
sleep 2
"$FT" top --json -n 3 -r 1s --filter "$LAB" >"$TMPD/late.json" 2>"$TMPD/late.err"
_rc=$?
check "top --json beside a running job exits 0 ($(tail -n1 "$TMPD/late.err"))" test "$_rc" = 0
kill "$mpi" 2>/dev/null; wait "$mpi" 2>/dev/null
BG=()
python3 - "$TMPD/late.json" <<'PY' || bad "the slowest rank of a job top joined mid-run"
import json, sys
from checks import check, done
snaps = [json.loads(l) for l in open(sys.argv[1])]
got = [(s["slowest_rank"] or {}).get("rank") for s in snaps]
late = [sorted(((p["rank"], p["late"]) for p in s["processes"] if p["last_op"] == "allreduce"), key=str) for s in snaps]
check(len(snaps) == 3 and got.count(1) >= 2, f"rank 1 (30 ms late on every call) is the slowest: {got}; late per rank {late}")
done()
PY
finish
