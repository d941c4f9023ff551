#!/usr/bin/env python3
"""Helpers of the reliability tests (test_kill, test_faults, test_load).

  reliability.py names                     our BPF program and map names (from bpf/*.bpf.c)
  reliability.py owned PID                 BPF objects PID holds now (/proc/PID/fdinfo), JSON
  reliability.py alive OWNED.json          those objects that still exist ("kind id name" lines)
  reliability.py baseline                  the highest BPF object ids now, JSON
  reliability.py orphans BASELINE.json     objects with our names, newer than the baseline,
                                           that no live process holds (directly, through a
                                           link or through a program): leaks
  reliability.py leaks OWNED BASE [NEWBASE] [SECS]
                                           both of the above, polled for up to SECS (5) until
                                           clean, as shell assignments left=... orphans=...;
                                           then the baseline for the next round into NEWBASE
  reliability.py capvars CAPTURE INFO REPORT  what capcheck finds and what `fabtrace info
                                           --json` and `report --json` (files) say, as shell
                                           assignments cc_* in_* rp_* (one python start
                                           instead of dozens: python starts slowly here)
  reliability.py capcheck FILE             walk a capture independently of fabtrace (header,
                                           block CRCs, zlib/zstd, record sizes), JSON summary
                                           (with the format version and the codecs of its blocks)
  reliability.py bins FILE NETNS IFINDEX   start_ns of the iface_bin records of one interface
  reliability.py ifaces FILE               every interface record, "netns ifindex name netns_name"
                                           (all of them: info keeps one per netns and ifindex)
  reliability.py cfgflows FILE             every socket's configuration record, "ts_ns netns
                                           saddr:sport daddr:dport key value" (IPv4), then
                                           "end ts_ns" from the END record
  reliability.py setversion IN OUT V       copy a capture with header version V and a valid CRC
  reliability.py setend IN OUT NS          copy a capture whose END record says it ended NS ns
                                           after its start (a damaged clock); that block is
                                           rewritten as zlib, with a valid CRC
  reliability.py badsample IN OUT          copy a capture with a damaged counter sample (it
                                           says 3 values and holds none) before its END, in
                                           a block with a valid CRC
  reliability.py unprobed PID LIBSUBSTR SYMBOL [SECS [OWNED.json]]
                                           wait until SYMBOL's first byte in PID is no int3
                                           ("restored XX"), else (once OWNED's links are gone)
                                           name the live uprobe links of other tracers at that
                                           place ("others IDS"); "ours IDS" when OWNED's own
                                           links still keep it; else the byte ("cc")
  reliability.py sites                     every uprobe of every link: path offset [link ids]
  reliability.py ticks CAPTURE N           wait until the recorder writing CAPTURE has written
                                           N more clock pairs (one a tick: its own clock), up
                                           to 60 s, as ticks=(how many it saw)
  reliability.py socknets PID              PID's fds as fds= (all), steady= (less its sockets in
                                           other namespaces than its own: they come and go with
                                           the namespaces of other tests) and kinds= (what the
                                           steady ones are, counted); a socket's namespace is
                                           read through a copy of the fd (pidfd_getfd, SIOCGSKNS)
  reliability.py holds PID CAPTURE INODE N polled until PID holds a socket in namespace INODE,
                                           for up to N of the recorder's ticks, then one tick
                                           more (what it opens there in a tick), as holds=0/1
                                           and socks= (those sockets' inode numbers)
  reliability.py still PID SOCK...         which of the sockets SOCK (inode numbers) PID still
                                           has open, as still=
  reliability.py byte PID LIBSUBSTR SYMBOL [cc|notcc SECS]
                                           first byte of SYMBOL (dynamic symbol of the library
                                           mapped by PID whose path contains LIBSUBSTR) in
                                           PID's memory, hex (cc = a uprobe's int3); with
                                           cc/notcc: polled until it is / is not cc

bpftool truncates object names to 15 characters (BPF_OBJ_NAME_LEN - 1), and
libbpf names the internal maps <object name prefix>.rodata/.bss/.data.  The
bpftool here shows no "pids" (built without BPF iterator support), so who
holds an object is read from /proc/*/fdinfo (map_id:, prog_id:, link_id:).
"""
import ctypes
import fcntl
import glob
import json
import os
import re
import shlex
import struct
import subprocess
import sys
import time
import zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import capblock  # noqa: E402  (the tests' own block decoder)
KINDS = ("prog", "map", "link")
HDR_SIZE = 488
BLOCK = struct.Struct("<6I")
FT_BLOCK_MAGIC = 0x4B425446
REC_END = 63
REC_IFACE_BIN = 1
REC_IFACE = 32
REC_CTR_SAMPLE = 43
REC_CLOCK = 57
REC_CONFIG = 45
CFG_FLOW = 4
SIOCGSKNS = 0x894C  # linux/sockios.h: a socket's network namespace, as a new fd
SYS_PIDFD_GETFD = 438  # the same number on every architecture


