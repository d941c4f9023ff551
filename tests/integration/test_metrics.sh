#!/usr/bin/env bash
# The metrics endpoint of `fabtrace top --listen`, scraped with curl
# during MPI traffic over a shaped link (host 2: tbf 100 Mbit/s, 30 kB).
# Without an Accept header it answers Prometheus text 0.0.4, which promtool
# and prometheus_client's text parser must accept; asked for OpenMetrics it
# answers that, which prometheus_client's OpenMetrics parser must accept.
# Two OpenMetrics scrapes must be valid OpenMetrics 1.0 text (checked by a parser here:
# families, TYPE/UNIT/HELP, label syntax, _total on counters, no duplicate
# series, # EOF last), every counter must be monotonic between them, the
# metrics docs/top.md documents must be there (and nothing undocumented),
# and the numbers plausible.  Other paths get 404, other methods 405, an
# oversized request 431, one client too many 503.  A non-loopback address
# is refused unless --allow-remote says so.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd curl
need_cmd mpiexec.mpich
need_cmd python3
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null || skip "needs python3-prometheus-client ('make deps' installs it)"
LAB_TAG=ftD
lab_start 3 "h2=100mbit:limit=30kb"
H2=$(lab_ns "$LAB" 2)
BG=()
m_cleanup() {
	local p
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null; done
	cleanup
}
trap m_cleanup EXIT

# start_top ERRFILE ARGS...: top in the background (REC_PID, so lib.sh stops it); its address in ADDR
start_top() {
	local err=$1 i
	shift
	"$FT" top "$@" 2>"$err" >/dev/null &
	REC_PID=$!
	for ((i = 0; i < 600; i++)); do
		ADDR=$(sed -n 's|^fabtrace: serving metrics on http://\(.*\)/metrics$|\1|p' "$err")
		[[ -n $ADDR ]] && return 0
		kill -0 "$REC_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "FAIL: top --listen did not start: $(cat "$err")"
	exit 1
}

