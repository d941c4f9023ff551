#!/usr/bin/env python3
"""Helpers for the fabtrace benchmarks (tools/bench/*.sh): snapshots of BPF
program statistics, one JSON row per measurement, medians and ratios, and the
markdown tables spliced into docs/performance.md.

    benchlib.py meta NAME [KEY=VALUE...]      machine/load line for a results file
    benchlib.py bpfsnap PID... [--names F] [--prev SNAP]   BPF programs of the PIDs: name, run time, runs
    benchlib.py linked PID                    names of the programs PID holds attached (its link fds)
    benchlib.py tprow|hookrow|rbrow|fprow|reprow ...   one result row (JSON line)
    benchlib.py brief                         one-line summary of the row on stdin
    benchlib.py render NAME RESULTS.jsonl     markdown for one benchmark
    benchlib.py splice DOC NAME MARKDOWN      replace DOC's section NAME with the file
Standard library only."""

import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time


# ---------------------------------------------------------------- helpers

def load_json(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs):
    xs = [x for x in xs if x is not None]
    return (min(xs), max(xs)) if xs else (None, None)


def median_interval(xs, level=0.95):
    """The distribution-free interval of the median (the sign test's: order
    statistics k and n+1-k, k the largest with P(Binomial(n, 1/2) < k) <=
    (1-level)/2); None under 6 values, where it would be the whole range."""
    xs = sorted(x for x in xs if x is not None)
    n, cum, k = len(xs), 0.0, 0
    for j in range(n + 1):
        cum += math.comb(n, j) / 2 ** n
        if cum > (1 - level) / 2:
            break
        k = j + 1
    return (xs[k - 1], xs[n - k]) if n >= 6 and k >= 1 else None


def fmt_interval(xs, nd=3):
    ci = median_interval(xs)
    return f"{fmt(ci[0], nd)}–{fmt(ci[1], nd)}" if ci else "–"


def fmt(x, nd=2, unit=""):
    if x is None:
        return "–"
    if isinstance(x, float) and nd == 0:
        return f"{x:,.0f}{unit}"
    if isinstance(x, int):
        return f"{x:,}{unit}"
    return f"{x:,.{nd}f}{unit}"


def fmt_range(xs, nd=2, unit=""):
    m = med(xs)
    lo, hi = spread(xs)
    if m is None:
        return "–"
    if len([x for x in xs if x is not None]) < 2:
        return fmt(m, nd, unit)
    return f"{fmt(m, nd, unit)} ({fmt(lo, nd)}–{fmt(hi, nd)})"


def si(x, nd=1):
    """1234567 -> 1.2M"""
    if x is None:
        return "–"
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.{nd}f}{suf}"
    return f"{x:.0f}"


def rows_of(path):
    out = []
    for line in read_text(path).splitlines():
        line = line.strip()
        if line:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


# ---------------------------------------------------------------- meta