def names():
    progs, maps, objs = set(), set(), set()
    for f in glob.glob(os.path.join(ROOT, "bpf", "*.bpf.c")) + glob.glob(os.path.join(ROOT, "bpf", "*.h")):
        src = open(f).read()
        progs.update(m[:15] for m in re.findall(r"int\s+BPF_(?:PROG|KPROBE|KRETPROBE|USDT)\(\s*(\w+)", src))
        # programs that take the context as a plain argument (no BPF_PROG
        # wrapper): the tc programs, the feature probe of miss_probe.bpf.c
        progs.update(m[:15] for m in re.findall(r"SEC\(\"[a-z_]+(?:/\w+)?\"\)\s*int\s+(\w+)\(", src))
        maps.update(m[:15] for m in re.findall(r"\}\s*(\w+)\s+SEC\(\"\.maps\"\)", src))
        if f.endswith(".bpf.c"):
            objs.add(os.path.basename(f)[: -len(".bpf.c")] + "_bpf")
    return progs, maps, objs


def ours(kind, name, n=None):
    progs, maps, objs = n or names()
    if not name:
        return False
    if kind == "prog":
        return name in progs
    if kind == "map":
        if name in maps:
            return True
        pfx, dot, _ = name.partition(".")
        return bool(dot) and len(pfx) >= 6 and any(o.startswith(pfx) for o in objs)
    return False


def bpftool(kind):
    out = subprocess.run(["bpftool", "-j", kind, "show"], capture_output=True, text=True).stdout
    try:
        return json.loads(out or "[]") or []
    except json.JSONDecodeError:
        return []


def fdinfo_ids(pid):
    got = {k: set() for k in KINDS}
    try:
        fds = os.listdir(f"/proc/{pid}/fdinfo")
    except OSError:
        return got
    for fd in fds:
        try:
            txt = open(f"/proc/{pid}/fdinfo/{fd}").read()
        except OSError:
            continue
        for kind in KINDS:
            m = re.search(rf"^{kind}_id:\s*(\d+)", txt, re.M)
            if m:
                got[kind].add(int(m.group(1)))
    return got


def cmd_owned(pid, out=None):
    ids = fdinfo_ids(pid)
    objs = {k: {o["id"]: o for o in bpftool(k)} for k in KINDS}
    res = {k: [] for k in KINDS}
    for k in KINDS:
        for i in sorted(ids[k]):
            o = objs[k].get(i, {})
            res[k].append({"id": i, "name": o.get("name", o.get("type", "?"))})
    # programs held only through their links, maps only through their programs
    for link in res["link"]:
        p = objs["link"].get(link["id"], {}).get("prog_id")
        if p and p not in ids["prog"]:
            ids["prog"].add(p)
            res["prog"].append({"id": p, "name": objs["prog"].get(p, {}).get("name", "?")})
    for p in list(res["prog"]):
        for m in objs["prog"].get(p["id"], {}).get("map_ids", []):
            if m not in ids["map"]:
                ids["map"].add(m)
                res["map"].append({"id": m, "name": objs["map"].get(m, {}).get("name", "?")})
    n = names()
    res["unknown_names"] = sorted({o["name"] for k in ("prog", "map") for o in res[k] if not ours(k, o["name"], n)})
    if not out:
        print(json.dumps(res))
        return
    json.dump(res, open(out, "w"))
    sh(own_progs=len(res["prog"]), own_maps=len(res["map"]), own_links=len(res["link"]),
       own_unknown=" ".join(res["unknown_names"]),
       own="%d programs, %d maps, %d links" % (len(res["prog"]), len(res["map"]), len(res["link"])))


