#!/usr/bin/env bash
# fabtrace lab — a small GPU-training "fabric" built from network namespaces.
#
#   switch ns ${P}sw : Linux bridge br0 with ports p1..pN
#   host ns ${P}hI   : eth0 = 198.18.0.I/24, veth peer of p<I>       (I = 1..N)
#
# Every name carries the per-run prefix P ([A-Za-z0-9]{2,8}).  Links can be shaped
# (tbf or htb: rate + queue limit) on the host uplink (eth0 egress, "up") and/or
# on the switch port toward the host (p<I> egress, "down").  IPv6 is disabled
# and TSO/GSO/GRO are off on every lab link by default (so counters, qdiscs and
# probes see wire-sized packets); `--offload on` keeps the kernel defaults.
# Hosts use a loss-based TCP congestion control (cubic, else reno; --cc):
# the kernel default here is bbr, which collapses behind a shallow tbf queue.
#
# Use as a command (`tools/lab.sh --help`) or as a library:
#
#   source tools/lab.sh            # defines functions only; changes no shell option
#   lab_up P [N] [SHAPE...]        # create (removes a stale lab of the same prefix first)
#   lab_down P                     # destroy: kill processes in the lab, delete namespaces
#   lab_gc                         # destroy labs whose creator process is dead
#   lab_shape P SHAPE              # (re)shape links, SHAPE as for --shape below
#   lab_unshape P TARGET [DIR]     # remove shaping (TARGET h2|2|all|h1,h3; DIR up|down|both)
#   lab_exec P I CMD...            # run CMD in host I's namespace
#   lab_kill PID...                # end `lab_exec ... &` jobs ($!): the command, then its subshell
#   lab_ns P I                     # print host I's namespace name (${P}hI)
#   lab_sw P                       # print the switch namespace name (${P}sw)
#   lab_addr I                     # print host I's address (198.18.0.I)
#   lab_hosts P                    # print the number of hosts of lab P
#   lab_exists P                   # true if lab P's namespaces exist
#   lab_counter P I rx|tx [bytes|packets]   # host I eth0 counter (default bytes)
#   lab_port_counter P I rx|tx [bytes|packets]  # switch port p<I> counter
#   lab_mpi P [allreduce options] [--timeout S]  # one allreduce rank per host
#   lab_gloo P [gloo_allreduce options] [--timeout S]  # one Gloo rank per host
#   lab_status P                   # print the topology, qdiscs and counters
#   lab_prefix                     # print a fresh random prefix (ftL + digits)
#
# Functions return non-zero (never exit) on failure and print one line
#   lab: <what>: <why>; <what to do>
# Environment: LAB_STATE_DIR (default /run/fabtrace-lab), LAB_BIN (directory of
# the built tools, default <repo>/${BUILD:-build}/tools), LAB_OWNER_PID (the
# process whose death lets `gc` remove the lab; default: the sourcing shell, or
# for the `up` command its parent shell), LAB_CC (auto|default|NAME, see --cc),
# LAB_OFFLOAD (off|on).

LAB_NET=198.18.0
LAB_STATE_DIR=${LAB_STATE_DIR:-/run/fabtrace-lab}
_LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_BIN=${LAB_BIN:-$_LAB_ROOT/${BUILD:-build}/tools}
LAB_MAX_HOSTS=250
LAB_MPI_ENV=(UCX_TLS=tcp UCX_NET_DEVICES=eth0 MPIR_CVAR_NOLOCAL=1)

_lab_err() { # what why todo
	printf 'lab: %s: %s; %s\n' "$1" "$2" "$3" >&2
	return 1
}

_lab_check_prefix() {
	[[ ${1:-} =~ ^[A-Za-z0-9]{2,8}$ ]] ||
		_lab_err "prefix '${1:-}'" "must match [A-Za-z0-9]{2,8}" "pass -p with e.g. ftL$((RANDOM % 10000))"
}

_lab_check_n() {
	[[ ${1:-} =~ ^[0-9]+$ ]] && (($1 >= 1 && $1 <= LAB_MAX_HOSTS)) ||
		_lab_err "host count '${1:-}'" "must be an integer from 1 to $LAB_MAX_HOSTS" "pass -n 4"
}

_lab_need_root() {
	[[ $(id -u) -eq 0 ]] || _lab_err "$1" "needs root (network namespaces, tc)" "run it with sudo"
}

lab_prefix() { printf 'ftL%05d\n' $(((RANDOM * 32768 + RANDOM) % 100000)); }
lab_ns() { printf '%sh%s\n' "$1" "$2"; }
lab_sw() { printf '%ssw\n' "$1"; }
lab_addr() { printf '%s.%s\n' "$LAB_NET" "$1"; }

# Namespaces that belong to lab P (exact pattern: P then sw or h<digits>).
_lab_list_ns() {
	local p=$1 name
	ip netns list 2>/dev/null | while read -r name _; do
		[[ $name =~ ^${p}(sw|h[0-9]+)$ ]] && printf '%s\n' "$name"
	done
	return 0
}

lab_exists() { [[ -n $(_lab_list_ns "$1") ]]; }

