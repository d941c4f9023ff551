#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Structural checkers for fabtrace's timeline outputs (python3 stdlib only).

    check_outputs.py perfetto FILE      Chrome Trace Event JSON as Perfetto / chrome://tracing read it
    check_outputs.py speedscope FILE    speedscope's file-format-schema.json plus its importer's rules
    check_outputs.py folded FILE [--frames N] [--total W]
    check_outputs.py svg FILE
    check_outputs.py selftest           each checker rejects broken documents

Each prints one JSON summary line (counts the tests compare) and exits 0, or
prints every violation and exits 1.
"""
import json
import math
import re
import sys
import xml.etree.ElementTree as ET

SPEEDSCOPE_SCHEMA = "https://www.speedscope.app/file-format-schema.json"
SPEEDSCOPE_UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}
SVG_NS = "{http://www.w3.org/2000/svg}"


class Fail(Exception):
    pass


def _reject_constant(name):
    raise ValueError("non-JSON number %s" % name)


def load_json(path_or_text, text=False):
    src = path_or_text if text else open(path_or_text, encoding="utf-8").read()
    # NaN/Infinity are not JSON: Perfetto's and speedscope's parsers reject them
    return json.loads(src, parse_constant=_reject_constant)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# ---------------------------------------------------------------- perfetto

def check_perfetto(doc):
    errs = []
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise Fail("no traceEvents array")
    if isinstance(doc, dict) and doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        errs.append("displayTimeUnit must be ms or ns")
    counts = {}
    x_stack = {}      # (pid, tid) -> stack of (end, name)
    be_stack = {}     # (pid, tid) -> stack of names (B/E)
    async_stack = {}  # (cat, id) -> stack of names
    last_ts = {}      # track -> ts
    flows = {}        # bind_id -> list of (role, ts)
    thread_names = set()
    process_names = set()
    used_threads = set()
    used_pids = set()

    def mono(track, ts, i):
        if track in last_ts and ts < last_ts[track]:
            errs.append("event %d: ts %s goes back on track %s (after %s)" % (i, ts, track, last_ts[track]))
        last_ts[track] = ts

    for i, e in enumerate(events):
        if not isinstance(e, dict):
            errs.append("event %d is not an object" % i)
            continue
        ph = e.get("ph")
        counts[ph] = counts.get(ph, 0) + 1
        if ph not in ("M", "X", "B", "E", "b", "e", "n", "i", "I", "C", "s", "t", "f"):
            errs.append("event %d: unknown ph %r" % (i, ph))
            continue
        if not isinstance(e.get("pid"), int):
            errs.append("event %d (%s): pid missing or not an integer" % (i, ph))
            continue
        pid, tid = e["pid"], e.get("tid")
        if ph == "M":
            args = e.get("args")
            if not isinstance(args, dict):
                errs.append("event %d: metadata without args" % i)
            elif e.get("name") in ("process_name", "thread_name"):
                if not isinstance(args.get("name"), str) or not args["name"]:
                    errs.append("event %d: %s without a name" % (i, e.get("name")))
                elif e["name"] == "thread_name":
                    thread_names.add((pid, tid))
                else:
                    process_names.add(pid)
            elif e.get("name") in ("process_sort_index", "thread_sort_index"):
                if not isinstance(args.get("sort_index"), int):
                    errs.append("event %d: %s without an integer sort_index" % (i, e.get("name")))
            continue
        ts = e.get("ts")
        if not is_num(ts) or ts < 0:
            errs.append("event %d (%s): ts missing, not a finite number or negative: %r" % (i, ph, ts))
            continue
        if not isinstance(e.get("name"), str):
            errs.append("event %d (%s): name missing" % (i, ph))
        used_pids.add(pid)
        if ph in ("X", "B", "E", "i", "I", "C") and not isinstance(tid, int):
            errs.append("event %d (%s): tid missing or not an integer" % (i, ph))
            continue
        if ph == "X":
            dur = e.get("dur")
            if not is_num(dur) or dur < 0:
                errs.append("event %d: X with bad dur %r" % (i, dur))
                continue
            key = (pid, tid)
            used_threads.add(key)
            mono(("thread", pid, tid), ts, i)
            st = x_stack.setdefault(key, [])
            # compare in whole ns: ts and dur are microseconds with (at most) ns decimals
            t0 = round(ts * 1000)
            t1 = t0 + round(dur * 1000)
            while st and st[-1][0] <= t0:
                st.pop()
            if st and t1 > st[-1][0]:
                errs.append("event %d: X %r [%s, %s] overlaps %r ending %s ns on thread %s without nesting"
                            % (i, e["name"], ts, ts + dur, st[-1][2], st[-1][0], key))
            st.append((t1, t0, e["name"]))
        elif ph in ("B", "E"):
            key = (pid, tid)
            used_threads.add(key)
            mono(("thread", pid, tid), ts, i)
            st = be_stack.setdefault(key, [])
            if ph == "B":
                st.append(e["name"])
            elif not st:
                errs.append("event %d: E without B on %s" % (i, key))
            else:
                st.pop()
        elif ph in ("b", "e", "n"):
            if "id" not in e and "id2" not in e:
                errs.append("event %d: async %s without id" % (i, ph))
                continue
            if not isinstance(e.get("cat"), str) or not e["cat"]:
                errs.append("event %d: async %s without cat" % (i, ph))
                continue
            key = (e["cat"], json.dumps(e.get("id", e.get("id2")), sort_keys=True))
            mono(("async",) + key, ts, i)
            st = async_stack.setdefault(key, [])
            if ph == "b":
                st.append(e["name"])
            elif ph == "e":
                if not st:
                    errs.append("event %d: e %r without b on %s" % (i, e["name"], key))
                elif st[-1] != e["name"]:
                    errs.append("event %d: e %r closes b %r on %s" % (i, e["name"], st[-1], key))
                    st.pop()
                else:
                    st.pop()
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args:
                errs.append("event %d: counter without args" % i)
                continue
            for k, v in args.items():
                if not is_num(v):
                    errs.append("event %d: counter %r arg %r is not a number: %r" % (i, e["name"], k, v))
            mono(("counter", pid, e["name"]), ts, i)
        elif ph in ("i", "I"):
            s = e.get("s", "t")
            if s not in ("g", "p", "t"):
                errs.append("event %d: instant scope %r" % (i, s))
            mono(("instant", pid, tid, s), ts, i)
        if "bind_id" in e:
            fin, fout = e.get("flow_in") is True, e.get("flow_out") is True
            if not (fin or fout):
                errs.append("event %d: bind_id without flow_in/flow_out" % i)
            role = "step" if fin and fout else "in" if fin else "out"
            flows.setdefault(e["bind_id"], []).append((role, ts, i))
    for key, st in be_stack.items():
        if st:
            errs.append("B without E on %s: %s" % (key, st))
    for key, st in async_stack.items():
        if st:
            errs.append("async b without e on %s: %s" % (key, st))
    for fid, evs in flows.items():
        roles = [r for r, _, _ in evs]
        if roles.count("out") != 1 or roles.count("in") != 1:
            errs.append("flow %s: needs one flow_out start and one flow_in end, has %s" % (fid, roles))
            continue
        t_out = [t for r, t, _ in evs if r == "out"][0]
        t_in = [t for r, t, _ in evs if r == "in"][0]
        if any(t < t_out or t > t_in for r, t, _ in evs if r == "step") or t_in < t_out:
            errs.append("flow %s: steps not between its start and end" % fid)
    for key in sorted(used_threads):
        if key not in thread_names:
            errs.append("thread %s has slices but no thread_name" % (key,))
    for pid in sorted(used_pids):
        if pid not in process_names:
            errs.append("pid %s has events but no process_name" % pid)
    if errs:
        raise Fail("\n".join(errs[:50]) + ("\n... %d more" % (len(errs) - 50) if len(errs) > 50 else ""))
    return {"events": len(events), "by_ph": {k: counts[k] for k in sorted(counts, key=str)},
            "flows": len(flows), "threads": len(thread_names), "processes": len(process_names)}


# ---------------------------------------------------------------- speedscope

def check_speedscope(doc):
    errs = []

    def need(obj, key, kind, where):
        if key not in obj:
            errs.append("%s: required %r missing" % (where, key))
            return None
        v = obj[key]
        ok = {"str": isinstance(v, str), "num": is_num(v), "list": isinstance(v, list),
              "obj": isinstance(v, dict)}[kind]
        if not ok:
            errs.append("%s: %r is not a %s" % (where, key, kind))
            return None
        return v

    if not isinstance(doc, dict):
        raise Fail("not an object")
    # FileFormat.File: required $schema, profiles, shared
    if need(doc, "$schema", "str", "file") not in (None, SPEEDSCOPE_SCHEMA):
        errs.append("file: $schema must be %s" % SPEEDSCOPE_SCHEMA)
    shared = need(doc, "shared", "obj", "file") or {}
    frames = need(shared, "frames", "list", "shared") or []
    profiles = need(doc, "profiles", "list", "file") or []
    for k, kind in (("name", "str"), ("activeProfileIndex", "num"), ("exporter", "str")):
        if k in doc:
            need(doc, k, kind, "file")
    for i, fr in enumerate(frames):
        if not isinstance(fr, dict):
            errs.append("frame %d is not an object" % i)
            continue
        need(fr, "name", "str", "frame %d" % i)
        for k in ("file",):
            if k in fr:
                need(fr, k, "str", "frame %d" % i)
        for k in ("line", "col"):
            if k in fr:
                need(fr, k, "num", "frame %d" % i)
    if not profiles:
        errs.append("file: no profiles (speedscope cannot open it)")
    if "activeProfileIndex" in doc and is_num(doc["activeProfileIndex"]) and \
            not 0 <= doc["activeProfileIndex"] < max(len(profiles), 1):
        errs.append("activeProfileIndex out of range")
    nev = 0
    for p_i, p in enumerate(profiles):
        where = "profile %d" % p_i
        if not isinstance(p, dict):
            errs.append(where + " is not an object")
            continue
        if p.get("type") != "evented":
            errs.append(where + ": type must be evented")
            continue
        need(p, "name", "str", where)
        if need(p, "unit", "str", where) not in (None,) and p["unit"] not in SPEEDSCOPE_UNITS:
            errs.append(where + ": unit %r not one of %s" % (p["unit"], sorted(SPEEDSCOPE_UNITS)))
        sv = need(p, "startValue", "num", where)
        ev = need(p, "endValue", "num", where)
        events = need(p, "events", "list", where) or []
        if sv is not None and ev is not None and ev < sv:
            errs.append(where + ": endValue < startValue")
        stack, last = [], None
        for j, e in enumerate(events):
            w = "%s event %d" % (where, j)
            if not isinstance(e, dict):
                errs.append(w + " is not an object")
                continue
            t = e.get("type")
            if t not in ("O", "C"):
                errs.append(w + ": type %r" % t)
                continue
            at = need(e, "at", "num", w)
            fr = need(e, "frame", "num", w)
            if fr is not None and (fr != int(fr) or not 0 <= fr < len(frames)):
                errs.append(w + ": frame %r out of range (%d frames)" % (fr, len(frames)))
            if at is None:
                continue
            if last is not None and at < last:
                errs.append(w + ": at %s before the previous %s" % (at, last))
            last = at
            if sv is not None and ev is not None and not sv <= at <= ev:
                errs.append(w + ": at %s outside startValue..endValue" % at)
            if t == "O":
                stack.append(fr)
            elif not stack:
                errs.append(w + ": close without open")
            elif stack[-1] != fr:
                errs.append(w + ": closes frame %s while %s is on top" % (fr, stack[-1]))
                stack.pop()
            else:
                stack.pop()
        if stack:
            errs.append(where + ": %d frames never closed" % len(stack))
        nev += len(events)
    if errs:
        raise Fail("\n".join(errs[:50]))
    return {"profiles": len(profiles), "frames": len(frames), "events": nev}


# ---------------------------------------------------------------- folded

FOLDED_LINE = re.compile(r"^([^;\n]+(?:;[^;\n]+)*) ([0-9]+)$")


def check_folded(text, frames=None, total=None):
    errs, lines, sum_w, stacks = [], 0, 0, set()
    for n, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), 1):
        m = FOLDED_LINE.match(line)
        if not m:
            errs.append("line %d: not 'a;b;c weight': %r" % (n, line))
            continue
        st, w = m.group(1), int(m.group(2))
        if w <= 0:
            errs.append("line %d: weight 0" % n)
        if frames is not None and len(st.split(";")) != frames:
            errs.append("line %d: %d frames, expected %d" % (n, len(st.split(";")), frames))
        if st in stacks:
            errs.append("line %d: stack repeated (should be summed): %s" % (n, st))
        stacks.add(st)
        lines += 1
        sum_w += w
    if text and not text.endswith("\n"):
        errs.append("no newline at the end")
    if total is not None and sum_w != total:
        errs.append("weights sum to %d, expected %d" % (sum_w, total))
    if errs:
        raise Fail("\n".join(errs[:50]))
    return {"lines": lines, "total": sum_w}


# ---------------------------------------------------------------- svg

def check_svg(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise Fail("not well-formed XML: %s" % e)
    if root.tag != SVG_NS + "svg":
        raise Fail("root element is %s, not svg" % root.tag)
    for a in ("width", "height", "viewBox"):
        if a not in root.attrib:
            raise Fail("svg without %s" % a)

    def cls(el):
        return el.attrib.get("class", "").split()

    ranks = [g for g in root.iter(SVG_NS + "g") if "rank" in cls(g)]
    colls = [r for r in root.iter(SVG_NS + "rect") if "coll" in cls(r)]
    verdicts = {}
    for r in colls:
        verdicts[r.attrib.get("data-verdict")] = verdicts.get(r.attrib.get("data-verdict"), 0) + 1
    for r in root.iter(SVG_NS + "rect"):
        for a in ("x", "y", "width", "height"):
            v = r.attrib.get(a)
            if v is not None and not v.endswith("%"):
                f = float(v)
                if not math.isfinite(f) or (a in ("width", "height") and f < 0):
                    raise Fail("rect with %s=%s" % (a, v))
    return {"ranks": len(ranks), "rank_ids": sorted(int(g.attrib.get("data-rank", -1)) for g in ranks),
            "collectives": len(colls), "verdicts": dict(sorted(verdicts.items(), key=lambda kv: str(kv[0]))),
            "dense": sum(1 for r in root.iter(SVG_NS + "rect") if "dense" in cls(r)),
            "lost_gaps": sum(1 for r in root.iter(SVG_NS + "rect") if "gap" in cls(r)),
            "late": sum(1 for r in root.iter(SVG_NS + "rect") if "late" in cls(r)),
            "counter_tracks": sum(1 for g in root.iter(SVG_NS + "g") if "counter" in cls(g))}


# ---------------------------------------------------------------- selftest

def expect_fail(what, fn, *args):
    try:
        fn(*args)
    except (Fail, ValueError) as e:
        return str(e).split("\n")[0]
    raise SystemExit("selftest: %s was accepted" % what)


def selftest():
    ok_pf = {"traceEvents": [
        {"ph": "M", "pid": 1, "tid": 11, "name": "process_name", "args": {"name": "h1"}},
        {"ph": "M", "pid": 1, "tid": 11, "name": "thread_name", "args": {"name": "rank 0"}},
        {"ph": "X", "pid": 1, "tid": 11, "ts": 1, "dur": 10, "name": "step", "cat": "step"},
        {"ph": "X", "pid": 1, "tid": 11, "ts": 2, "dur": 3, "name": "ar", "cat": "c", "bind_id": 1, "flow_out": True},
        {"ph": "X", "pid": 1, "tid": 11, "ts": 6, "dur": 3, "name": "ar", "cat": "c", "bind_id": 1, "flow_in": True},
        {"ph": "b", "pid": 1, "tid": 11, "ts": 3, "name": "x", "cat": "a", "id": "0x1"},
        {"ph": "e", "pid": 1, "tid": 11, "ts": 12, "name": "x", "cat": "a", "id": "0x1"},
        {"ph": "C", "pid": 1, "tid": 11, "ts": 1, "name": "tx", "args": {"Mbit/s": 1.5}},
        {"ph": "i", "pid": 1, "tid": 11, "ts": 4, "name": "drop", "s": "t"}]}
    check_perfetto(ok_pf)
    import copy
    bad = copy.deepcopy(ok_pf); del bad["traceEvents"][6]
    expect_fail("unclosed async slice", check_perfetto, bad)
    bad = copy.deepcopy(ok_pf); bad["traceEvents"][6]["name"] = "y"
    expect_fail("async e with another name", check_perfetto, bad)
    bad = copy.deepcopy(ok_pf); bad["traceEvents"][3]["dur"] = 20
    expect_fail("X overlapping without nesting", check_perfetto, bad)
    bad = copy.deepcopy(ok_pf); del bad["traceEvents"][7]["tid"]
    expect_fail("counter without tid", check_perfetto, bad)
    bad = copy.deepcopy(ok_pf); bad["traceEvents"][7]["args"] = {"Mbit/s": "1.5"}
    expect_fail("counter with a string value", check_perfetto, bad)
    bad = copy.deepcopy(ok_pf); bad["traceEvents"][4]["ts"] = 0.5
    expect_fail("time going back on a thread", check_perfetto, bad)
    bad = copy.deepcopy(ok_pf); del bad["traceEvents"][1]
    expect_fail("thread without a name", check_perfetto, bad)
    bad = copy.deepcopy(ok_pf); del bad["traceEvents"][4]["bind_id"]
    expect_fail("flow without an end", check_perfetto, bad)
    expect_fail("NaN", load_json, '{"traceEvents":[{"ph":"C","ts":NaN}]}', True)

    ok_ss = {"$schema": SPEEDSCOPE_SCHEMA, "shared": {"frames": [{"name": "a"}, {"name": "b"}]},
             "profiles": [{"type": "evented", "name": "r0", "unit": "nanoseconds", "startValue": 0,
                           "endValue": 10, "events": [{"type": "O", "frame": 0, "at": 1},
                                                      {"type": "O", "frame": 1, "at": 2},
                                                      {"type": "C", "frame": 1, "at": 3},
                                                      {"type": "C", "frame": 0, "at": 4}]}]}
    check_speedscope(ok_ss)
    bad = copy.deepcopy(ok_ss); bad["profiles"][0]["events"][2]["frame"] = 0
    expect_fail("crossed close", check_speedscope, bad)
    bad = copy.deepcopy(ok_ss); bad["profiles"][0]["events"][1]["frame"] = 7
    expect_fail("frame out of range", check_speedscope, bad)
    bad = copy.deepcopy(ok_ss); bad["profiles"][0]["events"][3]["at"] = 11
    expect_fail("event after endValue", check_speedscope, bad)
    bad = copy.deepcopy(ok_ss); bad["profiles"][0]["events"][2]["at"] = 0
    expect_fail("events out of order", check_speedscope, bad)
    bad = copy.deepcopy(ok_ss); del bad["profiles"][0]["unit"]
    expect_fail("missing unit", check_speedscope, bad)
    bad = copy.deepcopy(ok_ss); bad["profiles"][0]["unit"] = "ticks"
    expect_fail("unknown unit", check_speedscope, bad)
    bad = copy.deepcopy(ok_ss); bad["profiles"][0]["events"].pop()
    expect_fail("unclosed frame", check_speedscope, bad)
    bad = copy.deepcopy(ok_ss); bad["$schema"] = "x"
    expect_fail("wrong $schema", check_speedscope, bad)

    check_folded("a;b;c;d 5\na;b;c;e 7\n", 4, 12)
    expect_fail("wrong total", check_folded, "a;b;c;d 5\n", 4, 6)
    expect_fail("three frames", check_folded, "a;b;c 5\n", 4, 5)
    expect_fail("no weight", check_folded, "a;b;c;d\n", 4, None)
    expect_fail("repeated stack", check_folded, "a;b;c;d 5\na;b;c;d 5\n", 4, None)
    print(json.dumps({"selftest": "ok"}))


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    what = argv[1]
    try:
        if what == "selftest":
            selftest()
            return 0
        path = argv[2]
        if what == "perfetto":
            out = check_perfetto(load_json(path))
        elif what == "speedscope":
            out = check_speedscope(load_json(path))
        elif what == "folded":
            frames = total = None
            rest = argv[3:]
            while rest:
                if rest[0] == "--frames":
                    frames = int(rest[1])
                elif rest[0] == "--total":
                    total = int(rest[1])
                else:
                    raise Fail("unknown option %s" % rest[0])
                rest = rest[2:]
            out = check_folded(open(path, encoding="utf-8").read(), frames, total)
        elif what == "svg":
            out = check_svg(path)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (Fail, ValueError, OSError) as e:
        print("%s: %s: %s" % (what, argv[2] if len(argv) > 2 else "", e))
        return 1
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
