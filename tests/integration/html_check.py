#!/usr/bin/env python3
"""Check a `fabtrace report --html` page in a real headless Chromium.

Drives Chromium through the DevTools protocol with a minimal WebSocket
client (python3 standard library only), and checks that the page

  - loads without console errors or exceptions (and how long it takes),
  - draws a canvas that is not blank,
  - reports the expected numbers of ranks and collectives (window.fabtrace),
  - zooms on a real mouse-wheel event and on a drag-selection,
  - opens the details of a collective clicked with a real mouse click,
    showing the expected verdict,
  - finds collectives with its search (rank N, op, seq),
and saves a screenshot.  Prints "ok ..." / "FAIL ..." lines; exit 1 on any
failure, 2 on a setup problem.  Chromium runs in its own process group with
a fresh profile directory; both are removed on exit, failures included.

Usage: html_check.py --html PAGE [--shot PNG] [--ranks N] [--collectives N]
                     [--click-op OP --click-seq N --click-verdict V]
                     [--max-load-s S] [--chromium PATH]
"""
import argparse
import base64
import hashlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import checks
from checks import check


class WebSocket:
    """RFC 6455 client: text frames, masking, fragmentation, ping/pong, close."""

    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, url, timeout=30.0):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        path = u.path + (("?" + u.query) if u.query else "")
        req = (f"GET {path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("websocket: connection closed during the handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise ConnectionError(f"websocket: handshake refused: {lines[0]}")
        want = base64.b64encode(hashlib.sha1((key + self.GUID).encode()).digest()).decode()
        hdrs = {ln.split(":", 1)[0].strip().lower(): ln.split(":", 1)[1].strip() for ln in lines[1:] if ":" in ln}
        if hdrs.get("sec-websocket-accept") != want:
            raise ConnectionError("websocket: bad Sec-WebSocket-Accept")

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("websocket: connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send_frame(self, opcode, payload):
        hdr = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            hdr += bytes([0x80 | n])
        elif n < 65536:
            hdr += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            hdr += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(hdr + mask + body)

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def recv(self):
        """One whole message (str), or None after a close frame."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            fin, opcode = b0 & 0x80, b0 & 0x0F
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if opcode == 0x8:
                return None
            if opcode == 0x9:
                self._send_frame(0xA, data)
                continue
            if opcode == 0xA:
                continue
            parts.append(data)
            if fin:
                return b"".join(parts).decode("utf-8", "replace")

    def close(self):
        try:
            self._send_frame(0x8, b"")
        except OSError:
            pass
        self.sock.close()


class CDP:
    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.events = []

    def call(self, method, params=None, timeout=60.0):
        self.next_id += 1
        mid = self.next_id
        self.ws.sock.settimeout(timeout)
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params or {}}))
        while True:
            raw = self.ws.recv()
            if raw is None:
                raise ConnectionError("devtools closed the connection")
            msg = json.loads(raw)
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def pump(self, seconds):
        """Collect events for SECONDS."""
        end = time.time() + seconds
        while True:
            left = end - time.time()
            if left <= 0:
                return
            self.ws.sock.settimeout(left)
            try:
                raw = self.ws.recv()
            except (socket.timeout, TimeoutError):
                return
            if raw is None:
                return
            self.events.append(json.loads(raw))

    def eval(self, expr, timeout=60.0):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      timeout=timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError(f"evaluate {expr!r}: {d.get('exception', {}).get('description') or d.get('text')}")
        return r["result"].get("value")

    def mouse(self, kind, x, y, **kw):
        p = {"type": kind, "x": x, "y": y}
        p.update(kw)
        return self.call("Input.dispatchMouseEvent", p)


def key(cdp, k, code, vk):
    """A real key press (keyDown with its text, then keyUp)."""
    down = {"type": "keyDown", "key": k, "code": code, "windowsVirtualKeyCode": vk}
    if len(k) == 1:
        down["text"] = k
    cdp.call("Input.dispatchKeyEvent", down)
    cdp.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": k, "code": code, "windowsVirtualKeyCode": vk})


def console_errors(events):
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console." + p["type"] + ": " + " ".join(str(a.get("value", a.get("description", "")))
                                                           for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: " + p["entry"].get("text", ""))
    return out


def find_chromium(given):
    for c in ([given] if given else []) + ["chromium", "chromium-browser", "google-chrome"]:
        p = shutil.which(c) if c else None
        if p:
            return p
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--html", required=True)
    ap.add_argument("--shot")
    ap.add_argument("--ranks", type=int)
    ap.add_argument("--collectives", type=int)
    ap.add_argument("--click-op")
    ap.add_argument("--click-seq", type=int)
    ap.add_argument("--click-verdict")
    ap.add_argument("--search", action="append", default=[],
                    help="QUERY=MIN: the search finds at least MIN collectives")
    ap.add_argument("--max-load-s", type=float, default=20.0)
    ap.add_argument("--fragment", help="URL fragment, e.g. inflate=js (the page's own inflater)")
    ap.add_argument("--chromium")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=900)
    a = ap.parse_args()

    # a TERM (tests/run.sh's timeout) still runs the cleanup below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    exe = find_chromium(a.chromium)
    if not exe:
        print("setup: no chromium ('make deps' installs Debian's chromium)")
        return 2
    page = os.path.abspath(a.html)
    profile = tempfile.mkdtemp(prefix="fabtrace-chromium.")
    proc = None
    ws = None
    try:
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
                f"--user-data-dir={profile}", "--remote-debugging-port=0",
                f"--window-size={a.width},{a.height}", "about:blank"]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, "stderr.log"), "w"),
                                start_new_session=True)
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 30
        port = None
        while time.time() < deadline:
            if proc.poll() is not None:
                break
            try:
                with open(port_file) as f:
                    lines = f.read().split()
                if lines:
                    port = int(lines[0])
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        if not port:
            err = open(os.path.join(profile, "stderr.log")).read()[-2000:]
            print(f"setup: chromium did not start its DevTools endpoint:\n{err}")
            return 2
        target = None
        while time.time() < deadline and not target:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                    lst = json.load(r)
                target = next((t for t in lst if t.get("type") == "page"), None)
            except OSError:
                pass
            if not target:
                time.sleep(0.1)
        if not target:
            print("setup: chromium has no page target")
            return 2
        ws = WebSocket(target["webSocketDebuggerUrl"])
        cdp = CDP(ws)
        for dom in ("Runtime", "Log", "Page"):
            cdp.call(f"{dom}.enable")
        cdp.call("Emulation.setDeviceMetricsOverride",
                 {"width": a.width, "height": a.height, "deviceScaleFactor": 1, "mobile": False})

        # ---- load
        t0 = time.time()
        url = "file://" + urllib.parse.quote(page) + ("#" + a.fragment if a.fragment else "")
        cdp.call("Page.navigate", {"url": url})
        ready = False
        while time.time() - t0 < a.max_load_s + 30:
            try:
                ready = cdp.eval("document.body && document.body.dataset.ready === '1'")
            except RuntimeError:
                ready = False
            if ready or console_errors(cdp.events):
                break
            time.sleep(0.05)
        load_s = time.time() - t0
        size_mb = os.path.getsize(page) / 1e6
        if not check(ready, f"page ready (window.fabtrace set up) in {load_s:.2f} s ({size_mb:.2f} MB)"):
            cdp.pump(0.5)
            for e in console_errors(cdp.events):
                print("      " + e)
            return 1
        check(load_s <= a.max_load_s, f"loaded within {a.max_load_s:.0f} s")
        cdp.pump(0.3)

        st = cdp.eval("({ranks: fabtrace.ranks, collectives: fabtrace.collectives, calls: fabtrace.calls, "
                      "tracks: fabtrace.tracks, flagged: fabtrace.flagged, draws: fabtrace.draws, "
                      "drawMs: fabtrace.lastDrawMs, inflater: fabtrace.inflater, "
                      "view: {from: fabtrace.view.from, to: fabtrace.view.to}})")
        print(f"      state: {json.dumps(st)}")
        if a.fragment and "inflate=js" in a.fragment:
            check(st["inflater"] == "js", f"data inflated by the page's own inflater ({st['inflater']})")
        if a.ranks is not None:
            check(st["ranks"] == a.ranks, f"window.fabtrace.ranks = {st['ranks']} (report: {a.ranks})")
        if a.collectives is not None:
            check(st["collectives"] == a.collectives,
                  f"window.fabtrace.collectives = {st['collectives']} (report: {a.collectives})")

        # ---- a canvas that is not blank
        ink = cdp.eval("""(() => {
            const c = document.getElementById('ft-canvas');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let ink = 0; const colours = new Set();
            for (let i = 0; i < d.length; i += 16) {
              if (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245) ink++;
              colours.add((d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | (d[i + 2] >> 3));
            }
            return {w: c.width, h: c.height, ink: ink / (d.length / 16), colours: colours.size};
        })()""")
        check(ink["w"] > 300 and ink["h"] > 200 and ink["ink"] > 0.02 and ink["colours"] >= 8,
              f"canvas {ink['w']}x{ink['h']} is drawn: {100 * ink['ink']:.1f} % ink, {ink['colours']} colours")

        # ---- zoom with a real wheel event over the plot
        box = cdp.eval("(() => { const r = document.getElementById('ft-canvas').getBoundingClientRect();"
                       " return {x: r.left, y: r.top, w: r.width, h: r.height}; })()")
        cx, cy = box["x"] + 210 + (box["w"] - 210) * 0.5, box["y"] + min(box["h"] - 10, 120)
        v0 = st["view"]
        cdp.mouse("mouseMoved", cx, cy)
        cdp.mouse("mouseWheel", cx, cy, deltaX=0, deltaY=-600)
        cdp.pump(0.3)
        v1 = cdp.eval("({from: fabtrace.view.from, to: fabtrace.view.to})")
        check(v1["to"] - v1["from"] < 0.5 * (v0["to"] - v0["from"]) and (v1["from"], v1["to"]) != (v0["from"], v0["to"]),
              f"wheel zoom: view {v0['from']:.0f}..{v0['to']:.0f} -> {v1['from']:.0f}..{v1['to']:.0f} ns")
        # drag-select a range: the view becomes that range
        x1, x2 = box["x"] + 210 + (box["w"] - 210) * 0.25, box["x"] + 210 + (box["w"] - 210) * 0.5
        want = cdp.eval(f"(() => {{ const v = fabtrace.view, W = document.getElementById('ft-canvas')"
                        f".getBoundingClientRect().width - 210; const t = x => v.from + (x - 210) / W * (v.to - v.from);"
                        f" return [t({x1 - box['x']}), t({x2 - box['x']})]; }})()")
        cdp.mouse("mousePressed", x1, cy, button="left", clickCount=1)
        cdp.mouse("mouseMoved", (x1 + x2) / 2, cy, button="left")
        cdp.mouse("mouseMoved", x2, cy, button="left")
        cdp.mouse("mouseReleased", x2, cy, button="left", clickCount=1)
        cdp.pump(0.3)
        v2 = cdp.eval("({from: fabtrace.view.from, to: fabtrace.view.to})")
        span = want[1] - want[0]
        check(abs(v2["from"] - want[0]) < 0.02 * span + 1e3 and abs(v2["to"] - want[1]) < 0.02 * span + 1e3,
              f"drag-select zoom: view {v2['from']:.0f}..{v2['to']:.0f} ns (selected {want[0]:.0f}..{want[1]:.0f})")
        # keyboard: 0 shows the whole capture again
        key(cdp, "0", "Digit0", 48)
        cdp.pump(0.3)
        v3 = cdp.eval("({from: fabtrace.view.from, to: fabtrace.view.to})")
        check(abs((v3["to"] - v3["from"]) - (v0["to"] - v0["from"])) < 0.05 * (v0["to"] - v0["from"]),
              f"key 0: whole capture again ({v3['from']:.0f}..{v3['to']:.0f} ns)")

        # ---- click a collective: its details with the right verdict
        if a.click_seq is not None:
            idx = cdp.eval(f"(fabtrace.instances().find(i => i.seq === {a.click_seq}"
                           f"{' && i.op === ' + json.dumps(a.click_op) if a.click_op else ''}) || {{index: -1}}).index")
            if check(idx >= 0, f"collective {a.click_op or ''} #{a.click_seq} is in the page (index {idx})"):
                cdp.eval(f"fabtrace.zoomTo({idx})")
                cdp.pump(0.2)
                at = cdp.eval(f"fabtrace.locate({idx})")
                if check(at is not None, f"its bar is on screen at {at}"):
                    cdp.mouse("mouseMoved", at["x"], at["y"])
                    cdp.pump(0.1)
                    tipshown = cdp.eval("!document.getElementById('ft-tip').hidden && "
                                        "document.getElementById('ft-tip').textContent")
                    check(bool(tipshown) and str(a.click_seq) in tipshown,
                          f"hover tooltip: {str(tipshown)[:100]!r}")
                    cdp.mouse("mousePressed", at["x"], at["y"], button="left", clickCount=1)
                    cdp.mouse("mouseReleased", at["x"], at["y"], button="left", clickCount=1)
                    cdp.pump(0.3)
                    sel = cdp.eval("fabtrace.selected")
                    det = cdp.eval("(() => { const d = document.getElementById('ft-details'); return {hidden: d.hidden,"
                                   " verdict: d.dataset.verdict, title: document.getElementById('ft-details-title').textContent,"
                                   " text: d.textContent.slice(0, 4000)}; })()")
                    check(sel is not None and sel.get("index") == idx,
                          f"click selects it: {json.dumps(sel)}")
                    if a.click_verdict:
                        check(not det["hidden"] and det["verdict"] == a.click_verdict
                              and a.click_verdict in det["title"],
                              f"details panel open with verdict {det['verdict']!r} (report: {a.click_verdict!r}); "
                              f"title {det['title']!r}")
                        check(("Network evidence" in det["text"]) and ("Ranks" in det["text"]),
                              "details list the ranks and the network evidence")
                    # N: the next flagged collective (verdict other than ok), details follow
                    flagged = cdp.eval("fabtrace.flagged")
                    if flagged:
                        key(cdp, "n", "KeyN", 78)
                        cdp.pump(0.3)
                        nxt = cdp.eval("fabtrace.selected")
                        vd = cdp.eval("document.getElementById('ft-details').dataset.verdict")
                        check(nxt is not None and nxt.get("verdict") not in (None, "ok") and vd == nxt.get("verdict"),
                              f"key N: next flagged collective {nxt and nxt.get('op')} #{nxt and nxt.get('seq')}, "
                              f"verdict {vd!r}")
                    # L: the legend
                    key(cdp, "l", "KeyL", 76)
                    cdp.pump(0.2)
                    check(cdp.eval("!document.getElementById('ft-legend').hidden && "
                                   "document.getElementById('ft-legend').textContent.includes('straggler')"),
                          "key L shows the legend")
                    key(cdp, "Escape", "Escape", 27)
                    cdp.pump(0.2)
                    check(cdp.eval("fabtrace.selected === null && document.getElementById('ft-details').hidden"),
                          "Esc closes the details")
                    # the screenshot shows the clicked collective with its details
                    cdp.eval(f"fabtrace.select({idx})")
                    cdp.eval(f"fabtrace.zoomTo({idx})")

        # ---- search
        for s in a.search:
            q, _, mn = s.rpartition("=")
            n = cdp.eval(f"fabtrace.search({json.dumps(q)}).length")
            check(n >= int(mn), f"search {q!r}: {n} collectives (>= {mn})")

        # ---- screenshot, then console errors over the whole session
        if a.shot:
            cdp.pump(0.2)
            png = base64.b64decode(cdp.call("Page.captureScreenshot", {"format": "png"})["data"])
            with open(a.shot, "wb") as f:
                f.write(png)
            check(len(png) > 10000, f"screenshot {a.shot} ({len(png)} bytes)")
        cdp.pump(0.2)
        errs = console_errors(cdp.events) + list(cdp.eval("fabtrace.errors") or [])
        check(not errs, "no console errors" + (": " + "; ".join(errs[:5]) if errs else ""))
        return 1 if checks.failures else 0
    finally:
        if ws:
            try:
                ws.close()
            except OSError:
                pass
        if proc:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(timeout=10)
            # children of the group that outlived the leader
            for _ in range(50):
                try:
                    os.killpg(proc.pid, 0)
                except ProcessLookupError:
                    break
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
