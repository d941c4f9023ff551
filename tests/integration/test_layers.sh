#!/usr/bin/env bash
# The tree's layers (issue 18), from the code's own #include lines
# (tests/layers/check_layers.py): no include from a lower floor of the data
# path into a higher one (none from probes/, rdma/ or bpf/ into userspace/),
# and no include cycle between modules; from the built objects (nm), no two
# files that call each other, even through others.  The checker is first
# shown each fault and must reject it.  No lab, no root.
source "$(dirname "$0")/lib.sh"
need_cmd python3
CHK=(python3 "$ROOT/tests/layers/check_layers.py")

# a small tree with an arrow running back up and a cycle
mkdir -p "$TMPD/up/lib" "$TMPD/up/userspace/cli" "$TMPD/cyc/userspace/model"
printf '#include "userspace/cli/x.h"\n' >"$TMPD/up/lib/a.c"
: >"$TMPD/up/userspace/cli/x.h"
printf '#include "userspace/model/b.h"\n' >"$TMPD/cyc/userspace/model/a.c"
printf '#include "userspace/model/a.h"\n' >"$TMPD/cyc/userspace/model/b.c"
: >"$TMPD/cyc/userspace/model/a.h"
: >"$TMPD/cyc/userspace/model/b.h"
out=$("${CHK[@]}" "$TMPD/up" 2>&1) && bad "the checker accepted an include from lib into userspace/cli"
check "the checker names an arrow back up ($out)" grep -q "lib/a.c: includes userspace/cli/x.h, a higher layer" <<<"$out"
out=$("${CHK[@]}" "$TMPD/cyc" 2>&1) && bad "the checker accepted a cycle"
check "the checker names a cycle ($out)" grep -q "include cycle between modules: userspace/model/a <-> userspace/model/b" <<<"$out"

# two objects that call each other
mkdir -p "$TMPD/objs/viz"
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' >"$TMPD/a.c"
printf 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n' >"$TMPD/b.c"
cc -c "$TMPD/a.c" -o "$TMPD/objs/viz/a.o" && cc -c "$TMPD/b.c" -o "$TMPD/objs/viz/b.o" ||
	bad "cannot build the checker's test objects"
out=$("${CHK[@]}" --objects "$TMPD/objs" 2>&1) && bad "the checker accepted a call cycle"
check "the checker names a call cycle ($out)" grep -q "call cycle between files: viz/a.c <-> viz/b.c" <<<"$out"

out=$("${CHK[@]}" --objects "$ROOT/$BUILD/obj" 2>&1) || true
check "fabtrace's objects: no two files call each other ($out)" grep -q "no call cycles" <<<"$out"
out=$("${CHK[@]}" "$ROOT" 2>&1) || true
check "the tree: every include goes down or across, no cycles ($out)" grep -q "no cycles" <<<"$out"
check "no include from probes/, rdma/ or bpf/ into userspace/" \
	test -z "$(grep -rn '#include "userspace/' "$ROOT/probes" "$ROOT/rdma" "$ROOT/bpf" 2>/dev/null)"
finish
