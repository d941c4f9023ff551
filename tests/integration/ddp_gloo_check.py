#!/usr/bin/env python3
"""Checks on a report of PyTorch DDP over Gloo (tests/integration/test_ddp_gloo_*.sh).

  ddp_gloo_check.py REPORT.json RANKS straggler RANK     a rank sleeps before each backward
  ddp_gloo_check.py REPORT.json RANKS network LINK       LINK (e.g. eth0@ftL1h2) is throttled

Both: >= 90 % of the gradient all-reduces (>= 64 kB) are matched with all RANKS
ranks, keyed by the library's own number (comm_kind "library"), and the ranks
are numbered from the launcher's RANK.  straggler: RANK the last to enter
>= 80 % of them, >= half of them rank-bound naming RANK, RANK
the top straggler, and no network-bound one.  (On 2 vCPUs four PyTorch
processes and the recorder compete: another rank's backward is now and then
late too, and a descheduled receiver's retransmits make some "unknown".)  network: >= 90 % network-bound naming
LINK, and no rank blamed for them.

Environment: LAB=PREFIX keeps only the ranks and collectives on that lab's
hosts (a system-wide recording sees every job on the machine; the report
must then be made with --top 1000 so that every collective lists its ranks);
ATTACHED=1 leaves out the collectives still open at the recording's end (the
straggler had not entered them yet) and allows two cut by its start (DDP's
two gradient buckets: ranks already inside them when the probes attached).
"""
import json
import os
import sys

j = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
mode, who = sys.argv[3], sys.argv[4]


from checks import check, done


lab = os.environ.get("LAB", "")
mine = [r for r in j["ranks"] if r["rank"] is not None and (r["host"] or "").startswith(lab)]
ranks = sorted(r["rank"] for r in mine)
check(ranks == list(range(n)), f"ranks 0..{n - 1} from the launcher's environment ({ranks})")
ours = {s["id"] for s in j["slowest"]["items"] if all((r["host"] or "").startswith(lab) for r in s["ranks"])}
grads = [c for c in j["collectives"]["items"] if c["op"] == "allreduce" and c["size_bytes"] >= 65536
         and (not lab or c["id"] in ours) and not (os.environ.get("ATTACHED") and c["open"])]
calls = max(sum(o["calls"] for o in r["ops"] if o["op"] == "allreduce") for r in mine) if mine else 0
full = [c for c in grads if c["members"] == n]
cut = 2 if os.environ.get("ATTACHED") else 0
check(len(grads) >= 10, f"{len(grads)} gradient all-reduces reported ({calls} all-reduce calls on the busiest rank)")
check(len(full) >= min(0.9 * len(grads), len(grads) - cut),
      f"{len(full)} of {len(grads)} matched with all {n} ranks")
check(all(c["comm_kind"] == "library" for c in grads),
      "keyed by Gloo's own number: " + str(sorted({c["comm_kind"] for c in grads})))
verdicts = {}
for c in full:
    verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
print("verdicts of the matched ones:", verdicts)
if mode == "straggler":
    r = int(who)
    late = [c for c in full if c["straggler_rank"] == r]
    named = [c for c in late if c["verdict"] == "rank"]
    check(len(late) >= 0.8 * len(full), f"rank {r} the last to enter {len(late)} of {len(full)}")
    check(len(named) >= 0.5 * len(full), f"{len(named)} of {len(full)} rank-bound naming rank {r}")
    check(not any(c["verdict"] == "network" for c in full), "none network-bound on the clean lab")
    top = next((t for t in j["stragglers"] if (t["host"] or "").startswith(lab)), {})
    check(top.get("rank") == r, f"the top straggler is rank {r}: {top}")
else:
    net = [c for c in full if c["verdict"] == "network"]
    check(len(net) >= 0.9 * len(full), f"{len(net)} of {len(full)} network-bound")
    slow = [s for s in j["slowest"]["items"] if s["op"] == "allreduce" and s["size_bytes"] >= 65536]
    check(len(slow) >= 3, f"slowest gradient all-reduces listed ({len(slow)})")
    for s in slow[:5]:
        e = s["evidence"]
        check(s["verdict"] == "network" and e["link"] == who,
              f"seq {s['seq']}: {s['verdict']} on {e['link']} {e['qdisc']}")
    check(not any(c["verdict"] == "rank" for c in grads), "no rank blamed for a gradient all-reduce")
done()