def cpu_model():
    for line in read_text("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def machine():
    mem = 0
    for line in read_text("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            mem = int(line.split()[1]) // 1024
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "kernel": platform.release(),
        "cpu": cpu_model(),
        "ncpu": os.cpu_count(),
        "mem_mb": mem,
        "load": read_text("/proc/loadavg").split()[:3],
    }


def proc_ticks():
    """utime+stime (clock ticks) of every process, by pid, with its name."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        st = read_text(f"/proc/{pid}/stat")
        if ")" not in st:
            continue
        name, rest = st[st.index("(") + 1:st.rindex(")")], st[st.rindex(")") + 2:].split()
        out[int(pid)] = (name, int(rest[11]) + int(rest[12]))
    return out


def busy_pct(seconds=2.0):
    """CPU busy (all CPUs, % of one) over a short sample: what else runs
    here; and the processes that took >= 10 % of a CPU meanwhile."""
    def snap():
        f = read_text("/proc/stat").splitlines()[0].split()[1:]
        v = [int(x) for x in f]
        return sum(v) - v[3] - v[4], sum(v)
    b0, t0 = snap()
    p0 = proc_ticks()
    time.sleep(seconds)
    b1, t1 = snap()
    p1 = proc_ticks()
    ncpu = os.cpu_count() or 1
    hz = os.sysconf("SC_CLK_TCK")
    busy = [{"pid": pid, "comm": name, "pct": round((t - p0[pid][1]) / hz / seconds * 100)}
            for pid, (name, t) in p1.items() if pid in p0 and (t - p0[pid][1]) / hz >= 0.1 * seconds]
    return ((b1 - b0) / (t1 - t0) * 100 * ncpu if t1 > t0 else None,
            sorted(busy, key=lambda x: -x["pct"]))


# Before a benchmark: CPUs this busy (% of one) make its side-by-side ratios noisy.
BUSY_WARN_PCT = 25


def cmd_meta(a):
    d = {"type": "meta", "bench": a.name}
    d.update(machine())
    if a.busy:
        d["busy_pct"], d["busy_procs"] = busy_pct()
        if d["busy_pct"] is not None and d["busy_pct"] >= BUSY_WARN_PCT:
            who = ", ".join(f"{p['comm']} (pid {p['pid']}, {p['pct']} %)" for p in d["busy_procs"][:3])
            print(f"[{a.name}] warning: the CPUs were {d['busy_pct']:.0f} % of one CPU busy before the benchmark "
                  f"({who or 'no one process'}): its ratios will be noisy; stop what is not needed",
                  file=sys.stderr)
    for kv in a.kv:
        k, _, v = kv.partition("=")
        d[k] = v
    print(json.dumps(d))


# ---------------------------------------------------------------- BPF statistics

def fdinfo(pid, fd):
    d = {}
    for line in read_text(f"/proc/{pid}/fdinfo/{fd}").splitlines():
        k, _, v = line.partition(":")
        d[k.strip()] = v.strip()
    return d


def bpf_fdinfos(pid, anon):
    """fdinfo of each fd of PID that is a BPF object of kind ANON (anon_inode:bpf-prog, anon_inode:bpf_link)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != anon:
                continue
        except OSError:
            continue
        yield fdinfo(pid, fd)


def bpf_progs(pid):
    """{prog_id: {"ns": run_time_ns, "cnt": run_cnt}} of the programs PID holds."""
    progs = {}
    for d in bpf_fdinfos(pid, "anon_inode:bpf-prog"):
        if "prog_id" in d:
            progs[d["prog_id"]] = {"ns": int(d.get("run_time_ns", 0)), "cnt": int(d.get("run_cnt", 0))}
    return progs


def prog_names(ids):
    """Names from bpftool (≤15 characters: the kernel's copy)."""
    names = {}
    if not ids:
        return names
    try:
        out = subprocess.run(["bpftool", "prog", "show", "--json"], capture_output=True,
                             text=True, timeout=30).stdout
        for p in json.loads(out or "[]"):
            if str(p.get("id")) in ids:
                names[str(p["id"])] = p.get("name", "?")
    except (OSError, ValueError, subprocess.TimeoutExpired):
        pass
    return names


TRACING_TYPES = ("tracing", "raw_tracepoint", "tracepoint", "kprobe", "perf_event")


def foreign_tracing_progs(own):
    """BPF tracing programs loaded on the machine that are not in `own` (ids):
    other users' tracers, whose programs also run on these hooks."""
    try:
        out = subprocess.run(["bpftool", "prog", "show", "--json"], capture_output=True,
                             text=True, timeout=30).stdout
        return sum(1 for p in json.loads(out or "[]")
                   if p.get("type") in TRACING_TYPES and str(p.get("id")) not in own)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def cmd_bpfsnap(a):
    progs = {}
    for pid in a.pid:
        for i, p in bpf_progs(pid).items():
            p["pid"] = int(pid)
            progs[i] = p
    names = {}
    prev = load_json(a.prev, {}) if a.prev else {}
    for i, p in (prev or {}).items():
        names[i] = p.get("name", "?")
    if a.names:  # "prog ID NAME" lines (tools/bench/floor prints them: full names)
        for line in read_text(a.names).splitlines():
            f = line.split()
            if len(f) == 3 and f[0] == "prog":
                names[f[1]] = f[2]
    missing = {i for i in progs if i not in names}
    names.update(prog_names(missing))
    for i, p in progs.items():
        p["name"] = names.get(i, "?")
    print(json.dumps(progs))


def cmd_linked(a):
    ids = {d["prog_id"] for d in bpf_fdinfos(a.pid, "anon_inode:bpf_link") if "prog_id" in d}
    for name in sorted(set(prog_names(ids).values())):
        print(name)


def bpf_delta(f0, f1):
    """Run time and runs per program between two snapshots."""
    s0, s1 = load_json(f0, {}) or {}, load_json(f1, {}) or {}
    out = {}
    for i, p in s1.items():
        q = s0.get(i, {"ns": 0, "cnt": 0})
        out[i] = {"name": p.get("name", "?"), "ns": p["ns"] - q["ns"], "cnt": p["cnt"] - q["cnt"]}
    return out


# ---------------------------------------------------------------- 1. throughput

def tracer_loss(mode, out, err, info):
    """(lost, of) — what the tracer says it lost, out of how many."""
    if mode.startswith("tcpdump"):
        m = re.search(r"(\d+) packets? dropped by kernel", err)
        r = re.search(r"(\d+) packets? received by filter", err)
        return (int(m.group(1)) if m else None, int(r.group(1)) if r else None)
    if mode.startswith(("fabtrace", "always")):
        # lost events (ring buffer full, maps full) plus runs the kernel skipped
        lost = (info or {}).get("lost", {})
        if "total" not in lost:
            return (None, None)
        n = lost["total"] + (lost.get("skipped_runs") or 0)
        return (n, info.get("records", {}).get("total", 0) + n)
    if mode == "bpftrace":
        lost = sum(int(x) for x in re.findall(r"Lost (\d+) events", out + err))
        lines = sum(1 for ln in out.splitlines() if ln.split(" ", 1)[0] in ("tx", "rx", "q", "rtx"))
        return (lost, lines + lost)
    return (None, None)


def cmd_tprow(a):
    ip = load_json(a.iperf, {}) or {}
    end = ip.get("end", {})
    # a run cut short (iperf3 interrupted, server gone) is not a measurement
    if "sum_received" not in end or end["sum_received"].get("seconds", 0) < 0.9 * a.seconds:
        sys.exit(1)
    el = a.t1 - a.t0
    row = {
        "type": "row", "config": a.config, "mode": a.mode, "rep": a.rep,
        "gbps": end["sum_received"]["bits_per_second"] / 1e9,
        "retrans": end.get("sum_sent", {}).get("retransmits"),
        "iperf_s": end["sum_received"].get("seconds"),
        "elapsed_s": el,
        "sys_busy_pct": (a.busy1 - a.busy0) / (a.clk * el) * 100 if el > 0 else None,
        "bpf_stats": a.bpf_stats,
    }
    # CPU per bit: steal (the host running others on this VM's CPUs) moves
    # the throughput of a CPU-bound run, not what each bit costs this VM
    bits = end["sum_received"]["bits_per_second"] * end["sum_received"].get("seconds", 0)
    if a.steal0 is not None and a.steal1 is not None and bits > 0:
        row["steal_pct"] = (a.steal1 - a.steal0) / (a.clk * el) * 100 if el > 0 else None
        row["cpu_ns_per_kbit"] = ((a.busy1 - a.busy0) - (a.steal1 - a.steal0)) / a.clk * 1e9 / (bits / 1e3)
    if a.ticks0 not in (None, "") and a.ticks1 not in (None, ""):
        row["tracer_cpu_pct"] = (int(a.ticks1) - int(a.ticks0)) / a.clk / el * 100
    row["foreign_progs"] = foreign_tracing_progs(set((load_json(a.bpf1, {}) or {}).keys()))
    if a.mode != "none":
        d = bpf_delta(a.bpf0, a.bpf1)
        if d and a.bpf_stats:  # untimed programs show 0 ns: not a measurement
            row["bpf_ns"] = sum(p["ns"] for p in d.values())
            row["bpf_runs"] = sum(p["cnt"] for p in d.values())
            row["bpf_cpu_pct"] = row["bpf_ns"] / 1e9 / el * 100
        lost, of = tracer_loss(a.mode, read_text(a.out), read_text(a.err), load_json(a.info, {}))
        row["lost"] = lost
        row["lost_of"] = of
        row["written_bytes"] = a.bytes if a.mode != "bpftrace" else os.path.getsize(a.out) if os.path.exists(a.out) else 0
    print(json.dumps(row))


def cmd_brief(_a):
    r = json.loads(sys.stdin.readline())
    keep = [f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items() if k != "type"]
    print("  " + " ".join(keep))


def render_throughput(rows, meta):
    out = []
    for cfg, title in (("gso", "GSO/TSO on (64 kB skbs)"), ("mtu", "GSO/TSO off (MTU-sized packets)")):
        rs = [r for r in rows if r.get("config") == cfg]
        if not rs:
            continue
        base = {r["rep"]: r["gbps"] for r in rs if r["mode"] == "none"}
        out.append(f"**{title}** — iperf3 h1→h2, {len(base)} repetitions; median (min–max)\n")
        cpb = {r["rep"]: r["cpu_ns_per_kbit"] for r in rs if r["mode"] == "none" and r.get("cpu_ns_per_kbit")}
        out.append("| mode | throughput Gbit/s | vs none | vs none, 95 % interval of the median "
                   "| CPU per bit, none's ÷ this | tracer CPU, userspace "
                   "| BPF run time | machine busy | steal | lost | written |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for mode in ("none", "fabtrace", "fabtrace_stats", "fabtrace_kcov", "fabtrace_ccov", "fabtrace_wake0",
                     "fabtrace_100us", "fabtrace_notx", "fabtrace_notxrtt", "fabtrace_nophases",
                     "fabtrace_ctr100ms", "fabtrace_x1", "fabtrace_x2", "fabtrace_x3", "always", "always_ctr10ms",
                     "always_10us", "always_post", "tcpdump", "tcpdump128", "bpftrace"):
            m = [r for r in rs if r["mode"] == mode]
            if not m:
                continue
            ratios = [r["gbps"] / base[r["rep"]] for r in m if base.get(r["rep"])]
            cratios = [cpb[r["rep"]] / r["cpu_ns_per_kbit"] for r in m if cpb.get(r["rep"]) and r.get("cpu_ns_per_kbit")]
            lost = [r.get("lost") for r in m]
            lost_of = [r.get("lost_of") for r in m]
            pct = [l / o * 100 for l, o in zip(lost, lost_of) if l is not None and o]
            if mode == "none":
                lost_s = "–"
            elif med(lost) is None:
                lost_s = "?"
            else:
                lost_s = f"{fmt(med(lost), 0)} ({fmt(med(pct), 2)} %)" if pct else fmt(med(lost), 0)
            wr = [r["written_bytes"] / r["elapsed_s"] / 1e6 for r in m if r.get("written_bytes") is not None]
            name = {"none": "no tracing", "fabtrace": "fabtrace record, 10 µs bins",
                    "fabtrace_stats": "fabtrace record, 10 µs bins, programs timed (bpf_stats on)",
                    "fabtrace_kcov": "fabtrace record, 10 µs bins, --coverage kernel",
                    "fabtrace_ccov": "fabtrace record, 10 µs bins, --coverage counters",
                    "fabtrace_wake0": "fabtrace record, 10 µs bins, --wakeup 0",
                    "fabtrace_100us": "fabtrace record, 100 µs bins",
                    "fabtrace_notx": "fabtrace record, 10 µs bins, --no-probes iface_tx",
                    "fabtrace_notxrtt": "fabtrace record, 10 µs bins, --no-probes iface_tx,rtt",
                    "fabtrace_nophases": "fabtrace record, 10 µs bins, --no-phases",
                    "fabtrace_ctr100ms": "fabtrace record, 10 µs bins, --counter-period 100ms",
                    "always": "fabtrace record --profile always, 100 µs bins",
                    "always_ctr10ms": "fabtrace record --profile always, 100 µs bins, counters every 10 ms",
                    "always_10us": "fabtrace record --profile always, 10 µs bins",
                    "always_post": "fabtrace record --profile always --post-probes qdisc,rtt,owners, "
                                   "100 µs bins, inside a post-window",
                    "fabtrace_x1": "fabtrace record, 100 µs bins, $BENCH_TP_X1",
                    "fabtrace_x2": "fabtrace record, 100 µs bins, $BENCH_TP_X2",
                    "fabtrace_x3": "fabtrace record, 100 µs bins, $BENCH_TP_X3",
                    "tcpdump": "tcpdump -w (full snaplen)", "tcpdump128": "tcpdump -s 128 -w",
                    "bpftrace": "bpftrace script"}[mode]
            out.append("| " + " | ".join([
                name,
                fmt_range([r["gbps"] for r in m], 2),
                "1" if mode == "none" else fmt_range(ratios, 3),
                "–" if mode == "none" else fmt_interval(ratios),
                "1" if mode == "none" else fmt_range(cratios, 3) if cratios else "–",
                fmt_range([r.get("tracer_cpu_pct") for r in m], 1, " %") if mode != "none" else "–",
                fmt_range([r.get("bpf_cpu_pct") for r in m], 1, " %") if any(r.get("bpf_cpu_pct") is not None for r in m) else "–",
                fmt(med([r.get("sys_busy_pct") for r in m]), 0, " %"),
                fmt(med([r.get("steal_pct") for r in m]), 1, " %"),
                lost_s,
                fmt(med(wr), 1, " MB/s") if wr and mode != "none" else "–",
            ]) + " |")
        # issue 33's target for the full profile, paired by repetition
        by = {}
        for r in rs:
            by.setdefault(r["rep"], {})[r["mode"]] = r["gbps"]
        for mode, what in (("fabtrace", "fabtrace record (10 µs bins)"),
                           ("fabtrace_kcov", "fabtrace record (10 µs bins, --coverage kernel)"),
                           ("fabtrace_notx", "fabtrace record (10 µs bins, --no-probes iface_tx)"),
                           ("fabtrace_notxrtt", "fabtrace record (10 µs bins, --no-probes iface_tx,rtt)"),
                           ("fabtrace_nophases", "fabtrace record (10 µs bins, --no-phases)"),
                           ("fabtrace_ctr100ms", "fabtrace record (10 µs bins, --counter-period 100ms)"),
                           ("fabtrace_100us", "fabtrace record (100 µs bins)"),
                           ("fabtrace_x1", "fabtrace record (100 µs bins, $BENCH_TP_X1)"),
                           ("fabtrace_x2", "fabtrace record (100 µs bins, $BENCH_TP_X2)"),
                           ("fabtrace_x3", "fabtrace record (100 µs bins, $BENCH_TP_X3)"),
                           ("always_post", "fabtrace record --profile always inside a post-window "
                                           "(--post-probes qdisc,rtt,owners)")):
            vs = [v[mode] / v["tcpdump128"] for v in by.values() if v.get(mode) and v.get("tcpdump128")]
            if vs:
                out.append(f"\n{what} ÷ tcpdump -s 128 -w, per repetition: {fmt_range(vs, 3)}; "
                           f"95 % interval of the median {fmt_interval(vs)}.")
        out.append("")
    fr = [r.get("foreign_progs") for r in rows if r.get("foreign_progs") is not None]
    if fr:
        busy = sum(1 for x in fr if x)
        out.append(f"Other BPF tracing programs (other users' tracers, also on these hooks) were loaded "
                   f"at the end of {busy} of {len(fr)} runs" + (f", up to {max(fr)} at once." if busy else "."))
    return "\n".join(out)


# ---------------------------------------------------------------- 0. attribution

def cmd_atrow(a):
    ip = load_json(a.iperf, {}) or {}
    end = ip.get("end", {})
    if "sum_received" not in end or end["sum_received"].get("seconds", 0) < 0.9 * a.seconds:
        sys.exit(1)
    el = a.t1 - a.t0
    busy_s = (a.busy1 - a.busy0) / a.clk
    row = {"type": "row", "config": a.config, "mode": a.mode, "rep": a.rep,
           "gbps": end["sum_received"]["bits_per_second"] / 1e9, "elapsed_s": el,
           "pkts": a.pkts, "busy_s": busy_s,
           "busy_ns_per_pkt": busy_s * 1e9 / a.pkts if a.pkts > 0 else None}
    if a.ticks0 not in (None, "") and a.ticks1 not in (None, ""):
        t = (int(a.ticks1) - int(a.ticks0)) / a.clk
        row["tracer_cpu_pct"] = t / el * 100
        row["tracer_ns_per_pkt"] = t * 1e9 / a.pkts if a.pkts > 0 else None
    if a.mode != "none" and not a.mode.endswith("_nostats"):  # untimed programs show 0 ns
        d = bpf_delta(a.bpf0, a.bpf1)
        row["progs"] = {p["name"]: {"cnt": p["cnt"], "ns": p["ns"]} for p in d.values()}
        row["bpf_ns"] = sum(p["ns"] for p in d.values())
        row["bpf_runs"] = sum(p["cnt"] for p in d.values())
    if a.mode.startswith("fabtrace"):
        out = read_text(a.out)
        try:
            j = json.loads(out[out.index("{"):]) if "{" in out else {}
        except ValueError:
            j = {}
        row["records"] = j.get("records")
        row["ring_wakeups"] = j.get("ring_wakeups")
        row["lost_events"] = j.get("lost_events")
        row["coverage"] = j.get("coverage")  # how skipped runs were counted (absent before 2026-11-27: counters here)
    row["foreign_progs"] = foreign_tracing_progs(set((load_json(a.bpf1, {}) or {}).keys()))
    print(json.dumps(row))


AT_NAMES = {"none": "no tracing", "counters": "perf counters on the 8 network tracepoints (no program)",
            "floor": "empty program on every hook",
            "floor_nostats": "empty program on every hook, programs not timed (bpf_stats off)",
            "floor_min": "only the cheapest binner: a tcx program on h1's eth0 egress and ingress, one clock read and one add per packet",
            "floor_min_nostats": "only the cheapest binner, programs not timed (bpf_stats off)",
            "floor_pid1": "empty program on every hook, plus perf counters per thread of PID 1 (--coverage pid1)",
            "fabtrace": "fabtrace record, 10 µs bins",
            "fabtrace_nostats": "fabtrace record, 10 µs bins, programs not timed (bpf_stats off)",
            "fabtrace_kcov": "fabtrace record, 10 µs bins, --coverage kernel",
            "fabtrace_ccov": "fabtrace record, 10 µs bins, --coverage counters",
            "fabtrace_nophases": "fabtrace record, 10 µs bins, --no-phases",
            "fabtrace_tp": "fabtrace record, 10 µs bins, iface_rx on its tracepoint (FABTRACE_VARIANTS=tp_btf)"}


def per_pkt(rows, key):
    return [r[key] for r in rows if r.get(key) is not None]


def clock_read_ns(rows):
    """What one bpf_ktime_get_ns() costs here (floor --clock-cost rows), or None."""
    ck = [r["clock_ns"] - r["empty_ns"] for r in rows if r.get("type") == "clock"]
    return med(ck) if ck else None


def clock_note(ck):
    return (f"A clock read (`bpf_ktime_get_ns()`) costs **{fmt(ck, 0)} ns** per run on this machine "
            "(`floor --clock-cost`: BPF_PROG_TEST_RUN of a program with one and one without, 7 × 10⁶ runs); "
            "a program that bins packets by time needs one per traced packet, so *× (empty + clock)* "
            "compares fabtrace's program with the cheapest program that could do its work on that hook. ")


def min_binner_lines(rs, cfg):
    """The cheapest binner's programs (floor_min run) beside the empty tcx program (floor run)."""
    mins = [r for r in rs if r["mode"] == "floor_min" and r.get("progs") and r.get("pkts")]
    if not mins:
        return []
    empty = [p["ns"] / p["cnt"] for r in rs if r["mode"] == "floor" and r.get("progs")
             for n, p in r["progs"].items() if n == "fl_tcx_ingress" and p["cnt"]]
    out = [f"*The cheapest binner* ({cfg}, floor_min run): a tcx program on h1's eth0 alone, one clock read "
           "and one add per packet; an empty tcx program on h1's eth0 ingress (floor run) costs "
           + (fmt(med(empty), 0) + " ns per run." if empty else "– (no floor run)."), "",
           "| program | runs per packet | ns per run | ns per packet | × empty tcx program |", "|---|---|---|---|---|"]
    for n in ("fl_min_egress", "fl_min_ingress"):
        rp = [r["progs"][n]["cnt"] / r["pkts"] for r in mins if n in r["progs"]]
        npr = [r["progs"][n]["ns"] / r["progs"][n]["cnt"] for r in mins if n in r["progs"] and r["progs"][n]["cnt"]]
        npp = [r["progs"][n]["ns"] / r["pkts"] for r in mins if n in r["progs"]]
        if not npr:
            continue
        ratio = med(npr) / med(empty) if empty and med(empty) else None
        out.append(f"| `{n}` | {fmt(med(rp), 3)} | {fmt_range(npr, 0)} | {fmt(med(npp), 1)} | "
                   + (fmt(ratio, 2) + "×" if ratio else "–") + " |")
    out.append("")
    return out


def render_attrib(rows, meta):
    out = []
    for cfg, title in (("gso", "GSO/TSO on (64 kB skbs)"), ("mtu", "GSO/TSO off (MTU-sized packets)")):
        rs = [r for r in rows if r.get("config") == cfg]
        if not rs:
            continue
        base = {r["rep"]: r for r in rs if r["mode"] == "none"}
        out.append(f"**{title}** — iperf3 h1→h2, {len(base)} repetitions; median (min–max). "
                   "*CPU per packet*: all CPUs' busy time over the run / h1's eth0 tx packets "
                   "(the path is CPU-bound, so throughput ≈ 1 / this); *extra*: the same minus "
                   "the untraced run of the repetition.\n")
        out.append("| mode | throughput Gbit/s | vs none | packets/s | CPU per packet | extra CPU per packet | BPF run time per packet | tracer CPU per packet |")
        out.append("|---|---|---|---|---|---|---|---|")
        extra = {}
        for mode in ("none", "counters", "floor", "floor_nostats", "floor_min", "floor_min_nostats", "floor_pid1",
                     "fabtrace", "fabtrace_nostats",
                     "fabtrace_kcov", "fabtrace_ccov", "fabtrace_nophases", "fabtrace_tp"):
            m = [r for r in rs if r["mode"] == mode]
            if not m:
                continue
            ratios = [r["gbps"] / base[r["rep"]]["gbps"] for r in m if r["rep"] in base]
            ex = [r["busy_ns_per_pkt"] - base[r["rep"]]["busy_ns_per_pkt"] for r in m
                  if r["rep"] in base and r.get("busy_ns_per_pkt") and base[r["rep"]].get("busy_ns_per_pkt")]
            extra[mode] = ex
            bpp = [r["bpf_ns"] / r["pkts"] for r in m if r.get("bpf_ns") is not None and r.get("pkts")]
            out.append("| " + " | ".join([
                AT_NAMES[mode], fmt_range([r["gbps"] for r in m], 2),
                "1" if mode == "none" else fmt_range(ratios, 3),
                si(med([r["pkts"] / r["elapsed_s"] for r in m])),
                fmt_range(per_pkt(m, "busy_ns_per_pkt"), 0, " ns"),
                "–" if mode == "none" else fmt_range(ex, 0, " ns"),
                fmt_range(bpp, 0, " ns") if bpp else "–",
                fmt_range(per_pkt(m, "tracer_ns_per_pkt"), 0, " ns") if mode != "none" else "–",
            ]) + " |")
        out.append("")
        out.extend(min_binner_lines(rs, cfg))
        # per program
        fab = [r for r in rs if r["mode"] == "fabtrace" and r.get("progs")]
        flo = [r for r in rs if r["mode"] == "floor" and r.get("progs")]
        if fab:
            ck = clock_read_ns(rows)
            out.append(f"*fabtrace's programs on this path* ({cfg}): runs per tx packet of h1's eth0, "
                       "ns per run (bpf_stats), ns per packet; the empty program on the same hook "
                       "(floor run) beside it. " + (clock_note(ck) if ck is not None else "") + "\n")
            out.append("| program | hook | runs per packet | ns per run | ns per packet | empty program, ns per run | × empty | × (empty + clock) |")
            out.append("|---|---|---|---|---|---|---|---|")
            names = sorted({n for r in fab for n in r["progs"]},
                           key=lambda n: (HOOK_ORDER.index(fab_hook(n)) if fab_hook(n) in HOOK_ORDER else 99, n))
            tot = []
            for n in names:
                hook = fab_hook(n) or "?"
                rp = [r["progs"][n]["cnt"] / r["pkts"] for r in fab if n in r["progs"] and r["pkts"]]
                npr = [r["progs"][n]["ns"] / r["progs"][n]["cnt"] for r in fab
                       if n in r["progs"] and r["progs"][n]["cnt"]]
                npp = [r["progs"][n]["ns"] / r["pkts"] for r in fab if n in r["progs"] and r["pkts"]]
                if not any(x > 0 for x in rp):
                    continue
                fl = [p["ns"] / p["cnt"] for r in flo for fn, p in r["progs"].items()
                      if floor_hook(fn) == hook and p["cnt"]]
                ratio = med(npr) / med(fl) if npr and fl and med(fl) else None
                rck = med(npr) / (med(fl) + ck) if npr and fl and ck is not None else None
                out.append("| " + " | ".join([f"`{n}`", hook, fmt(med(rp), 3), fmt_range(npr, 0),
                                              fmt(med(npp), 1), fmt(med(fl), 0) if fl else "–",
                                              fmt(ratio, 2) + "×" if ratio else "–",
                                              fmt(rck, 2) + "×" if rck else "–"]) + " |")
            for r in fab:
                tot.append(r["bpf_ns"] / r["pkts"] if r["pkts"] else None)
            out.append(f"| **all programs** | | | | **{fmt(med(tot), 0)}** | | | |")
            out.append("")
            # attribution in ns of CPU per packet
            fl_bpf = [r["bpf_ns"] / r["pkts"] for r in flo if r.get("pkts")]
            fab_bpf = [x for x in tot if x is not None]
            rec = per_pkt(fab, "tracer_ns_per_pkt")
            recs = [r["records"] / r["pkts"] for r in fab if r.get("records") and r["pkts"]]
            wk = [r["ring_wakeups"] / r["elapsed_s"] for r in fab if r.get("ring_wakeups") is not None]
            e_fab, e_floor, e_cnt = med(extra.get("fabtrace", [])), med(extra.get("floor", [])), med(extra.get("counters", []))
            # timing the programs (bpf_stats) costs two clock reads per run, outside the run time it
            # measures: the *_nostats runs leave it out, and without them it hides in the hooks' part
            e_fab0, e_floor0 = med(extra.get("fabtrace_nostats", [])), med(extra.get("floor_nostats", []))
            timing = e_fab - e_fab0 if e_fab is not None and e_fab0 is not None else None
            e_hooks = e_floor0 if e_floor0 is not None else e_floor
            hooks_only = e_hooks - med(fl_bpf) if e_hooks is not None and fl_bpf else None
            # the coverage check's part: what the default recorder opened on this kernel
            cov = sorted({r.get("coverage") or "counters" for r in fab})
            if cov == ["pid1"]:
                e_p1 = med(extra.get("floor_pid1", []))
                cnt_part = ("the coverage check's counting perf events per thread of PID 1 (`--coverage pid1`; "
                            "floor_pid1 run − floor run: each hit calls the tracepoint's perf hook, which finds "
                            "no event unless PID 1 runs; the per-CPU counters it replaces cost " + fmt(e_cnt, 0) +
                            " ns in the counters run)",
                            e_p1 - e_floor if e_p1 is not None and e_floor is not None else None)
            elif cov == ["kernel"]:
                cnt_part = ("the coverage check (`--coverage kernel`: the programs' recursion_misses, read at the stop)", 0)
            else:
                cnt_part = ("the coverage check's counting perf events per CPU (counters run: extra CPU; `--coverage "
                            + "/".join(cov) + "`)", e_cnt)
            parts = [("fabtrace's programs, their own run time (bpf_stats)", med(fab_bpf)),
                     ("timing the programs for this table (bpf_stats' clock reads around each run; fabtrace run − "
                      "fabtrace_nostats run): a node that does not time them does not pay it", timing),
                     ("the enabled hooks: tracepoint dispatch and program entry, beyond an empty program's run time "
                      + ("(floor_nostats run: extra CPU − the floor run's run time)" if e_floor0 is not None
                         else "(floor run: extra CPU − its run time)"), hooks_only),
                     cnt_part,
                     ("the recorder: draining the rings (records/packet: " + fmt(med(recs), 3) + "; wake-ups/s: " + fmt(med(wk), 0) + "), writing the capture, sampling NIC counters", med(rec))]
            known = sum(v for _, v in parts if v is not None)
            out.append(f"*Attribution* ({cfg}), CPU ns per packet, medians of the runs above (so the parts need not add up "
                       f"when the spread is large): fabtrace's whole extra cost is "
                       f"**{fmt(e_fab, 0)} ns** per packet over {fmt(med(per_pkt(list(base.values()), 'busy_ns_per_pkt')), 0)} ns untraced"
                       + (f"; {fmt(e_fab0, 0)} ns with its programs not timed (fabtrace_nostats)" if e_fab0 is not None else "")
                       + ".\n")
            out.append("| part | ns per packet |")
            out.append("|---|---|")
            for k, v in parts:
                out.append(f"| {k} | {fmt(v, 0)} |")
            if e_fab is not None:
                out.append(f"| rest: fabtrace's extra minus the parts (cache and scheduling effects, and the noise of the shared machine) | {fmt(e_fab - known, 0)} |")
            out.append("")
    fr = [r.get("foreign_progs") for r in rows if r.get("foreign_progs") is not None]
    if fr:
        busy = sum(1 for x in fr if x)
        out.append(f"Other BPF tracing programs (other users' tracers, also on these hooks) were loaded "
                   f"at the end of {busy} of {len(fr)} runs" + (f", up to {max(fr)} at once." if busy else "."))
    return "\n".join(out)


# ---------------------------------------------------------------- 0b. the coverage check's perf events

COV_NAMES = {"floor": "empty programs only",
             "floor_pid1": "+ a perf counter per thread of PID 1 per tracepoint (`--coverage pid1`)",
             "floor_cpu": "+ a perf counter per CPU per tracepoint (`--coverage counters`)"}


def render_coverage(rows, meta):
    out = []
    base = {r["rep"]: r["pps"] for r in rows if r["mode"] == "floor"}
    out.append(f"{len(base)} repetitions; median (min–max).  One CPU sends 64-byte UDP datagrams on lo as fast "
               "as it can; *ns per datagram*: 1 / datagrams per second; *extra*: the same minus the run with "
               "the empty programs only, in the same repetition.\n")
    out.append("| mode | datagrams/s | ns per datagram | extra ns per datagram | vs empty programs |")
    out.append("|---|---|---|---|---|")
    for mode in ("floor", "floor_pid1", "floor_cpu"):
        m = [r for r in rows if r["mode"] == mode and r.get("pps")]
        if not m:
            continue
        ns = [1e9 / r["pps"] for r in m]
        ex = [1e9 / r["pps"] - 1e9 / base[r["rep"]] for r in m if base.get(r["rep"])]
        ratio = [r["pps"] / base[r["rep"]] for r in m if base.get(r["rep"])]
        out.append("| " + " | ".join([COV_NAMES[mode], fmt_range([r["pps"] for r in m], 0),
                                      fmt_range(ns, 0, " ns"),
                                      "–" if mode == "floor" else fmt_range(ex, 0, " ns"),
                                      "1" if mode == "floor" else fmt_range(ratio, 3)]) + " |")
    return "\n".join(out)


# ---------------------------------------------------------------- 2. hooks

# fabtrace's programs (bpf/*.bpf.c, both variants) -> the hook they run on
FAB_HOOKS = [
    ("iface_tx_tcx", "tcx_egress_tx"), ("iface_tx_", "net_dev_start_xmit"), ("iface_rx_tcx", "tcx_ingress"),
    ("iface_rx_", "netif_receive_skb"),
    ("qdisc_enq_", "qdisc_enqueue"), ("qdisc_deq_", "qdisc_dequeue"), ("drop_", "kfree_skb"),
    ("retrans_", "tcp_retransmit_skb"), ("cong_state_", "tcp_cong_state_set"),
    ("tcp_sample_tcx", "tcx_egress_rtt"), ("tcp_sample_", "tcp_probe"), ("proc_fork_", "sched_process_fork"),
    ("proc_exec_", "sched_process_exec"), ("proc_exit_", "sched_process_exit"),
    ("sock_send_", "sock_send_length"), ("sock_recv_", "sock_recv_length"),
    ("phase_entry", "uprobe"), ("phase_exit", "uretprobe"),
]
HOOK_ORDER = [h for _, h in FAB_HOOKS]


def fab_hook(name):
    for pre, hook in FAB_HOOKS:
        if name.startswith(pre):
            return hook
    return None


def floor_hook(name):
    """The hook of one of tools/bench/floor's programs ("fl_" + the hook)."""
    return name[3:] if name.startswith("fl_") else None


def cmd_hookrow(a):
    el = a.t1 - a.t0
    both = bpf_delta(a.snap0, a.snap1)
    flo = {i: p for i, p in both.items() if p["name"].startswith("fl_")}
    fab = {i: p for i, p in both.items() if not p["name"].startswith("fl_")}
    hooks = {}
    for p in fab.values():
        h = fab_hook(p["name"])
        if h:
            e = hooks.setdefault(h, {"prog": p["name"], "fab_ns": 0, "fab_cnt": 0, "floor_ns": 0, "floor_cnt": 0})
            e["fab_ns"] += p["ns"]
            e["fab_cnt"] += p["cnt"]
    for p in flo.values():
        if p["name"].startswith("fl_"):
            h = p["name"][3:]
            e = hooks.setdefault(h, {"prog": None, "fab_ns": 0, "fab_cnt": 0, "floor_ns": 0, "floor_cnt": 0})
            e["floor_ns"] += p["ns"]
            e["floor_cnt"] += p["cnt"]
    if a.snap2 and a.snap3:
        for p in bpf_delta(a.snap2, a.snap3).values():
            h = fab_hook(p["name"])
            if h and h in hooks:
                hooks[h]["paused_ns"] = hooks[h].get("paused_ns", 0) + p["ns"]
                hooks[h]["paused_cnt"] = hooks[h].get("paused_cnt", 0) + p["cnt"]
    if not hooks:
        sys.exit(1)
    info = load_json(a.info, {}) or {}
    row = {"type": "row", "rep": a.rep, "first": a.first, "wakeup": a.wakeup, "elapsed_s": el, "hooks": hooks,
           "paused_s": (a.t3 - a.t2) if a.t3 and a.t2 else None,
           "fab_total_ns": sum(p["ns"] for p in fab.values()),
           "floor_total_ns": sum(p["ns"] for p in flo.values()),
           "gbps": a.txbytes * 8 / el / 1e9 if el > 0 else None,
           "retrans": info.get("records", {}).get("by_type", {}).get("retrans", 0),
           "lost": info.get("lost", {}).get("total"),
           "records": info.get("records", {}).get("total")}
    print(json.dumps(row))


def render_hooks(rows, meta):
    out = []
    # each repetition ran the recorder twice: default (batched) wake-ups, and
    # --wakeup 0 (one per record); rows of older runs have no "wakeup"
    ck = clock_read_ns(rows)
    rows = [r for r in rows if r.get("type") != "clock"]
    each = [r for r in rows if r.get("wakeup") == "each"]
    rows = [r for r in rows if r.get("wakeup") != "each"]
    n = len(rows)
    out.append(f"{n} repetitions; medians (min–max of ns per run).  *runs/s*: how often the hook fired; "
               "*fabtrace − floor*: what fabtrace's own code costs per run beyond an empty program; "
               "*--wakeup 0*: the same program when every record wakes the recorder (the same repetition, "
               "a second window). " + (clock_note(ck) if ck is not None else "") + "\n")
    out.append("| hook | fabtrace program | runs/s | fabtrace ns/run | empty program ns/run | fabtrace − floor | × (empty + clock) | fabtrace CPU (% of a core) | ns/run, recorder stopped | ns/run, --wakeup 0 |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for h in HOOK_ORDER:
        es = [(r["hooks"].get(h), r["elapsed_s"]) for r in rows if h in r["hooks"]]
        if not any(e["fab_cnt"] or e["floor_cnt"] for e, _ in es):
            continue  # a hook neither ran (floor's tcx program: this bench traces without -i)
        prog = next((e["prog"] for e, _ in es if e.get("prog")), "–")
        fab = [e["fab_ns"] / e["fab_cnt"] if e["fab_cnt"] else None for e, _ in es]
        flo = [e["floor_ns"] / e["floor_cnt"] if e["floor_cnt"] else None for e, _ in es]
        diff = [x - y for x, y in zip(fab, flo) if x is not None and y is not None]
        rate = [e["fab_cnt"] / el for e, el in es]
        cpu = [e["fab_ns"] / 1e9 / el * 100 for e, el in es]
        hook = ("uprobe (NCCL calls, marker steps)" if h == "uprobe" else
                "uretprobe (NCCL calls)" if h == "uretprobe" else f"`{h}`")
        paused = [e["paused_ns"] / e["paused_cnt"] if e.get("paused_cnt") else None for e, _ in es]
        ew = [r["hooks"][h] for r in each if h in r["hooks"]]
        wake0 = [e["fab_ns"] / e["fab_cnt"] if e["fab_cnt"] else None for e in ew]
        fabm, flom = med(fab), med(flo)
        rck = fabm / (flom + ck) if fabm is not None and flom is not None and ck is not None else None
        out.append("| " + " | ".join([hook, f"`{prog}`", si(med(rate)), fmt_range(fab, 0), fmt_range(flo, 0),
                                       fmt(med(diff), 0), fmt(rck, 2) + "×" if rck else "–",
                                       fmt(med(cpu), 2, " %"), fmt(med(paused), 0),
                                       fmt_range(wake0, 0) if ew else "–"]) + " |")
    tot = [r["fab_total_ns"] / 1e9 / r["elapsed_s"] * 100 for r in rows]
    ftot = [r["floor_total_ns"] / 1e9 / r["elapsed_s"] * 100 for r in rows]
    etot = [r["fab_total_ns"] / 1e9 / r["elapsed_s"] * 100 for r in each]
    out.append(f"| **all hooks** | | | | | | | **{fmt(med(tot), 2)} %** (empty programs: {fmt(med(ftot), 2)} %) | | "
               + (f"{fmt(med(etot), 2)} % |" if each else "|"))
    g = [r.get("gbps") for r in rows]
    rt = [r.get("retrans") for r in rows]
    lost = [r.get("lost") for r in rows]
    out.append(f"\nWorkload (medians per repetition): iperf3 at {fmt(med(g), 3)} Gbit/s through the tbf, "
               f"{fmt(med(rt), 0)} retransmits recorded; " +
               ("fabtrace lost no events." if not med(lost) else
                f"fabtrace lost {fmt(med(lost), 0)} events (in the stopped window, when the ring buffer "
                "filled up)."))
    return "\n".join(out)


# ---------------------------------------------------------------- 3. ring buffer

def cmd_rbrow(a):
    rep = load_json(a.report, {}) or {}
    if not rep:
        sys.exit(1)
    el = a.t1 - a.t0
    rec = sum(i.get("count", 0) for i in rep.get("drops", {}).get("items", [])
              if i.get("reason") == "NETFILTER_DROP")
    lost = rep.get("lost", {}).get("total_lost")
    gens = [load_json_str(read_text(g)) for g in a.gen]
    sent = sum((g or {}).get("sent", 0) for g in gens)
    offered = int(a.c1) - int(a.c0)
    row = {"type": "row", "ring": a.ring, "rate": a.rate, "rep": a.rep, "elapsed_s": el,
           "offered": offered, "offered_rate": offered / el if el > 0 else None, "sent": sent,
           "recorded": rec, "lost": lost,
           "unaccounted": offered - rec - (lost or 0),
           "recorder_cpu_pct": (int(a.ticks1) - int(a.ticks0)) / a.clk / el * 100}
    print(json.dumps(row))


def load_json_str(s):
    s = s.strip()
    try:
        return json.loads(s) if s else None
    except ValueError:
        return None


def rate_key(r):
    return float("inf") if r == "max" else float(r)


def render_ringbuf(rows, meta):
    out = []
    rings = []
    for r in rows:
        if r["ring"] not in rings:
            rings.append(r["ring"])
    nrep = len({r["rep"] for r in rows})
    secs = next((m.get("seconds") for m in meta if m.get("seconds")), "?")
    out.append(f"{nrep} repetitions of {secs} s per step.  *offered events/s*: drops counted by the iptables "
               "rule per second of sending (median, min–max); *offered*, *recorded* (drop events in the "
               "capture), *lost* (lost events the capture counted) and *gap* (offered − recorded − lost; "
               "0 = nothing vanished uncounted): totals over the repetitions; recorder CPU: median.\n")
    for ring in rings:
        rs = [r for r in rows if r["ring"] == ring]
        rates = sorted({r["rate"] for r in rs}, key=rate_key)
        out.append(f"**Ring buffer {ring}**" + (" (the default)" if ring == "16M" else "") + "\n")
        out.append("| target rate | offered events/s | offered | recorded | lost | lost % | gap | recorder CPU |")
        out.append("|---|---|---|---|---|---|---|---|")
        best = None
        for rate in rates:
            m = [r for r in rs if r["rate"] == rate]
            if all(r.get("lost") == 0 for r in m):
                orate = med([r["offered_rate"] for r in m])
                if best is None or orate > best:
                    best = orate
            # counts summed over the repetitions, so that each row adds up
            off = sum(r["offered"] for r in m)
            lost = sum(r["lost"] or 0 for r in m)
            out.append("| " + " | ".join([
                "as fast as 2 senders go" if rate == "max" else f"{si(rate_key(rate), 0)}/s",
                fmt_range([r["offered_rate"] for r in m], 0),
                fmt(off, 0),
                fmt(sum(r["recorded"] for r in m), 0),
                fmt(lost, 0),
                fmt(lost / off * 100 if off else None, 2, " %"),
                fmt(sum(r["unaccounted"] for r in m), 0),
                fmt(med([r["recorder_cpu_pct"] for r in m]), 1, " %"),
            ]) + " |")
        out.append(f"\nHighest offered rate with no loss in any repetition: **{fmt(best, 0)} events/s**.\n")
    return "\n".join(out)


# ---------------------------------------------------------------- 4. footprint

def slope(xs, ys):
    """Theil-Sen: the median of the pairwise slopes, so one transient bump
    (a buffer grown and given back) does not tilt the trend."""
    pts = list(zip(xs, ys))
    if len(pts) > 400:  # enough for a trend; keeps the pairs in the tens of thousands
        pts = [pts[int(i * (len(pts) - 1) / 399)] for i in range(400)]
    sl = [(y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(pts) for x2, y2 in pts[i + 1:] if x2 != x1]
    return statistics.median(sl) if sl else None


def pairs_gbps(paths):
    """The received rates of the iperf3 JSONs of all busy pairs, added up (Gbit/s)."""
    return sum((load_json(f, {}) or {}).get("end", {}).get("sum_received", {}).get("bits_per_second", 0)
               for f in paths) / 1e9


def rss_samples(path, t0):
    """The 'time rss_kb cpu_ticks bytes' lines a long run samples every
    second, as (seconds since T0, rss, ticks, bytes); the run fails with
    fewer than 3."""
    smp = []
    for line in read_text(path).splitlines():
        f = line.split()
        if len(f) == 4 and f[1].isdigit():
            smp.append((float(f[0]) - t0, int(f[1]), int(f[2]), int(f[3])))
    if len(smp) < 3:
        sys.exit(1)
    return smp


def cmd_fprow(a):
    el = a.t1 - a.t0
    gbps = pairs_gbps(a.iperf)
    size = os.path.getsize(a.capture) if os.path.exists(a.capture) else None
    if a.kind == "long":
        smp = rss_samples(a.samples, a.t0)
        warm = max(10.0, 0.1 * el)  # startup: buffers and maps fill
        after = [s for s in smp if s[0] >= warm] or smp
        cpu = (smp[-1][2] - smp[0][2]) / a.clk / (smp[-1][0] - smp[0][0]) * 100
        sl = slope([s[0] for s in after], [s[1] for s in after])
        row = {"type": "row", "kind": "long", "elapsed_s": el, "gbps": gbps,
               "rss_first_kb": smp[0][1], "rss_warm_kb": after[0][1], "rss_end_kb": smp[-1][1],
               "rss_max_kb": max(s[1] for s in smp), "hwm_kb": int(a.hwm) if a.hwm else None,
               "rss_slope_kb_per_min": sl * 60 if sl is not None else None,
               "cpu_pct": cpu, "capture_bytes": size,
               "capture_bps": size / el if size and el > 0 else None,
               "busy_ifaces": a.busy,
               "samples": [[round(s[0], 1), s[1]] for s in smp]}
        m = re.search(r"(\d+) lost events", read_text(a.err))
        row["lost"] = int(m.group(1)) if m else None
    else:
        info = load_json(a.info, {}) or {}
        bins = info.get("records", {}).get("by_type", {}).get("iface_bin")
        row = {"type": "row", "kind": "bin", "bin": a.bin, "rep": a.rep, "elapsed_s": el, "gbps": gbps,
               "capture_bytes": size, "busy": a.busy,
               "bps_per_iface": size / el / a.busy if size and el > 0 else None,
               "bins_per_s_per_iface": bins / el / a.busy if bins is not None and el > 0 else None,
               "pkts_per_s": a.pkts / el if a.pkts and el > 0 else None,
               "cpu_pct": (int(a.ticks1) - int(a.ticks0)) / a.clk / el * 100,
               "lost": info.get("lost", {}).get("total")}
    print(json.dumps(row))


def render_footprint(rows, meta):
    out = []
    lg = [r for r in rows if r.get("kind") == "long"]
    m0 = meta[0] if meta else {}
    if lg:
        r = lg[0]
        # the trend again from the samples, so a change of method needs no new run
        warm = max(10.0, 0.1 * r["elapsed_s"])
        after = [p for p in r["samples"] if p[0] >= warm] or r["samples"]
        sl = slope([p[0] for p in after], [p[1] for p in after])
        r["rss_slope_kb_per_min"] = sl * 60 if sl is not None else None
        nif = r.get("busy_ifaces") or 2
        pairs = f"{nif // 2} iperf3 pairs" if nif > 2 else "iperf3"
        out.append(f"**Long recording**: {r['elapsed_s']:.0f} s, {pairs} at {r['gbps']:.2f} Gbit/s in all "
                   f"(MTU-sized packets), default probes, 10 µs bins, {nif} busy interfaces; "
                   f"RSS sampled every second ({len(r['samples'])} samples); warm-up = the first "
                   f"{max(10.0, 0.1 * r['elapsed_s']):.0f} s; trend = Theil–Sen slope.\n")
        out.append("| RSS at start | after warm-up | at the end | largest sample | peak (VmHWM) | end − warm-up | trend after warm-up | recorder CPU | capture | lost events |")
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        out.append("| " + " | ".join([
            f"{r['rss_first_kb'] / 1024:.1f} MB", f"{r['rss_warm_kb'] / 1024:.1f} MB",
            f"{r['rss_end_kb'] / 1024:.1f} MB",
            f"{r['rss_max_kb'] / 1024:.1f} MB",
            f"{(r.get('hwm_kb') or r['rss_max_kb']) / 1024:.1f} MB",
            f"{(r['rss_end_kb'] - r['rss_warm_kb']) / 1024:+.1f} MB",
            f"{fmt(r.get('rss_slope_kb_per_min'), 0)} kB/min",
            f"{r['cpu_pct']:.1f} % of a core",
            f"{fmt((r.get('capture_bps') or 0) / 1e6, 2)} MB/s",
            fmt(r.get("lost"), 0),
        ]) + " |")
        # a coarse profile of RSS over time: every 10 minutes of a long run
        # (the sample nearest each mark, and the last), else ten points
        sm = r["samples"]
        if sm and sm[-1][0] >= 1200:
            marks = [600.0 * k for k in range(int(sm[-1][0] // 600) + 1)]
            pts = [min(sm, key=lambda p, t=t: abs(p[0] - t)) for t in marks]
            if pts[-1] is not sm[-1]:
                pts.append(sm[-1])
            head = "RSS every 10 minutes (min → MB): "
            out.append("\n" + head + ", ".join(f"{p[0] / 60:.0f} → {p[1] / 1024:.1f}" for p in pts) + "\n")
        else:
            pts = [sm[int(i * (len(sm) - 1) / 9)] for i in range(10)] if len(sm) >= 10 else sm
            out.append("\nRSS over the recording (s → MB): " +
                       ", ".join(f"{p[0]:.0f} → {p[1] / 1024:.1f}" for p in pts) + "\n")
    bn = [r for r in rows if r.get("kind") == "bin"]
    if bn:
        nrep = len({r["rep"] for r in bn})
        out.append(f"**Capture size per busy interface**: iperf3 at {m0.get('rate', '?')}bit/s h1→h2, "
                   f"{bn[0]['elapsed_s']:.0f} s per capture, `--no-phases`, {nrep} repetitions alternating "
                   "the bin width; medians.\n")
        out.append("| bin | packets/s on h1's eth0 (tx+rx) | bins/s per interface | capture bytes/s per interface | recorder CPU |")
        out.append("|---|---|---|---|---|")
        for b in ("10us", "100us"):
            m = [r for r in bn if r["bin"] == b]
            if not m:
                continue
            out.append("| " + " | ".join([
                b.replace("us", " µs"),
                si(med([r.get("pkts_per_s") for r in m])),
                si(med([r.get("bins_per_s_per_iface") for r in m])),
                f"{fmt_range([(r.get('bps_per_iface') or 0) / 1e3 for r in m], 0)} kB/s",
                fmt(med([r.get("cpu_pct") for r in m]), 1, " %"),
            ]) + " |")
    lb = [r for r in rows if r.get("kind") == "lib"]
    if lb:
        out.append(f"\n**A large library read by the phase probes**: a recorder with the default probes "
                   f"before and after `/usr/bin/python3 -c '{lb[0]['cmd']}'` (libtorch_cpu, libgloo), "
                   f"{len(lb)} repetitions; median (min–max).\n")
        out.append("| | RSS | peak (VmHWM) |")
        out.append("|---|---|---|")
        for when in ("before", "after"):
            out.append(f"| {when} the import | "
                       f"{fmt_range([r[f'rss_{when}_kb'] / 1024 for r in lb], 1)} MB | "
                       f"{fmt_range([r[f'hwm_{when}_kb'] / 1024 for r in lb], 1)} MB |")
    return "\n".join(out)


# ---------------------------------------------------------------- 9. flight recorder

def cmd_flrow(a):
    """One flight recorder's hour: RSS and CPU over it, the segments it
    closed (their bytes, whether --keep later deleted them), what it lost,
    what is left on disk and whether it reads back."""
    el = a.t1 - a.t0
    gbps = pairs_gbps(a.iperf)
    smp = rss_samples(a.samples, a.t0)
    segs = [line.split() for line in read_text(a.segs).splitlines()]
    segs = [(float(s[0]) - a.t0, int(s[2])) for s in segs if len(s) == 3]
    # segments closed inside the busy part: those on disk at the first
    # sample were closed before the load began (the recorders' start)
    inside = [b for t, b in segs if smp[0][0] + 0.5 < t <= el + 1]
    seg_bps = sum(inside) / el if el > 0 and inside else None
    reads = [line.split() for line in read_text(a.read).splitlines()]
    reads = [r for r in reads if len(r) == 3]
    summ = load_json(a.summary, {}) or {}
    fl = summ.get("flight", {}) or {}
    warm = max(10.0, 0.1 * el)
    after = [s for s in smp if s[0] >= warm] or smp
    sl = slope([s[0] for s in after], [s[1] for s in after])
    row = {"type": "row", "kind": "flight", "profile": a.profile, "elapsed_s": el, "gbps": gbps,
           "busy_ifaces": a.busy, "exit": a.rc,
           "rss_first_kb": smp[0][1], "rss_warm_kb": after[0][1], "rss_end_kb": smp[-1][1],
           "rss_max_kb": max(s[1] for s in smp), "hwm_kb": int(a.hwm) if a.hwm else None,
           "rss_slope_kb_per_min": sl * 60 if sl is not None else None,
           "cpu_pct": (smp[-1][2] - smp[0][2]) / a.clk / (smp[-1][0] - smp[0][0]) * 100,
           "disk_max_bytes": max(s[3] for s in smp),
           "segments_closed": len(inside), "segment_bytes_per_s": seg_bps,
           "mb_per_hour_per_iface": seg_bps * 3600 / a.busy / 1e6 if seg_bps else None,
           "lost": summ.get("lost_events"),
           "segments_written": fl.get("segments_written"), "segments_deleted": fl.get("segments_deleted"),
           "triggers": fl.get("triggers"), "snapshots": fl.get("snapshots_saved"),
           "snapshots_failed": fl.get("snapshots_failed"),
           "summaries": (summ.get("summaries") or {}).get("segments"),
           "files_left": len(reads), "files_complete": sum(1 for r in reads if r[2] == "complete"),
           "files_not_complete": [f"{r[0]}: {r[2]}" for r in reads if r[2] != "complete"][:10],
           "samples": [[round(s[0], 1), s[1]] for s in smp[::max(1, len(smp) // 400)]]}
    print(json.dumps(row))


def render_flight(rows, meta):
    rs = [r for r in rows if r.get("kind") == "flight"]
    if not rs:
        return "(no rows)"
    m0 = meta[0] if meta else {}
    r0 = rs[0]
    out = [f"**{r0['elapsed_s']:.0f} s**, both profiles side by side, {r0['busy_ifaces']} busy interfaces "
           f"({r0['busy_ifaces'] // 2} iperf3 pairs at {r0['gbps']:.2f} Gbit/s in all, MTU-sized packets), "
           f"100 µs bins, `--switch-output 10s --keep 5m --trigger 'lost > 0'`, a `fabtrace trigger` every "
           f"{m0.get('trigger_s', '?')} s; RSS sampled every second, warm-up = the first "
           f"{max(10.0, 0.1 * r0['elapsed_s']):.0f} s, trend = Theil–Sen slope.\n",
           "| profile | RSS after warm-up | at the end | peak (VmHWM) | trend after warm-up | recorder CPU "
           "| lost events | segments closed | disk per hour per busy interface | segments on disk, at most "
           "| triggers, snapshots | files left, read back whole |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rs:
        out.append("| " + " | ".join([
            r["profile"], f"{r['rss_warm_kb'] / 1024:.1f} MB", f"{r['rss_end_kb'] / 1024:.1f} MB",
            f"{(r.get('hwm_kb') or r['rss_max_kb']) / 1024:.1f} MB",
            f"{fmt(r.get('rss_slope_kb_per_min'), 1)} kB/min", f"{r['cpu_pct']:.1f} % of a core",
            fmt(r.get("lost"), 0), fmt(r.get("segments_closed"), 0),
            f"{fmt(r.get('mb_per_hour_per_iface'), 1)} MB",
            f"{r['disk_max_bytes'] / 1e6:.1f} MB",
            f"{fmt(r.get('triggers'), 0)}, {fmt(r.get('snapshots'), 0)}",
            f"{r['files_left']}, {r['files_complete']}",
        ]) + " |")
    for r in rs:
        sm = r["samples"]
        if sm and sm[-1][0] >= 1200:
            marks = [600.0 * k for k in range(int(sm[-1][0] // 600) + 1)]
            pts = [min(sm, key=lambda p, t=t: abs(p[0] - t)) for t in marks] + [sm[-1]]
            out.append(f"\n{r['profile']}: RSS every 10 minutes (min → MB): " +
                       ", ".join(f"{p[0] / 60:.0f} → {p[1] / 1024:.1f}" for p in pts))
        for bad in r.get("files_not_complete") or []:
            out.append(f"\n{r['profile']}: not read back whole: {bad}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 5. report speed

def cmd_reprow(a):
    last = [ln for ln in read_text(a.time).splitlines() if ln.strip()]
    f = last[-1].split() if last else []
    if len(f) != 2:
        sys.exit(1)
    info = load_json(a.info, {}) or {}
    row = {"type": "row", "events": a.events, "out": a.out, "rep": a.rep,
           "seconds": float(f[0]), "peak_rss_kb": int(f[1]),
           "records": info.get("records", {}).get("total"),
           "capture_bytes": os.path.getsize(a.capture) if os.path.exists(a.capture) else None,
           "output_bytes": a.bytes}
    print(json.dumps(row))


def render_report(rows, meta):
    out = []
    sizes = sorted({r["events"] for r in rows})
    nrep = len({r["rep"] for r in rows})
    out.append(f"{nrep} repetitions; median wall time in seconds and peak RSS (`/usr/bin/time -f '%e %M'`), "
               "output size.  *×10*: how much the time grows from the previous size (10× the records).\n")
    outs = ("text", "html", "perfetto") + (("windows",) if any(r["out"] == "windows" for r in rows) else ())
    out.append("| records | capture | text: s / peak RSS | HTML: s / peak RSS / size | Perfetto: s / peak RSS / size"
               + (" | --windows 10s -q: s / peak RSS" if "windows" in outs else "")
               + " | time ×10 (" + ", ".join({"text": "text", "html": "HTML", "perfetto": "Perfetto",
                                             "windows": "windows"}[o] for o in outs) + ") |")
    out.append("|---|---|---|---|---|" + ("---|" if "windows" in outs else "") + "---|")
    prev = {}
    for n in sizes:
        rs = [r for r in rows if r["events"] == n]
        cells = []
        growth = []
        for o in outs:
            m = [r for r in rs if r["out"] == o]
            if not m:
                cells.append("–")
                growth.append("–")
                continue
            t = med([r["seconds"] for r in m])
            mem = med([r["peak_rss_kb"] for r in m]) / 1024
            c = f"{t:.2f} s / {mem:.0f} MB"
            if o in ("html", "perfetto"):
                c += f" / {med([r['output_bytes'] for r in m]) / 1e6:.1f} MB"
            cells.append(c)
            growth.append(f"{t / prev[o]:.1f}×" if prev.get(o) else "–")
            prev[o] = t
        recs = rs[0].get("records") or n
        cap = (rs[0].get("capture_bytes") or 0) / 1e6
        out.append("| " + " | ".join([f"{recs:,}", f"{cap:.1f} MB"] + cells + [", ".join(growth)]) + " |")
    return "\n".join(out)


# ---------------------------------------------------------------- 6. NCCL profiler plugin

def render_ncclplugin(rows, meta):
    out = []
    nrep = len({r["rep"] for r in rows})
    colls = rows[0]["colls"] if rows else 0
    out.append(f"{nrep} repetitions of {colls:,} all-reduces per ABI version; median (min–max) ns per plugin "
               "event (Coll, KernelCh, ProxyOp, ProxyStep), one thread, no traffic.  *untraced*: the plugin's "
               "bookkeeping and its empty functions; *under record*: also a uprobe and a record per completed "
               "call and proxy op.\n")
    out.append("| ABI | events per all-reduce | untraced ns/event | under `record` ns/event | record's share |")
    out.append("|---|---|---|---|---|")
    for v in sorted({r["abi"] for r in rows}):
        u = [r["ns_per_event"] for r in rows if r["abi"] == v and not r["traced"]]
        t = [r["ns_per_event"] for r in rows if r["abi"] == v and r["traced"]]
        ev = next(r["events_per_coll"] for r in rows if r["abi"] == v)
        share = fmt(med(t) - med(u), 0) if u and t else "–"
        out.append(f"| v{v} | {ev} | {fmt_range(u, 0)} | {fmt_range(t, 0)} | {share} |")
    return "\n".join(out)


# ---------------------------------------------------------------- the run

def render_machine(rows, meta):
    if not meta:
        return ""
    m, e = meta[0], meta[-1]
    mins = int(e.get("seconds", 0) or 0)
    busy = [x.get("busy_pct") for x in meta if x.get("busy_pct") is not None]
    lines = [
        f"- **Run**: {m.get('date')}, `make bench`" + (" with BENCH_QUICK=1 (smoke values)" if m.get("quick") == "1" else "")
        + f", benchmarks: {e.get('benches', '?')}; took {mins // 60} min {mins % 60} s"
        + (f"; failed: {e['failed']}" if e.get("failed") else "") + ".",
        f"- **Machine**: {m.get('cpu')}, {m.get('ncpu')} CPUs, {m.get('mem_mb', 0) / 1024:.0f} GB RAM, kernel {m.get('kernel')}.",
        f"- **Load**: load average {' '.join(m.get('load', []))} at the start and {' '.join(e.get('load', []))} at the end"
        + (f"; before the run the CPUs were already {busy[0]:.0f} % busy (of {m.get('ncpu')}00 %) with other work"
           if busy else "") + ".",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------- rendering

RENDER = {"attrib": render_attrib, "coverage": render_coverage, "throughput": render_throughput, "hooks": render_hooks, "ringbuf": render_ringbuf, "footprint": render_footprint, "report": render_report, "ncclplugin": render_ncclplugin, "machine": render_machine, "flight": render_flight}


# Repetition numbers of the Nth results file given to render are offset by
# N * REP_OFFSET, so that runs pooled together stay paired within each run.
REP_OFFSET = 1000


def cmd_render(a):
    rows = []
    for n, path in enumerate(a.results):
        for r in rows_of(path):
            if isinstance(r.get("rep"), int):
                r["rep"] += n * REP_OFFSET
            rows.append(r)
    meta = [r for r in rows if r.get("type") == "meta"]
    data = [r for r in rows if r.get("type") != "meta"]
    fn = RENDER.get(a.name)
    if not fn:
        sys.exit(f"benchlib: no renderer for {a.name}")
    head = ""
    if meta and a.name != "machine":
        m = meta[0]
        last = meta[-1]
        head = (f"*Measured {m.get('date')} on {m.get('cpu')} ({m.get('ncpu')} CPUs), kernel {m.get('kernel')}; "
                f"load average {' '.join(m.get('load', []))} at the start, "
                f"{' '.join(last.get('load', []))} at the end"
                + (f"; {len(a.results)} runs pooled, each repetition paired within its run" if len(a.results) > 1 else "")
                + ("; quick mode (BENCH_QUICK=1): smoke values, not for comparison" if m.get("quick") == "1" else "")
                + ".*\n\n")
    print(head + fn(data, meta))


def cmd_splice(a):
    doc = read_text(a.doc)
    body = read_text(a.markdown).rstrip("\n")
    begin, end = f"<!-- bench:{a.name}:begin -->", f"<!-- bench:{a.name}:end -->"
    i, j = doc.find(begin), doc.find(end)
    if i < 0 or j < i:
        sys.exit(f"benchlib: {a.doc} has no {begin} ... {end} section")
    doc = doc[:i + len(begin)] + "\n" + body + "\n" + doc[j:]
    tmp = a.doc + ".tmp"
    with open(tmp, "w") as f:
        f.write(doc)
    os.replace(tmp, a.doc)


def main():
    ap = argparse.ArgumentParser(prog="benchlib.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("meta")
    p.add_argument("name")
    p.add_argument("--busy", action="store_true", help="sample the CPU load for 2 s")
    p.add_argument("kv", nargs="*")
    p.set_defaults(fn=cmd_meta)
    p = sub.add_parser("bpfsnap")
    p.add_argument("pid", nargs="+")
    p.add_argument("--names", help="floor's 'prog ID NAME' lines")
    p.add_argument("--prev", help="an earlier snapshot: names from it, no bpftool call")
    p.set_defaults(fn=cmd_bpfsnap)
    p = sub.add_parser("linked")
    p.add_argument("pid")
    p.set_defaults(fn=cmd_linked)
    p = sub.add_parser("tprow")
    for k in ("config", "mode", "iperf", "bpf0", "bpf1", "out", "err", "info", "ticks0", "ticks1"):
        p.add_argument("--" + k, default="")
    p.add_argument("--rep", type=int)
    for k in ("t0", "t1", "busy0", "busy1", "clk", "steal0", "steal1"):
        p.add_argument("--" + k, type=float)
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--bytes", type=int, default=0)
    p.add_argument("--bpf-stats", type=int, default=1, help="kernel.bpf_stats_enabled during the run")
    p.set_defaults(fn=cmd_tprow)
    p = sub.add_parser("atrow")
    for k in ("config", "mode", "iperf", "bpf0", "bpf1", "out", "ticks0", "ticks1"):
        p.add_argument("--" + k, default="")
    p.add_argument("--rep", type=int)
    p.add_argument("--pkts", type=int, default=0)
    for k in ("t0", "t1", "busy0", "busy1", "clk"):
        p.add_argument("--" + k, type=float)
    p.add_argument("--seconds", type=float, default=0)
    p.set_defaults(fn=cmd_atrow)
    p = sub.add_parser("hookrow")
    for k in ("first", "snap0", "snap1", "snap2", "snap3", "info", "wakeup"):
        p.add_argument("--" + k, default="")
    p.add_argument("--rep", type=int)
    p.add_argument("--txbytes", type=int, default=0)
    for k in ("t0", "t1", "t2", "t3"):
        p.add_argument("--" + k, type=float)
    p.set_defaults(fn=cmd_hookrow)
    p = sub.add_parser("rbrow")
    for k in ("ring", "rate", "report", "c0", "c1", "ticks0", "ticks1"):
        p.add_argument("--" + k, default="")
    p.add_argument("--gen", nargs="*", default=[])
    p.add_argument("--rep", type=int)
    for k in ("t0", "t1", "clk"):
        p.add_argument("--" + k, type=float)
    p.set_defaults(fn=cmd_rbrow)
    p = sub.add_parser("fprow")
    for k in ("kind", "bin", "samples", "hwm", "capture", "err", "info", "ticks0", "ticks1"):
        p.add_argument("--" + k, default="")
    p.add_argument("--iperf", nargs="*", default=[])
    p.add_argument("--rep", type=int)
    p.add_argument("--busy", type=int, default=1)
    p.add_argument("--pkts", type=int, default=0)
    for k in ("t0", "t1", "clk"):
        p.add_argument("--" + k, type=float)
    p.set_defaults(fn=cmd_fprow)
    p = sub.add_parser("flrow")
    for k in ("profile", "samples", "segs", "read", "hwm", "summary"):
        p.add_argument("--" + k, default="")
    p.add_argument("--iperf", nargs="*", default=[])
    p.add_argument("--busy", type=int, default=1)
    p.add_argument("--rc", type=int, default=0)
    for k in ("t0", "t1", "clk"):
        p.add_argument("--" + k, type=float)
    p.set_defaults(fn=cmd_flrow)
    p = sub.add_parser("reprow")
    for k in ("out", "time", "info", "capture"):
        p.add_argument("--" + k, default="")
    for k in ("events", "rep", "bytes"):
        p.add_argument("--" + k, type=int)
    p.set_defaults(fn=cmd_reprow)
    p = sub.add_parser("brief")
    p.set_defaults(fn=cmd_brief)
    p = sub.add_parser("render")
    p.add_argument("name")
    p.add_argument("results", nargs="+", help="one run's rows, or several runs' to pool")
    p.set_defaults(fn=cmd_render)
    p = sub.add_parser("splice")
    p.add_argument("doc")
    p.add_argument("name")
    p.add_argument("markdown")
    p.set_defaults(fn=cmd_splice)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