lab_hosts() {
	local p=$1 n
	_lab_check_prefix "$p" || return 1
	if [[ -r $LAB_STATE_DIR/$p ]]; then
		n=$(sed -n 's/^hosts=//p' "$LAB_STATE_DIR/$p")
		[[ -n $n ]] && { printf '%s\n' "$n"; return 0; }
	fi
	n=$(_lab_list_ns "$p" | grep -c "^${p}h[0-9]*$" || true)
	((n > 0)) || { _lab_err "lab $p" "does not exist" "create it with 'tools/lab.sh up -p $p'"; return 1; }
	printf '%s\n' "$n"
}

# --- sizes and rates -------------------------------------------------------
# _lab_bytes 30kb -> 30720 (b, k/kb, m/mb, g/gb; 1024-based like tc)
_lab_bytes() {
	local s=${1,,} num unit
	[[ $s =~ ^([0-9]+)(b|k|kb|m|mb|g|gb)?$ ]] || return 1
	num=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]}
	case $unit in
	'' | b) echo "$num" ;;
	k | kb) echo $((num * 1024)) ;;
	m | mb) echo $((num * 1048576)) ;;
	g | gb) echo $((num * 1073741824)) ;;
	esac
}

# _lab_bits 200mbit -> 200000000 (bit, kbit, mbit, gbit; 1000-based like tc)
_lab_bits() {
	local s=${1,,}
	[[ $s =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] || return 1
	case ${BASH_REMATCH[2]} in
	bit) echo "${BASH_REMATCH[1]}" ;;
	kbit) echo $((BASH_REMATCH[1] * 1000)) ;;
	mbit) echo $((BASH_REMATCH[1] * 1000000)) ;;
	gbit) echo $((BASH_REMATCH[1] * 1000000000)) ;;
	esac
}

# Host indices named by TARGET (h2 | 2 | all | h1,h3) for a lab of N hosts.
_lab_targets() {
	local target=$1 n=$2 t i
	if [[ $target == all ]]; then
		seq 1 "$n"
		return 0
	fi
	IFS=, read -ra _t <<<"$target"
	for t in "${_t[@]}"; do
		i=${t#h}
		if ! [[ $i =~ ^[0-9]+$ ]] || ((i < 1 || i > n)); then
			_lab_err "shape target '$t'" "not a host of this lab (1..$n)" "use hI, I, a comma list or all"
			return 1
		fi
		echo "$i"
	done
}

# lab_shape P SPEC
#   SPEC = TARGET=RATE[:limit=SIZE][:burst=SIZE][:dir=up|down|both][:qdisc=tbf|htb]
#   TARGET h2 | 2 | all | h1,h3;  RATE e.g. 200mbit, 1gbit, 500kbit.
#   dir: up = host eth0 egress (uplink), down = switch port p<I> egress
#   (downlink, where an incast queues), both = both (default).
#   burst default max(rate/250 s worth of bytes, 16kb); limit default
#   max(10 ms of bytes at RATE, 32kb) — the queue in bytes, drops beyond it.
lab_shape() {
	local p=$1 spec=${2:-} n target rest rate bps burst='' limit='' dir=both qdisc=tbf kv k v i
	_lab_check_prefix "$p" || return 1
	n=$(lab_hosts "$p") || return 1
	[[ $spec == *=* ]] || {
		_lab_err "shape '$spec'" "expected TARGET=RATE[:limit=SIZE][:burst=SIZE][:dir=up|down|both][:qdisc=tbf|htb]" \
			"e.g. --shape h2=200mbit:limit=30kb:dir=both"
		return 1
	}
	target=${spec%%=*} rest=${spec#*=}
	IFS=: read -ra _kv <<<"$rest"
	rate=${_kv[0]:-}
	bps=$(_lab_bits "$rate") && ((bps > 0)) || {
		_lab_err "shape '$spec'" "rate '$rate' is not a rate with a unit (bit|kbit|mbit|gbit)" "e.g. 200mbit"
		return 1
	}
	for kv in "${_kv[@]:1}"; do
		k=${kv%%=*} v=${kv#*=}
		case $k in
		limit | burst)
			v=$(_lab_bytes "$v") || { _lab_err "shape '$spec'" "$k '${kv#*=}' is not a size" "e.g. $k=30kb"; return 1; }
			if [[ $k == limit ]]; then limit=$v; else burst=$v; fi ;;
		dir)
			[[ $v =~ ^(up|down|both)$ ]] || { _lab_err "shape '$spec'" "dir must be up, down or both" "e.g. dir=down"; return 1; }
			dir=$v ;;
		qdisc)
			[[ $v =~ ^(tbf|htb)$ ]] || { _lab_err "shape '$spec'" "qdisc must be tbf or htb" "e.g. qdisc=htb"; return 1; }
			qdisc=$v ;;
		*) _lab_err "shape '$spec'" "unknown key '$k'" "use limit=, burst=, dir=, qdisc="; return 1 ;;
		esac
	done
	[[ -n $burst ]] || { burst=$((bps / 8 / 250)); ((burst >= 16384)) || burst=16384; }
	[[ -n $limit ]] || { limit=$((bps / 8 / 100)); ((limit >= 32768)) || limit=32768; }
	((burst >= 1600)) || { _lab_err "shape '$spec'" "burst $burst bytes is below one packet" "use burst>=2kb"; return 1; }
	((limit >= 1600)) || { _lab_err "shape '$spec'" "limit $limit bytes is below one packet" "use limit>=2kb"; return 1; }
	local idx
	idx=$(_lab_targets "$target" "$n") || return 1
	for i in $idx; do
		if [[ $dir == up || $dir == both ]]; then
			_lab_qdisc "$(lab_ns "$p" "$i")" eth0 "$qdisc" "$bps" "$burst" "$limit" || return 1
		fi
		if [[ $dir == down || $dir == both ]]; then
			_lab_qdisc "$(lab_sw "$p")" "p$i" "$qdisc" "$bps" "$burst" "$limit" || return 1
		fi
	done
	if [[ -w $LAB_STATE_DIR/$p ]]; then
		echo "shape=$spec" >>"$LAB_STATE_DIR/$p"
	fi
	return 0
}

