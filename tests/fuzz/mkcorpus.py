#!/usr/bin/env python3
# Seeds of the fuzz targets that are not built by a tool (called by mkcorpus.sh):
#   fuzz_records      every capture of corpus/fuzz_capture in the records layout
#                     of fuzz_records.c (struct fz_prefix + inflated records)
#   fuzz_parse        the examples of the docs and the --help texts, per parser
#   fuzz_symbol       symbol names as libraries have them
#   fuzz_report_args  report command lines
#   fuzz_sysfs        the fixture tree tests/fixtures/sysfs, whole and per device
# Usage: tests/fuzz/mkcorpus.py CORPUS-DIR
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import capblock  # noqa: E402  (decodes zlib and zstd blocks)

base = sys.argv[1]


def put(target, name, data):
    os.makedirs(os.path.join(base, target), exist_ok=True)
    with open(os.path.join(base, target, name), "wb") as f:
        f.write(data)


# ---- fuzz_records: (suffix, opts, per_block, from_rel, to_rel); opts are FZO_* of fuzz_records.c
VARIANTS = [
    ("", 0, 0, 0, 0),
    ("_json_window", (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8), 7, 20_000_000, 60_000_000),
    ("_inferred_edges", 2 | (2 << 2) | (2 << 8) | (1 << 12) | (1 << 14) | (1 << 18), 1, 0, 0),
    ("_probes_wide", 1 | (1 << 2) | (1 << 6) | (1 << 11) | (2 << 12) | (2 << 14), 64, 5_000_000, 0),
]
capdir = os.path.join(base, "fuzz_capture")
for name in sorted(os.listdir(capdir)):
    with open(os.path.join(capdir, name), "rb") as f:
        data = f.read()
    start, rt, _boot, bin_ns, probes, ncpus, flags = struct.unpack_from("<QqqQQII", data, 16)
    host = data[64:80]
    off, records = 488, b""
    while off + 24 <= len(data):
        _magic, clen, ulen, _nrec, _crc, codec = struct.unpack_from("<6I", data, off)
        records += capblock.decode(codec, data[off + 24:off + 24 + clen], ulen)
        off += 24 + clen
    stem = os.path.splitext(name)[0]
    # the option sets on the small ones only: keeps the corpus small
    for sfx, opts, per, frm, to in VARIANTS if len(records) < 30000 else VARIANTS[:1]:
        px = struct.pack("<IIQQqQIIQQ16s", opts, per, start, bin_ns, rt, probes, ncpus, flags, frm, to, host)
        put("fuzz_records", stem + sfx + ".rec", px + records)

# ---- fuzz_parse: selector byte, argument byte, text (see fuzz_parse.c)
PARSE = {
    0: [b"10s", b"500ms", b"20us", b"100ns", b"1.5s", b"2m", b"1h", b"1.25", b"0.000000001s",
        b"18446744073709551615ns", b"1min", b"7d", b"184d"],
    1: [b"4096", b"64k", b"16M", b"1G", b"1MiB", b"1.5KiB", b"0", b"2TB"],
    2: [b"eth0", b"lab1h2/eth0", b"ns with space/veth-h2-long", b"a/b/c", b"../eth0"],
    4: [b"libmpi.so:MPI_Allreduce", b"build/tests/lib/libftphase_test.so:fttest_work=work",
        b"libgloo.so:gloo::allreduce(gloo::AllreduceOptions&)", b"libx.so:ns::C::operator=",
        b"lib:f=not plain", b"libgloo.so:gloo::transport::tcp::Pair::send("],
    5: [b"127.0.0.1:9464", b"[::1]:9464", b":0", b"9464", b"localhost:9464", b"0.0.0.0:9464",
        b"[fe80::1%eth0]:1"],
    7: [b"123\n", b"0x1f", b"N/A (no PMA)\n", b"18446744073709551615", b"  42  "],
    8: [b"4: ACTIVE", b"5: LinkUp", b"100 Gb/sec (4X EDR)", b"2.5 Gb/sec (1X SDR)", b"0c42:a103:00a4:5f20\n"],
    9: [b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n", b"GET /metrics?x=1 HTTP/1.0\n\n",
        b"POST /metrics HTTP/1.1\r\n\r\n", b"GET / HTTP/1.1\r\n\r\n", b"GET /metrics HTTP/1.1\r\nHo"],
}
for sel, texts in PARSE.items():
    for i, t in enumerate(texts):
        arg = 1 if sel == 5 and t.startswith(b"0.0.0.0") else i
        put("fuzz_parse", "p%d_%02d" % (sel, i), bytes([sel, arg]) + t)
