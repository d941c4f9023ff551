#!/usr/bin/env python3
"""Checks on a report of PyTorch DDP over Gloo (tests/integration/test_*ddp*.sh).

  ddp_gloo_check.py NAME REPORT.json WORKLOAD.json straggler RANK [--attached]
      RANK sleeps before each backward
  ddp_gloo_check.py NAME REPORT.json WORKLOAD.json network LINK
      LINK (e.g. eth0@ftL1h2) is throttled

WORKLOAD.json is tools/ddp_gloo.py --json: the gradient all-reduces DDP made
(allreduces) and its buckets' sizes.  The report is made with --top 1000
(every collective's ranks and evidence).  Both modes: the ranks are numbered
from the launcher's RANK; each of the workload's gradient all-reduces is
found, matched with all its ranks, keyed by the library's own number
(comm_kind "library"); the budget sums (budget_check.py).  straggler: >= 90 %
of them rank-bound, each naming the rank that entered it last (on 2 vCPUs
shared with the recorder a starved rank's gradients reach Gloo 30-600 ms
after its backward began, now and then after the delayed rank's), RANK the
one named most and the top straggler, none network-bound.
network: >= 95 % network-bound naming LINK, no rank blamed.

--attached: a recording attached mid-run (record -d, no -p): the gradient
all-reduces from the first it holds whole (every rank's call, closed) to the
last, by Gloo's number; each one between counts, found or not.

Environment: LAB=PREFIX keeps only the ranks and collectives on that lab's
hosts (a system-wide recording sees every job on the machine).
"""
import json
import os
import sys

from budget_check import budget_sums, budget_top, network, straggler
from checks import check, done

name, rep_path, wl_path, mode, who = sys.argv[1:6]
attached = "--attached" in sys.argv[6:]
j = json.load(open(rep_path))
w = json.loads(open(wl_path).read().strip().splitlines()[-1])
n = w["ranks"]
lab = os.environ.get("LAB", "")

mine = [r for r in j["ranks"] if r["rank"] is not None and (r["host"] or "").startswith(lab)]
ranks = sorted(r["rank"] for r in mine)
check(ranks == list(range(n)), f"{name}: ranks 0..{n - 1} from the launcher's environment ({ranks})")
detail = {s["id"]: s for s in j["slowest"]["items"]}
sizes = set(w["bucket_bytes"]["first"] + w["bucket_bytes"]["rebuilt"])
grads = sorted((dict(c, **detail.get(c["id"], {})) for c in j["collectives"]["items"]
                if c["op"] == "allreduce" and c["size_bytes"] in sizes
                and all((r["host"] or "").startswith(lab) for r in detail.get(c["id"], {}).get("ranks", []))),
               key=lambda c: c["seq"])
if attached:
    whole = [k for k, c in enumerate(grads) if c["members"] == n and not c["open"]]
    grads = grads[whole[0]:whole[-1] + 1] if whole else []
    want = grads[-1]["seq"] - grads[0]["seq"] + 1 if grads else 0   # in the loop, Gloo numbers only these
    check(want >= 6, f"{name}: {want} gradient all-reduces inside the recording (>= 6)")
else:
    want = w["allreduces"]
full = [c for c in grads if c["members"] == n]
check(len(grads) == want and len(full) == want,
      f"{name}: {len(grads)} of the workload's {want} gradient all-reduces found, {len(full)} with all {n} ranks")
check(grads and all(c["comm_kind"] == "library" for c in grads),
      f"{name}: keyed by Gloo's own number: " + str(sorted({c["comm_kind"] for c in grads})))
pairs = [(None, c) for c in grads] + [(None, None)] * max(0, want - len(grads))
if mode == "straggler":
    r = int(who)
    straggler(name, pairs, r, last_in=True)   # see the docstring: naming the last to enter
    top = next((t for t in j["stragglers"] if (t["host"] or "").startswith(lab)), {})
    check(top.get("rank") == r, f"{name}: the top straggler is rank {r}: {top}")
    budget_sums(name, j)
    if not attached:   # a system-wide recording's job budget holds every job on the machine
        budget_top(name, j, rank=r)
else:
    network(name, pairs, who)
    budget_sums(name, j)
    budget_top(name, j, links={who})
done()
