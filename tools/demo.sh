#!/usr/bin/env bash
# The built-in demo: a 4-host lab whose host 2 sits behind a slow link
# (tbf 100 Mbit/s, 30 kB queue), a real MPI all-reduce across all hosts, an
# incast into host 1 and a few ECN CE-marked datagrams -- recorded by fabtrace
# and reported.  Everything it creates carries a fresh prefix and is removed
# on exit, also on failure or Ctrl-C.  Usage: tools/demo.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
FT=$PWD/$BUILD/fabtrace
OUT=$PWD/$BUILD/demo.ftr
export LAB_BIN=$PWD/$BUILD/tools
# shellcheck source=lab.sh
source tools/lab.sh

[[ $(id -u) -eq 0 ]] || { echo "demo: needs root (network namespaces, BPF); run 'sudo make demo'" >&2; exit 1; }
P=ftdemo$((RANDOM % 100))
REC=
cleanup() {
	[[ -n $REC ]] && kill -INT "$REC" 2>/dev/null && wait "$REC" 2>/dev/null
	lab_down "$P" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { printf '\n== %s\n' "$*"; }

step "lab $P: 4 hosts on a bridge; host 2's link shaped to 100 Mbit/s with a 30 kB tbf queue"
lab_gc >/dev/null 2>&1 || true
lab_up "$P" 4 "h2=100mbit:limit=30kb"
args=()
for i in 1 2 3 4; do args+=(-i "$(lab_ns "$P" "$i")/eth0" -i "$(lab_sw "$P")/p$i"); done

step "recording the lab's 8 interfaces into $OUT (bins of 100 us)"
rm -f "$OUT"
"$FT" record -o "$OUT" "${args[@]}" &
REC=$!
for _ in $(seq 50); do [[ -s $OUT ]] && break; sleep 0.1; done
sleep 0.5

step "MPI_Allreduce: 4 ranks, one per host, 1 MiB x 10 with 20 ms of compute between (MPICH over TCP; steps marked with the marker API)"
lab_mpi "$P" --bytes 1m --iters 10 --timeout 120 -- --steps --compute 20000

step "incast: hosts 2-4 send 2 MiB each to host 1 at once"
lab_exec "$P" 1 "$LAB_BIN/incast" sink --port 5001 --expect-bytes 6m --duration 60 &
sink=$!
sleep 0.2
senders=()
for h in 2 3 4; do
	lab_exec "$P" "$h" "$LAB_BIN/incast" send --to "$(lab_addr 1):5001" --bytes 2m >/dev/null &
	senders+=($!)
done
wait "$sink" "${senders[@]}"

step "ECN: host 3 sends 100 UDP datagrams marked CE to host 4"
lab_exec "$P" 4 "$LAB_BIN/ecn_send" --sink --port 6000 --count 100 --timeout 10 >/dev/null &
sink=$!
sleep 0.2
lab_exec "$P" 3 "$LAB_BIN/ecn_send" --to "$(lab_addr 4):6000" --count 100 --interval-us 500 >/dev/null
wait "$sink"
sleep 0.5

step "stopping the recorder"
kill -INT "$REC"
wait "$REC"
REC=
lab_down "$P"

step "fabtrace report $OUT"
"$FT" report --top 5 --html "${OUT%.ftr}.html" --svg "${OUT%.ftr}.svg" "$OUT"
cat <<EOT

The capture stays in $OUT, its timelines in ${OUT%.ftr}.html (open it in a
browser: zoom, click a collective) and ${OUT%.ftr}.svg (the slowest all-reduce):
  $BUILD/fabtrace report --json $OUT    # the same, machine-readable
  $BUILD/fabtrace report -q --perfetto demo.json $OUT   # for ui.perfetto.dev
  $BUILD/fabtrace info $OUT             # header, probes, record counts, lost events

The answer again, for the screen you are looking at (fabtrace report --brief):
EOT
"$FT" report --brief "$OUT"