_lab_qdisc() { # ns dev tbf|htb bps burst limit
	local ns=$1 dev=$2 q=$3 bps=$4 burst=$5 limit=$6 out
	tc -n "$ns" qdisc del dev "$dev" root >/dev/null 2>&1 || true
	if [[ $q == tbf ]]; then
		out=$(tc -n "$ns" qdisc add dev "$dev" root handle 1: tbf rate "${bps}bit" burst "$burst" limit "$limit" 2>&1) || {
			_lab_err "tc tbf on $ns/$dev" "${out//$'\n'/ }" "check the rate/burst/limit values"
			return 1
		}
	else
		out=$(tc -n "$ns" -batch - 2>&1 <<-EOF
			qdisc add dev $dev root handle 1: htb default 10
			class add dev $dev parent 1: classid 1:10 htb rate ${bps}bit ceil ${bps}bit burst $burst cburst $burst quantum 1514
			qdisc add dev $dev parent 1:10 handle 10: bfifo limit $limit
		EOF
		) || {
			_lab_err "tc htb on $ns/$dev" "${out//$'\n'/ }" "check the rate/burst/limit values"
			return 1
		}
	fi
}

lab_unshape() { # P TARGET [DIR]
	local p=$1 target=${2:-all} dir=${3:-both} n i idx
	_lab_check_prefix "$p" || return 1
	n=$(lab_hosts "$p") || return 1
	idx=$(_lab_targets "$target" "$n") || return 1
	for i in $idx; do
		[[ $dir == down ]] || tc -n "$(lab_ns "$p" "$i")" qdisc del dev eth0 root >/dev/null 2>&1 || true
		[[ $dir == up ]] || tc -n "$(lab_sw "$p")" qdisc del dev "p$i" root >/dev/null 2>&1 || true
	done
	return 0
}

# --- state ------------------------------------------------------------------
_lab_starttime() { # pid -> field 22 of /proc/pid/stat, empty if gone
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	read -ra _f <<<"$stat"
	echo "${_f[19]:-}"
}

_lab_owner_alive() { # statefile
	local pid st now
	pid=$(sed -n 's/^pid=//p' "$1")
	st=$(sed -n 's/^starttime=//p' "$1")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	now=$(_lab_starttime "$pid")
	[[ -n $now && $now == "$st" ]]
}