def cmd_alive(path):
    for o in alive(json.load(open(path))):
        print(o)


def cmd_baseline():
    print(json.dumps(baseline()))


def orphans(base):
    found = []
    n = names()
    objs = {k: bpftool(k) for k in KINDS}
    held = {k: set() for k in KINDS}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            for k, ids in fdinfo_ids(pid).items():
                held[k] |= ids
    links = {o["id"]: o for o in objs["link"]}
    progs = {o["id"]: o for o in objs["prog"]}
    for li in held["link"]:
        if li in links and links[li].get("prog_id"):
            held["prog"].add(links[li]["prog_id"])
    for p in held["prog"]:
        held["map"].update(progs.get(p, {}).get("map_ids", []))
    for o in objs["prog"] + objs["map"]:
        kind = "prog" if o in objs["prog"] else "map"
        if o["id"] > base[kind] and o["id"] not in held[kind] and ours(kind, o.get("name"), n):
            found.append(f"{kind} {o['id']} {o.get('name')}")
    for o in objs["link"]:
        p = progs.get(o.get("prog_id"), {})
        if o["id"] > base["link"] and o["id"] not in held["link"] and ours("prog", p.get("name"), n):
            found.append(f"link {o['id']} {o.get('type')} {p.get('name')}")
    return found


def cmd_orphans(path):
    for o in orphans(json.load(open(path))):
        print(o)


def alive(owned):
    res = []
    for k in KINDS:
        now = {o["id"] for o in bpftool(k)}
        res += [f"{k} {o['id']} {o['name']}" for o in owned.get(k, []) if o["id"] in now]
    return res


def baseline():
    return {k: max([o["id"] for o in bpftool(k)] or [0]) for k in KINDS}


def sh(**kv):
    for k, v in kv.items():
        if isinstance(v, bool):
            v = "1" if v else "0"
        print(f"{k}={shlex.quote(str(v))}")


def cmd_leaks(owned_path, base_path, newbase=None, secs="5"):
    owned = json.load(open(owned_path)) if owned_path != "-" else {}
    base = json.load(open(base_path))
    deadline = time.monotonic() + float(secs)
    while True:
        left, orph = alive(owned), orphans(base)
        if (not left and not orph) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    sh(left="; ".join(left[:6]), orphans="; ".join(orph[:6]))
    if newbase:
        json.dump(baseline(), open(newbase, "w"))


def walk(path):
    """Yield (offset, records) per valid block; stops at the first bad one."""
    data = open(path, "rb").read()
    res = {"size": len(data), "header_ok": False, "blocks": 0, "records": 0, "good_off": 0,
           "end": False, "stop_reason": None, "by_type": {}, "stopped_by": "", "codecs": []}
    if len(data) < HDR_SIZE or data[:8] != b"FABTRACE":
        res["stopped_by"] = "no header"
        return res, []
    hdr = bytearray(data[:HDR_SIZE])
    crc = struct.unpack_from("<I", hdr, 484)[0]
    hdr[484:488] = b"\0\0\0\0"
    res["header_ok"] = zlib.crc32(bytes(hdr)) == crc
    res["version"] = struct.unpack_from("<I", data, 8)[0]
    res["start_mono_ns"] = struct.unpack_from("<Q", data, 16)[0]
    off = res["good_off"] = HDR_SIZE
    recs = []
    while off < len(data):
        if len(data) - off < BLOCK.size:
            res["stopped_by"] = "partial block header"
            break
        magic, clen, ulen, nrec, bcrc, codec = BLOCK.unpack_from(data, off)
        if magic != FT_BLOCK_MAGIC:
            res["stopped_by"] = "bad block magic"
            break
        if len(data) - off - BLOCK.size < clen:
            res["stopped_by"] = "partial block payload"
            break
        payload = data[off + BLOCK.size: off + BLOCK.size + clen]
        h0 = BLOCK.pack(magic, clen, ulen, nrec, 0, codec)
        if zlib.crc32(payload, zlib.crc32(h0)) != bcrc:
            res["stopped_by"] = "block CRC"
            break
        try:
            raw = capblock.decode(codec, payload, ulen)
        except capblock.Error as e:
            res["stopped_by"] = str(e)
            break
        pos, got, block = 0, 0, []
        while pos + 8 <= len(raw):
            typ, size, _cpu = struct.unpack_from("<HHI", raw, pos)
            if size < 8 or size % 8 or pos + size > len(raw):
                break
            block.append((typ, raw[pos: pos + size]))
            pos += size
            got += 1
        if pos != len(raw) or got != nrec:
            res["stopped_by"] = "record walk"
            break
        off += BLOCK.size + clen
        res["good_off"] = off
        if codec not in res["codecs"]:
            res["codecs"].append(codec)
        res["blocks"] += 1
        for typ, rec in block:
            res["records"] += 1
            res["by_type"][str(typ)] = res["by_type"].get(str(typ), 0) + 1
            recs.append((typ, rec))
            if typ == REC_END:
                res["end"] = True
                res["stop_reason"] = struct.unpack_from("<I", rec, 24)[0]
        if res["end"]:
            break
    return res, recs


