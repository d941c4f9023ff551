#!/usr/bin/env bash
# gpu_check.sh — check fabtrace's NCCL profiler plugin on a real GPU.
#
#   sudo tools/gpu_check.sh [--build DIR] [--python PY] [--steps N] [--prefix P] [--keep DIR]
#
# Needs: an NVIDIA GPU (nvidia-smi), PyTorch with CUDA and NCCL for PY
# (default python3), root (network namespaces), a built fabtrace (make).
# Exit 77 with a message when the machine has no GPU or PyTorch/NCCL.
#
# What it runs: a 2-rank PyTorch DDP job over NCCL (a 4096x4096 linear
# model, N steps, default 30) in two lab hosts (tools/lab.sh), host 2's
# link throttled to 100 Mbit/s (tbf, 30 kB queue).  Each rank gets its own
# NCCL_HOSTID, so NCCL treats them as two machines even on one GPU, and
# NCCL_NET=Socket over eth0: the all-reduces cross the throttled link.  The
# job runs under `fabtrace record --`, which sets NCCL_PROFILER_PLUGIN to
# the built plugin.  Then it checks the report:
#   - the plugin timed the all-reduces (phases.nccl_plugin.calls > 0), by
#     kernel-channel GPU timer (NCCL >= 2.27) or proxy progress, not enqueue;
#   - >= 90 % of the all-reduce instances have both ranks (matched by comm
#     hash, function, seq);
#   - most of them are network-bound, naming host 2's eth0.
# It prints the machine, driver, PyTorch and NCCL versions with the result:
# put those in docs/phases.md ("Verified on a real GPU").
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=build
PY=python3
STEPS=30
PREFIX=ftG$(printf '%05d' $(((RANDOM * 32768 + RANDOM) % 100000)))
KEEP=

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--python) PY=$2; shift 2 ;;
	--steps) STEPS=$2; shift 2 ;;
	--prefix) PREFIX=$2; shift 2 ;;
	--keep) KEEP=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
FT=$BUILD/fabtrace
PLUGIN=$BUILD/libnccl-profiler-fabtrace.so

skip() { echo "gpu_check: skipped: $*"; exit 77; }

# ---- what this machine has
command -v nvidia-smi >/dev/null 2>&1 || skip "no NVIDIA GPU here (nvidia-smi not found); run this on a GPU machine"
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
((GPUS > 0)) || skip "no NVIDIA GPU here (nvidia-smi lists none)"
VERS=$("$PY" - 2>/dev/null <<'PY'
import torch
assert torch.cuda.is_available() and torch.distributed.is_nccl_available()
v = torch.cuda.nccl.version()
print(torch.__version__, ".".join(map(str, v)) if isinstance(v, tuple) else v)
PY
) || skip "$PY has no PyTorch with CUDA and NCCL"
[[ $(id -u) -eq 0 ]] || { echo "gpu_check: needs root (network namespaces)"; exit 1; }
[[ -x $FT && -f $PLUGIN ]] || { echo "gpu_check: $FT or $PLUGIN not built: run make"; exit 1; }
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n1)
echo "gpu_check: $(hostname), GPU $GPU ($GPUS visible), PyTorch/NCCL $VERS, kernel $(uname -r)"

# shellcheck source=tools/lab.sh
source "$HERE/lab.sh"
TMPD=$(mktemp -d /tmp/fabtrace-gpu.XXXXXX)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	lab_down "$PREFIX" >/dev/null 2>&1
	[[ -n $KEEP ]] && mkdir -p "$KEEP" && cp -a "$TMPD/." "$KEEP/"
	rm -rf "$TMPD"
}
trap cleanup EXIT
lab_up "$PREFIX" 2 "h2=100mbit:limit=30kb" || { echo "gpu_check: lab up failed"; exit 1; }