# --- create / destroy -----------------------------------------------------
# lab_up P [N] [SHAPE...]
lab_up() {
	local p=${1:-} n=${2:-4} owner=${LAB_OWNER_PID:-$$} i sw hs batch out offload=${LAB_OFFLOAD:-off} cc=${LAB_CC:-auto} cccmd
	if [[ $cc == auto ]]; then
		# Kernel default may be bbr, which collapses behind a shallow tbf queue
		# (measured: MPI stalls at limit<=64kb).  Loss-based CC like a DC host;
		# a netns may only pick CCs in the init ns' tcp_allowed_congestion_control.
		cccmd='sysctl -qw net.ipv4.tcp_congestion_control=cubic 2>/dev/null || sysctl -qw net.ipv4.tcp_congestion_control=reno 2>/dev/null || true'
	elif [[ $cc == default ]]; then
		cccmd=':'
	else
		[[ $cc =~ ^[a-z0-9_]+$ ]] || { _lab_err "--cc '$cc'" "not a congestion control name" "e.g. --cc reno"; return 1; }
		cccmd="sysctl -qw net.ipv4.tcp_congestion_control=$cc"
	fi
	_lab_check_prefix "$p" || return 1
	_lab_check_n "$n" || return 1
	_lab_need_root "lab up" || return 1
	if lab_exists "$p" || [[ -e $LAB_STATE_DIR/$p ]]; then
		lab_down "$p" || return 1
	fi
	mkdir -p "$LAB_STATE_DIR" || { _lab_err "state dir $LAB_STATE_DIR" "cannot create" "set LAB_STATE_DIR"; return 1; }
	printf 'prefix=%s\nhosts=%s\npid=%s\nstarttime=%s\ncreated=%s\n' \
		"$p" "$n" "$owner" "$(_lab_starttime "$owner")" "$(date +%s)" >"$LAB_STATE_DIR/$p"

	sw=$(lab_sw "$p")
	batch="netns add $sw"$'\n'
	for ((i = 1; i <= n; i++)); do batch+="netns add $(lab_ns "$p" "$i")"$'\n'; done
	out=$(ip -batch - <<<"$batch" 2>&1) || {
		lab_down "$p" >/dev/null 2>&1
		_lab_err "lab up $p" "ip netns add failed: ${out//$'\n'/ }" "run 'tools/lab.sh gc' or pick another prefix"
		return 1
	}
	# Switch: bridge (no STP, no forwarding delay, no IGMP/MLD snooping) and
	# one veth per host, the host end created directly in the host namespace.
	batch="link set lo up"$'\n'
	batch+="link add br0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0"$'\n'
	for ((i = 1; i <= n; i++)); do
		hs=$(lab_ns "$p" "$i")
		batch+="link add p$i address $(printf '02:fb:00:00:01:%02x' "$i") type veth peer name eth0 address $(printf '02:fa:00:00:00:%02x' "$i") netns $hs"$'\n'
		batch+="link set p$i master br0"$'\n'
	done
	local offcmd='' devs=''
	# every port comes up below, offloads or not (--offload on left them down)
	for ((i = 1; i <= n; i++)); do devs+=" p$i"; done
	if [[ $offload == off ]]; then
		offcmd="for d in $devs; do ethtool -K \$d tso off gso off gro off >/dev/null 2>&1 || true; done;"
	fi
	out=$(ip netns exec "$sw" sh -c "
		echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
		echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
		ip -batch - <<'EOF'
$batch
EOF
		$offcmd
		for d in br0 $devs; do ip link set \$d up; done
	" 2>&1) || {
		lab_down "$p" >/dev/null 2>&1
		_lab_err "lab up $p" "switch setup failed: ${out//$'\n'/ }" "check 'ip -V' supports veth peers in another netns"
		return 1
	}
	for ((i = 1; i <= n; i++)); do
		hs=$(lab_ns "$p" "$i")
		offcmd=''
		[[ $offload == off ]] && offcmd='ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1 || true'
		out=$(ip netns exec "$hs" sh -c "
			echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
			echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
			$offcmd
			$cccmd
			ip link set lo up && ip addr add $(lab_addr "$i")/24 dev eth0 && ip link set eth0 up
		" 2>&1) || {
			lab_down "$p" >/dev/null 2>&1
			_lab_err "lab up $p" "host $hs setup failed: ${out//$'\n'/ }" "see the message; 'tools/lab.sh down -p $p' cleans up"
			return 1
		}
	done
	shift 2 2>/dev/null || shift $#
	local s
	for s in "$@"; do
		lab_shape "$p" "$s" || { lab_down "$p" >/dev/null 2>&1; return 1; }
	done
	return 0
}

# lab_down P: kill every process still in the lab, delete its namespaces
# (which destroys the veths and the bridge) and its state file.
lab_down() {
	local p=${1:-} ns pids
	_lab_check_prefix "$p" || return 1
	_lab_need_root "lab down" || return 1
	for ns in $(_lab_list_ns "$p"); do
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[[ -n $pids ]] && kill -9 $pids 2>/dev/null
	done
	for ns in $(_lab_list_ns "$p"); do
		ip netns del "$ns" 2>/dev/null || ip netns del "$ns" 2>/dev/null ||
			_lab_err "lab down $p" "cannot delete namespace $ns" "run 'ip netns pids $ns' and kill what is left"
	done
	rm -f "$LAB_STATE_DIR/$p"
	if lab_exists "$p"; then
		_lab_err "lab down $p" "namespaces remain: $(_lab_list_ns "$p" | tr '\n' ' ')" "retry 'tools/lab.sh down -p $p'"
		return 1
	fi
	return 0
}

# lab_gc: destroy every lab (state file in LAB_STATE_DIR) whose owner is dead.
lab_gc() {
	local f p rc=0
	_lab_need_root "lab gc" || return 1
	[[ -d $LAB_STATE_DIR ]] || return 0
	for f in "$LAB_STATE_DIR"/*; do
		[[ -f $f ]] || continue
		p=${f##*/}
		[[ $p =~ ^[A-Za-z0-9]{2,8}$ ]] || continue
		if ! _lab_owner_alive "$f"; then
			echo "lab: gc: removing stale lab $p (owner pid $(sed -n 's/^pid=//p' "$f") is gone)"
			lab_down "$p" || rc=1
		fi
	done
	return $rc
}

# --- using the lab --------------------------------------------------------
lab_exec() { # P I CMD...
	local p=$1 i=$2
	shift 2
	ip netns exec "$(lab_ns "$p" "$i")" "$@"
}

# lab_kill PID...: end background `lab_exec ... &` jobs by the PID $! gave.
# That PID is the subshell running the function; the command (ip netns exec
# execs into it) is its child, which a kill of the subshell alone leaves running.
lab_kill() {
	local p
	for p in "$@"; do
		[[ -n $p ]] || continue
		pkill -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
	return 0
}

