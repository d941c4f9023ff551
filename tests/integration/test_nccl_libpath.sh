#!/usr/bin/env bash
# The library a process really loads (issue 15, item 5).  A pip wheel's
# libnccl.so.2 lives in site-packages/nvidia/nccl/lib and is dlopen()ed by
# path, while the loader cache may name another libnccl.so.2 (this machine
# has one under /usr/local/cuda-*/lib).  A stand-in libnccl.so.2 is put into
# a fake site-packages and dlopen()ed 300 ms after the start by
# tools/nccl_dlopen: record must attach to that copy (the calls it makes are
# recorded, from slots on that file, with the rank from
# ncclCommInitRankConfig), not only to the loader cache's.  Then the same
# NCCL functions inside a library named libtorch_cuda.so (NCCL linked
# statically into a framework): found by their symbols, not by the name.
# Last, the wheel's copy again with its path named nowhere on the command
# line (in the environment of a shell that execs the program): record must
# find it in the process's maps on its tick, as for a framework that finds
# NCCL itself; the program waits 600 ms after the dlopen before its first
# call, as a framework does between loading NCCL and its first collective.
# And once more under a system-wide recorder, which looks at every process
# about once a second: the program is seen before its dlopen (1.3 s after
# its start) and must be read again after it, its first call 1.5 s later.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3
DL=$ROOT/$BUILD/tools/nccl_dlopen
[[ -x $DL && -f $ROOT/$BUILD/tests/lib/libtorch_cuda.so ]] || { echo "FAIL: nccl_dlopen or libtorch_cuda.so not built"; exit 1; }
SP=$TMPD/venv/lib/python3/site-packages
mkdir -p "$SP/nvidia/nccl/lib" "$SP/torch/lib"
cp "$ROOT/$BUILD/tests/lib/libnccl.so.2" "$SP/nvidia/nccl/lib/libnccl.so.2"
cp "$ROOT/$BUILD/tests/lib/libtorch_cuda.so" "$SP/torch/lib/libtorch_cuda.so"
ITERS=12

for lib in "$SP/nvidia/nccl/lib/libnccl.so.2" "$SP/torch/lib/libtorch_cuda.so" unnamed systemwide; do
	if [[ $lib == systemwide ]]; then
		lib=$SP/nvidia/nccl/lib/libnccl.so.2
		name=systemwide-$(basename "$lib")
		start_record "$TMPD/$name.ftr" -i lo
		rc=0
		"$DL" --delay-ms 1300 --settle-ms 1500 --iters $ITERS "$lib" >"$TMPD/$name.wl" 2>"$TMPD/$name.err" || rc=$?
		stop_record
		check "system-wide record around nccl_dlopen stops with exit 0 ($REC_RC)" test "$REC_RC" = 0
	elif [[ $lib == unnamed ]]; then
		lib=$SP/nvidia/nccl/lib/libnccl.so.2
		name=unnamed-$(basename "$lib")
		# shellcheck disable=SC2016 # $0 and $NCCL_LIB are the inner shell's
		rc=0
		NCCL_LIB=$lib "$FT" record -q -o "$TMPD/$name.ftr" -- \
			sh -c 'exec "$0" --delay-ms 300 --settle-ms 600 --iters '$ITERS' "$NCCL_LIB"' "$DL" \
			>"$TMPD/$name.wl" 2>"$TMPD/$name.err" || rc=$?
	else
		name=$(basename "$lib")
		rc=0
		"$FT" record -q -o "$TMPD/$name.ftr" -- "$DL" --delay-ms 300 --iters $ITERS "$lib" \
			>"$TMPD/$name.wl" 2>"$TMPD/$name.err" || rc=$?
	fi
	check "nccl_dlopen $name exits 0 ($rc; $(tail -n1 "$TMPD/$name.err"))" test "$rc" = 0
	"$FT" report --json "$TMPD/$name.ftr" >"$TMPD/$name.json" || bad "report --json ($name)"
	python3 - "$TMPD/$name.json" "$TMPD/$name.wl" "$(readlink -f "$lib")" "$ITERS" <<'PY' || bad "$name checks (see above)"
import json, sys
j = json.load(open(sys.argv[1]))
w = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
lib, iters = sys.argv[3], int(sys.argv[4])
from checks import check, done
check(w["loaded"] == lib, f"the program loaded {w['loaded']}")
slots = j["phases"]["slots"]
mine = {s["symbol"] for s in slots if s["lib"] == lib}
want = {"ncclAllReduce", "ncclAlltoAll", "ncclGather", "ncclScatter", "ncclCommInitRankConfig",
        "ncclCommFinalize", "ncclCommDestroy"}
check(want <= mine, f"probes on the loaded copy {lib}: missing {sorted(want - mine)}")
others = sorted({s["lib"] for s in slots if s["lib"] != lib and s["lib_kind"] == "NCCL"})
print(f"     other NCCL libraries attached (not mapped by the program): {others}")
ranks = j["ranks"]
check(len(ranks) == 1 and ranks[0]["rank"] == 0, "rank 0 from ncclCommInitRankConfig: " + str([r["rank"] for r in ranks]))
ops = {o["op"]: o["calls"] for r in ranks for o in r["ops"]}
for op in ("allreduce", "alltoall", "gather", "scatter"):
    check(ops.get(op) == iters, f"{op}: {ops.get(op)} calls recorded, the program made {iters}")
done()
PY
done
finish