def cmd_capcheck(path):
    res, _ = walk(path)
    print(json.dumps(res))


def cmd_capvars(cap, info, report):
    cc, _ = walk(cap)
    sh(cc_header_ok=cc["header_ok"], cc_size=cc["size"], cc_good_off=cc["good_off"], cc_blocks=cc["blocks"],
       cc_records=cc["records"], cc_end=cc["end"], cc_stop=cc["stop_reason"], cc_why=cc["stopped_by"],
       cc_bins=cc["by_type"].get(str(REC_IFACE_BIN), 0))
    try:
        i = json.load(open(info))
        sh(in_ok=1, in_state=i["state"], in_state_offset=i.get("state_offset", ""), in_blocks=i["blocks"],
           in_records=i["records"]["total"], in_stop=i.get("stop_reason") or "",
           in_lost=i["lost"]["total"], in_phase_lost=i["lost"]["by_source"].get("phase", 0),
           in_bins=i["records"]["by_type"].get("iface_bin", 0))
    except (OSError, ValueError, KeyError) as e:
        sh(in_ok=0, in_err=repr(e))
    try:
        r = json.load(open(report))
        tr = [x for x in r["interfaces"] if x["traced"]]
        sh(rp_ok=1, rp_records=r["capture"]["records"], rp_state=r["capture"]["state"],
           rp_stop=r["capture"]["stop_reason"], rp_traced=len(tr),
           rp_traced_with_bins=sum(1 for x in tr if x["rx"]["bins"] > 0 and x["tx"]["bins"] > 0),
           rp_lost=r["lost"]["total_lost"])
    except (OSError, ValueError, KeyError) as e:
        sh(rp_ok=0, rp_err=repr(e))


def cmd_bins(path, netns, ifindex):
    _, recs = walk(path)
    for typ, rec in recs:
        if typ == REC_IFACE_BIN:
            start, nbytes, _pk, _ce, ns, ifi = struct.unpack_from("<QQIIII", rec, 8)
            if ns == int(netns) and ifi == int(ifindex) and nbytes:
                print(start)


def cmd_ifaces(path):
    _, recs = walk(path)
    for typ, rec in recs:
        if typ == REC_IFACE:  # struct ft_iface_info
            ns, ifi = struct.unpack_from("<II", rec, 8)
            name, nsname = (rec[a:b].split(b"\0")[0].decode(errors="replace") for a, b in ((32, 48), (48, 80)))
            print(ns, ifi, name or "-", nsname or "-")


def cmd_cfgflows(path):
    _, recs = walk(path)
    for typ, rec in recs:
        if typ == REC_CONFIG and rec[16] == CFG_FLOW:  # struct ft_config
            ts = struct.unpack_from("<Q", rec, 8)[0]
            klen, vlen, netns = struct.unpack_from("<HH", rec, 18) + struct.unpack_from("<I", rec, 24)
            sa, da = rec[40:44], rec[56:60]
            sport, dport, fam = struct.unpack_from("<HHB", rec, 72)
            key = rec[120:120 + klen].decode(errors="replace")
            val = rec[121 + klen:121 + klen + vlen].decode(errors="replace")
            if fam == 4:
                print(ts, netns, f"{'.'.join(map(str, sa))}:{sport}", f"{'.'.join(map(str, da))}:{dport}", key, val)
        elif typ == REC_END:
            print("end", struct.unpack_from("<Q", rec, 8)[0])


