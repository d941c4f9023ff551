#!/usr/bin/python3
"""PyTorch DDP over Gloo, the way users train: a small MLP, N ranks.

Run with Debian's /usr/bin/python3 (python3-torch 1.13 links Debian's libgloo).

Two modes:
  ddp_gloo.py --lab PREFIX [--ranks N] [options]
      launcher: one rank per lab host (rank r in namespace PREFIXh<r+1>, over
      its eth0), with the launcher's usual environment (RANK, WORLD_SIZE,
      LOCAL_RANK, MASTER_ADDR, MASTER_PORT); waits for all, exits with the
      first failure.  Trace it with `fabtrace record -- tools/ddp_gloo.py --lab P`.
  ddp_gloo.py [options]        (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set)
      one rank.

Options:
  --steps N          training steps (default 12)
  --width N          hidden layer width (default 512: ~0.8 M parameters, ~3 MB of gradients)
  --delay R:MS       rank R sleeps MS ms before each backward (a compute straggler)
  --json             rank 0 prints one JSON line: steps, seconds, gradient bytes, and the
                     gradient all-reduces DDP made (allreduces) of its buckets' sizes
                     (bucket_bytes: the first step's, then the rebuilt ones)
  --timeout S        launcher: kill the ranks after S seconds (default 120)
  --ready FILE       rank 0 creates FILE when the training loop starts (to attach a tracer then)
  --pg-timeout S     the process group's timeout (init_process_group; Gloo's per-operation
                     timeout), default PyTorch's 30 min
  --hang R:STEP      rank R sleeps past the process group's timeout before step STEP's backward:
                     the others' gradient all-reduce times out (Gloo raises; the job fails)

Examples:
  sudo tools/lab.sh up -p ftL1 -n 4
  sudo tools/ddp_gloo.py --lab ftL1 --delay 2:120 --json
  sudo fabtrace record -o ddp.ftr -- tools/ddp_gloo.py --lab ftL1 --steps 20
"""
import argparse
import json
import os
import subprocess
import sys
import time


def parse():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter, add_help=True)
    ap.add_argument("--lab")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--delay", default="")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--ready")
    ap.add_argument("--pg-timeout", type=float, default=0)
    ap.add_argument("--hang", default="")
    a = ap.parse_args()
    if a.steps < 1 or a.width < 1 or a.ranks < 1:
        ap.error("--steps, --width and --ranks must be positive")
    if a.delay:
        try:
            r, ms = a.delay.split(":")
            a.delay = (int(r), float(ms))
        except ValueError:
            ap.error(f"--delay '{a.delay}': expected RANK:MS, e.g. 2:120")
    else:
        a.delay = None
    if a.hang:
        try:
            r, step = a.hang.split(":")
            a.hang = (int(r), int(step))
        except ValueError:
            ap.error(f"--hang '{a.hang}': expected RANK:STEP, e.g. 2:3")
        if not a.pg_timeout:
            ap.error("--hang needs --pg-timeout (the default 30 min would outlast any test)")
    else:
        a.hang = None
    return a


def launch(a):
    here = os.path.abspath(__file__)
    master = "198.18.0.1"
    port = str(29500 + os.getpid() % 1000)
    fwd = ["--steps", str(a.steps), "--width", str(a.width)]
    if a.delay:
        fwd += ["--delay", f"{a.delay[0]}:{a.delay[1]:g}"]
    if a.json:
        fwd.append("--json")
    if a.ready:
        fwd += ["--ready", os.path.abspath(a.ready)]
    if a.pg_timeout:
        fwd += ["--pg-timeout", f"{a.pg_timeout:g}"]
    if a.hang:
        fwd += ["--hang", f"{a.hang[0]}:{a.hang[1]}"]
    procs = []
    for r in range(a.ranks):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK="0", WORLD_SIZE=str(a.ranks),
                   MASTER_ADDR=master, MASTER_PORT=port, GLOO_SOCKET_IFNAME="eth0",
                   OMP_NUM_THREADS="1")
        cmd = ["ip", "netns", "exec", f"{a.lab}h{r + 1}", "timeout", "-k", "5", str(a.timeout),
               "/usr/bin/python3", here] + fwd
        procs.append(subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL))
    rc = 0
    for p in procs:
        r = p.wait()
        if r and not rc:
            rc = r
    if rc:
        print(f"ddp_gloo: a rank failed (exit {rc})", file=sys.stderr)
    return rc


def rank(a):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.set_num_threads(1)
    r = int(os.environ["RANK"])
    n = int(os.environ["WORLD_SIZE"])
    if a.pg_timeout:
        import datetime
        dist.init_process_group("gloo", rank=r, world_size=n, timeout=datetime.timedelta(seconds=a.pg_timeout))
    else:
        dist.init_process_group("gloo", rank=r, world_size=n)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, a.width), nn.ReLU(), nn.Linear(a.width, a.width), nn.ReLU(),
                          nn.Linear(a.width, a.width), nn.ReLU(), nn.Linear(a.width, 8))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x = torch.randn(32, 64)
    y = torch.randn(32, 8)
    t0 = time.monotonic()
    if a.ready and r == 0:
        open(a.ready, "w").close()
    for step in range(a.steps):
        opt.zero_grad()
        loss = ((ddp(x) - y) ** 2).mean()
        if a.delay and a.delay[0] == r:
            time.sleep(a.delay[1] / 1000.0)
        if a.hang and a.hang == (r, step):
            time.sleep(a.pg_timeout + 10)
        loss.backward()
        opt.step()
    secs = time.monotonic() - t0
    # DDP all-reduces each gradient bucket once per backward; after the first
    # step it rebuilds its buckets once, in the order the gradients came
    ld = ddp._get_ddp_logging_data()
    first = [int(b) for b in str(ld.get("bucket_sizes", "")).split(",") if b.strip()]
    rebuilt = [int(b) for b in str(ld.get("rebuilt_bucket_sizes", "")).split(",") if b.strip()] or first
    allreduces = len(first) + len(rebuilt) * (a.steps - 1)
    # every rank holds the same weights after DDP's all-reduces
    w = torch.cat([p.detach().flatten() for p in model.parameters()])
    ref = w.clone()
    dist.broadcast(ref, 0)
    same = bool(torch.equal(w, ref))
    if a.json and r == 0:
        print(json.dumps({"ranks": n, "steps": a.steps, "seconds": round(secs, 3),
                          "grad_bytes": int(w.numel() * 4), "allreduces": allreduces,
                          "bucket_bytes": {"first": first, "rebuilt": rebuilt},
                          "weights_equal": same}), flush=True)
    dist.destroy_process_group()
    return 0 if same else 1


def main():
    a = parse()
    if a.lab:
        return launch(a)
    for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        if v not in os.environ:
            print(f"ddp_gloo: {v} is not set; run a launcher, or use --lab PREFIX", file=sys.stderr)
            return 2
    return rank(a)


if __name__ == "__main__":
    sys.exit(main())
