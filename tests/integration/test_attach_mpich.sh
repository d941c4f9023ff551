#!/usr/bin/env bash
# A job already running, the usual case in an incident (issue 15): MPICH, 4
# ranks on lab hosts, rank 2 sleeping 150 ms before each all-reduce.
# `fabtrace record -d` starts at random points of the job, with no command
# and no -p (every process), three times.  Each recording must know the ranks
# (MPI_Comm_rank ran before the attach: from the launcher's environment),
# match the all-reduces across all four ranks although each rank's first
# observed call may be a different collective, and name rank 2 as the
# straggler, rank-bound, as a recording from the start does.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich
need_cmd python3
lab_start 4
trap bg_cleanup EXIT

"$ROOT/tools/lab.sh" mpi -p "$LAB" --bytes 256k --iters 150 --warmup 1 --delay 2:150000 --json \
	--timeout 120 >"$TMPD/wl.json" 2>"$TMPD/wl.err" &
# shellcheck disable=SC2034  # attach_three (lib.sh) waits for it
BG=$!
sleep 1
# random points of the job's loop: 0-300 ms on top of the previous recording
attach_three 3 0

LAB=$LAB python3 - "$TMPD"/a1.json "$TMPD"/a2.json "$TMPD"/a3.json <<'PY' || bad "attach checks (see above)"
import json, os, sys
# system-wide tracing sees every job on the machine: ours are the lab's
lab = os.environ["LAB"]
from checks import check, done

for n, path in enumerate(sys.argv[1:], 1):
    j = json.load(open(path))
    ranks = sorted(r["rank"] for r in j["ranks"] if r["rank"] is not None and r["host"].startswith(lab))
    check(ranks == [0, 1, 2, 3], f"attach {n}: ranks from the launcher's environment: {ranks}")
    ar = [c for c in j["collectives"]["items"] if c["op"] == "allreduce" and c["size_bytes"] == 262144]
    full = [c for c in ar if c["members"] == 4]
    check(len(ar) >= 8 and len(full) >= len(ar) - 2,
          f"attach {n}: {len(full)} of {len(ar)} all-reduces matched with all 4 ranks")
    rb = [c for c in full if c["verdict"] == "rank" and c["straggler_rank"] == 2]
    check(len(rb) >= 0.8 * len(full), f"attach {n}: {len(rb)} of {len(full)} rank-bound, naming rank 2 "
          f"(verdicts {sorted(set((c['verdict'], c['straggler_rank']) for c in full), key=str)})")
done()
PY
finish