def cmd_setversion(src, dst, version):
    d = bytearray(open(src, "rb").read())
    struct.pack_into("<I", d, 8, int(version))
    struct.pack_into("<I", d, 484, 0)
    struct.pack_into("<I", d, 484, zlib.crc32(bytes(d[:HDR_SIZE])))
    open(dst, "wb").write(bytes(d))


def rewrite_end_block(src, dst, edit):
    """Copy a capture, the block holding END rewritten by EDIT(raw, end_pos, start_ns)
    (which returns the new payload and the records it adds) as zlib, with a valid CRC."""
    d = bytearray(open(src, "rb").read())
    start = struct.unpack_from("<Q", d, 16)[0]
    off, out = HDR_SIZE, bytearray(d[:HDR_SIZE])
    while off < len(d):
        magic, clen, ulen, nrec, _crc, codec = BLOCK.unpack_from(d, off)
        payload = bytes(d[off + BLOCK.size: off + BLOCK.size + clen])
        raw = bytearray(capblock.decode(codec, payload, ulen))
        pos, end = 0, None
        while pos + 8 <= len(raw):
            typ, size, _cpu = struct.unpack_from("<HHI", raw, pos)
            if typ == REC_END:
                end = pos
            pos += size
        if end is not None:
            raw, added = edit(raw, end, start)
            ulen, nrec = len(raw), nrec + added
            payload, codec = zlib.compress(bytes(raw)), 0
            clen = len(payload)
        h0 = BLOCK.pack(magic, clen, ulen, nrec, 0, codec)
        out += BLOCK.pack(magic, clen, ulen, nrec, zlib.crc32(payload, zlib.crc32(h0)), codec) + payload
        off += BLOCK.size + BLOCK.unpack_from(d, off)[1]
    open(dst, "wb").write(bytes(out))


def cmd_setend(src, dst, ns):
    def edit(raw, end, start):
        struct.pack_into("<Q", raw, end + 8, start + int(ns))
        return raw, 0
    rewrite_end_block(src, dst, edit)


def cmd_badsample(src, dst):
    def edit(raw, end, start):
        # ctr_sample (43): ts_ns, group 0, n 3, read_ns, pad; and no values at all
        rec = struct.pack("<HHIQIIII", REC_CTR_SAMPLE, 32, 0, start + 1000, 0, 3, 0, 0)
        return raw[:end] + rec + raw[end:], 1
    rewrite_end_block(src, dst, edit)


def read_byte(pid, lib, sym):
    base = path = None
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) >= 6 and lib in f[5] and int(f[2], 16) == 0:
            base, path = int(f[0].split("-")[0], 16), f[5]
            break
    if base is None:
        return None
    out = subprocess.run(["readelf", "-W", "--dyn-syms", path], capture_output=True, text=True).stdout
    vals = [int(x.split()[1], 16) for x in out.splitlines() if len(x.split()) >= 8 and x.split()[7] == sym]
    if not vals:
        return None
    with open(f"/proc/{pid}/mem", "rb") as m:
        m.seek(base + vals[0])
        return m.read(1).hex()


# ---- who has a uprobe where: bpf(BPF_OBJ_GET_INFO_BY_FD) on every uprobe link
# (the bpftool here predates uprobe_multi link info)
BPF_OBJ_GET_INFO_BY_FD, BPF_LINK_GET_FD_BY_ID = 15, 30
LINK_PERF_EVENT, LINK_UPROBE_MULTI = 7, 12
PERF_EVENT_UPROBE, PERF_EVENT_URETPROBE = 1, 2


def _bpf(cmd, attr):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(bytes(attr), len(attr))
    ret = libc.syscall(321, cmd, buf, len(attr))  # __NR_bpf on x86-64
    return ret, buf


