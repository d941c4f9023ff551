#!/usr/bin/env python3
"""The tree's layers, checked from the code's own #include lines.

Each folder sits on a floor of the data path (docs/architecture.md).  A file
may include headers of its own floor or of lower floors, never of a higher
one; and no two modules (a .c with its .h) may depend on each other, even
through others (no include cycle).  Exit 1 with one line per violation.

    tests/layers/check_layers.py [ROOT]          check
    tests/layers/check_layers.py --graph [ROOT]  print the module graph
    tests/layers/check_layers.py --objects OBJDIR
        the same for calls: the built objects (OBJDIR/**/*.o, read with nm)
        of two files must not use each other's functions, even through
        others (the files a split leaves behind call one way: a driver
        over its parts over their helpers)
"""
import os
import re
import subprocess
import sys

# floor of each folder, lowest first; the longest matching prefix decides
FLOORS = [
    ("lib", 0),                    # helpers every layer may use
    ("bpf", 1),                    # kernel programs and the record ABI
    ("probes", 2),                 # attaching probes
    ("rdma", 2),                   # the counter sampler
    ("userspace/capture", 3),      # the capture format
    ("userspace/record", 4),       # the tracing session
    ("userspace/model", 4),        # the fabric model
    ("userspace/correlate", 5),    # matching, evidence, verdicts
    ("userspace/report", 6),       # the report's sections
    ("userspace/live", 6),         # top's aggregator, metrics
    ("userspace/top", 6),          # top's views, keys and terminal
    ("userspace/compare", 6),      # runs A against runs B (compare)
    ("userspace/history", 6),      # the flight recorder's per-collective summaries
    ("viz", 6),                    # timelines
    ("userspace/cli", 7),          # commands
]
SRC_DIRS = ("lib", "probes", "bpf", "rdma", "userspace", "viz")
# generated headers and the stand-alone libraries loaded into other programs
SKIP_INC = re.compile(r"(\.skel\.h|viz_html_assets\.h)$")
SKIP_DIR = ("probes/marker", "probes/nccl_profiler")
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def floor(path):
    best = None
    for prefix, f in FLOORS:
        if path == prefix or path.startswith(prefix + "/"):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, f)
    return best


def sources(root):
    for d in SRC_DIRS:
        for dp, _, names in os.walk(os.path.join(root, d)):
            rel = os.path.relpath(dp, root)
            if rel.startswith(SKIP_DIR):
                continue
            for n in names:
                if n.endswith((".c", ".h")):
                    yield os.path.join(rel, n)


def resolve(root, src, inc):
    """The tree path of an include, or None for one outside the tree."""
    for cand in (os.path.normpath(os.path.join(os.path.dirname(src), inc)), os.path.normpath(inc)):
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def module(path):
    return os.path.splitext(path)[0]



def cycles(deps):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(deps.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return sccs


def check_objects(objdir):
    """Call cycles between the objects under OBJDIR (nm: defined vs undefined)."""
    defined, used = {}, {}
    for dp, _, names in os.walk(objdir):
        for n in names:
            if not n.endswith(".o"):
                continue
            path = os.path.join(dp, n)
            obj = os.path.relpath(path, objdir)[:-2] + ".c"
            out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                f = line.split()
                if len(f) == 2 and f[0] == "U":
                    used.setdefault(obj, set()).add(f[1])
                elif len(f) == 3 and f[1] in "TDBR":
                    defined[f[2]] = obj
    deps = {}
    for obj, syms in used.items():
        for sym in syms:
            tgt = defined.get(sym)
            if tgt and tgt != obj:
                deps.setdefault(obj, set()).add(tgt)
    bad = ["call cycle between files: " + " <-> ".join(c) for c in cycles(deps)]
    for b in bad:
        print(b)
    print(f"layers: {len(bad)} call cycle(s) in {len(used)} objects" if bad else
          f"layers: {len(used)} objects, no call cycles")
    return 1 if bad else 0

def main(argv):
    if argv[:1] == ["--objects"] and len(argv) == 2:
        return check_objects(argv[1])
    graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    bad = []
    deps = {}
    for src in sorted(sources(root)):
        text = open(os.path.join(root, src), encoding="utf-8", errors="replace").read()
        fs = floor(src)
        if fs is None:
            bad.append(f"{src}: in no layer (add its folder to tests/layers/check_layers.py and docs/architecture.md)")
            continue
        for inc in INC.findall(text):
            if SKIP_INC.search(inc):
                continue
            tgt = resolve(root, src, inc)
            if tgt is None:
                continue
            ft = floor(tgt)
            if ft is None:
                continue
            if ft[1] > fs[1]:
                bad.append(f"{src}: includes {tgt}, a higher layer ({ft[0]} over {fs[0]})")
            if module(tgt) != module(src):
                deps.setdefault(module(src), set()).add(module(tgt))
    sccs = cycles(deps)
    for comp in sccs:
        bad.append("include cycle between modules: " + " <-> ".join(comp))
    if graph:
        for v in sorted(deps):
            print(f"{v}: {' '.join(sorted(deps[v]))}")
    for b in bad:
        print(b)
    if not graph:
        print(f"layers: {len(bad)} violation(s) in {len(deps)} modules" if bad else
              f"layers: {len(deps)} modules, every include goes down or across, no cycles")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
