#!/usr/bin/env bash
# The configuration in a capture (issue 34), checked against the real tools:
# h1's eth0 shaped by a tbf (rate, burst, limit) over a pfifo_head_drop, h2's
# namespace given other sysctls (tcp_ecn 1, congestion control bbr), a flow
# from h1 whose socket asks for cubic (TCP_CONGESTION) and one from h2 on its
# namespace's bbr, ECN negotiated on h2's, and one from h2 over IPv6 (the
# recorder asks each new socket's tcp_info by its 4-tuple, an IPv6 one by
# 16-byte addresses); the traced command's NCCL_* and
# GLOO_* variables.  `info --json` must say what `tc -j qdisc show`,
# `sysctl -n` and `ss -tin` say (taken while the flows run), and for ECN
# what each socket's own TCP_INFO says (ss 6.1 prints no options on this
# kernel: not ts, sack or ecn); the text `info` must show the section.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
need_cmd ss
need_cmd tc
FLOWS=$ROOT/tests/integration/config_flows.py
lab_start 2
H1=$(lab_ns "$LAB" 1) H2=$(lab_ns "$LAB" 2)
tc -n "$H1" qdisc replace dev eth0 root handle 1: tbf rate 50mbit burst 20kb limit 40000 &&
	tc -n "$H1" qdisc add dev eth0 parent 1:1 handle 10: pfifo_head_drop limit 25 || bad "tc"
ip netns exec "$H2" sysctl -qw net.ipv4.tcp_ecn=1 || bad "sysctl tcp_ecn in $H2"
ip netns exec "$H2" sysctl -qw net.ipv4.tcp_congestion_control=bbr || skip "bbr cannot be $H2's congestion control"
ip netns exec "$H1" sysctl -qw net.ipv4.tcp_ecn=2 || bad "sysctl tcp_ecn in $H1"
# and IPv6 between them (the lab has it off): a third connection, h2 to h1
for i in 1 2; do
	ip netns exec "$(lab_ns "$LAB" "$i")" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
		net.ipv6.conf.eth0.disable_ipv6=0 &&
		ip -n "$(lab_ns "$LAB" "$i")" addr add "fd00:99::$i/64" dev eth0 nodad || bad "IPv6 on host $i"
done

PY3=/usr/bin/python3
[[ -x $PY3 ]] || PY3=python3
# the command's environment, as a launcher would set it; stopped below
start_record "$TMPD/cfg.ftr" -i "$H1/eth0" -i "$H2/eth0" -- \
	env NCCL_ALGO=Ring NCCL_IB_HCA=mlx5_0 GLOO_SOCKET_IFNAME=eth0 RANK=0 WORLD_SIZE=1 sleep 120
pids=()
ip netns exec "$H2" "$PY3" "$FLOWS" sink "$TMPD/sock.h2sink" 5301 60 & pids+=($!)
ip netns exec "$H1" "$PY3" "$FLOWS" sink "$TMPD/sock.h1sink" 5300 60 & pids+=($!)
ip netns exec "$H1" "$PY3" "$FLOWS" send "$TMPD/sock.h1send" "$(lab_addr 2)" 5301 60 cubic & pids+=($!)
ip netns exec "$H2" "$PY3" "$FLOWS" send "$TMPD/sock.h2send" "$(lab_addr 1)" 5300 60 & pids+=($!)
ip netns exec "$H1" "$PY3" "$FLOWS" sink "$TMPD/sock.h1sink6" 5302 60 :: & pids+=($!)
ip netns exec "$H2" "$PY3" "$FLOWS" send "$TMPD/sock.h2send6" fd00:99::1 5302 60 & pids+=($!)
# the connections up (on a busy machine the interpreters take a while), then a scan or two
for ((i = 0; i < 200; i++)); do
	n1=$(ip netns exec "$H1" ss -H -tn state established | grep -c '198\.18\.0\.\|fd00:99::')
	n2=$(ip netns exec "$H2" ss -H -tn state established | grep -c '198\.18\.0\.\|fd00:99::')
	((n1 == 3 && n2 == 3)) && [[ -s $TMPD/sock.h1sink && -s $TMPD/sock.h2sink && -s $TMPD/sock.h1send &&
		-s $TMPD/sock.h2send && -s $TMPD/sock.h1sink6 && -s $TMPD/sock.h2send6 ]] && break
	sleep 0.1
done
check "the three connections established ($n1 and $n2 sockets)" test "$n1" = 3 -a "$n2" = 3
for i in 1 2; do
	ip netns exec "$(lab_ns "$LAB" "$i")" ss -H -tin state established >"$TMPD/ss$i.txt"