def uprobe_sites():
    """{(realpath, file offset): [link ids]} of every uprobe link on the system."""
    import ctypes
    sites = {}
    for link in bpftool("link"):
        if link.get("type") not in (LINK_UPROBE_MULTI, "uprobe_multi", LINK_PERF_EVENT, "perf_event"):
            continue
        fd, _ = _bpf(BPF_LINK_GET_FD_BY_ID, struct.pack("<III", link["id"], 0, 0))
        if fd < 0:
            continue
        try:
            path = ctypes.create_string_buffer(4096)
            offs = (ctypes.c_uint64 * 4096)()
            info = ctypes.create_string_buffer(256)
            ltype = struct.unpack_from("<I", bytes(info), 0)[0]
            # uprobe_multi layout first; the link's type says which one applies
            struct.pack_into("<QQQQII", info, 16, ctypes.addressof(path), ctypes.addressof(offs), 0, 0, 4096, 4096)
            ret, _ = _bpf(BPF_OBJ_GET_INFO_BY_FD, struct.pack("<IIQ", fd, 256, ctypes.addressof(info)))
            ltype = struct.unpack_from("<I", info.raw, 0)[0]
            if ret == 0 and ltype == LINK_UPROBE_MULTI:
                cnt = struct.unpack_from("<I", info.raw, 16 + 36)[0]
                name = os.path.realpath(path.value.decode(errors="replace"))
                for i in range(min(cnt, 4096)):
                    sites.setdefault((name, offs[i]), []).append(link["id"])
                continue
            info = ctypes.create_string_buffer(256)
            struct.pack_into("<QII", info, 24, ctypes.addressof(path), 4096, 0)
            ret, _ = _bpf(BPF_OBJ_GET_INFO_BY_FD, struct.pack("<IIQ", fd, 256, ctypes.addressof(info)))
            if ret == 0 and struct.unpack_from("<I", info.raw, 0)[0] == LINK_PERF_EVENT and \
                    struct.unpack_from("<I", info.raw, 16)[0] in (PERF_EVENT_UPROBE, PERF_EVENT_URETPROBE):
                off = struct.unpack_from("<I", info.raw, 36)[0]
                name = os.path.realpath(path.value.decode(errors="replace"))
                sites.setdefault((name, off), []).append(link["id"])
        finally:
            os.close(fd)
    return sites


def sym_file_offset(path, sym):
    out = subprocess.run(["readelf", "-W", "--dyn-syms", "-l", path], capture_output=True, text=True).stdout
    val = None
    loads = []
    for x in out.splitlines():
        f = x.split()
        if len(f) >= 8 and f[7] == sym and val is None:
            val = int(f[1], 16)
        if f and f[0] == "LOAD":
            loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))  # offset, vaddr, filesz
    for off, va, sz in loads:
        if val is not None and va <= val < va + sz:
            return val - va + off
    return val


def cmd_unprobed(pid, lib, sym, secs="5", owned=None):
    """Wait until SYMBOL's first byte in PID is no int3 ('restored XX'), or,
    once none of the links in OWNED (the dead recorder's) exists any more,
    some live uprobe link of another tracer explains the int3 ('others
    LINKIDS'); else print the byte ('cc')."""
    deadline = time.monotonic() + float(secs)
    path = None
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) >= 6 and lib in f[5]:
            path = os.path.realpath(f[5])
            break
    off = sym_file_offset(path, sym) if path else None
    mine = {o["id"] for o in json.load(open(owned)).get("link", [])} if owned else None
    while True:
        try:
            b = read_byte(pid, lib, sym)
        except OSError:
            b = None
        if b and b != "cc":
            print("restored", b)
            return
        if mine is not None and path:
            live = {o["id"] for o in bpftool("link")}
            if not mine & live and uprobe_sites().get((path, off)):
                break
        if time.monotonic() > deadline:
            break
        time.sleep(0.3)
    covering = set(uprobe_sites().get((path, off), [])) if path else set()
    if mine and covering & mine:
        print("ours " + ",".join(map(str, sorted(covering & mine))))   # the dead recorder's uprobe lives on
        return
    others = covering - (mine or set())
    print("others " + ",".join(map(str, sorted(others))) if others else (b or "unreadable"))


def cmd_byte(pid, lib, sym, want=None, secs="0"):
    deadline = time.monotonic() + float(secs)
    while True:
        try:
            b = read_byte(pid, lib, sym)
        except OSError:
            b = None
        if not want or (b == "cc") == (want == "cc") and b or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    print(b or "")


def clock_pairs(path):
    _, recs = walk(path)
    return sum(1 for typ, _ in recs if typ == REC_CLOCK)