_lab_stat() { # ns dev rx|tx bytes|packets
	local f
	f=$(ip netns exec "$1" cat "/sys/class/net/$2/statistics/${3}_${4:-bytes}" 2>/dev/null) || {
		_lab_err "counter $1/$2 ${3}_${4:-bytes}" "cannot read" "check that the lab is up"
		return 1
	}
	echo "$f"
}
lab_counter() { _lab_stat "$(lab_ns "$1" "$2")" eth0 "$3" "${4:-bytes}"; }
lab_port_counter() { _lab_stat "$(lab_sw "$1")" "p$2" "$3" "${4:-bytes}"; }

# lab_mpi P [--bytes B] [--iters I] [--warmup W] [--delay R:U]... [--starve R:MS]
#           [--starve-every N] [--json] [--quiet] [--timeout S] [--bin PATH] [--ranks N]
#           [--mpi mpich|openmpi]
# One allreduce rank per host (rank r runs in host r+1; --ranks N uses hosts
# 1..N only, leaving the others idle), traffic over eth0.  The MPI is named,
# never the alternatives' generic mpiexec: MPICH's mpiexec.mpich (default;
# build/tools/allreduce), or Open MPI's mpirun.openmpi (build/tools/
# allreduce.openmpi), started in host 1 with its PMIx server on eth0 so that
# every rank, wrapped in `ip netns exec` by OMPI_COMM_WORLD_RANK, reaches it.
lab_mpi() {
	local p=${1:-} n i timeout=120 bin= mpi=mpich rc
	shift || true
	_lab_check_prefix "$p" || return 1
	n=$(lab_hosts "$p") || return 1
	local args=()
	while (($#)); do
		case $1 in
		--timeout) [[ ${2:-} =~ ^[0-9]+$ ]] || { _lab_err "--timeout '${2:-}'" "expected seconds" "e.g. --timeout 60"; return 1; }
			timeout=$2; shift 2 ;;
		--bin) bin=${2:-}; shift 2 ;;
		--mpi) [[ ${2:-} == mpich || ${2:-} == openmpi ]] || { _lab_err "--mpi '${2:-}'" "expected mpich or openmpi" "e.g. --mpi openmpi"; return 1; }
			mpi=$2; shift 2 ;;
		--ranks) [[ ${2:-} =~ ^[0-9]+$ ]] && (($2 >= 1 && $2 <= n)) || { _lab_err "--ranks '${2:-}'" "expected 1..$n (hosts in the lab)" "e.g. --ranks 4"; return 1; }
			n=$2; shift 2 ;;
		--bytes | --iters | --warmup | --delay | --starve | --starve-every)
			[[ -n ${2:-} ]] || { _lab_err "$1" "missing value" "see 'tools/lab.sh --help'"; return 1; }
			args+=("$1" "$2"); shift 2 ;;
		--json | --quiet | --finalize) args+=("$1"); shift ;;
		--) shift; args+=("$@"); break ;;
		*) _lab_err "mpi option '$1'" "unknown" "see 'tools/lab.sh --help'"; return 1 ;;
		esac
	done
	local cmd
	if [[ $mpi == mpich ]]; then
		bin=${bin:-$LAB_BIN/allreduce}
		command -v mpiexec.mpich >/dev/null || { _lab_err "mpi" "mpiexec.mpich not found" "install mpich ('make deps')"; return 1; }
		[[ -x $bin ]] || { _lab_err "mpi" "$bin is not built" "run 'make $(realpath --relative-to="$_LAB_ROOT" "$bin" 2>/dev/null || echo build/tools/allreduce)'"; return 1; }
		cmd=(timeout -k 5 "$timeout" mpiexec.mpich -disable-auto-cleanup)
		for ((i = 1; i <= n; i++)); do
			((i > 1)) && cmd+=(:)
			cmd+=(-n 1 ip netns exec "$(lab_ns "$p" "$i")" env "${LAB_MPI_ENV[@]}" "$bin" "${args[@]}")
		done
	else
		bin=${bin:-$LAB_BIN/allreduce.openmpi}
		command -v mpirun.openmpi >/dev/null || { _lab_err "mpi" "mpirun.openmpi not found" "install openmpi-bin ('make deps')"; return 1; }
		[[ -x $bin ]] || { _lab_err "mpi" "$bin is not built" "run 'make $(realpath --relative-to="$_LAB_ROOT" "$bin" 2>/dev/null || echo build/tools/allreduce.openmpi)'"; return 1; }
		# mpirun and its PMIx server in host 1, reachable on eth0 from every host;
		# TCP between the ranks over eth0 only (no shared memory: the traffic
		# must cross the lab); MPI_Finalize, as Open MPI wants it
		cmd=(timeout -k 5 "$timeout" ip netns exec "$(lab_ns "$p" 1)"
			env PMIX_MCA_ptl_tcp_if_include=eth0 PMIX_MCA_ptl_tcp_remote_connections=1
			OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
			mpirun.openmpi --allow-run-as-root --oversubscribe -np "$n"
			bash -c 'exec ip netns exec "${0}h$((OMPI_COMM_WORLD_RANK + 1))" "$@"' "$p"
			"$bin" "${args[@]}" --finalize)
	fi
	rc=0
	"${cmd[@]}" </dev/null || rc=$?
	if ((rc == 124 || rc == 137)); then
		_lab_err "mpi on lab $p" "timed out after ${timeout}s" "raise --timeout or check the links (tools/lab.sh status -p $p)"
	fi
	# Leave no rank behind (e.g. after a timeout).
	for ((i = 1; i <= n; i++)); do
		local pids
		pids=$(ip netns pids "$(lab_ns "$p" "$i")" 2>/dev/null || true)
		[[ -n $pids ]] && kill -9 $pids 2>/dev/null
	done
	return $rc
}

