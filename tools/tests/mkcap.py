#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""mkcap.py OUT.pcap [--bad-csum I,J,...] [--frames N] [--snaplen S]

Writes an Ethernet capture of N IPv4/TCP frames with ToS 0x28 whose
payloads are 100 small float32 values (they compress to a few bytes), every
checksum right except the TCP checksum of the frames listed in --bad-csum
(0-based), which is left zero as a sender with checksum offload captures
it. Used by tools/tests/test_safety.sh.
"""
import struct
import sys


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def frame(i, bad):
    payload = b"".join(struct.pack("<f", ((k * 7 + i) % 13 - 6) * 1e-5) for k in range(100))
    src, dst = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    tcp = struct.pack("!HHIIBBHHH", 40000, 5001, 1000 + i * len(payload), 1, 5 << 4, 0x18, 65535, 0, 0)
    seg = tcp + payload
    if not bad:
        c = csum(src + dst + struct.pack("!BBH", 0, 6, len(seg)) + seg)
        seg = seg[:16] + struct.pack("!H", c) + seg[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0x28, 20 + len(seg), i, 0x4000, 64, 6, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    return eth + ip + seg


def main():
    args = sys.argv[1:]
    out, bad, n, snap = args[0], set(), 4, 65535
    k = 1
    while k < len(args):
        if args[k] == "--bad-csum":
            bad = {int(x) for x in args[k + 1].split(",") if x}
        elif args[k] == "--frames":
            n = int(args[k + 1])
        elif args[k] == "--snaplen":
            snap = int(args[k + 1])
        k += 2
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snap, 1))
        for i in range(n):
            fr = frame(i, i in bad)
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)) + fr)


main()