def wait_ticks(path, n, until=lambda: False):
    """Wait for N more clock pairs in PATH (the recorder's ticks) or until(); the ticks seen."""
    start = clock_pairs(path)
    deadline = time.monotonic() + 60  # a recorder that stopped ticking: not forever
    while not until():
        got = clock_pairs(path) - start
        if got >= n or time.monotonic() > deadline:
            return got
        time.sleep(0.1)
    return clock_pairs(path) - start


def sock_netns(pid):
    """{fd: (readlink target, inode of its network namespace when a socket, else None)}, every fd of PID."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    out = {}
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue  # closed meanwhile
            out[int(fd)] = (target, None)
            if not target.startswith("socket:"):
                continue
            dup = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(fd), 0)
            if dup < 0:
                if ctypes.get_errno() == 9:  # EBADF: closed meanwhile
                    del out[int(fd)]
                    continue
                raise OSError(ctypes.get_errno(), f"pidfd_getfd of {pid}'s fd {fd}")
            try:
                nsfd = fcntl.ioctl(dup, SIOCGSKNS)
                out[int(fd)] = (target, os.fstat(nsfd).st_ino)
                os.close(nsfd)
            finally:
                os.close(dup)
    finally:
        os.close(pidfd)
    return out


def sock_id(target):
    return target[len("socket:["):-1]


def cmd_socknets(pid):
    own = os.stat(f"/proc/{pid}/ns/net").st_ino
    fds = sock_netns(pid)
    kinds = {}
    for target, ns in fds.values():
        if ns is not None and ns != own:
            continue
        k = "socket in its own namespace" if ns is not None else re.sub(r"[0-9]+", "N", target)
        kinds[k] = kinds.get(k, 0) + 1
    sh(fds=len(fds), steady=sum(kinds.values()), kinds=", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))


def cmd_holds(pid, path, inode, n):
    def socks():
        return [sock_id(t) for t, ns in sock_netns(pid).values() if ns == int(inode)]
    wait_ticks(path, int(n), lambda: bool(socks()))
    if socks():
        wait_ticks(path, 1)
    sh(holds=bool(socks()), socks=" ".join(sorted(socks())))


def cmd_still(pid, ids):
    have = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            t = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if t.startswith("socket:"):
            have.add(sock_id(t))
    sh(still=" ".join(i for i in ids if i in have))


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    if a[0] == "names":
        p, m, o = names()
        print(json.dumps({"progs": sorted(p), "maps": sorted(m), "objects": sorted(o)}))
    elif a[0] == "owned":
        cmd_owned(int(a[1]), *a[2:3])
    elif a[0] == "leaks":
        cmd_leaks(*a[1:5])
    elif a[0] == "capvars":
        cmd_capvars(a[1], a[2], a[3])
    elif a[0] == "alive":
        cmd_alive(a[1])
    elif a[0] == "baseline":
        cmd_baseline()
    elif a[0] == "orphans":
        cmd_orphans(a[1])
    elif a[0] == "capcheck":
        cmd_capcheck(a[1])
    elif a[0] == "bins":
        cmd_bins(a[1], a[2], a[3])
    elif a[0] == "ifaces":
        cmd_ifaces(a[1])
    elif a[0] == "cfgflows":
        cmd_cfgflows(a[1])
    elif a[0] == "setversion":
        cmd_setversion(a[1], a[2], a[3])
    elif a[0] == "setend":
        cmd_setend(a[1], a[2], a[3])
    elif a[0] == "badsample":
        cmd_badsample(a[1], a[2])
    elif a[0] == "unprobed":
        cmd_unprobed(int(a[1]), *a[2:6])
    elif a[0] == "sites":
        for (path, off), ids in sorted(uprobe_sites().items()):
            print(path, hex(off), ids)
    elif a[0] == "ticks":
        sh(ticks=wait_ticks(a[1], int(a[2])))
    elif a[0] == "socknets":
        cmd_socknets(int(a[1]))
    elif a[0] == "holds":
        cmd_holds(int(a[1]), a[2], a[3], a[4])
    elif a[0] == "still":
        cmd_still(int(a[1]), a[2:])
    elif a[0] == "byte":
        cmd_byte(int(a[1]), *a[2:6])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
