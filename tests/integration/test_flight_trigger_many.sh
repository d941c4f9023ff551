#!/usr/bin/env bash
# Every rank of a failing job may call `fabtrace trigger --wait` at once.
# The recorder serves 256 trigger commands at a time; it refused the 17th
# and later with "busy" (at 16), and those triggers were recorded nowhere.
# 80 at once, each waiting for the snapshot: every one exits 0 with the
# snapshot saved, the recorder counts 80 triggers, and one snapshot holds
# them all (one opened it, the others extended or joined it), in the
# --snapshot-dir given with %h, expanded as -o's is.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
N=80
CTL="ftM$$"
D=$TMPD/ring
mkdir "$D" "$TMPD/snaps-$(hostname)"
"$FT" record -q --json --no-phases -i lo --switch-output 1s --snapshot-pre 1s --snapshot-post 2s \
	--snapshot-dir "$TMPD/snaps-%h" --control "$CTL" -o "$D" >"$TMPD/rec.json" 2>"$TMPD/rec.err" &
REC_PID=$!
for ((i = 0; i < 100; i++)); do
	[[ -n $(find "$D" -name 'seg-*.part') ]] && break
	sleep 0.05
done
sleep 1 # a pre-window
# the recorder's sockets, sampled while the triggers wait: all N held at once
# (its loop watched 64 descriptors in all: from about the 61st on, a command
# was closed unanswered and asked again every 50 ms until earlier waiters
# were answered, 2 s later, and some came after their snapshot had closed)
socks() { find /proc/"$REC_PID"/fd -lname 'socket:*' 2>/dev/null | wc -l; }
base=$(socks)
(
	max=0
	while kill -0 "$REC_PID" 2>/dev/null && [[ ! -e $TMPD/sampled ]]; do
		n=$(socks)
		((n > max)) && max=$n && echo "$max" >"$TMPD/max_socks"
		sleep 0.05
	done
) &
SAMPLER=$!
pids=()
for ((k = 1; k <= N; k++)); do
	"$FT" trigger --control "$CTL" --reason "rank $k" --wait --json >"$TMPD/t$k.json" 2>"$TMPD/t$k.err" &
	pids+=($!)
done
fails=0 busy=0
for ((k = 1; k <= N; k++)); do
	wait "${pids[k - 1]}" || fails=$((fails + 1))
	grep -q busy "$TMPD/t$k.err" && busy=$((busy + 1))
done
touch "$TMPD/sampled"
wait "$SAMPLER"
check "$N trigger --wait at once: every one exits 0 ($fails failed, $busy said busy)" test "$fails" = 0 -a "$busy" = 0
held=$(($(cat "$TMPD/max_socks" 2>/dev/null || echo "$base") - base))
check "  the recorder held all $N connections at once, none turned away to ask again ($held at most)" \
	test "$held" -ge "$N"
saved=$(cat "$TMPD"/t*.json | python3 -c '
import sys
from checks import json_docs
print(len({j["file"] for j in json_docs(sys.stdin.read()) if j.get("saved")}))')
check "  all of them in one snapshot ($saved files)" test "$saved" = 1
check "  in --snapshot-dir with %h expanded ($(find "$TMPD/snaps-$(hostname)" -name 'snap-*.ftr' -printf '%f '))" \
	test "$(find "$TMPD/snaps-$(hostname)" -name 'snap-*.ftr' | wc -l)" = 1
kill -INT "$REC_PID"
rc=0
wait "$REC_PID" || rc=$?
REC_PID=
check "the recorder exits 0 ($rc: $(tail -n 1 "$TMPD/rec.err"))" test "$rc" = 0
check "  and counts the $N triggers ($(jget "$TMPD/rec.json" 'j["flight"]["triggers"]'))" \
	test "$(jget "$TMPD/rec.json" 'j["flight"]["triggers"]')" = "$N"
finish