cat >"$TMPD/ddp.py" <<'PY'
import os, sys, time, torch, torch.distributed as dist
rank, steps = int(sys.argv[1]), int(sys.argv[2])
dev = rank % torch.cuda.device_count()
torch.cuda.set_device(dev)
dist.init_process_group("nccl", init_method="tcp://198.18.0.1:29511", rank=rank, world_size=2)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4096, 4096).cuda(dev), device_ids=[dev])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 4096, device=dev)
t0 = time.time()
for _ in range(steps):
    opt.zero_grad()
    model(x).sum().backward()
    opt.step()
torch.cuda.synchronize()
print(f'{{"rank":{rank},"steps":{steps},"seconds":{time.time() - t0:.3f}}}', flush=True)
dist.destroy_process_group()
PY

IFACES=()
for i in 1 2; do IFACES+=(-i "$(lab_ns "$PREFIX" "$i")/eth0" -i "$(lab_sw "$PREFIX")/p$i"); done
# shellcheck disable=SC2016 # the inner script expands its own arguments
"$FT" record -q -o "$TMPD/ddp.ftr" "${IFACES[@]}" -- bash -c '
	py=$1 script=$2 steps=$3 lab=$4
	for r in 0 1; do
		ip netns exec "${lab}h$((r + 1))" env NCCL_HOSTID="fabtrace-gpu-check-h$((r + 1))" \
			NCCL_NET=Socket NCCL_SOCKET_IFNAME=eth0 NCCL_IB_DISABLE=1 NCCL_P2P_DISABLE=1 \
			NCCL_SHM_DISABLE=1 NCCL_DEBUG=WARN "$py" "$script" $r "$steps" &
	done
	wait' _ "$PY" "$TMPD/ddp.py" "$STEPS" "$PREFIX" >"$TMPD/ddp.out" 2>"$TMPD/ddp.err"
rc=$?
cat "$TMPD/ddp.out"
if ((rc != 0)); then
	echo "gpu_check: FAIL: record -- the DDP job exited $rc:"
	tail -n 20 "$TMPD/ddp.err"
	exit 1
fi
"$FT" report --json "$TMPD/ddp.ftr" >"$TMPD/report.json" || { echo "gpu_check: FAIL: report"; exit 1; }
"$FT" report "$TMPD/ddp.ftr" >"$TMPD/report.txt" || true
python3 - "$TMPD/report.json" "eth0@$(lab_ns "$PREFIX" 2)" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
link = sys.argv[2]
fail = 0
def check(cond, what):
    global fail
    print(("ok   " if cond else "FAIL ") + what)
    fail += not cond
p = j["phases"]["nccl_plugin"]
check(p["calls"] > 0, f"the plugin timed {p['calls']} calls ({p['gpu_timed']} by GPU timer, "
      f"{p['proxy_timed']} by proxy progress, {p['host_timed']} host-side only), {p['proxy_ops']} proxy ops")
check(p["gpu_timed"] + p["proxy_timed"] >= 0.9 * p["calls"], "real durations, not enqueue times")
ar = [c for c in j["collectives"]["items"] if c["op"] == "allreduce" and not c["enqueue_only"]]
both = [c for c in ar if c["members"] == 2]
check(ar and len(both) >= 0.9 * len(ar), f"{len(both)} of {len(ar)} all-reduces matched across both ranks")
net = [c for c in both if c["verdict"] == "network"]
check(len(net) >= 0.5 * max(1, len(both)), f"{len(net)} of {len(both)} network-bound")
slow = [s for s in j["slowest"]["items"] if s["op"] == "allreduce"][:3]
check(slow and all(s["evidence"]["link"] == link for s in slow if s["verdict"] == "network"),
      "the slowest name " + link + ": " + str([(s["verdict"], s["evidence"]["link"]) for s in slow]))
sys.exit(1 if fail else 0)
PY
rc=$?
((rc == 0)) && echo "gpu_check: PASS" || echo "gpu_check: FAIL (report: $TMPD/report.txt; --keep DIR keeps it)"
exit "$rc"