done
tc -n "$H1" -j qdisc show dev eth0 >"$TMPD/tc.json"
for k in net.ipv4.tcp_ecn net.ipv4.tcp_congestion_control net.core.rmem_max net.ipv4.tcp_rmem; do
	printf '%s|%s|%s|%s\n' "$k" "$(sysctl -n "$k")" "$(ip netns exec "$H1" sysctl -n "$k")" \
		"$(ip netns exec "$H2" sysctl -n "$k")"
done >"$TMPD/sysctl.txt"
sleep 2.5 # the recorder looks for new sockets once a second
# a knob turned during the recording: read again at the stop, both values kept
tc -n "$H1" qdisc change dev eth0 root handle 1: tbf rate 50mbit burst 20kb limit 80000 || bad "tc change"
stop_record INT
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
check "record exits 0 (got $REC_RC: $(tail -n 2 "$TMPD/record.err"))" test "$REC_RC" = 0
"$FT" info --json "$TMPD/cfg.ftr" >"$TMPD/info.json" || bad "info --json"
"$FT" info "$TMPD/cfg.ftr" >"$TMPD/info.txt" || bad "info"
# when each socket's settings were written (the capture's own records)
python3 "$ROOT/tests/integration/reliability.py" cfgflows "$TMPD/cfg.ftr" >"$TMPD/cfgflows.txt" || bad "cfgflows"

H1="$H1" H2="$H2" TMPD="$TMPD" python3 - <<'PY'
import json, os
from checks import check, done

tmp, h1, h2 = os.environ["TMPD"], os.environ["H1"], os.environ["H2"]
cfg = json.load(open(f"{tmp}/info.json")).get("config")
check(cfg is not None, "info --json has a config object")
cfg = cfg or {}
ns = {n["name"]: n for n in cfg.get("namespaces", [])}
host = [n for n in cfg.get("namespaces", []) if n["host"]]

# sysctls: the host's in full; h2's that differ; h1 as the host's where not listed
rows = [line.rstrip("\n").split("|") for line in open(f"{tmp}/sysctl.txt")]
check(len(host) == 1, f"one host namespace ({len(host)})")
for key, hv, v1, v2 in rows:
    hv, v1, v2 = (" ".join(x.split()) for x in (hv, v1, v2))
    got_h = host[0]["sysctls"].get(key) if host else None
    check(got_h == hv, f"host {key} = {hv!r} as sysctl says ({got_h!r})")
    for name, want in ((h1, v1), (h2, v2)):
        n = ns.get(name, {"sysctls": {}})
        got = n["sysctls"].get(key, got_h)
        check(got == want, f"{name} {key} = {want!r} as sysctl says ({got!r}; listed: {key in n['sysctls']})")
check(ns.get(h2, {}).get("sysctls", {}).get("net.ipv4.tcp_ecn") == "1", f"{h2}'s tcp_ecn listed as differing")
for name in (h1, h2):
    n = ns.get(name, {})
    check(n.get("sysctls_differing") == len(n.get("sysctls", {})) >= 1,
          f"{name}: the sysctls listed are those said to differ ({n.get('sysctls_differing')}: {n.get('sysctls')})")

# the qdisc tree of h1's eth0 against tc -j
ifs = [i for i in cfg.get("interfaces", []) if i["name"] == "eth0" and i["netns_name"] == h1]
check(len(ifs) == 1, f"{h1}/eth0 described once ({len(ifs)})")
q = {(x["kind"], x["handle"]): x for x in (ifs[0]["qdiscs"] if ifs else []) if not x["class"]}
tc = {(x["kind"], x["handle"]): x for x in json.load(open(f"{tmp}/tc.json"))}
tbf, ref = q.get(("tbf", "1:"), {}).get("params", {}), tc.get(("tbf", "1:"), {}).get("options", {})
check(ref and int(tbf.get("rate_bps", -1)) == ref["rate"] * 8, f"tbf rate {tbf.get('rate_bps')} bit/s = tc's {ref.get('rate')} B/s x 8")
# tc shows the burst through whole microseconds at the rate: within one of them, and the 20 KiB set
check(ref and abs(int(tbf.get("burst_bytes", -1)) - ref["burst"]) <= ref["rate"] / 1e6 and tbf.get("burst_bytes") == "20480",
      f"tbf burst {tbf.get('burst_bytes')} = tc's {ref.get('burst')} within 1 us at the rate, and the 20kb set")
# tc shows the limit as latency: limit = lat x rate + burst
lim = ref["lat"] * ref["rate"] / 1e6 + ref["burst"] if ref else -1
ch = [c for c in cfg.get("changed", []) if c["scope"] == "qdisc" and c["key"] == "limit_bytes"]
check(len(ch) == 1 and (ch[0]["from"], ch[0]["to"]) == ("40000", "80000") and "tbf 1:" in ch[0]["object"],
      f"the limit changed during the recording is named with both values ({ch})")
check(abs(int(tbf.get("limit_bytes", -1)) - lim) <= ref.get("rate", 0) / 1e6 + 1 and tbf.get("limit_bytes") == "40000",
      f"tbf limit {tbf.get('limit_bytes')} bytes = tc's latency x rate + burst ({lim:.0f}) and the 40000 set")
