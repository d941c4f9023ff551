#!/usr/bin/env python3
"""TCP flows for test_config.sh: a sink, and a sender whose socket may set
its congestion control (TCP_CONGESTION), each living SECONDS.  Once
connected, each writes to REPORT what its own socket says of itself: local
and peer address, its congestion control (TCP_CONGESTION) and whether ECN
was negotiated (TCP_INFO's TCPI_OPT_ECN), as one JSON line.

    config_flows.py sink REPORT PORT SECONDS [BIND]
    config_flows.py send REPORT HOST PORT SECONDS [CC]

An address with a colon is IPv6, reported as ss and fabtrace write it
([addr]:port).
"""
import json
import socket
import sys
import time

TCPI_OPT_ECN = 8


def report(path, c):
    time.sleep(0.2)  # the handshake's last ACK has reached the peer
    info = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    cc = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0].decode()
    with open(path, "w") as f:
        json.dump({"local": name(c.getsockname()), "peer": name(c.getpeername()), "cc": cc,
                   "ecn": "on" if info[5] & TCPI_OPT_ECN else "off"}, f)


def name(sockname):
    a, p = sockname[:2]
    return f"[{a}]:{p}" if ":" in a else f"{a}:{p}"


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def sink(path, port, secs, bind):
    s = socket.socket(family(bind))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((bind, port))
    s.listen(4)
    s.settimeout(secs)
    c, _ = s.accept()
    report(path, c)
    c.settimeout(0.5)
    end = time.time() + secs
    while time.time() < end:
        try:
            if not c.recv(65536):
                break
        except socket.timeout:
            pass


def send(path, host, port, secs, cc):
    c = socket.socket(family(host))
    if cc:
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    for _ in range(50):  # the sink may not listen yet
        try:
            c.connect((host, port))
            break
        except ConnectionRefusedError:
            time.sleep(0.1)
    report(path, c)
    end = time.time() + secs
    while time.time() < end:
        c.send(b"x" * 8192)
        time.sleep(0.02)


if __name__ == "__main__":
    if sys.argv[1] == "sink":
        sink(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else "0.0.0.0")
    else:
        send(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), sys.argv[6] if len(sys.argv) > 6 else "")