# lab_gloo P [--ranks N] [--timeout S] [--bin PATH] [gloo_allreduce options] [-- more options]
# One Gloo rank per host (rank r in host r+1, bound to 198.18.0.(r+1)), all
# rendezvousing in a fresh FileStore directory (removed afterwards).  Prints
# every rank's stdout in rank order (stderr to stderr); returns the first
# non-zero exit status of a rank.
lab_gloo() {
	local p=${1:-} n i timeout=120 bin=$LAB_BIN/gloo_allreduce rc=0 r store
	shift || true
	_lab_check_prefix "$p" || return 1
	n=$(lab_hosts "$p") || return 1
	local args=()
	while (($#)); do
		case $1 in
		--timeout) [[ ${2:-} =~ ^[0-9]+$ ]] || { _lab_err "--timeout '${2:-}'" "expected seconds" "e.g. --timeout 60"; return 1; }
			timeout=$2; shift 2 ;;
		--bin) bin=${2:-}; shift 2 ;;
		--ranks) [[ ${2:-} =~ ^[0-9]+$ ]] && (($2 >= 1 && $2 <= n)) || { _lab_err "--ranks '${2:-}'" "expected 1..$n (hosts in the lab)" "e.g. --ranks 3"; return 1; }
			n=$2; shift 2 ;;
		--bytes | --iters | --warmup | --delay | --ops | --compute)
			[[ -n ${2:-} ]] || { _lab_err "$1" "missing value" "see 'tools/lab.sh --help'"; return 1; }
			args+=("$1" "$2"); shift 2 ;;
		--json | --quiet | --steps) args+=("$1"); shift ;;
		--) shift; args+=("$@"); break ;;
		*) _lab_err "gloo option '$1'" "unknown" "see 'tools/lab.sh --help'"; return 1 ;;
		esac
	done
	[[ -x $bin ]] || { _lab_err "gloo" "$bin is not built" "install libgloo-dev ('make deps') and run 'make'"; return 1; }
	store=$(mktemp -d /tmp/fabtrace-gloo.XXXXXX) || { _lab_err "gloo" "cannot create a store directory" "check /tmp"; return 1; }
	local pids=()
	for ((i = 1; i <= n; i++)); do
		ip netns exec "$(lab_ns "$p" "$i")" timeout -k 5 "$timeout" "$bin" --rank $((i - 1)) --size "$n" \
			--store "$store" --addr "$(lab_addr "$i")" "${args[@]}" >"$store/out.$i" 2>"$store/err.$i" </dev/null &
		pids+=($!)
	done
	for ((i = 1; i <= n; i++)); do
		r=0
		wait "${pids[i - 1]}" || r=$?
		((rc == 0)) && rc=$r
	done
	for ((i = 1; i <= n; i++)); do
		cat "$store/out.$i"
		cat "$store/err.$i" >&2
	done
	rm -rf "$store"
	if ((rc == 124 || rc == 137)); then
		_lab_err "gloo on lab $p" "timed out after ${timeout}s" "raise --timeout or check the links (tools/lab.sh status -p $p)"
	fi
	for ((i = 1; i <= n; i++)); do
		local left
		left=$(ip netns pids "$(lab_ns "$p" "$i")" 2>/dev/null || true)
		[[ -n $left ]] && kill -9 $left 2>/dev/null
	done
	return $rc
}

lab_status() {
	local p=$1 n i ns
	_lab_check_prefix "$p" || return 1
	n=$(lab_hosts "$p") || return 1
	lab_exists "$p" || { _lab_err "lab $p" "namespaces are gone" "run 'tools/lab.sh up -p $p'"; return 1; }
	echo "lab $p: $n hosts, switch $(lab_sw "$p") (br0)"
	[[ -r $LAB_STATE_DIR/$p ]] && sed 's/^/  state: /' "$LAB_STATE_DIR/$p"
	for ((i = 1; i <= n; i++)); do
		ns=$(lab_ns "$p" "$i")
		printf '  %-10s eth0 %-14s rx %s B tx %s B  up: %s | down p%s: %s\n' "$ns" "$(lab_addr "$i")" \
			"$(lab_counter "$p" "$i" rx)" "$(lab_counter "$p" "$i" tx)" \
			"$(tc -n "$ns" qdisc show dev eth0 root | head -1)" "$i" \
			"$(tc -n "$(lab_sw "$p")" qdisc show dev "p$i" root | head -1)"
	done
}

