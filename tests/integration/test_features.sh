#!/usr/bin/env bash
# `fabtrace features` tries every probe on this kernel and says which variant
# `record` will use; restricting the variants shows the fallbacks work and
# that "nothing works" is a clear error, not a crash.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
"$FT" features --json >"$TMPD/f.json" || bad "features --json exit status"
n=$(jget "$TMPD/f.json" "sum(p['works'] for p in j['probes'])")
check "every probe works here ($n of 8)" test "$n" = 8
check "a working probe has no 'why'" test "$(jget "$TMPD/f.json" \
	"[p['name'] for p in j['probes'] if p['works'] and 'why' in p]")" = "[]"
TCX="('iface_rx', 'iface_tx', 'tcp_sample')"
check "tp_btf preferred" test "$(jget "$TMPD/f.json" \
	"sorted(set(p['variant'] for p in j['probes'] if p['name'] not in $TCX))")" = "['tp_btf']"
# iface_rx, iface_tx and tcp_sample: tcx programs on the -i interfaces where the
# kernel has tcx (6.6+), and the tracepoint without -i
# (iface_tx in the full profile only where no qdisc may let packets bypass
# its dequeue: test_tx_hook)
for probe in iface_rx iface_tx tcp_sample; do
	v=$(jget "$TMPD/f.json" "[(p['variant'], p.get('note', '')) for p in j['probes'] if p['name'] == '$probe'][0]")
	note="on the -i interfaces only; without -i: tp_btf"
	[[ $probe == iface_tx ]] && note="on the -i interfaces only (full profile: if no qdisc there may bypass); without -i: tp_btf"
	check "$probe: tcx with -i, else tp_btf ($v)" test "$v" = "('tcx', '$note')" -o "$v" = "('tp_btf', '')"
done
FABTRACE_VARIANTS=raw_tp "$FT" features --json >"$TMPD/r.json" || bad "raw_tp features"
check "raw_tp fallbacks all load and attach" \
	test "$(jget "$TMPD/r.json" "sorted(set(p.get('variant') for p in j['probes']))")" = "['raw_tp']"
# skipped probe runs: whether the kernel counts them is tried (a recursing test
# program), not read from the kernel's version
cov=$(jget "$TMPD/f.json" "(j['coverage']['kernel_counts_skipped_runs'], j['coverage']['auto_mode'])")
check "coverage: auto mode follows the kernel's answer ($cov)" \
	test "$cov" = "(True, 'kernel')" -o "$cov" = "(False, 'counters')" -o "$cov" = "(False, 'pid1')"
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "'init_owned'"; then
	# this VM's patched kernel counts recursions but skips PID 1's runs
	# uncounted: auto adds the hits in PID 1's threads (test_drops_retrans
	# compares them with the per-CPU counters)
	why=$(jget "$TMPD/f.json" "j['coverage'].get('why', '')")
	check "coverage: the recursion was counted, the PID 1 patch seen ($why)" \
		test "$cov" = "(False, 'pid1')" -a "${why#it counts recursions, but}" != "$why"
	# in a PID namespace of its own, /proc/1 is not the kernel's PID 1: counters
	if command -v unshare >/dev/null; then
		pcov=$(unshare --pid --fork --mount-proc "$FT" features --json |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["coverage"]["auto_mode"])')
		check "coverage: in a PID namespace of its own, auto falls back to counters ($pcov)" \
			test "$pcov" = counters
	fi
fi
rc=0
"$FT" record --coverage nonsense -d 1s -o "$TMPD/bad.ftr" 2>"$TMPD/err" || rc=$?
check "a bad --coverage mode is a usage error naming the modes ($(cat "$TMPD/err"))" \
	test "$rc" = 2 -a "$(grep -c 'auto, kernel, pid1 or counters' "$TMPD/err")" = 1 -a ! -e "$TMPD/bad.ftr"
"$FT" features >"$TMPD/f.txt"
check "text output says how skipped runs are counted" grep -q "^Skipped probe runs:" "$TMPD/f.txt"
check "text output names every tracepoint" grep -q "tcp_retransmit_skb" "$TMPD/f.txt"
rc=0
FABTRACE_VARIANTS=none "$FT" features --json >"$TMPD/n.json" || rc=$?
check "no usable variant: exit 1 ($rc)" test "$rc" = 1
check "no usable variant: each probe says why" \
	test "$(jget "$TMPD/n.json" "all(p['why'] for p in j['probes'])")" = True
rc=0
FABTRACE_VARIANTS=none "$FT" record -i lo -d 1s -o "$TMPD/none.ftr" 2>"$TMPD/err" || rc=$?
check "record without any probe fails cleanly ($(cat "$TMPD/err"))" \
	test "$rc" = 1 -a "$(wc -l <"$TMPD/err")" = 1 -a ! -e "$TMPD/none.ftr"
finish