# session options: index into codes[] of fuzz_parse.c + the argument, NUL-separated
SESSION = [
    [(0, b"eth0"), (0, b"ns1/eth0"), (1, b"10s"), (5, b"20us"), (7, b"16M"), (2, b"1234,1235")],
    [(8, b"libx.so:f=g"), (9, b""), (10, b"10ms"), (11, b"mlx5_0:1,mlx5_1"), (12, b"*cnp*"), (13, b"1"),
     (14, b"all"), (17, b"5%"), (18, b"/nonexistent")],
    [(3, b""), (4, b"lab1h2"), (6, b"1ms"), (15, b""), (16, b""), (19, b"x")],
]
for i, items in enumerate(SESSION):
    put("fuzz_parse", "p3_%02d" % i, bytes([3]) + b"\0".join(bytes([c]) + a for c, a in items))
put("fuzz_parse", "p6_00", bytes([6]) + b"*pause*,*pfc*,tx_pause_storm_*, *_thres* \0rx_pause_ctrl_phy")
put("fuzz_parse", "p6_01", bytes([6]) + b"port_*,np_cnp_sent\0np_cnp_sent")

# ---- fuzz_symbol
for i, name in enumerate([b"_ZN4gloo9allreduceERNS_16AllreduceOptionsE", b"MPI_Allreduce", b"PMPI_Allreduce",
                          b"ncclAllReduce", b"_ZN4gloo9transport3tcp4Pair4sendEPNS1_6BufferEmm",
                          b"_ZNSt6vectorIiSaIiEE9push_backERKi", b"fabtrace_step_begin",
                          b"_ZN4gloo6reduceIfEEvPT_i", b"_Z1fv", b"MPI_Wait"]):
    put("fuzz_symbol", "s%02d" % i, name)

# ---- fuzz_report_args: NUL-separated arguments
for i, args in enumerate([
        [b"--json"], [b"--pretty", b"--top", b"3", b"--sort", b"peak"],
        [b"-q", b"--svg", b"w.svg", b"--from", b"0.05", b"--to", b"+0.1", b"--weight", b"bytes"],
        [b"--html", b"t.html", b"--perfetto", b"p.json", b"--speedscope", b"s.json", b"--folded", b"-"],
        [b"--phases", b"inferred", b"--infer-gap", b"1ms", b"--threshold", b"20%", b"--gap", b"200us"],
        [b"--queue-delay", b"500us", b"--skew", b"30", b"--skew-min", b"1ms", b"--slow", b"1.5",
         b"--spike-rate", b"10", b"--tolerance", b"0.5%"],
        [b"--from", b"1250ms", b"--svg=x.svg"],
        [b"--windows", b"50ms", b"--json", b"--from", b"0.1"], [b"--brief", b"--windows=1s", b"--to", b"0.2"]]):
    put("fuzz_report_args", "a%02d" % i, b"\0".join(args))

# ---- fuzz_sysfs: DEVICES FILTER LIFESPAN, then PATH CONTENT pairs, "" and the changes (fuzz_sysfs.c)
tree = "tests/fixtures/sysfs/class/infiniband"
ents = []
for dp, dn, fn in sorted(os.walk(tree)):
    dn.sort()
    for f in sorted(fn):
        p = os.path.join(dp, f)
        with open(p, "rb") as fh:
            ents.append((os.path.relpath(p, tree).encode(), fh.read().replace(b"\0", b"")))


def tree_seed(name, hdr, files, second=()):
    d = b"\0".join(hdr) + b"\0" + b"".join(r + b"\0" + c + b"\0" for r, c in files)
    if second:
        d += b"\0" + b"".join(r + b"\0" + c + b"\0" for r, c in second)
    put("fuzz_sysfs", name, d)


tree_seed("all", [b"", b"", b""], ents)
for dev in sorted({e[0].split(b"/")[0] for e in ents}):
    mine = [e for e in ents if e[0].startswith(dev + b"/")]
    ctrs = [r for r, c in mine if b"counters/" in r]
    tree_seed(dev.decode() + "_wrap", [dev + b":1", b"", b"1"], mine,
              [(r, b"4294967295\n" if i % 2 else b"0\n") for i, r in enumerate(ctrs[:8])])
tree_seed("filter", [b"mlx5_0,mlx5_1:1", b"*cnp*,port_*,*err*", b""], ents)