# --- command line ---------------------------------------------------------
_lab_usage() {
	cat <<'EOF'
usage: tools/lab.sh COMMAND [options]

commands:
  up     -p P [-n N] [--shape SPEC]... [--offload on|off] [--cc auto|default|NAME]
         [--owner PID]             create the lab (a stale lab P is removed first)
                                   --cc: host TCP congestion control; auto = cubic, else
                                   reno (a netns may only use the init ns' allowed list)
  down   -p P                      destroy lab P
  gc                               destroy labs whose creator process is dead
  run    -p P [-n N] [--shape SPEC]... -- CMD...
                                   up, run CMD (env LAB_PREFIX, LAB_HOSTS, LAB_NS_LIST,
                                   LAB_SWITCH_NS, LAB_ADDRS, LAB_SH), always tear down;
                                   exits with CMD's status
  mpi    -p P [--bytes B] [--iters I] [--warmup W] [--delay RANK:USEC]... [--json]
              [--starve RANK:MS] [--starve-every N]
              [--timeout S] [--mpi mpich|openmpi] [-- --ops LIST --compute USEC --steps ...]
                                   MPI collectives, one rank per host (rank r on host r+1);
                                   MPICH (mpiexec.mpich, default) or Open MPI (mpirun.openmpi)
                                   --starve: RANK gets no CPU for MS ms inside its collectives
                                   (a nice -20 spinner on its CPU; see allreduce --help)
  gloo   -p P [--bytes B] [--iters I] [--ops LIST] [--json] [--timeout S] [-- ...]
                                   Gloo (gloo_allreduce), one rank per host, TCP bound
                                   to 198.18.0.I, FileStore rendezvous in a temp dir
  shape  -p P --shape SPEC...      (re)shape links of a running lab
  unshape -p P [TARGET] [DIR]      remove shaping (default all both)
  exec   -p P I -- CMD...          run CMD in host I
  status -p P                      topology, qdiscs, counters

topology: hosts ${P}h1..${P}hN, each eth0 = 198.18.0.I/24, veth to port p<I> of
bridge br0 in switch namespace ${P}sw.  P matches [A-Za-z0-9]{2,8}.

SPEC = TARGET=RATE[:limit=SIZE][:burst=SIZE][:dir=up|down|both][:qdisc=tbf|htb]
  TARGET  h2 | 2 | h1,h3 | all
  RATE    200mbit, 1gbit, 500kbit (tc units, 1000-based)
  SIZE    30kb, 1mb, 4000 (bytes, 1024-based)
  dir     up = host eth0 egress, down = switch port egress toward the host
          (where an incast queues), both (default)
  burst   default max(4 ms at RATE, 16kb); limit default max(10 ms at RATE, 32kb)

examples:
  sudo tools/lab.sh up -p ftL42 -n 4 --shape h2=200mbit:limit=30kb
  sudo tools/lab.sh up -p ftL42 --shape all=1gbit:dir=up --shape h1=100mbit:dir=down:qdisc=htb
  sudo tools/lab.sh mpi -p ftL42 --bytes 1m --iters 20 --delay 2:5000
  sudo tools/lab.sh mpi -p ftL42 --bytes 2m --iters 12 --starve 2:300 --starve-every 3
  sudo tools/lab.sh exec -p ftL42 1 -- ping -c1 198.18.0.2
  sudo tools/lab.sh run -p ftL7 -n 4 --shape h1=200mbit -- sh -c 'tools/lab.sh mpi -p $LAB_PREFIX'
  sudo tools/lab.sh down -p ftL42
  source tools/lab.sh; lab_up ftL9 4 h2=200mbit; lab_exec ftL9 1 ping -c1 "$(lab_addr 2)"; lab_down ftL9
EOF
}

_lab_main() {
	local sub=${1:-}
	[[ -n $sub ]] || { _lab_usage >&2; return 2; }
	shift
	case $sub in -h | --help | help) _lab_usage; return 0 ;; esac
	local p=${LAB_PREFIX:-} n=4 shapes=() owner='' offload=off rest=() pre=() post=() dd=0
	while (($#)); do
		case $1 in
		-p | --prefix) p=${2:-}; shift 2 || { _lab_err "$1" "missing value" "e.g. -p ftL42"; return 2; } ;;
		-n | --hosts) n=${2:-}; shift 2 || { _lab_err "$1" "missing value" "e.g. -n 4"; return 2; } ;;
		--shape) [[ -n ${2:-} ]] || { _lab_err "--shape" "missing value" "e.g. --shape h2=200mbit"; return 2; }
			shapes+=("$2"); shift 2 ;;
		--owner) owner=${2:-}; shift 2 || true ;;
		--cc) export LAB_CC=${2:-}; shift 2 || true ;;
		--offload) offload=${2:-}; shift 2 || true
			[[ $offload =~ ^(on|off)$ ]] || { _lab_err "--offload" "must be on or off" "e.g. --offload off"; return 2; } ;;
		-h | --help) _lab_usage; return 0 ;;
		--) shift; rest+=("$@"); post=("$@"); dd=1; break ;;
		*) rest+=("$1"); pre+=("$1"); shift ;;
		esac
	done
	# mpi/gloo pass what follows -- to the workload unchecked
	((dd)) && pre+=(-- "${post[@]}")
	case $sub in
	gc) lab_gc; return ;;
	esac
	[[ -n $p ]] || { _lab_err "$sub" "no prefix given" "pass -p PREFIX (e.g. -p ftL$((RANDOM % 10000)))"; return 2; }
	_lab_check_prefix "$p" || return 2
	case $sub in
	up)
		((${#rest[@]} == 0)) || { _lab_err "up" "unexpected argument '${rest[0]}'" "see --help"; return 2; }
		LAB_OWNER_PID=${owner:-$PPID} LAB_OFFLOAD=$offload lab_up "$p" "$n" "${shapes[@]}"
		;;
	down) lab_down "$p" ;;
	status) lab_status "$p" ;;
	shape)
		((${#shapes[@]})) || { _lab_err "shape" "no --shape given" "e.g. --shape h2=200mbit"; return 2; }
		local s
		for s in "${shapes[@]}"; do lab_shape "$p" "$s" || return 1; done
		;;
	unshape) lab_unshape "$p" "${rest[0]:-all}" "${rest[1]:-both}" ;;
	exec)
		((${#rest[@]} >= 2)) || { _lab_err "exec" "need a host index and a command" "e.g. exec -p $p 1 -- ping -c1 198.18.0.2"; return 2; }
		local i=${rest[0]}
		[[ $i =~ ^[0-9]+$ ]] && ip netns list | grep -q "^$(lab_ns "$p" "$i")\b" ||
			{ _lab_err "exec" "no host $i in lab $p" "see 'tools/lab.sh status -p $p'"; return 2; }
		lab_exec "$p" "$i" "${rest[@]:1}"
		;;
	mpi) lab_mpi "$p" "${pre[@]}" ;;
	gloo) lab_gloo "$p" "${pre[@]}" ;;
	run)
		((${#rest[@]})) || { _lab_err "run" "no command given" "put it after --, e.g. run -p $p -- ./test.sh"; return 2; }
		_lab_run "$p" "$n" "$offload" "${shapes[@]}" -- "${rest[@]}"
		;;
	*) _lab_err "command '$sub'" "unknown" "see 'tools/lab.sh --help'"; return 2 ;;
	esac
}

_lab_run() { # P N OFFLOAD SHAPE... -- CMD...
	local p=$1 n=$2 offload=$3 shapes=() i rc=0 ns_list='' addrs=''
	shift 3
	while (($#)) && [[ $1 != -- ]]; do shapes+=("$1"); shift; done
	shift
	_LAB_RUN_PREFIX=$p _LAB_RUN_CHILD=''
	trap '_lab_run_cleanup' EXIT
	trap '_lab_run_signal 130 INT' INT
	trap '_lab_run_signal 143 TERM' TERM
	LAB_OWNER_PID=$$ LAB_OFFLOAD=$offload lab_up "$p" "$n" "${shapes[@]}" || return 1
	for ((i = 1; i <= n; i++)); do
		ns_list+="${ns_list:+ }$(lab_ns "$p" "$i")"
		addrs+="${addrs:+ }$(lab_addr "$i")"
	done
	LAB_SWITCH_NS=$(lab_sw "$p")
	export LAB_PREFIX=$p LAB_HOSTS=$n LAB_NS_LIST=$ns_list LAB_SWITCH_NS \
		LAB_ADDRS=$addrs LAB_SH=$_LAB_ROOT/tools/lab.sh LAB_BIN
	"$@" &
	_LAB_RUN_CHILD=$!
	wait "$_LAB_RUN_CHILD" || rc=$?
	_LAB_RUN_CHILD=''
	return $rc
}

_lab_run_signal() { # status name
	local t
	if [[ -n ${_LAB_RUN_CHILD:-} ]]; then
		# background children of a script ignore SIGINT: always send TERM
		kill -TERM "$_LAB_RUN_CHILD" 2>/dev/null || true
		for ((t = 0; t < 50; t++)); do
			kill -0 "$_LAB_RUN_CHILD" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$_LAB_RUN_CHILD" 2>/dev/null || true
		wait "$_LAB_RUN_CHILD" 2>/dev/null || true
		_LAB_RUN_CHILD=''
	fi
	echo "lab: run: interrupted by SIG$2; tearing down lab ${_LAB_RUN_PREFIX:-}" >&2
	exit "$1"
}

_lab_run_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [[ -n ${_LAB_RUN_CHILD:-} ]]; then kill -TERM "$_LAB_RUN_CHILD" 2>/dev/null || true; fi
	[[ -n ${_LAB_RUN_PREFIX:-} ]] && lab_down "$_LAB_RUN_PREFIX" >/dev/null || true
	exit $rc
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	rc=0
	_lab_main "$@" || rc=$?
	exit $rc
fi
