#!/usr/bin/env bash
# shellcheck disable=SC2317  # render_viz and render_demo are called as render_$set
# Golden outputs, two sets:
#   viz   the timeline renderers (fabtrace report --svg, --perfetto,
#         --speedscope, --folded) on small synthetic captures from
#         tools/synthcap; the captures are not stored: synthcap writes the same
#         records for the same options (its zlib blocks may differ between zlib
#         versions, the records do not);
#   demo  every output of `report` (text, --json, --html, --svg, --perfetto)
#         on a stored capture of `make demo` (tests/fixtures/demo/demo.ftr):
#         a change of layout in userspace/ must leave them byte-identical
#         (text and JSON stored whole, the others as their SHA-256).
#
#   tests/viz/goldens.sh check [SET]   render into a scratch directory and diff
#                                      against tests/fixtures/SET/ (exit 1 on any
#                                      difference); no SET: both
#   tests/viz/goldens.sh regen [SET]   rewrite tests/fixtures/SET/ (after an
#                                      intended change of an output: review
#                                      `git diff` of it!)
#   make BUILD=build regen-goldens     regen of both
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
FT=$ROOT/$BUILD/fabtrace
SYN=$ROOT/$BUILD/tools/synthcap
what=${1:-check}
sets=${2:-viz demo}

[[ -x $FT && -x $SYN ]] || { echo "goldens: build $FT and $SYN first (make BUILD=$BUILD)" >&2; exit 2; }

# render_viz DIR: every golden of the viz set into DIR
render_viz() {
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

# render_demo DIR: every output of report on the stored demo capture into DIR
# (run from DIR with a relative name: the text and JSON name the capture)
render_demo() {
	local d=$1 src=$ROOT/tests/fixtures/demo/demo.ftr copied=
	[[ $d/demo.ftr -ef $src ]] || { cp "$src" "$d/demo.ftr"; copied=1; }
	(
		cd "$d"
		"$FT" report demo.ftr >report.txt
		"$FT" report --json demo.ftr >report.json
		"$FT" report -q --html report.html --svg report.svg --perfetto report.perfetto.json demo.ftr
		# the big ones (6 MB together) are kept as their SHA-256
		for f in report.html report.svg report.perfetto.json; do
			sha256sum <"$f" | cut -d' ' -f1 >"$f.sha256"
			rm -f "$f"
		done
	)
	[[ -z $copied ]] || rm -f "$d/demo.ftr"
}

# files DIR: the golden files in DIR (the stored capture is input)
files() {
	find "$1" -maxdepth 1 -type f ! -name demo.ftr | sort
}

for set in $sets; do
	[[ $set == viz || $set == demo ]] || { echo "usage: tests/viz/goldens.sh check|regen [viz|demo]" >&2; exit 2; }
done
rc=0
for set in $sets; do
	GOLD=$ROOT/tests/fixtures/$set
	case $what in
	regen)
		mkdir -p "$GOLD"
		files "$GOLD" | xargs -r rm -f
		"render_$set" "$GOLD"
		echo "goldens: rewrote $(files "$GOLD" | wc -l) files in tests/fixtures/$set/; review them with git diff"
		;;
	check)
		tmp=$(mktemp -d /tmp/fabtrace-goldens.XXXXXX)
		"render_$set" "$tmp"
		n=0
		while read -r f; do
			n=$((n + 1))
			b=$(basename "$f")
			if ! cmp -s "$f" "$tmp/$b"; then
				echo "goldens: $b differs from tests/fixtures/$set/$b:"
				diff -u "$f" "$tmp/$b" | head -n 20 || true
				rc=1
			fi
		done < <(files "$GOLD")
		while read -r f; do
			[[ -e $GOLD/$(basename "$f") ]] || { echo "goldens: $(basename "$f") has no golden in tests/fixtures/$set/"; rc=1; }
		done < <(files "$tmp")
		rm -rf "$tmp"
		((rc == 0)) && echo "goldens: $n outputs match tests/fixtures/$set/"
		;;
	*)
		echo "usage: tests/viz/goldens.sh check|regen [viz|demo]" >&2
		exit 2
		;;
	esac
done
exit $rc
