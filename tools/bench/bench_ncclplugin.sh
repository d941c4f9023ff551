#!/usr/bin/env bash
# Benchmark 6: the cost of the NCCL profiler plugin per event.
#
# tools/nccl_profiler_driver --bench N calls the plugin's table as NCCL does
# (per all-reduce: a Coll, a KernelCh on v3+, 2 ProxyOps with 4 ProxySteps
# each: 11 or 12 events), on one thread with no traffic, and prints the
# nanoseconds per event.  Each ABI version runs untraced (the plugin's
# bookkeeping and its empty functions) and under `fabtrace record --` (each
# completed call and proxy op then also runs a uprobe and writes a record).
# Rows: {abi, traced, rep, colls, events_per_coll, ns_per_event}.
set -u
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_init ncclplugin
DRV=$BUILD/tools/nccl_profiler_driver
PLUGIN=$(readlink -f "$BUILD/libnccl-profiler-fabtrace.so")
[[ -x $DRV && -f $PLUGIN ]] || die "the driver or the plugin is not built; run 'make'"
N=$(pick 200000 20000)
REPS=$(reps 3 1)
W=$BENCH_TMP
bench_meta --busy "colls=$N" "reps=$REPS" "quick=$BENCH_QUICK"

row() { # ABI TRACED REP JSONFILE
	python3 -c 'import json,sys; d=json.loads(open(sys.argv[4]).read().strip().splitlines()[-1])
print(json.dumps({"type": "row", "abi": int(sys.argv[1]), "traced": sys.argv[2] == "1", "rep": int(sys.argv[3]),
    "colls": d["colls"], "events_per_coll": d["events_per_coll"], "ns_per_event": d["ns_per_event"]}))' "$@" >>"$BENCH_OUT"
}

for ((r = 1; r <= REPS; r++)); do
	for v in 1 2 3 4 5 6; do
		NCCL_PROFILER_PLUGIN=$PLUGIN "$DRV" --bench "$N" --abi "$v" >"$W/u.json" || die "driver v$v failed"
		row "$v" 0 "$r" "$W/u.json"
		NCCL_PROFILER_PLUGIN=$PLUGIN "$FT" record -q -o "$W/t.ftr" -- "$DRV" --bench "$N" --abi "$v" \
			>"$W/t.json" 2>"$W/t.err" || die "record -- driver v$v failed: $(tail -n1 "$W/t.err")"
		row "$v" 1 "$r" "$W/t.json"
		say "rep $r v$v: $(tail -n1 "$W/u.json") / traced $(tail -n1 "$W/t.json")"
	done
done
