#!/usr/bin/env python3
# Insert one 802.1Q tag (TPID 0x8100, the given VID, priority 0) after the
# MAC addresses of every frame of a classic pcap file of Ethernet frames.
# Used by experiments/capture.sh when the kernel has no 802.1Q support.
# usage: capture-vlan-tag.py VID IN.pcap OUT.pcap
import struct
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: capture-vlan-tag.py VID IN.pcap OUT.pcap")
    vid = int(sys.argv[1], 0)
    if not 0 < vid < 4095:
        sys.exit("capture-vlan-tag.py: VID must be 1..4094")
    data = open(sys.argv[2], "rb").read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        sys.exit("capture-vlan-tag.py: %s is not a classic pcap file" % sys.argv[2])
    linktype = struct.unpack(end + "I", data[20:24])[0] & 0x0FFFFFFF
    if linktype != 1:
        sys.exit("capture-vlan-tag.py: link type %d is not Ethernet" % linktype)
    snaplen = struct.unpack(end + "I", data[16:20])[0]
    out = bytearray(data[:16] + struct.pack(end + "I", snaplen + 4) + data[20:24])
    tag = struct.pack(">HH", 0x8100, vid)
    pos = 24
    while pos < len(data):
        sec, frac, caplen, wirelen = struct.unpack(end + "IIII", data[pos:pos + 16])
        frame = data[pos + 16:pos + 16 + caplen]
        if len(frame) != caplen:
            sys.exit("capture-vlan-tag.py: %s is truncated" % sys.argv[2])
        pos += 16 + caplen
        if caplen >= 14:
            frame = frame[:12] + tag + frame[12:]
            caplen += 4
            wirelen += 4
        out += struct.pack(end + "IIII", sec, frac, caplen, wirelen) + frame
    open(sys.argv[3], "wb").write(out)


main()