start_top "$TMPD/top.err" --headless --listen 127.0.0.1:0
check "listening on loopback ($ADDR)" grep -q '^127\.0\.0\.1:[0-9]*$' <<<"$ADDR"
lab_mpi "$LAB" --bytes 1m --iters 40 --timeout 150 >"$TMPD/mpi.out" 2>&1 &
BG+=($!)
sleep 4
OM=(-H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1')
curl -sS "${OM[@]}" -D "$TMPD/h1" -o "$TMPD/m1" "http://$ADDR/metrics" || bad "first scrape"
sleep 3
curl -sS "${OM[@]}" -D "$TMPD/h2" -o "$TMPD/m2" "http://$ADDR/metrics" || bad "second scrape"
curl -sS -D "$TMPD/h3" -o "$TMPD/m3" "http://$ADDR/metrics" || bad "third scrape (no Accept)"
check "no Accept: Prometheus text 0.0.4 ($(grep -i '^content-type' "$TMPD/h3" | tr -d '\r'))" \
	grep -qix 'content-type: text/plain; version=0.0.4; charset=utf-8' <(tr -d '\r' <"$TMPD/h3")
if command -v promtool >/dev/null; then
	promtool check metrics <"$TMPD/m3" >"$TMPD/promtool.out" 2>&1
	_rc=$?
	check "promtool check metrics accepts the 0.0.4 answer ($(head -c 300 "$TMPD/promtool.out"))" test "$_rc" = 0
else
	bad "promtool missing ('make deps' installs prometheus)"
fi
/usr/bin/python3 - "$TMPD/m3" "$TMPD/m1" <<'PY' || bad "prometheus_client parses both answers (see above)"
import sys
from checks import check, done
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om_families
text = list(text_string_to_metric_families(open(sys.argv[1]).read()))
om = list(om_families(open(sys.argv[2]).read()))
# the text format has no info type: its gauge keeps the sample name fabtrace_build_info
tnames = {f.name for f in text}
onames = {f.name + "_info" if f.type == "info" else f.name for f in om}
check(len(text) > 20 and len(om) > 20 and tnames == onames,
      f"prometheus_client: {len(text)} families in text 0.0.4, {len(om)} in OpenMetrics, "
      f"same names {sorted(tnames ^ onames)}")
types = {f.name: f.type for f in text}
check(types.get("fabtrace_build_info") == "gauge" and types.get("fabtrace_lost_events") == "counter",
      f"types: build_info {types.get('fabtrace_build_info')}, lost_events {types.get('fabtrace_lost_events')}")
done()
PY
check "Content-Type is OpenMetrics 1.0 ($(grep -i '^content-type' "$TMPD/h1" | tr -d '\r'))" \
	grep -qix 'content-type: application/openmetrics-text; version=1.0.0; charset=utf-8' <(tr -d '\r' <"$TMPD/h1")
check "HTTP/1.1 200" grep -q '^HTTP/1.1 200 OK' "$TMPD/h2"

python3 - "$TMPD/m1" "$TMPD/m2" "$ROOT/docs/top.md" "$H2" <<'PY' || bad "exposition checks (see above)"
import math, re, sys
from checks import check, done

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
SAMPLE = re.compile(rf"^({NAME})(\{{(?:{LABEL}(?:,{LABEL})*)?\}})? (\S+)$")
TYPES = {"counter", "gauge", "info", "stateset", "histogram", "gaugehistogram", "summary", "unknown"}

def parse(path):
    """OpenMetrics text -> {family: {type, unit, help, samples: {(name, labels): value}}}"""
    text = open(path, encoding="utf-8").read()
    errs = []
    if not text.endswith("# EOF\n"):
        errs.append("does not end with '# EOF' and a newline")
    lines = text.split("\n")[:-1]
    if lines and lines[-1] == "# EOF":
        lines = lines[:-1]
    fams, cur, seen_series = {}, None, set()
    for n, line in enumerate(lines, 1):
        if line == "# EOF":
            errs.append(f"line {n}: # EOF before the end")
        elif line.startswith("# "):
            parts = line.split(" ", 3)
            if len(parts) < 3 or parts[1] not in ("TYPE", "HELP", "UNIT") or not re.fullmatch(NAME, parts[2]):
                errs.append(f"line {n}: bad metadata: {line}")
                continue
            kind, fam = parts[1], parts[2]
            arg = parts[3] if len(parts) > 3 else ""
            if fam != cur:
                if fam in fams:
                    errs.append(f"line {n}: family {fam} is split or repeated")
                fams[fam] = {"type": "unknown", "unit": "", "help": None, "samples": {}, "meta": set()}
                cur = fam
            f = fams[fam]
            if kind in f["meta"]:
                errs.append(f"line {n}: second {kind} for {fam}")
            f["meta"].add(kind)
            if f["samples"]:
                errs.append(f"line {n}: {kind} after samples of {fam}")
            if kind == "TYPE":
                if arg not in TYPES:
                    errs.append(f"line {n}: unknown type {arg}")
                f["type"] = arg
            elif kind == "UNIT":
                f["unit"] = arg
                if arg and not fam.endswith("_" + arg):
                    errs.append(f"line {n}: unit {arg} is not the suffix of {fam}")
            else:
                f["help"] = arg
                if re.search(r'(?<!\\)"|\\[^\\n"]', arg):
                    errs.append(f"line {n}: HELP not escaped: {arg}")
        elif line.startswith("#") or not line:
            errs.append(f"line {n}: stray line {line!r}")
        else:
            m = SAMPLE.match(line)
            if not m:
                errs.append(f"line {n}: bad sample: {line}")
                continue
            name, labels, value = m.group(1), m.group(2) or "", m.group(3)
            if cur is None:
                errs.append(f"line {n}: sample before any family")
                continue
            f = fams[cur]
            suffix = {"counter": ("_total", "_created"), "info": ("_info",)}.get(f["type"], ("",))
            if not any(name == cur + s for s in suffix):
                errs.append(f"line {n}: sample {name} does not belong to {f['type']} family {cur}")
            try:
                v = float(value)
            except ValueError:
                errs.append(f"line {n}: bad value {value}")
                continue
            if f["type"] == "counter" and (math.isnan(v) or v < 0):
                errs.append(f"line {n}: counter value {value}")
            lset = tuple(sorted(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', labels)))
            if len({k for k, _ in lset}) != len(lset):
                errs.append(f"line {n}: repeated label name")
            key = (name, lset)
            if key in seen_series:
                errs.append(f"line {n}: duplicate series {name}{labels}")
            seen_series.add(key)
            f["samples"][key] = v
    for fam, f in fams.items():
        if "TYPE" not in f["meta"] or not f["help"]:
            errs.append(f"family {fam}: no TYPE or no HELP")
    return fams, errs

a, ea = parse(sys.argv[1])
b, eb = parse(sys.argv[2])
for e in (ea + eb)[:20]:
    print("  ", e)
check(not ea and not eb, f"both scrapes are valid OpenMetrics ({len(a)} families, "
      f"{sum(len(f['samples']) for f in a.values())} series)")
counters = 0
went_down = []
for fam, f in a.items():
    if f["type"] != "counter":
        continue
    for key, v in f["samples"].items():
        counters += 1
        w = b.get(fam, {"samples": {}})["samples"].get(key)
        if w is None or w < v:
            went_down.append((key, v, w))
check(counters > 30 and not went_down, f"{counters} counters monotonic between the scrapes {went_down[:3]}")

doc = open(sys.argv[3]).read()
documented = set(re.findall(r"`(fabtrace_[a-z_]+)", doc))
exposed = set(a) | set(b)
undoc = [x for x in exposed if x not in documented and x + "_total" not in documented
         and x + "_info" not in documented]
check(not undoc, f"every exposed family is documented in docs/top.md {undoc}")
needed = ["fabtrace_interface_bytes_total", "fabtrace_interface_peak_bin_bytes", "fabtrace_microbursts_total",
          "fabtrace_tcp_retransmits_total", "fabtrace_drops_total", "fabtrace_ce_packets_total",
          "fabtrace_qdisc_backlog_max_bytes", "fabtrace_qdisc_sojourn_max_seconds", "fabtrace_lost_events_total",
          "fabtrace_collectives_total", "fabtrace_rdma_stat_total", "fabtrace_interface_speed_bytes"]
names = {name for f in b.values() for (name, _) in f["samples"]} | {fam for fam in b}
missing = [n for n in needed if n not in names and n.replace("_total", "") not in b]
check(not missing, f"the documented names are exposed {missing}")
check(all(n in documented for n in needed), "and documented")

def val(fams, fam, name, **labels):
    f = fams.get(fam, {"samples": {}})
    for (n, lset), v in f["samples"].items():
        d = dict(lset)
        if n == name and all(d.get(k) == x for k, x in labels.items()):
            return v
    return None

h2 = sys.argv[4]
t1 = val(a, "fabtrace_interface_bytes", "fabtrace_interface_bytes_total", netns=h2, interface="eth0", direction="tx")
t2 = val(b, "fabtrace_interface_bytes", "fabtrace_interface_bytes_total", netns=h2, interface="eth0", direction="tx")
check(t1 is not None and t2 is not None and t2 - t1 > 1e6, f"eth0@{h2} tx bytes grew between the scrapes: {t1} -> {t2}")
bu = val(b, "fabtrace_microbursts", "fabtrace_microbursts_total", netns=h2, interface="eth0", direction="tx")
check(bu is not None and bu > 0, f"microbursts on eth0@{h2}: {bu}")
sp = val(b, "fabtrace_interface_speed_bytes", "fabtrace_interface_speed_bytes", netns=h2, interface="eth0", direction="tx")
check(sp == 100e6 / 8, f"its capacity is the tbf rate in bytes/s: {sp}")
pk = max(val(x, "fabtrace_interface_peak_bin_bytes", "fabtrace_interface_peak_bin_bytes", netns=h2,
              interface="eth0", direction="tx") or 0 for x in (a, b))
check(pk > 1250, f"a bin above the shaped rate (1250 B per 100 us): {pk} B")
bl = max(val(x, "fabtrace_qdisc_backlog_max_bytes", "fabtrace_qdisc_backlog_max_bytes", netns=h2, interface="eth0") or 0
         for x in (a, b))
check(0 < bl <= 32000, f"a backlog on its tbf: {bl} B")
lost = [v for (n, l), v in b["fabtrace_lost_events"]["samples"].items()]
check(len(lost) == 4 and sum(lost) == 0, f"lost events shown for every source, none lost: {lost}")
co = val(b, "fabtrace_collectives", "fabtrace_collectives_total", op="allreduce")
check(co is not None and co > 0, f"all-reduces counted: {co}")
bw = val(b, "fabtrace_bin_width_seconds", "fabtrace_bin_width_seconds")
check(bw == 1e-4, f"bin width {bw} s")
done()
PY

# other paths, methods and abuse
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
check "unknown path: 404" test "$(code "http://$ADDR/")" = 404
check "another unknown path: 404" test "$(code "http://$ADDR/metrics/x")" = 404
check "POST: 405" test "$(code -X POST "http://$ADDR/metrics")" = 405
check "a query string is ignored" test "$(code "http://$ADDR/metrics?x=1")" = 200
python3 - "$ADDR" <<'PY' || bad "bounded requests and clients (see above)"
import socket, sys, time
from checks import check, done
host, port = sys.argv[1].rsplit(":", 1)
def conn():
    s = socket.create_connection((host, int(port)), timeout=5)
    return s
def reply(s):
    data = b""
    while True:
        d = s.recv(65536)
        if not d:
            return data
        data += d
s = conn()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)   # the request and the FIN in one segment
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
s.shutdown(socket.SHUT_WR)   # what nc -N and some probes do once they have asked
r = reply(s)
s.close()
check(r.startswith(b"HTTP/1.1 200"), f"a request, then the client's side shut: answered {r[:40]!r}")
s = conn()
s.sendall(b"GET /metrics HTTP/1.1\r\nX-Pad: " + b"a" * 5000)
r = reply(s)
s.close()
check(r.startswith(b"HTTP/1.1 431"), f"an endless header: {r[:40]!r}")
time.sleep(0.3)
idle = [conn() for _ in range(8)]
time.sleep(0.3)
s = conn()
r = reply(s)
check(r.startswith(b"HTTP/1.1 503"), f"a 9th client while 8 idle ones are open: {r[:40]!r}")
time.sleep(6.5)   # idle clients are dropped after 5 s (checked every second)
gone = sum(1 for c in idle if reply(c) == b"")
check(gone == 8, f"idle clients closed after the timeout: {gone} of 8")
s = conn()
s.sendall(b"GET /metrics HTTP/1.0\r\nAccept: application/openmetrics-text\r\n\r\n")
r = reply(s)
check(r.startswith(b"HTTP/1.1 200") and r.endswith(b"# EOF\n"), "then served again")
done()
PY
stop_record INT
check "top --headless exits 0 on SIGINT" test "$REC_RC" = 0
check "and the port is closed" test "$(code "http://$ADDR/metrics")" = 000

# never an open listener unless asked
rc=0
"$FT" top --headless --no-phases --listen 0.0.0.0:0 -d 1s >"$TMPD/o.txt" 2>"$TMPD/e.txt" || rc=$?
check "0.0.0.0 without --allow-remote: refused as a usage error, exit 2 ($(cat "$TMPD/e.txt"))" \
	test "$rc" = 2 -a "$(wc -l <"$TMPD/e.txt")" = 1
check "  saying how to mean it" grep -q -- '--allow-remote' "$TMPD/e.txt"
rc=0
"$FT" top --json --listen '[::]:0' >"$TMPD/o.json" 2>"$TMPD/e.txt" || rc=$?
check "[::] with --json: refused, the error as JSON ($(cat "$TMPD/o.json"))" \
	test "$rc" -ne 0 -a "$(jget "$TMPD/o.json" "'allow-remote' in j['error']")" = True
start_top "$TMPD/remote.err" --headless --no-phases --listen 0.0.0.0:0 --allow-remote -i "$H2/eth0"
check "0.0.0.0 with --allow-remote: listening ($ADDR)" grep -q '^0\.0\.0\.0:[0-9]*$' <<<"$ADDR"
check "  and served" test "$(code "http://127.0.0.1:${ADDR##*:}/metrics")" = 200
# a port in use (that server's): one line, exit 1, before the probes load, so
# --record leaves the file it names as it was (it was replaced by a capture
# that said it stopped for its duration)
echo old >"$TMPD/kept.ftr"
rc=0
"$FT" top --headless --no-phases --listen "127.0.0.1:${ADDR##*:}" --record "$TMPD/kept.ftr" -d 2s \
	>/dev/null 2>"$TMPD/e.txt" || rc=$?
check "a port in use: exit 1, one line ($(cat "$TMPD/e.txt"))" test "$rc" = 1 -a "$(wc -l <"$TMPD/e.txt")" = 1
check "  that says so" grep -q "Address already in use" "$TMPD/e.txt"
check "  and --record's file untouched" test "$(cat "$TMPD/kept.ftr")" = old
stop_record TERM
check "top --headless exits 0 on SIGTERM" test "$REC_RC" = 0
# a snapshot that cannot be written: said on stderr, exit 1
rc=0
"$FT" top --json -n 2 -r 200ms --no-phases -i "$H2/eth0" >/dev/full 2>"$TMPD/e.txt" || rc=$?
check "top --json > /dev/full: exit 1, said once ($(cat "$TMPD/e.txt"))" \
	test "$rc" = 1 -a "$(grep -c 'writing to the standard output' "$TMPD/e.txt")" = 1
finish
