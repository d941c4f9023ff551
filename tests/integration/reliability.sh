# shellcheck shell=bash
# Shared by the reliability tests (test_kill, test_faults, test_load); sourced
# after lib.sh.  Leak checks that cannot be fooled by the other fabtrace
# recorders that may run on the machine at the same time: a recorder's own
# BPF objects are read from its /proc/PID/fdinfo while it runs, and every
# object with one of our names that appeared after a baseline and that no
# live process holds is a leak.  See reliability.py.
REL_PY=$ROOT/tests/integration/reliability.py
rel() { python3 "$REL_PY" "$@"; }

# The eval'd helpers below assign shell variables (shellcheck cannot see them:
# the tests disable SC2154)
# eval "$(rel leaks OWNED BASE NEWBASE)": left= (objects of OWNED that still
# exist) and orphans= (leaked objects with our names newer than BASE), polled
# for up to 5 s until both are empty; NEWBASE gets the baseline for the next round
# eval "$(rel owned PID FILE)": what PID holds now into FILE; own= own_unknown= ...
# eval "$(rel capvars CAPTURE INFO.json REPORT.json)": cc_* in_* rp_* (see reliability.py)

# rel_us: wall clock in microseconds; rel_secs_since US: seconds since, "1.234"
rel_us() { echo "${EPOCHREALTIME/./}"; }
rel_secs_since() { local d=$(($(rel_us) - $1)); printf '%d.%03d\n' $((d / 1000000)) $((d % 1000000 / 1000)); }
# rel_ms_to_s MS: "1.234"
rel_ms_to_s() { printf '%d.%03d\n' $(($1 / 1000)) $(($1 % 1000)); }

# Namespaces of this test's lab (and the root namespace, "")
rel_lab_ns() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${LAB}(sw|h[0-9]+)$" | sort; }

# rel_netstate: every qdisc, tc filter (ingress/egress) and BPF net attachment
# (xdp, tc, tcx) in the root namespace and in the lab's namespaces
rel_netstate() {
	local ns dev n
	for ns in "" $(rel_lab_ns); do
		n=()
		[[ -n $ns ]] && n=(-n "$ns")
		echo "== ns ${ns:-root}"
		tc "${n[@]}" qdisc show 2>&1
		for dev in $(ip "${n[@]}" -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
			tc "${n[@]}" filter show dev "$dev" ingress 2>/dev/null | sed "s/^/$dev ingress: /"
			tc "${n[@]}" filter show dev "$dev" egress 2>/dev/null | sed "s/^/$dev egress: /"
		done
		if [[ -n $ns ]]; then
			ip netns exec "$ns" bpftool net show 2>&1
		else
			bpftool net show 2>&1
		fi
	done
}

# rel_mounts: mounts a tracer could leave behind (bpffs, tracefs, debugfs, nsfs)
# and any mount naming this lab or under this test's directory; bpffs pins
rel_mounts() {
	awk -v lab="$LAB" -v tmpd="$TMPD" '{
		for (i = 7; i < NF; i++) if ($i == "-") break
		fs = $(i + 1)
		if ((fs ~ /^(bpf|tracefs|debugfs|nsfs)$/ && $5 !~ /^\/run\/netns\//) || index($5, lab) || index($5, tmpd) == 1)
			print fs, $5
	}' /proc/self/mountinfo | sort
	ip netns list 2>/dev/null | awk '{print "netns", $1}' | grep -F "$LAB" | sort
	find /sys/fs/bpf -mindepth 1 2>/dev/null | sed 's/^/pin /' | sort
}

# rel_uprobe_events: uprobes made through tracefs (fabtrace uses none; none may appear)
rel_uprobe_events() {
	local f
	for f in /sys/kernel/tracing/uprobe_events /sys/kernel/debug/tracing/uprobe_events; do
		[[ -r $f ]] && { cat "$f"; return 0; }
	done
	echo "(no tracefs)"
}

# rel_mpi_job RC OUT ERR: how an MPI job of tools/allreduce ended: "ok" (exit 0,
# results verified, nothing else printed) or "failed: ...".  (Hydra's
# "Hangup (signal 1)" for ranks that exited 0 was its race on PMI sockets
# closed by _exit(); tools/allreduce now sends PMI's finalize first.)
rel_mpi_job() {
	local rc=$1 out=$2 err=$3 other
	other=$(grep -v '^{' "$out" 2>/dev/null)
	if ! grep -q '"verify":"ok"' "$out" 2>/dev/null; then
		echo "failed: exit $rc, results not verified: $(printf '%s\n' "$other" "$(cat "$err" 2>/dev/null)" | head -n 3 | tr '\n' '|')"
	elif [[ $rc == 0 && -z $other ]]; then
		echo ok
	else
		echo "failed: exit $rc: $(printf '%s\n' "$other" "$(cat "$err" 2>/dev/null)" | grep -v '^$' | head -n 3 | tr '\n' '|')"
	fi
}

# rel_kill_children PID...: SIGTERM those PIDs that are still children of this
# shell (never a process that reused the number of one of ours that ended)
rel_kill_children() {
	local p
	for p in "$@"; do
		[[ $(awk '{print $4}' "/proc/$p/stat" 2>/dev/null) == "$$" ]] && kill "$p" 2>/dev/null
	done
	return 0
}

# rel_asan FILE: the sanitizer reports in FILE (empty when clean)
rel_asan() { grep -E "ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:|SUMMARY: .*Sanitizer" "$1" | head -n 3; }

# rel_runnable_ns PID: ns PID has been runnable so far (on a CPU + waiting for
# one, /proc/PID/schedstat).  A process that spins is runnable all the time,
# however busy the machine; one that sleeps in epoll_wait is not.
rel_runnable_ns() { awk '{printf "%.0f\n", $1 + $2}' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
