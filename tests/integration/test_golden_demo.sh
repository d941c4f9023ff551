#!/usr/bin/env bash
# Behaviour kept (issue 18): every output of `report` on a stored capture of
# `make demo` (text, --json, --html, --svg, --perfetto) is byte-identical to
# tests/fixtures/demo/ (tests/viz/goldens.sh; no lab, no root needed).  A
# change that only moves code must pass it unchanged; an intended change of
# an output regenerates the goldens (tests/viz/goldens.sh regen demo).
source "$(dirname "$0")/lib.sh"
check "report's five outputs on the demo capture match tests/fixtures/demo" \
	env BUILD="$BUILD" bash "$ROOT/tests/viz/goldens.sh" check demo
finish
