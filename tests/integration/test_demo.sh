#!/usr/bin/env bash
# make demo's promise (issue 17): the report opens on the answer -- verdict,
# link, queue and time -- and the demo ends on it too, so the screen a user
# looks at after `make demo` shows it.  The demo shapes host 2's link to
# 100 Mbit/s with a tbf, so the answer must name that link and its queue.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd mpiexec.mpich

out=$TMPD/demo.out
(cd "$ROOT" && tools/demo.sh "$BUILD") >"$out" 2>&1
_rc=$?
check "demo exits 0 ($(tail -n 1 "$out"))" test "$_rc" = 0

python3 - "$out" <<'PY' || bad "demo answer checks (see above)"
import re, sys
text = open(sys.argv[1]).read()
from checks import check, done

rep = text.split("== fabtrace report", 1)[1].split("\n", 1)[1]
# (stderr's "fabtrace: report: wrote ..." notes may come first)
screen = [l for l in rep.split("\n\n")[0].splitlines() if not l.startswith("fabtrace: ")]
print("\n".join(screen))
check(len(screen) <= 15, f"the report's first screen: {len(screen)} lines")
ans = [l for l in screen if l.startswith("Answer: of ")]
m = ans and re.match(r"Answer: of (\d+) collectives, (\d+) network-bound", ans[0])
check(m and int(m.group(2)) >= 8, f"verdict: {ans}")
blame = [l for l in screen if l.strip().startswith("network-bound:")]
check(blame and re.search(r"on link eth0@ftdemo\d+h2 \(tbf 1:\)", blame[0]), f"link and queue: {blame}")
worst = [l for l in screen if "NETWORK link eth0@ftdemo" in l]
check(worst and re.search(r"at \+\d+\.\d+ s \(\d\d:\d\d:\d\d\.\d{3}Z\)", worst[0]) and "queueing" in worst[0],
      f"a worst collective with its time and queueing: {worst[:1]}")
tail = text.rstrip("\n").splitlines()[-len(screen):]
check(tail == screen, "the demo ends on the same answer")
done()
PY
finish