phd, ref = q.get(("pfifo_head_drop", "10:"), {}), tc.get(("pfifo_head_drop", "10:"), {})
check(phd.get("parent") == "1:1" and ref.get("parent") == "1:1", f"pfifo_head_drop under 1:1 ({phd.get('parent')})")
check(phd.get("params", {}).get("limit_pkts") == str(ref.get("options", {}).get("limit")),
      f"pfifo_head_drop limit {phd.get('params', {}).get('limit_pkts')} = tc's {ref.get('options', {}).get('limit')}")
st = ifs[0]["settings"] if ifs else {}
check(st.get("mtu") == "1500" and st.get("qdisc") == "tbf" and st.get("tso") == "off" and st.get("gso") == "off",
      f"{h1}/eth0: mtu 1500, root qdisc tbf, TSO and GSO off as the lab sets them ({st})")

# sockets: the congestion control as ss -tin shows it, ECN as each socket's TCP_INFO says
def ss(path, netns):
    out, cur = {}, None
    for line in open(path):
        if not line[0].isspace():
            f = line.split()
            cur = (f[-2], f[-1])
            out[cur] = None
        elif cur:
            out[cur] = line.split()[0].split(":")[0]
    return {(netns, a, b): v for (a, b), v in out.items()}

want_cc = {**ss(f"{tmp}/ss1.txt", h1), **ss(f"{tmp}/ss2.txt", h2)}
own = {}
for who, netns in (("h1sink", h1), ("h1send", h1), ("h2sink", h2), ("h2send", h2), ("h1sink6", h1), ("h2send6", h2)):
    r = json.load(open(f"{tmp}/sock.{who}"))
    own[(netns, r["local"], r["peer"])] = r
names = {n["netns"]: n["name"] for n in cfg.get("namespaces", [])}
got = {}
for fl in cfg.get("flows", []):
    if fl["flow"]:
        a, b = fl["flow"].split(" -> ")
        got[(names.get(fl["netns"]), a, b)] = fl["settings"]
lab = {k: v for k, v in want_cc.items() if k[1].startswith(("198.18.0.", "[fd00:99::"))}
check(len(lab) == 6 and set(lab) == set(own), f"ss shows the 6 lab sockets ({sorted(lab)})")
for k, cc in lab.items():
    g = got.get(k, {})
    check(g.get("cc") == cc == own.get(k, {}).get("cc"), f"socket {k}: congestion control {g.get('cc')} as ss and the socket say ({cc})")
for k, r in own.items():
    g = got.get(k, {})
    check(g.get("ecn") == r["ecn"], f"socket {k}: ECN {g.get('ecn')} as its TCP_INFO says ({r['ecn']})")
# found by a tick while the recording ran (its namespace's TCP counters moved),
# not only by the stop's last look: the test waited 2.5 s after they connected
when, end = {}, None
for line in open(f"{tmp}/cfgflows.txt"):
    f = line.split()
    if f[0] == "end":
        end = int(f[1])
    elif f[4] == "cc":
        when.setdefault((names.get(int(f[1])), f[2], f[3]), int(f[0]))
v4 = [k for k in own if not k[1].startswith("[")]
late = {k: (end - when[k]) / 1e9 if k in when and end else None for k in v4}
check(end and all(x is not None and x >= 1.0 for x in late.values()),
      f"the IPv4 sockets' settings written at least 1 s before the end, by a tick (s before the end: {late})")
ccs = sorted(lab.values())
check("cubic" in ccs and "bbr" in ccs, f"both cubic (per socket) and bbr (h2's default) among them ({ccs})")
ecn = {k[0] + ":" + k[1]: r["ecn"] for k, r in own.items()}
check(sorted(ecn.values()) == ["off", "off", "on", "on", "on", "on"],
      f"ECN negotiated on h2's connections only, IPv4 and IPv6 ({ecn})")

# the command's environment
procs = [p for p in cfg.get("processes", []) if p["env"].get("NCCL_ALGO") == "Ring"]
check(procs and procs[0]["env"].get("NCCL_IB_HCA") == "mlx5_0" and procs[0]["env"].get("GLOO_SOCKET_IFNAME") == "eth0"
      and "RANK" not in procs[0]["env"], f"the command's NCCL_* and GLOO_* variables, and only those ({procs[:1]})")
check(cfg.get("unknown") == 0, f"nothing unreadable as root ({cfg.get('unknown')})")

text = open(f"{tmp}/info.txt").read()
check("configuration:" in text and f"netns {h2}" in text and "qdisc tbf 1: (root)" in text
      and "NCCL_ALGO=Ring" in text, "the text info shows the section")
done()
PY
[[ $? == 0 ]] || bad "configuration checks"
finish
