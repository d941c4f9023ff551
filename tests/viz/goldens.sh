#!/usr/bin/env bash
# Golden outputs of the timeline renderers (fabtrace report --svg, --perfetto,
# --speedscope, --folded) on small synthetic captures from tools/synthcap.
#
#   tests/viz/goldens.sh check    render into a scratch directory and diff against
#                                 tests/fixtures/viz/ (exit 1 on any difference)
#   tests/viz/goldens.sh regen    rewrite tests/fixtures/viz/ (after an intended
#                                 change of a renderer: review `git diff` of it!)
#   make BUILD=build regen-goldens   the same as regen
#
# The captures themselves are not stored: synthcap writes the same records for
# the same options (its zlib blocks may differ between zlib versions, the
# records do not).  The HTML timeline has its own checks.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
FT=$ROOT/$BUILD/fabtrace
SYN=$ROOT/$BUILD/tools/synthcap
GOLD=$ROOT/tests/fixtures/viz
what=${1:-check}

[[ -x $FT && -x $SYN ]] || { echo "goldens: build $FT and $SYN first (make BUILD=$BUILD)" >&2; exit 2; }

# render DIR: every golden into DIR
render() {
	local d=$1
	# 2 hosts x 2 ranks, 4 allreduces: #2 congested on h2 (network), #3 with rank 3 late (rank)
	"$SYN" -q -o "$d/tiny.ftr" --duration 400ms --hosts 2 --ranks-per-host 2 --congest 2:2 --straggler 3:3 --seed 7
	"$FT" report -q --svg "$d/tiny.svg" "$d/tiny.ftr"
	"$FT" report -q --from 0 --to 400ms --svg "$d/tiny-all.svg" --perfetto "$d/tiny.perfetto.json" \
		--speedscope "$d/tiny.speedscope.json" --folded "$d/tiny.folded" "$d/tiny.ftr"
	"$FT" report -q --weight bytes --folded "$d/tiny-bytes.folded" "$d/tiny.ftr"
	"$FT" report -q --from 0.12 --to 0.16 --svg "$d/tiny-window.svg" --perfetto "$d/tiny-window.perfetto.json" \
		"$d/tiny.ftr"
	# 3 hosts, no markers, no counters, no loss: the plain path
	"$SYN" -q -o "$d/plain.ftr" --duration 300ms --hosts 3 --no-steps --no-rdma --no-lost --congest 1:1 \
		--straggler 2:2:20ms --seed 3
	"$FT" report -q --svg "$d/plain.svg" --perfetto "$d/plain.perfetto.json" --speedscope "$d/plain.speedscope.json" \
		--folded "$d/plain.folded" "$d/plain.ftr"
	rm -f "$d/tiny.ftr" "$d/plain.ftr"
}

case $what in
regen)
	mkdir -p "$GOLD"
	rm -f "$GOLD"/*.svg "$GOLD"/*.json "$GOLD"/*.folded
	render "$GOLD"
	echo "goldens: rewrote $(find "$GOLD" -type f | wc -l) files in tests/fixtures/viz/; review them with git diff"
	;;
check)
	tmp=$(mktemp -d /tmp/fabtrace-goldens.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	render "$tmp"
	rc=0
	for f in "$GOLD"/*; do
		n=$(basename "$f")
		if ! cmp -s "$f" "$tmp/$n"; then
			echo "goldens: $n differs from tests/fixtures/viz/$n:"
			diff -u "$f" "$tmp/$n" | head -n 20 || true
			rc=1
		fi
	done
	for f in "$tmp"/*; do
		[[ -e $GOLD/$(basename "$f") ]] || { echo "goldens: $(basename "$f") has no golden"; rc=1; }
	done
	((rc == 0)) && echo "goldens: $(find "$GOLD" -type f | wc -l) outputs match tests/fixtures/viz/"
	exit $rc
	;;
*)
	echo "usage: tests/viz/goldens.sh check|regen" >&2
	exit 2
	;;
esac
