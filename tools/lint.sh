#!/usr/bin/env bash
# Static checks on the C code (`make lint`): cppcheck and clang-tidy; fails on
# any finding.  Needs the BPF skeletons ($BUILD/*.skel.h, built by `make`).
# Suppressed, with reasons:
#   unreadVariable        records are filled field by field and passed on through
#                         their embedded header (&rec.hdr), which cppcheck cannot follow
#   valist.Uninitialized  clang 14 false positive on va_list passed down from va_start
#   optin.performance.Padding  table layouts are chosen for reading, not bytes
#
# Two things keep this fast and make cppcheck really check the code:
#  - The skeletons embed the BPF object as one string literal of several MB,
#    on which cppcheck spends many minutes per file; the checkers see copies
#    with that literal emptied (declarations unchanged).
#  - libbpf's statement macros (bpf_object__for_each_program, LIBBPF_OPTS) are
#    given to cppcheck in a forced include.  cppcheck does not read system
#    headers, and cppcheck 2.10 given a function-like macro with -D checks
#    nothing at all and fails to expand X-macro tables.
#
#   tools/lint.sh              every source file
#   tools/lint.sh FILE.c...    only these (quicker while working on a few files)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
srcs=(lib/*.c userspace/*/*.c probes/*.c probes/marker/*.c probes/nccl_profiler/*.c rdma/*.c viz/*.c tools/incast.c tools/ecn_send.c tools/nccl_sim.c tools/nccl_profiler_driver.c tools/nccl_dlopen.c tools/phase_workload.c tools/rdma_fixture.c tools/synthcap/*.c tests/lib/*.c tests/fuzz/*.c)
(($# == 0)) || srcs=("$@")

shopt -s nullglob
skels=("$BUILD"/*.skel.h)
if ((${#skels[@]} == 0)); then
	echo "lint: no BPF skeletons in $BUILD; run make first" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in "${skels[@]}"; do
	# the blob: `return (const void *)"\` ... `...";`
	awk '/return \(const void \*\)"\\$/ { sub(/"\\$/, "\"\";"); print; skip = 1; next }
	     skip { if (/";$/) skip = 0; next }
	     { print }' "$s" >"$tmp/${s##*/}"
done
cat >"$tmp/lint_defs.h" <<'EOF'
#define bpf_object__for_each_program(pos, obj) for ((pos) = NULL; (pos);)
#define LIBBPF_OPTS(TYPE, NAME, ...) struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }
EOF

rc=0
cppcheck --enable=warning,style,performance --std=c11 --quiet --error-exitcode=1 \
	--suppress=missingIncludeSystem --suppress=unreadVariable \
	--include="$tmp/lint_defs.h" -I. -I"$tmp" -I"$BUILD" "${srcs[@]}" tools/allreduce.c || rc=1
checks='-*,bugprone-*,-bugprone-easily-swappable-parameters,-bugprone-reserved-identifier'
checks+=',-bugprone-narrowing-conversions,-bugprone-assignment-in-if-condition,cert-err34-c'
checks+=',clang-analyzer-*,-clang-analyzer-security.insecureAPI.*,-clang-analyzer-valist.Uninitialized'
checks+=',-clang-analyzer-optin.performance.Padding'
# one clang-tidy per file, $JOBS at a time; findings inside the skeletons
# bpftool generates (*.skel.h) are not ours to fix
out=$(printf '%s\0' "${srcs[@]}" |
	xargs -0 -I{} -P"$JOBS" clang-tidy --quiet -checks="$checks" {} -- \
		-std=c11 -D_GNU_SOURCE -I. -I"$tmp" -I"$BUILD" 2>&1 |
	grep -E "warning:|error:" | grep -v '\.skel\.h:[0-9]' || true)
if [[ -n $out ]]; then
	echo "$out"
	rc=1
fi
((rc == 0)) && echo "lint: clean"
exit $rc
